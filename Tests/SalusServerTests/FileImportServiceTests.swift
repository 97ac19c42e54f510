import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusTestSupport
import Testing

/// FIT files through the owner's client, what `salusctl import` does with them, against the
/// daemon's services in process: saved as workouts with their routes and samples, named in the
/// report, and once only however often they are imported.
@Suite("AdminClient: FIT files imported")
struct FileImportServiceTests {
    /// `../shared/data/fit`, where the workplace keeps the FIT files (their README allows them
    /// only there).
    static let folder: URL = {
        if let shared = ProcessInfo.processInfo.environment["SALUS_SHARED_DATA"] {
            return URL(fileURLWithPath: shared).appendingPathComponent("fit")
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/data/fit").standardizedFileURL
    }()

    static func file(_ name: String) throws -> (String, Data) {
        (name, try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    /// Each file in chunks of 64 KiB carrying its path, its last marked.
    static func chunks(_ files: [(String, Data)]) -> AsyncThrowingStream<ImportChunk, any Error> {
        AsyncThrowingStream { continuation in
            for (path, data) in files {
                var offset = 0
                repeat {
                    let end = min(offset + 65_536, data.count)
                    continuation.yield(.sideFile(path, data.subdata(in: offset..<end), endOfFile: end == data.count))
                    offset = end
                } while offset < data.count
            }
            continuation.finish()
        }
    }

    static func report(_ admin: AdminClient, _ files: [(String, Data)], dryRun: Bool = false) async throws -> ImportReport {
        var last: ImportReport?
        for try await event in admin.importFiles(chunks(files), options: ImportOptions(dryRun: dryRun)) {
            if case .report(let report) = event { last = report }
        }
        return try #require(last)
    }

    @Test("a run and the 920XT triathlon: each a workout named in the report, the triathlon with its legs and transitions; routes and heart rates saved; imported again, nothing is added")
    func runAndTriathlon() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let files = [
            try Self.file("dtcooper-python-fitparse/garmin-fenix-5-run.fit"),
            try Self.file("dtcooper-python-fitparse/sample_mulitple_header.fit"),
        ]
        let report = try await Self.report(admin, files)
        #expect(report.files.map(\.path) == files.map(\.0))
        #expect(report.files.map(\.format) == ["fit", "fit"])
        #expect(report.files.allSatisfy { $0.workouts.count == 1 && $0.stoppedAt == nil && $0.notImported.isEmpty }, "\(report.files)")
        let run = try #require(report.files[0].workouts.first)
        #expect(run.activityType == 37 && !run.keptExisting)
        let triathlon = try #require(report.files[1].workouts.first)
        #expect(triathlon.activityType == 82)
        #expect(triathlon.legs == [46, 83, 13, 83, 37])
        #expect(triathlon.routeLocations > 0)
        #expect(report.saved > 1000 && report.skipped == 0, "\(report.problems)")

        // Stored: the workouts with their legs, the route attached to the triathlon, heart rates.
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.count == 2)
        let stored = try #require(workouts.first { $0.uuid.uuidString == triathlon.uuid })
        guard case .workout(let workout) = stored.value else { return }
        #expect(workout.activities.map(\.activityType) == [46, 83, 13, 83, 37])
        #expect(stored.sourceRevision.appID.hasPrefix("fit."))
        let routes = try await admin.routes(of: stored.uuid)
        #expect(routes.count == 1 && UInt64(routes[0].locations.count) == triathlon.routeLocations)
        let heartRates = try await admin.samples(SampleQueryDescriptor(type: SampleType("HKQuantityTypeIdentifierHeartRate")))
        #expect(heartRates.count > 1000)
        #expect(heartRates.allSatisfy { $0.sourceRevision.appID.hasPrefix("fit.") })

        // Again: everything already there, the same workouts named.
        let again = try await Self.report(admin, files)
        #expect(again.saved == 0 && again.keptExisting == report.saved)
        #expect(again.files.flatMap(\.workouts).allSatisfy { $0.keptExisting })
        #expect(again.files.flatMap(\.workouts).map(\.uuid) == report.files.flatMap(\.workouts).map(\.uuid))
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).count == 2)
        #expect(try await admin.routes(of: stored.uuid).count == 1)
    }

    @Test("files read ahead while the one before saves keep their order: a file whose last chunk is not marked ends at the next path's chunk, which may be a whole file")
    func unmarkedEndsInOrder() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (_, run) = try Self.file("dtcooper-python-fitparse/garmin-fenix-5-run.fit")
        let (_, triathlon) = try Self.file("dtcooper-python-fitparse/sample_mulitple_header.fit")
        let chunks = AsyncThrowingStream<ImportChunk, any Error> { continuation in
            continuation.yield(.sideFile("run.fit", run, endOfFile: false))
            continuation.yield(.sideFile("triathlon.fit", triathlon, endOfFile: true))
            continuation.yield(.sideFile("notes.fit", Data("not a FIT file".utf8), endOfFile: false))
            continuation.finish()
        }
        var files: [UInt64] = []
        var last: ImportReport?
        for try await event in admin.importFiles(chunks) {
            switch event {
            case .progress(let progress): files.append(progress.sideFilesProcessed)
            case .report(let report): last = report
            }
        }
        let report = try #require(last)
        #expect(report.files.map(\.path) == ["run.fit", "triathlon.fit", "notes.fit"])
        #expect(report.files.map { $0.workouts.first?.activityType } == [37, 82, nil])
        #expect(report.files[2].notImported.contains("not a FIT"))
        #expect(files == [1, 2, 3, 3], "a progress event after each file, in order, and the last")
    }

    @Test("broken and foreign files: Strava's stops at byte 7,471 and keeps its workout, a truncated copy says where it stopped, bytes of no known format are named, not imported")
    func brokenAndForeign() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (_, fenix) = try Self.file("dtcooper-python-fitparse/garmin-fenix-5-run.fit")
        let files = [
            try Self.file("dtcooper-python-fitparse/strava-android-app-201.10-b1218918.fit"),
            ("cut.fit", fenix.prefix(fenix.count * 2 / 3)),
            ("notes.fit", Data("not a FIT file".utf8)),
        ]
        let report = try await Self.report(admin, files)
        try #require(report.files.count == 3)
        let strava = report.files[0]
        // The record header of an undefined local message (fitdecode's byte; Garmin's SDK names the next).
        #expect(strava.stoppedAt == 7471 && strava.workouts.count == 1, "\(strava)")
        #expect(report.problems.contains { $0.file == strava.path && $0.offset == 7471 })
        let cut = report.files[1]
        #expect(cut.stoppedAt != nil && cut.stoppedAt! <= UInt64(fenix.count * 2 / 3), "\(cut)")
        #expect(report.files[2].format.isEmpty && report.files[2].notImported.contains("not a FIT"), "\(report.files[2])")
    }
}
