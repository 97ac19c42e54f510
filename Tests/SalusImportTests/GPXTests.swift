import Foundation
import SalusImport
import SalusModel
import Testing

/// GPX 1.1 routes, written and read with libxml2: a route written reads back as the same
/// locations, and Apple Health's own GPX (healthkit-to-sqlite's fixture) parses.
@Suite("GPX routes")
struct GPXTests {
    static let appleGPX = ExportReaderTests.fixtures.appendingPathComponent(
        "dogsheep-healthkit-to-sqlite/zip_contents/apple_health_export/workout-routes/route_2019-06-11_3.00pm.gpx")

    /// `a` and `b` equal, coordinates within 1e-9 (the writer keeps 9 decimals).
    static func same(_ a: [RouteLocation], _ b: [RouteLocation]) -> Bool {
        func close(_ x: Double?, _ y: Double?) -> Bool {
            switch (x, y) {
            case (nil, nil): true
            case (let x?, let y?): abs(x - y) <= 1e-9
            default: false
            }
        }
        return a.count == b.count && zip(a, b).allSatisfy { p, q in
            p.timestamp == q.timestamp && close(p.latitude, q.latitude) && close(p.longitude, q.longitude)
                && close(p.altitude, q.altitude) && close(p.horizontalAccuracy, q.horizontalAccuracy)
                && close(p.verticalAccuracy, q.verticalAccuracy) && close(p.course, q.course) && close(p.speed, q.speed)
        }
    }

    @Test("A route written as GPX reads back as the same locations, absent values absent")
    func roundTrip() throws {
        let start = Date(timeIntervalSince1970: 1_795_250_000)
        let locations = (0..<2_500).map { index in
            let step = Double(index)
            return RouteLocation(
                timestamp: start.addingTimeInterval(step + (index % 4 == 0 ? 0.25 : 0)), latitude: -33.8 - step * 1e-5,
                longitude: 151.2 + step * 3e-6, altitude: index % 3 == 0 ? nil : 12.5 - step / 1000,
                horizontalAccuracy: index % 5 == 0 ? nil : 4.5, verticalAccuracy: index % 7 == 0 ? nil : 3,
                course: index % 2 == 0 ? nil : Double(index % 360), speed: index % 11 == 0 ? nil : 3.25)
        }
        let document = GPX.write(locations, name: "Run <harbour> & back")
        let text = String(decoding: document, as: UTF8.self)
        #expect(text.contains("<name>Run &lt;harbour&gt; &amp; back</name>"))
        #expect(text.contains("xmlns=\"http://www.topografix.com/GPX/1/1\""))
        let read = try GPX.read(document)
        #expect(Self.same(read, locations))
        #expect(WorkoutRoute(locations: read).validationErrors().isEmpty)
    }

    @Test("Apple Health's GPX parses: every trkpt, with its elevation, time and extensions")
    func appleExport() throws {
        let data = try Data(contentsOf: Self.appleGPX)
        let text = String(decoding: data, as: UTF8.self)
        let points = text.components(separatedBy: "<trkpt ").count - 1
        let locations = try GPX.read(data)
        #expect(points == 3 && locations.count == points)
        let first = try #require(locations.first)
        #expect(first.latitude == 37.781672 && first.longitude == -122.396397)
        #expect(first.altitude == 4.076904 && first.speed == 0.180883 && first.course == 206.252884)
        #expect(first.horizontalAccuracy == 8.063116 && first.verticalAccuracy == 6.428697)
        #expect(first.timestamp == Date(timeIntervalSince1970: 1_560_290_442))
        #expect(WorkoutRoute(locations: locations).validationErrors().isEmpty)
    }

    @Test("CoreLocation's -1 reads as absent; a point without a time is refused naming it")
    func oddPoints() throws {
        let gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1.5" lon="2.5"><time>2019-06-11T22:00:42Z</time><extensions><speed>-1</speed><course>-1.0</course><hAcc>-1</hAcc></extensions></trkpt>
            <trkpt lat="1.6" lon="2.6"><ele>3</ele></trkpt>
            </trkseg></trk></gpx>
            """
        #expect(throws: GPX.ReadError.self) { try GPX.read(Data(gpx.utf8)) }
        do {
            _ = try GPX.read(Data(gpx.utf8))
        } catch {
            #expect(error.description == "trkpt[1] (line 4): no time")
        }
        let first = try GPX.read(Data(gpx.replacingOccurrences(of: "<ele>3</ele>", with: "<time>2019-06-11T22:00:43Z</time>").utf8))
        #expect(first.count == 2)
        #expect(first[0].speed == nil && first[0].course == nil && first[0].horizontalAccuracy == nil)
    }
}
