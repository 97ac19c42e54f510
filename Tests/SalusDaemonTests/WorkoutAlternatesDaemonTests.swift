import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusRPC
import SalusTestSupport
import Testing

/// A workout kept with another source's as its alternate, through salusctl and a real salusd:
/// what the person sees listed, what a deletion takes with it, and that a restart keeps it so.
/// The merge itself and its reports are tested in process (`WorkoutDuplicateImportTests`).
@Suite("A workout and its alternate, through salusctl and a restart")
struct WorkoutAlternatesDaemonTests {
    static let run = DaemonHarness.packageRoot
        .appendingPathComponent("../shared/data/fit/dtcooper-python-fitparse/garmin-fenix-5-run.fit").standardizedFileURL

    /// The workouts `salusctl workouts list --json` prints.
    static func listed(_ daemon: DaemonHarness) async throws -> [[String: Any]] {
        let list = try await WorkoutsCommandTests.salusctl(daemon, ["workouts", "list", "--json"])
        #expect(list.status == 0, "\(list.output)")
        return (try? JSONSerialization.jsonObject(with: Data(list.output.utf8))) as? [[String: Any]] ?? []
    }

    @Test(
        "the watch's FIT run and a GPX of the same run imported with salusctl: one workout listed with the GPX as its alternate; the workout deleted, its alternate goes with it and both stay gone after a restart; imported again, the workout and its alternate come back once",
        .enabled(if: FileManager.default.fileExists(atPath: run.path), "needs ../shared/data beside the project"))
    func deletedWithItsAlternate() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let fit = try await WorkoutsCommandTests.salusctl(daemon, ["import", Self.run.path])
        try #require(fit.status == 0, "\(fit.output)")
        let workouts = try await Self.listed(daemon)
        try #require(workouts.count == 1, "\(workouts)")
        let uuid = try #require(workouts[0]["uuid"] as? String)

        // The GPX a service exporting the run would write: its route, as a run, from another app.
        let folder = daemon.dataDirectory.deletingLastPathComponent()
        let route = folder.appendingPathComponent("route.gpx")
        let written = try await WorkoutsCommandTests.salusctl(daemon, ["workouts", "route", uuid, "--gpx", route.path])
        try #require(written.status == 0, "\(written.output)")
        var text = try String(contentsOf: route, encoding: .utf8)
        text = text.replacingOccurrences(of: "creator=\"Salus\"", with: "creator=\"StravaGPX\"")
        let named = try #require(text.range(of: "</name>"))
        text.insert(contentsOf: "<type>running</type>", at: named.upperBound)
        let strava = folder.appendingPathComponent("Morning_Run.gpx")
        try Data(text.utf8).write(to: strava)
        let gpx = try await WorkoutsCommandTests.salusctl(daemon, ["import", strava.path])
        try #require(gpx.status == 0, "\(gpx.output)")

        var listed = try await Self.listed(daemon)
        try #require(listed.count == 1, "\(listed)")
        #expect(listed[0]["uuid"] as? String == uuid)
        #expect((listed[0]["alternates"] as? [Any])?.count == 1, "\(listed[0])")

        // The owner deletes the workout: its route goes with it, and the alternate too.
        let owner = AdminClient(rpc: try await Authz.owner(daemon))
        let kept = try #require(UUID(uuidString: uuid))
        #expect(try await owner.store.delete(uuids: [kept]) == 2)
        #expect(try await owner.workoutAlternates().isEmpty)
        #expect(try await Self.listed(daemon).isEmpty)
        await owner.close()
        #expect(try await daemon.stop() == 0)

        let restarted = try await DaemonHarness.start(
            arguments: ["--dev", "--data-dir", daemon.dataDirectory.path], bundledPlugins: true)
        #expect(try await Self.listed(restarted).isEmpty)
        let afterRestart = AdminClient(rpc: try await Authz.owner(restarted))
        #expect(try await afterRestart.workoutAlternates().isEmpty)
        #expect(try await afterRestart.samples(SampleQueryDescriptor(type: .workout)).isEmpty)

        // Imported again, each file once more: the workout, with its route, and its alternate, once.
        for file in [Self.run, strava, Self.run, strava] {
            let again = try await WorkoutsCommandTests.salusctl(restarted, ["import", file.path])
            #expect(again.status == 0, "\(again.output)")
        }
        listed = try await Self.listed(restarted)
        try #require(listed.count == 1, "\(listed)")
        #expect((listed[0]["alternates"] as? [Any])?.count == 1, "\(listed[0])")
        let backText = try #require(listed[0]["uuid"] as? String)
        let back = try #require(UUID(uuidString: backText))
        #expect(try await afterRestart.routes(of: back).count == 1)
        await afterRestart.close()
        #expect(try await restarted.stop() == 0)
    }
}
