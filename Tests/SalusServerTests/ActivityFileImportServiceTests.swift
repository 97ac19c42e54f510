import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusStore
import SalusTestSupport
import Testing

/// GPX and TCX files and a Gadgetbridge database through the owner's client, what `salusctl
/// import` does with them, against the daemon's services in process: saved as workouts with
/// their routes and samples, named in the report, and once only however often they are imported.
@Suite("AdminClient: GPX, TCX and Gadgetbridge imported")
struct ActivityFileImportServiceTests {
    /// `../shared/data`, where the workplace keeps the files (their READMEs allow them only there).
    static let shared: URL = {
        if let shared = ProcessInfo.processInfo.environment["SALUS_SHARED_DATA"] { return URL(fileURLWithPath: shared) }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/data").standardizedFileURL
    }()

    /// Every GPX and TCX file of shared/data/gpx-tcx with the points with a position oracle.json
    /// gives it, and the Gadgetbridge export.
    static func files() throws -> (files: [(String, Data)], located: [String: Int]) {
        let folder = shared.appendingPathComponent("gpx-tcx")
        struct Oracle: Decodable {
            struct File: Decodable {
                var file: String
                var points_with_position: Int
                var points_with_time: Int
            }
            var files: [File]
        }
        let oracle = try JSONDecoder().decode(Oracle.self, from: Data(contentsOf: folder.appendingPathComponent("oracle.json")))
        var files: [(String, Data)] = []
        var located: [String: Int] = [:]
        for entry in oracle.files.sorted(by: { $0.file < $1.file }) {
            files.append((entry.file, try Data(contentsOf: folder.appendingPathComponent(entry.file))))
            if entry.points_with_time > 0 { located[entry.file] = entry.points_with_position }
        }
        files.append((
            "Gadgetbridge",
            try Data(contentsOf: shared.appendingPathComponent("gadgetbridge/diamondburned-telegraf-plugin-gadgetbridge/gadgetbridge.db"))
        ))
        return (files, located)
    }

    @Test("every GPX and TCX file of shared/data and the Gadgetbridge export: a workout per recorded file with its whole route, Strava's planned route refused saying why, the watch's samples; imported again, nothing is added")
    func everyFileTwice() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (files, located) = try Self.files()
        let report = try await FileImportServiceTests.report(admin, files)
        try #require(report.files.count == files.count)
        #expect(report.files.map(\.path) == files.map(\.0))

        for entry in report.files where entry.format == "gpx" || entry.format == "tcx" {
            if let positions = located[entry.path] {
                #expect(entry.notImported.isEmpty && entry.workouts.count == 1, "\(entry)")
                #expect(entry.workouts.first?.routeLocations == UInt64(positions), "\(entry.path)")
                #expect(entry.source.hasPrefix(entry.format + "."))
            } else {
                #expect(entry.notImported.contains("planned route") && entry.workouts.isEmpty, "\(entry)")
            }
        }
        #expect(report.files.filter { $0.format == "gpx" || $0.format == "tcx" }.count == 13)
        // Garmin Connect's run.gpx writes one timestamp twice, with the same heart rate: one sample.
        #expect(report.files.filter { $0.keptExisting > 0 }.map { "\($0.path) \($0.keptExisting)" } == ["mapbox-togeojson/run.gpx 1"])
        let gadgetbridge = try #require(report.files.last)
        #expect(gadgetbridge.format == "gadgetbridge" && gadgetbridge.source == "gadgetbridge" && gadgetbridge.notImported.isEmpty)
        #expect(gadgetbridge.saved == 11, "\(gadgetbridge)")
        #expect(report.problems.contains { $0.file == "Gadgetbridge" && $0.field == "table notifications" })

