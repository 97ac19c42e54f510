import Foundation
import SalusKit
import SalusModel
import SalusRPC
import Testing

/// `salusctl workouts` on a running daemon: a triathlon's per-activity figures.
@Suite("salusctl workouts on a running daemon")
struct WorkoutsCommandTests {
    static let app = "org.example.triathlon"
    static let start = Date(timeIntervalSince1970: 1_795_250_000)
    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    static func salusctl(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(
            DaemonHarness.binDirectory.appendingPathComponent("salusctl"), arguments + ["--admin-socket", daemon.adminSocketPath],
            environment: ["TZ": "UTC"], timeout: .seconds(60))
    }

    @Test("list --type running finds the triathlon; show prints each leg's heart rate and distance")
    func listAndShow() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let store = try await DaemonClients.store(daemon, Self.app)
        let perMinute = SalusUnit.count.divided(by: .minute)
        let triathlon = Sample(
            type: TypeIdentifier(rawValue: SampleType.workout.description), startDate: Self.start, endDate: Self.at(3600),
            value: .workout(Workout(
                activityType: WorkoutActivityType.swimBikeRun,
                events: [WorkoutEvent(.pause, startDate: Self.at(1000)), WorkoutEvent(.resume, startDate: Self.at(1060))],
                activities: [
                    WorkoutActivity(activityType: WorkoutActivityType.swimming, startDate: Self.at(0), endDate: Self.at(900)),
                    WorkoutActivity(activityType: WorkoutActivityType.cycling, startDate: Self.at(900), endDate: Self.at(2400)),
                    WorkoutActivity(activityType: WorkoutActivityType.running, startDate: Self.at(2400), endDate: Self.at(3600)),
                ])),
            sourceRevision: Sample.unsavedSource)
        let saved = try await store.save([
            triathlon,
            .quantity(.heartRate, Quantity(value: 130, unit: perMinute), start: Self.at(400)),
            .quantity(.heartRate, Quantity(value: 150, unit: perMinute), start: Self.at(1500)),
            .quantity(.heartRate, Quantity(value: 160, unit: perMinute), start: Self.at(3000)),
            .quantity(.heartRate, Quantity(value: 170, unit: perMinute), start: Self.at(3300)),
            .quantity(.distanceWalkingRunning, Quantity(value: 10, unit: .kilometer), start: Self.at(2400), end: Self.at(3600)),
        ])
        let uuid = saved[0].uuid.uuidString.lowercased()

