import Foundation
import SalusImport
import SalusModel
import Testing

/// GPX and TCX files that are not what they should be: each is refused whole, nothing of it
/// returned, with the line (and column for XML errors), the element and the value; and what
/// real files vary in (namespace prefixes) reads the same.
@Suite("GPX and TCX: bad input and namespaces")
struct ActivityFileBadInputTests {
    static let catalog = ExportReaderTests.catalog

    /// A GPX 1.1 document of one track whose points are `points` (each a `<trkpt …>…</trkpt>`),
    /// the TrackPointExtension declared with `prefix`.
    static func gpx(_ points: [String], prefix: String = "gpxtpx") -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Test" xmlns="http://www.topografix.com/GPX/1/1"
              xmlns:\(prefix)="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
              <trk><type>running</type><trkseg>
            \(points.joined(separator: "\n"))
              </trkseg></trk>
            </gpx>
            """.utf8)
    }

    static func point(_ second: Int, hr: String = "150", prefix: String = "gpxtpx", lat: String = "47.5") -> String {
        """
            <trkpt lat="\(lat)" lon="8.5"><ele>400</ele><time>2024-05-01T10:00:\(String(format: "%02d", second))Z</time>\
        <extensions><\(prefix):TrackPointExtension><\(prefix):hr>\(hr)</\(prefix):hr></\(prefix):TrackPointExtension></extensions></trkpt>
        """
    }

    /// The error reading `data`, or nil when it reads.
    static func error(_ data: Data) -> ActivityFileError? {
        do {
            _ = try ActivityFile.read(data, catalog: catalog)
            return nil
        } catch {
            return error
        }
    }

    /// The line of `data` holding `text` (1-based).
    static func line(of text: String, in data: Data) -> Int {
        let lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
        return (lines.firstIndex { $0.contains(text) } ?? -1) + 1
    }

    @Test("heart rate is found by the TrackPointExtension's namespace URI, whatever its prefix; an hr of another namespace is not heart rate")
    func anyPrefix() throws {
        let prefixed = try ActivityFile.read(Self.gpx([Self.point(0, prefix: "zz"), Self.point(5, hr: "151", prefix: "zz")], prefix: "zz"), catalog: Self.catalog)
        let usual = try ActivityFile.read(Self.gpx([Self.point(0), Self.point(5, hr: "151")]), catalog: Self.catalog)
        #expect(prefixed[0].track.points.map(\.heartRate) == [150, 151])
        #expect(prefixed[0].track.points.map(\.heartRate) == usual[0].track.points.map(\.heartRate))
        // The extension as the default namespace of its element, no prefix at all.
        let unprefixed = Self.gpx([
            """
                <trkpt lat="47.5" lon="8.5"><time>2024-05-01T10:00:00Z</time><extensions>\
            <TrackPointExtension xmlns="http://www.garmin.com/xmlschemas/TrackPointExtension/v2"><hr>99</hr></TrackPointExtension></extensions></trkpt>
            """
        ])
        #expect(try ActivityFile.read(unprefixed, catalog: Self.catalog)[0].track.points.map(\.heartRate) == [99])
        // `gpxtpx:` bound to some other namespace: its hr is not Garmin's heart rate.
        let other = Data(
            String(decoding: Self.gpx([Self.point(0)]), as: UTF8.self)
                .replacingOccurrences(of: "http://www.garmin.com/xmlschemas/TrackPointExtension/v1", with: "http://example.com/not-garmin")
                .utf8)
        let read = try ActivityFile.read(other, catalog: Self.catalog)
        #expect(read[0].track.points.map(\.heartRate) == [nil])
        #expect(read[0].samples.isEmpty)
    }

    @Test("elements nested deeper than the limit are refused naming the line, before the rest is read")
    func deepXML() throws {
        let deep = String(repeating: "<x>", count: 200) + String(repeating: "</x>", count: 200)
        let data = Self.gpx([
            Self.point(0),
            """
                <trkpt lat="47.5" lon="8.5"><time>2024-05-01T10:00:05Z</time><extensions>
            \(deep)
                </extensions></trkpt>
            """,
        ])
        let error = try #require(Self.error(data))
        #expect(error.element == "x")
        #expect(error.message.contains("nested more than 32 deep"))
        #expect(error.line == Self.line(of: "<x><x>", in: data))
        // 100,000 deep: the same refusal, no stack or memory growing with it.
        let deeper = Data(("<gpx xmlns=\"http://www.topografix.com/GPX/1/1\">" + String(repeating: "<trk>", count: 100_000)).utf8)
        #expect(Self.error(deeper)?.message.contains("nested more than 32 deep") == true)
    }

    @Test("a point without a time among timed ones is refused naming its line; a track with no time at all is a planned route")
    func missingTimes() throws {
        let untimed = "    <trkpt lat=\"47.6\" lon=\"8.6\"><ele>401</ele></trkpt>"
        let data = Self.gpx([Self.point(0), untimed, Self.point(10)])
        let error = try #require(Self.error(data))
        #expect(error.element == "trkpt.time")
        #expect(error.line == Self.line(of: "lat=\"47.6\"", in: data))
        #expect(error.message.contains("missing"))

        let planned = Self.gpx([untimed, untimed.replacingOccurrences(of: "47.6", with: "47.7")])
        let refusal = try #require(Self.error(planned))
        #expect(refusal.element == "trk" && refusal.line == Self.line(of: "<trk>", in: planned))
        #expect(refusal.message.contains("planned route") && refusal.message.contains("2 points"))

        // GPX holding only a route (rte): not a recording.
        let route = Data(
            """
            <gpx version="1.1" creator="x" xmlns="http://www.topografix.com/GPX/1/1"><rte><rtept lat="1" lon="2"/><rtept lat="1.1" lon="2"/></rte></gpx>
            """.utf8)
        #expect(Self.error(route)?.message.contains("planned route") == true)

        // TCX: a Trackpoint without Time.
        let tcx = Data(
            """
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
            <Activities><Activity Sport="Running"><Id>2024-05-01T10:00:00Z</Id>
            <Lap StartTime="2024-05-01T10:00:00Z"><TotalTimeSeconds>10</TotalTimeSeconds><Track>
            <Trackpoint><Time>2024-05-01T10:00:00Z</Time><HeartRateBpm><Value>120</Value></HeartRateBpm></Trackpoint>
            <Trackpoint><HeartRateBpm><Value>121</Value></HeartRateBpm></Trackpoint>
            </Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """.utf8)
        let tcxError = try #require(Self.error(tcx))
        #expect(tcxError.element == "Trackpoint.Time" && tcxError.line == 5)
    }

    @Test("numbers that are not numbers are refused naming the element, the value and the line")
    func badNumbers() throws {
        let badRate = Self.gpx([Self.point(0), Self.point(5, hr: "1e9x")])
        var error = try #require(Self.error(badRate))
        #expect(error.element == "trkpt.extensions.TrackPointExtension.hr" && error.value == "1e9x")
        #expect(error.line == Self.line(of: "1e9x", in: badRate))

        let badLatitude = Self.gpx([Self.point(0, lat: "91.5")])
        error = try #require(Self.error(badLatitude))
        #expect(error.element == "trkpt.lat" && error.value == "91.5" && error.line == Self.line(of: "91.5", in: badLatitude))

        let nan = Self.gpx([Self.point(0, lat: "NaN")])
        #expect(Self.error(nan)?.element == "trkpt.lat")

        let badTime = Data(String(decoding: Self.gpx([Self.point(0)]), as: UTF8.self)
            .replacingOccurrences(of: "2024-05-01T10:00:00Z", with: "yesterday").utf8)
        error = try #require(Self.error(badTime))
        #expect(error.element == "trkpt.time" && error.value == "yesterday")

        let tcx = Data(
            """
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
              xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
            <Activities><Activity Sport="Biking"><Id>2024-05-01T10:00:00Z</Id>
            <Lap StartTime="2024-05-01T10:00:00Z"><TotalTimeSeconds>10</TotalTimeSeconds><Track>
            <Trackpoint><Time>2024-05-01T10:00:00Z</Time><Extensions><ns3:TPX><ns3:Watts>lots</ns3:Watts></ns3:TPX></Extensions></Trackpoint>
            </Track></Lap></Activity></Activities></TrainingCenterDatabase>
            """.utf8)
        error = try #require(Self.error(tcx))
        #expect(error.element == "Trackpoint.Extensions.TPX.Watts" && error.value == "lots" && error.line == 5)
    }

    @Test("a TCX Trackpoint's position off the Earth (latitude past ±90, longitude past ±180) or half given is refused naming Trackpoint.Position, the value and its line")
    func tcxPositions() throws {
        func tcx(_ position: String) -> Data {
            Data(
                """
                <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
                <Activities><Activity Sport="Running"><Id>2024-05-01T10:00:00Z</Id>
                <Lap StartTime="2024-05-01T10:00:00Z"><TotalTimeSeconds>10</TotalTimeSeconds><Track>
                <Trackpoint><Time>2024-05-01T10:00:00Z</Time><Position><LatitudeDegrees>47.5</LatitudeDegrees><LongitudeDegrees>8.5</LongitudeDegrees></Position></Trackpoint>
                <Trackpoint><Time>2024-05-01T10:00:05Z</Time>
                <Position>\(position)</Position></Trackpoint>
                </Track></Lap></Activity></Activities></TrainingCenterDatabase>
                """.utf8)
        }
        for (position, value) in [
            ("<LatitudeDegrees>92.6</LatitudeDegrees><LongitudeDegrees>8.5</LongitudeDegrees>", "92.6, 8.5"),
            ("<LatitudeDegrees>-90.5</LatitudeDegrees><LongitudeDegrees>8.5</LongitudeDegrees>", "-90.5, 8.5"),
            ("<LatitudeDegrees>47.5</LatitudeDegrees><LongitudeDegrees>180.25</LongitudeDegrees>", "47.5, 180.25"),
        ] {
            let error = try #require(Self.error(tcx(position)), "\(value) was read")
            #expect(error.element == "Trackpoint.Position" && error.value == value && error.line == 6)
        }
        let half = try #require(Self.error(tcx("<LatitudeDegrees>47.5</LatitudeDegrees>")))
        #expect(half.element == "Trackpoint.Position" && half.line == 6)
        #expect(Self.error(tcx("<LatitudeDegrees>-90</LatitudeDegrees><LongitudeDegrees>180</LongitudeDegrees>")) == nil)
    }

    @Test("XML that is not well-formed is refused with libxml2's message, its line and column; a DOCTYPE is never read")
    func notWellFormed() throws {
        let good = String(decoding: Self.gpx([Self.point(0), Self.point(5)]), as: UTF8.self)
        let broken = Data(good.replacingOccurrences(of: "</ele>", with: "</elf>").utf8)
        let error = try #require(Self.error(broken))
        #expect(error.element == "XML")
        #expect(error.line == Self.line(of: "</elf>", in: broken))
        #expect(error.column != nil)
        #expect(error.message.contains("mismatch") || error.message.contains("ele"))

        let cut = Data(good.utf8.prefix(good.utf8.count - 40))
        #expect(Self.error(cut)?.element == "XML")

        let entity = Data(
            """
            <?xml version="1.0"?>
            <!DOCTYPE gpx [<!ENTITY boom "boom">]>
            <gpx version="1.1" creator="&boom;" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="1" lon="2"><time>2024-05-01T10:00:00Z</time></trkpt></trkseg></trk></gpx>
            """.utf8)
        let refusal = try #require(Self.error(entity))
        #expect(refusal.element == "DOCTYPE" && refusal.line == 2)
    }

    @Test("a file above the size limit is refused before it is parsed, naming its size and the limit")
    func tooLarge() throws {
        var limits = ImportLimits()
        limits.maximumSideFileBytes = 1000
        let data = Self.gpx((0..<20).map { Self.point($0) })
        #expect(data.count > 1000)
        do {
            _ = try ActivityFile.read(data, catalog: Self.catalog, limits: limits)
            Issue.record("read")
        } catch {
            #expect(error.value == "\(data.count) bytes" && error.message.contains("1000"))
        }
    }

    @Test("a file of more track points than the limit is refused at the first point past it, naming its line")
    func tooManyPoints() throws {
        var limits = ImportLimits()
        limits.maximumActivityPoints = 5
        let data = Self.gpx((0..<6).map { Self.point($0) })
        #expect(try ActivityFile.read(Self.gpx((0..<5).map { Self.point($0) }), catalog: Self.catalog, limits: limits)[0].track.points.count == 5)
        do {
            _ = try ActivityFile.read(data, catalog: Self.catalog, limits: limits)
            Issue.record("read")
        } catch {
            #expect(error.element == "trkpt" && error.value == "point 6" && error.message.contains("at most 5"))
            #expect(error.line == Self.line(of: "10:00:05Z", in: data))
        }
    }

    @Test("the file as the daemon's FileImporters reads it: one workout with its route and samples under gpx.<creator>; a refusal as a FileProblem naming the line")
    func throughFileImporters() throws {
        let data = Self.gpx([Self.point(0), Self.point(5, hr: "151")])
        let read = try FileImporters.read(Array(data), format: .gpx, catalog: Self.catalog)
        #expect(read.source.appID == "gpx.test")
        #expect(read.workouts.count == 1 && read.workouts[0].route.count == 2 && read.workouts[0].samples.count == 2)
        #expect(read.workouts[0].routeSyncIdentifier.hasPrefix(ActivityFile.identityPrefix))
        let bad = Self.gpx([Self.point(0), Self.point(5, hr: "x")])
        #expect {
            _ = try FileImporters.read(Array(bad), format: .gpx, catalog: Self.catalog)
        } throws: { error in
            guard let problem = error as? FileProblem else { return false }
            return problem.field == "line \(Self.line(of: ">x<", in: bad)): trkpt.extensions.TrackPointExtension.hr" && problem.value == "x"
        }
    }
}