        // Stored: twelve workouts, each with its route; the watch's heart rates with its device.
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.count == 12)
        for workout in workouts {
            let routes = try await admin.routes(of: workout.uuid)
            #expect(routes.count == 1 && !routes[0].locations.isEmpty)
        }
        let heartRates = try await admin.samples(SampleQueryDescriptor(type: SampleType("HKQuantityTypeIdentifierHeartRate")))
        let fossil = heartRates.filter { $0.sourceRevision.appID == "gadgetbridge" }
        #expect(fossil.count == 10 && fossil.allSatisfy { $0.device?.name == "Hybrid HR" && $0.device?.manufacturer == "Fossil" })

        // Again: everything already there, the same workouts named.
        let again = try await FileImportServiceTests.report(admin, files)
        #expect(again.saved == 0 && again.keptExisting == report.saved + report.keptExisting)
        #expect(again.files.flatMap(\.workouts).allSatisfy { $0.keptExisting })
        #expect(again.files.flatMap(\.workouts).map(\.uuid) == report.files.flatMap(\.workouts).map(\.uuid))
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).count == 12)
        #expect(try await admin.samples(SampleQueryDescriptor(type: SampleType("HKQuantityTypeIdentifierHeartRate"))).count == heartRates.count)
    }

    @Test("a TCX multisport session through the daemon: one swimBikeRun workout named in the report with its legs and distance, its one route and every point's heart rate saved; imported again, nothing is added")
    func multisportTCX() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        // Tests/Fixtures/tcx/duathlon.tcx: run, transition, bike, transition, run, as the schema writes them.
        let duathlon = try Data(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/tcx/duathlon.tcx"))
        let files = [("duathlon.tcx", duathlon)]
        let report = try await FileImportServiceTests.report(admin, files)
        let entry = try #require(report.files.first)
        #expect(entry.format == "tcx" && entry.source == "tcx.forerunner-935" && entry.notImported.isEmpty, "\(entry)")
        try #require(entry.workouts.count == 1)
        let listed = entry.workouts[0]
        #expect(listed.activityType == 82 && listed.legs == [37, 83, 13, 83, 37])
        #expect(listed.routeLocations == 10 && listed.distance == 20_000)
        #expect(report.skipped == 0, "\(report.problems)")

        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        try #require(workouts.count == 1)
        guard case .workout(let workout) = workouts[0].value else { return }
        #expect(workout.activities.map(\.activityType) == [37, 83, 13, 83, 37])
        let routes = try await admin.routes(of: workouts[0].uuid)
        #expect(routes.count == 1 && routes[0].locations.count == 10)
        let heartRates = try await admin.samples(SampleQueryDescriptor(type: SampleType("HKQuantityTypeIdentifierHeartRate")))
        #expect(heartRates.count == 10)

        let again = try await FileImportServiceTests.report(admin, files)
        #expect(again.saved == 0 && again.files.first?.workouts.map(\.uuid) == [listed.uuid])
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).count == 1)
        #expect(try await admin.routes(of: workouts[0].uuid).count == 1)
    }

    /// A Gadgetbridge database made by `sql`, as its file's bytes.
    static func gadgetbridge(_ sql: String) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gadgetbridge-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("Gadgetbridge").path
        let database = try Database(path: path)
        // One file, as Gadgetbridge exports it (the store's connection opens in WAL mode).
        try database.execute("PRAGMA journal_mode=DELETE")
        try database.execute(sql)
        database.close()
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test("a file whose every record imports, with notes that refuse none (no schema version, a table not read), reports nothing skipped; the notes are listed")
    func notesAreNotSkips() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        defer { Task { await admin.close() } }
        let file = try Self.gadgetbridge(
            """
            CREATE TABLE "DEVICE" ("_id" INTEGER PRIMARY KEY ,"NAME" TEXT NOT NULL ,"MANUFACTURER" TEXT NOT NULL ,"IDENTIFIER" TEXT NOT NULL UNIQUE ,"TYPE" INTEGER NOT NULL ,"TYPE_NAME" TEXT NOT NULL ,"MODEL" TEXT,"ALIAS" TEXT,"PARENT_FOLDER" TEXT);
            INSERT INTO DEVICE VALUES (3, 'Forerunner 255', 'Garmin', 'AA:BB:CC:DD:EE:FF', 0, 'GARMIN_FORERUNNER_255', NULL, 'My watch', NULL);
            CREATE TABLE "GARMIN_ACTIVITY_SAMPLE" ("TIMESTAMP" INTEGER  NOT NULL ,"DEVICE_ID" INTEGER  NOT NULL ,"USER_ID" INTEGER NOT NULL ,"RAW_INTENSITY" INTEGER NOT NULL ,"STEPS" INTEGER NOT NULL ,"RAW_KIND" INTEGER NOT NULL ,"HEART_RATE" INTEGER NOT NULL ,PRIMARY KEY ("TIMESTAMP" ,"DEVICE_ID" ) ON CONFLICT REPLACE) WITHOUT ROWID;
            INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (1725753600, 3, 1, 0, 0, 0, 55);
            INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (1725753660, 3, 1, 0, 0, 0, 58);
            CREATE TABLE "GARMIN_FUTURE_TABLE" ("X" INTEGER);
            """)
        let report = try await FileImportServiceTests.report(admin, [("Gadgetbridge", file)])
        #expect(report.saved == 2, "\(report.problems)")
        #expect(report.problems.contains { $0.field == "user_version" } && report.problems.contains { $0.field == "table GARMIN_FUTURE_TABLE" })
        #expect(report.skipped == 0, "notes counted as skipped records: \(report.problems)")
    }
}
