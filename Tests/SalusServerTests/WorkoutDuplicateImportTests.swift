import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusTestSupport
import Testing

/// The same workout from two sources (a watch's FIT file, and the GPX Strava makes of it) through
/// the owner's client, against the daemon's services in process: one workout by default, the
/// second source's figures reported as an alternate of it; two workouts when they differ in
/// activity type or time, or when the person asks to keep both.
@Suite("AdminClient: the same workout from two sources imported once")
struct WorkoutDuplicateImportTests {
    static let run = "dtcooper-python-fitparse/garmin-fenix-5-run.fit"

    static func report(_ admin: AdminClient, _ files: [(String, Data)], keepDuplicates: Bool = false) async throws -> ImportReport {
        var last: ImportReport?
        let options = ImportOptions(keepDuplicates: keepDuplicates)
        for try await event in admin.importFiles(FileImportServiceTests.chunks(files), options: options) {
            if case .report(let report) = event { last = report }
        }
        return try #require(last)
    }

    /// The FIT run imported; its stored workout and the GPX a service exporting it would write
    /// from its route (every location with its time and elevation, a heart rate of 150 on each),
    /// as `sport`, `shift` seconds later.
    static func fitAndGPX(_ admin: AdminClient) async throws -> (fit: (String, Data), workout: ImportedWorkout, gpx: (String, Double) -> (String, Data)) {
        let fit = try FileImportServiceTests.file(run)
        let report = try await report(admin, [fit])
        let workout = try #require(report.files.first?.workouts.first)
        let routes = try await admin.routes(of: try #require(UUID(uuidString: workout.uuid)))
        let locations = try #require(routes.first?.locations)
        try #require(locations.count > 10)
        let utc = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!)
        func gpx(_ sport: String, _ shift: Double) -> (String, Data) {
            var text = """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx creator="StravaGPX" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" \
                xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
                <trk><name>Morning Run</name><type>\(sport)</type><trkseg>

                """
            for location in locations {
                text += "<trkpt lat=\"\(location.latitude)\" lon=\"\(location.longitude)\">"
                if let altitude = location.altitude { text += "<ele>\(altitude)</ele>" }
                text += "<time>\(location.timestamp.addingTimeInterval(shift).formatted(utc))</time>"
                text += "<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>150</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>\n"
            }
            text += "</trkseg></trk></gpx>\n"
            return ("strava/\(sport)-\(Int(shift)).gpx", Data(text.utf8))
        }
        return (fit, workout, gpx)
    }

    @Test("a run from the watch's FIT file and the same run as Strava's GPX: one workout, the GPX reported as its alternate with its figures, its heart rates saved under its own source, no second route; importing either again adds nothing")
    func sameRunTwoSources() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (fit, stored, gpx) = try await Self.fitAndGPX(admin)
        let strava = gpx("running", 0)

        let report = try await Self.report(admin, [strava])
        let file = try #require(report.files.first)
        #expect(file.format == "gpx" && file.source.hasPrefix("gpx."), "\(file)")
        let alternate = try #require(file.workouts.first)
        let fitSource = try #require(try await admin.samples(SampleQueryDescriptor(type: .workout)).first?.sourceRevision.appID)
        #expect(fitSource.hasPrefix("fit."))
        #expect(alternate.alternateOf == "\(fitSource) \(stored.uuid)")
        #expect(alternate.uuid == stored.uuid && !alternate.keptExisting)
        #expect(alternate.activityType == 37 && alternate.distance > 0 && alternate.routeLocations == 0)
        // Its heart rates are saved under its own source; no workout or route of it.
        #expect(file.saved >= UInt64(10), "\(file)")
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.count == 1 && workouts[0].uuid.uuidString == stored.uuid)
        #expect(try await admin.routes(of: workouts[0].uuid).count == 1)
        let heartRates = try await admin.samples(SampleQueryDescriptor(type: SampleType("HKQuantityTypeIdentifierHeartRate")))
        #expect(heartRates.contains { $0.sourceRevision.appID == file.source })
        #expect(heartRates.contains { $0.sourceRevision.appID == fitSource })

        // Again, either file: nothing is added, and the GPX is still the alternate.
        let again = try await Self.report(admin, [fit, strava])
        #expect(again.saved == 0 && again.keptExisting > 0, "\(again)")
        #expect(again.files[0].workouts.first?.keptExisting == true && again.files[0].workouts.first?.alternateOf == "")
        #expect(again.files[1].workouts.first?.alternateOf == alternate.alternateOf)
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).count == 1)
    }

    @Test("the same track as a ride, or two hours later: a workout of its own each, neither an alternate")
    func otherActivityOrTime() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (_, _, gpx) = try await Self.fitAndGPX(admin)
        let report = try await Self.report(admin, [gpx("cycling", 0), gpx("running", 7200)])
        #expect(report.files.map { $0.workouts.first?.alternateOf } == ["", ""], "\(report.files)")
        #expect(report.files.map { $0.workouts.first?.activityType } == [13, 37])
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.count == 3)
        for workout in workouts { #expect(try await admin.routes(of: workout.uuid).count == 1) }
    }

    @Test("asked to keep duplicates, the same run from FIT and GPX is two workouts, each with its route; imported again, still two")
    func keepDuplicates() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (fit, _, gpx) = try await Self.fitAndGPX(admin)
        let strava = gpx("running", 0)
        let report = try await Self.report(admin, [strava], keepDuplicates: true)
        #expect(report.files.first?.workouts.first?.alternateOf == "" && report.files.first?.workouts.first?.keptExisting == false)
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).count == 2)
        let again = try await Self.report(admin, [fit, strava])
        #expect(again.saved == 0, "\(again)")
        #expect(again.files.map { $0.workouts.first?.alternateOf } == ["", ""] && again.files.allSatisfy { $0.workouts.first?.keptExisting == true })
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.count == 2)
        for workout in workouts { #expect(try await admin.routes(of: workout.uuid).count == 1) }
    }
}