        let list = try await Self.salusctl(daemon, ["workouts", "list", "--type", "running", "--json"])
        #expect(list.status == 0, "\(list.output)")
        let listed = try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]] ?? []
        #expect(listed.map { $0["uuid"] as? String } == [uuid])
        #expect(listed.first?["activityTypeName"] as? String == "swimBikeRun")
        #expect(listed.first?["duration"] as? Double == 3540)
        let none = try await Self.salusctl(daemon, ["workouts", "list", "--type", "walking"])
        #expect(none.output.contains("no workouts"), "\(none.output)")

        let shown = try await Self.salusctl(daemon, ["workouts", "show", uuid])
        #expect(shown.status == 0, Comment(rawValue: shown.output))
        #expect(shown.output.contains("swimBikeRun workout \(uuid)"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("59:00 excluding pauses"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("3. running"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("HeartRate: average 165"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("DistanceWalkingRunning: 10000 m"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("pause"), Comment(rawValue: shown.output))

        let json = try await Self.salusctl(daemon, ["workouts", "show", uuid, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any] ?? [:]
        let activities = object["activities"] as? [[String: Any]] ?? []
        // In the canonical unit count/s: 130, 150 and 165 count/min.
        var averages: [Double] = []
        for activity in activities {
            let statistics = activity["statistics"] as? [String: Any] ?? [:]
            let heartRate = statistics["HKQuantityTypeIdentifierHeartRate"] as? [String: Any] ?? [:]
            let average = heartRate["average"] as? Double ?? 0
            averages.append((average * 60 * 1000).rounded() / 1000)
        }
        #expect(averages == [130, 150, 165])

        let missing = try await Self.salusctl(daemon, ["workouts", "show", "0190c2a0-0000-7000-8000-000000000001"])
        #expect(missing.status != 0)
        #expect(missing.output.contains("no workout has the UUID"), "\(missing.output)")
    }

    @Test("show prints the totals a workout was saved with (an imported one has no samples) beside those computed from samples, each marked")
    func savedTotals() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let store = try await DaemonClients.store(daemon, Self.app)
        let perMinute = SalusUnit.count.divided(by: .minute)
        let run = Sample(
            type: TypeIdentifier(rawValue: SampleType.workout.description), startDate: Self.start, endDate: Self.at(1800),
            value: .workout(Workout(
                activityType: WorkoutActivityType.running,
                statistics: [
                    TypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning"): Quantity(value: 5012.5, unit: .meter),
                    TypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned"): Quantity(value: 312, unit: .kilocalorie),
                ])),
            sourceRevision: Sample.unsavedSource)
        let saved = try await store.save([
            run,
            .quantity(.heartRate, Quantity(value: 140, unit: perMinute), start: Self.at(300)),
            .quantity(.heartRate, Quantity(value: 160, unit: perMinute), start: Self.at(900)),
        ])
        let uuid = saved[0].uuid.uuidString.lowercased()

        let shown = try await Self.salusctl(daemon, ["workouts", "show", uuid])
        #expect(shown.status == 0, Comment(rawValue: shown.output))
        #expect(shown.output.contains("DistanceWalkingRunning: 5012.5 m (saved with the workout)"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("ActiveEnergyBurned: 312 kcal (saved with the workout)"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("HeartRate: average 150, min 140, max 160 count/min (from samples)"), Comment(rawValue: shown.output))

        let json = try await Self.salusctl(daemon, ["workouts", "show", uuid, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any] ?? [:]
        let statistics = object["statistics"] as? [String: [String: Any]] ?? [:]
        let distance = statistics["HKQuantityTypeIdentifierDistanceWalkingRunning"] ?? [:]
        #expect(distance["sum"] as? Double == 5012.5 && distance["unit"] as? String == "m" && distance["from"] as? String == "workout", "\(json.output)")
        #expect(statistics["HKQuantityTypeIdentifierHeartRate"]?["from"] as? String == "samples", "\(json.output)")
        _ = try await daemon.stop()
    }

    @Test("list and show give the duration a workout's device recorded (an imported run's, Apple's figure), not the one its events give")
    func recordedDuration() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let store = try await DaemonClients.store(daemon, Self.app)
        // 40 minutes from start to end, a pause of 446 s in the events, 31:30 by the device.
        var workout = Workout(
            activityType: WorkoutActivityType.running,
            events: [WorkoutEvent(.pause, startDate: Self.at(600)), WorkoutEvent(.resume, startDate: Self.at(1046))])
        workout.recordedDuration = 1890
        let run = Sample(
            type: TypeIdentifier(rawValue: SampleType.workout.description), startDate: Self.start, endDate: Self.at(2400),
            value: .workout(workout), sourceRevision: Sample.unsavedSource)
        let uuid = try await store.save([run])[0].uuid.uuidString.lowercased()

        let list = try await Self.salusctl(daemon, ["workouts", "list", "--json"])
        let listed = try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]] ?? []
        #expect(listed.first?["duration"] as? Double == 1890, "\(list.output)")
        let shown = try await Self.salusctl(daemon, ["workouts", "show", uuid])
        #expect(shown.output.contains("31:30"), Comment(rawValue: shown.output))
        let json = try await Self.salusctl(daemon, ["workouts", "show", uuid, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any] ?? [:]
        #expect(object["duration"] as? Double == 1890, "\(json.output)")
        _ = try await daemon.stop()
    }

    @Test("show prints a workout's route in points and km; route --gpx writes it as GPX")
    func route() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let store = try await DaemonClients.store(daemon, Self.app)
        let run = try await store.save(
            Sample(
                type: TypeIdentifier(rawValue: SampleType.workout.description), startDate: Self.start, endDate: Self.at(600),
                value: .workout(Workout(activityType: WorkoutActivityType.running)), sourceRevision: Sample.unsavedSource))
        // Three points 0.009° apart on one meridian: 2 × 0.009 × π/180 × 6,371,008.8 m = 2,001.5 m.
        let builder = WorkoutRouteBuilder(healthStore: store)
        builder.insertRouteData((0..<3).map { index in
            RouteLocation(
                timestamp: Self.at(Double(index) * 200), latitude: 47 + Double(index) * 0.009, longitude: 8.5, altitude: 400,
                speed: 5)
        })
        let route = try await builder.finishRoute(with: run.uuid)
        let uuid = run.uuid.uuidString.lowercased()

        let shown = try await Self.salusctl(daemon, ["workouts", "show", uuid])
        #expect(shown.output.contains("Route \(route.uuid.uuidString.lowercased()): 3 points, 2.00 km"), Comment(rawValue: shown.output))

        let json = try await Self.salusctl(daemon, ["workouts", "show", uuid, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any] ?? [:]
        let routes = object["routes"] as? [[String: Any]] ?? []
        #expect(routes.count == 1 && routes.first?["points"] as? Int == 3, "\(json.output)")
        #expect(abs((routes.first?["meters"] as? Double ?? 0) - 2 * 0.009 * Double.pi / 180 * 6_371_008.8) < 0.01)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("route-\(UUID().uuidString).gpx")
        defer { try? FileManager.default.removeItem(at: file) }
        let written = try await Self.salusctl(daemon, ["workouts", "route", uuid, "--gpx", file.path])
        #expect(written.status == 0, Comment(rawValue: written.output))
        let gpx = try String(contentsOf: file, encoding: .utf8)
        #expect(gpx.components(separatedBy: "<trkpt ").count - 1 == 3)
        #expect(gpx.contains("<trkpt lon=\"8.5\" lat=\"47.018\">"), Comment(rawValue: gpx))
        #expect(gpx.contains("<time>2026-11-21T08:40:00Z</time>"), Comment(rawValue: gpx))
    }
}
