import Foundation
import SalusKit
import SalusModel
import SalusRPC
import Testing

/// The Triathlon example end to end against a real daemon; what it prints is checked against
/// what the owner reads from the store.
@Suite("Triathlon example")
struct TriathlonTests {
    static let triathlon = DaemonHarness.binary("Triathlon")
    static let salusctl = DaemonHarness.binary("salusctl")
    static let perMinute = SalusUnit.count.divided(by: .minute)
    static let heartRate = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRate")

    static func salusctl(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(salusctl, arguments + ["--admin-socket", daemon.adminSocketPath], timeout: .seconds(60))
    }

    @Test("Triathlon records a swim-bike-run through a session; its figures are the store's")
    func triathlon() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let added = try await Self.salusctl(daemon, [
            "apps", "add", "org.example.triathlon", "--name", "Triathlon", "--read-usage", "Shows your races",
            "--write-usage", "Records your races",
        ])
        #expect(added.status == 0, "\(added.output)")
        #expect(try await Self.salusctl(daemon, ["apps", "policy", "org.example.triathlon", "grant-all"]).status == 0)
        let run = try await DaemonHarness.run(
            Self.triathlon, [], environment: ["SALUS_SOCKET": daemon.socketPath], timeout: .seconds(120))
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("mirror saw: prepared, running, paused, running, stopped, ended"), "\(run.output)")
        #expect(run.output.contains("elapsed 2:09:00"), "\(run.output)")

        let owner = HealthStore(client: try await RPCClient.connect(unixSocketPath: daemon.adminSocketPath))
        let workouts = try await SampleQueryDescriptor(type: .workout).result(for: owner)
        #expect(workouts.count == 1)
        let saved = try #require(workouts.first)
        guard case .workout(let workout) = saved.value else {
            Issue.record("not a workout: \(saved.kind)")
            return
        }
        #expect(workout.activityType == WorkoutActivityType.swimBikeRun)
        #expect(workout.activities.map(\.activityType) == [46, 83, 13, 83, 37])
        #expect(run.output.contains("saved workout \(saved.uuid.uuidString.lowercased()): swimBikeRun, 5 activities, 32 events"))
        // 30 laps with their stroke style, a pause and a resume.
        #expect(workout.events.filter { $0.type == WorkoutEventType.lap.rawValue }.count == 30)
        #expect(workout.events.allSatisfy { $0.type != WorkoutEventType.lap.rawValue || $0.metadata[MetadataKey.swimmingStrokeStyle] == .number(2) })
        for (index, activity) in workout.activities.enumerated() {
            let average = try #require(try activity.allStatistics[Self.heartRate]?.average?.doubleValue(for: Self.perMinute))
            #expect(run.output.contains(String(format: "activity[%d] %@: average heart rate %.1f count/min", index, Self.name(activity.activityType), average)), "\(run.output)")
        }
        #expect(run.output.contains("activity[0] swimming: average heart rate"))
        // 20 strokes and 40 s per 50 m length.
        #expect(run.output.contains("distance 1500 m, SWOLF 60.0"), "\(run.output)")
        #expect(run.output.contains("distance 40000 m"))
        #expect(run.output.contains("distance 10000 m"))

        // The predicate's answer, recomputed by the owner: the workout's run averages over 150.
        let running = try #require(workout.activities.last)
        let runAverage = try #require(try running.allStatistics[Self.heartRate]?.average?.doubleValue(for: Self.perMinute))
        #expect(runAverage > 150)
        #expect(run.output.contains("running activities of workouts with average heart rate over 150 count/min: 1 workout"))
        #expect(run.output.contains(String(
            format: "%@ running 0:45:00: average heart rate %.1f count/min", saved.uuid.uuidString.lowercased(), runAverage)), "\(run.output)")

        // The owner sees the per-activity figures with salusctl.
        let shown = try await Self.salusctl(daemon, ["workouts", "show", saved.uuid.uuidString])
        #expect(shown.status == 0, "\(shown.output)")
        #expect(shown.output.contains("workout \(saved.uuid.uuidString.lowercased())"), "\(shown.output)")
        for line in ["1. swimming", "2. transition", "3. cycling", "4. transition", "5. running", "SWOLF 60", "HeartRate: average"] {
            #expect(shown.output.contains(line), "\(line) in \(shown.output)")
        }

        // The route: one location a second over the ride (3,600) and the run (2,700), 40 km and
        // 10 km less a second of each, read back whole by the example and by salusctl.
        let routes = try await SampleQueryDescriptor(type: .workoutRoute).result(for: owner)
        let route = try #require(routes.first)
        guard case .workoutRoute(let value) = route.value else {
            Issue.record("not a route: \(route.value)")
            return
        }
        #expect(routes.count == 1 && value.workoutUUID == saved.uuid && value.locationCount == 6300)
        let locations = try await owner.routeLocations(of: route.uuid).collect()
        let length = WorkoutRoute(locations: locations).length
        #expect(abs(length - (40_000 - 40_000.0 / 3600 + 10_000 - 10_000.0 / 2700 + 40_000.0 / 3600)) < 250, "\(length) m: within 0.5% of the distance laid out")
        #expect(run.output.contains(String(format: "route %@: 6300 locations, %.1f km", route.uuid.uuidString.lowercased(), length / 1000)), "\(run.output)")
        #expect(shown.output.contains(String(format: ": 6300 points, %.2f km", length / 1000)), "\(shown.output)")

        // Every sample the builder held was saved with the workout.
        #expect(try await SampleQueryDescriptor(type: .quantity(.heartRate)).result(for: owner).count == 130)
        await owner.close()
        #expect(try await daemon.stop() == 0)
    }

    static func name(_ type: UInt) -> String {
        switch type {
        case 46: "swimming"
        case 13: "cycling"
        case 37: "running"
        case 83: "transition"
        default: "type \(type)"
        }
    }
}
