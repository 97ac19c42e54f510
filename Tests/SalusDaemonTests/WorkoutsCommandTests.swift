import Foundation
import SalusKit
import SalusModel
import SalusTestSupport
import SalusRPC
import Testing

/// `salusctl workouts` on a running daemon: what the command prints and writes (tables, text,
/// JSON, the GPX file, exit status) for a triathlon, a run saved with its totals, a run with the
/// duration its device recorded and a run with a route. Which workouts a query finds and the
/// figures themselves are tested in process (`AdminClientWorkoutsTests`, `WorkoutFigureTextTests`).
@Suite("salusctl workouts on a running daemon")
struct WorkoutsCommandTests {
    static let app = "org.example.triathlon"
    static let start = Date(timeIntervalSince1970: 1_795_250_000)
    static let day: TimeInterval = 86_400
    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    static func salusctl(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(
            DaemonHarness.binDirectory.appendingPathComponent("salusctl"), arguments + ["--admin-socket", daemon.adminSocketPath],
            environment: ["TZ": "UTC"], timeout: .seconds(60))
    }

    static func workout(_ value: Workout, from: TimeInterval, to: TimeInterval) -> Sample {
        Sample(
            type: TypeIdentifier(rawValue: SampleType.workout.description), startDate: at(from), endDate: at(to),
            value: .workout(value), sourceRevision: Sample.unsavedSource)
    }

    static func object(_ result: CommandResult) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(result.output.utf8))) as? [String: Any] ?? [:]
    }

    static func array(_ result: CommandResult) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(result.output.utf8))) as? [[String: Any]] ?? []
    }

    @Test("list, show, show --json and route --gpx print a triathlon's legs, saved totals beside figures from samples, the duration a device recorded and a route; an unknown UUID fails")
    func printed() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let store = try await DaemonClients.store(daemon, Self.app)
        let perMinute = SalusUnit.count.divided(by: .minute)
        // Day 0: a triathlon with heart rates and a run's distance.
        let triathlon = try await store.save(TriathlonFixture.samples)[0].uuid.uuidString.lowercased()
        // Day 1: a run saved with its totals (as an import saves one), with heart rates.
        let totals = try await store.save([
            Self.workout(
                Workout(
                    activityType: WorkoutActivityType.running,
                    statistics: [
                        TypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning"): Quantity(value: 5012.5, unit: .meter),
                        TypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned"): Quantity(value: 312, unit: .kilocalorie),
                    ]),
                from: Self.day, to: Self.day + 1800),
            .quantity(.heartRate, Quantity(value: 140, unit: perMinute), start: Self.at(Self.day + 300)),
            .quantity(.heartRate, Quantity(value: 160, unit: perMinute), start: Self.at(Self.day + 900)),
        ])[0].uuid.uuidString.lowercased()
        // Day 2: 40 minutes from start to end, a pause of 446 s in the events, 31:30 by the device.
        var recordedRun = Workout(
            activityType: WorkoutActivityType.running,
            events: [WorkoutEvent(.pause, startDate: Self.at(2 * Self.day + 600)), WorkoutEvent(.resume, startDate: Self.at(2 * Self.day + 1046))])
        recordedRun.recordedDuration = 1890
        let recorded = try await store.save([Self.workout(recordedRun, from: 2 * Self.day, to: 2 * Self.day + 2400)])[0].uuid.uuidString.lowercased()
        // Day 3: a run with a route of three points 0.009° apart on one meridian:
        // 2 × 0.009 × π/180 × 6,371,008.8 m = 2,001.5 m.
        let run = try await store.save(Self.workout(Workout(activityType: WorkoutActivityType.running), from: 3 * Self.day, to: 3 * Self.day + 600))
        let builder = WorkoutRouteBuilder(healthStore: store)
        builder.insertRouteData((0..<3).map { index in
            RouteLocation(
                timestamp: Self.at(3 * Self.day + Double(index) * 200), latitude: 47 + Double(index) * 0.009, longitude: 8.5, altitude: 400,
                speed: 5)
        })
        let route = try await builder.finishRoute(with: run.uuid)
        let routed = run.uuid.uuidString.lowercased()

        // The triathlon.
        let list = try await Self.salusctl(daemon, ["workouts", "list", "--type", "running", "--json"])
        #expect(list.status == 0, "\(list.output)")
        let listed = Self.array(list)
        let listedTriathlon = listed.first { $0["uuid"] as? String == triathlon }
        #expect(listedTriathlon?["activityTypeName"] as? String == "swimBikeRun", "\(list.output)")
        #expect(listedTriathlon?["duration"] as? Double == 3540)
        #expect(listed.first { $0["uuid"] as? String == recorded }?["duration"] as? Double == 1890, "\(list.output)")
        let none = try await Self.salusctl(daemon, ["workouts", "list", "--type", "walking"])
        #expect(none.output.contains("no workouts"), "\(none.output)")

        let shown = try await Self.salusctl(daemon, ["workouts", "show", triathlon])
        #expect(shown.status == 0, Comment(rawValue: shown.output))
        #expect(shown.output.contains("swimBikeRun workout \(triathlon)"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("59:00 excluding pauses"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("3. running"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("HeartRate: average 165"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("DistanceWalkingRunning: 10000 m"), Comment(rawValue: shown.output))
        #expect(shown.output.contains("pause"), Comment(rawValue: shown.output))

        let json = Self.object(try await Self.salusctl(daemon, ["workouts", "show", triathlon, "--json"]))
        let activities = json["activities"] as? [[String: Any]] ?? []
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

        // The run saved with its totals.
        let saved = try await Self.salusctl(daemon, ["workouts", "show", totals])
        #expect(saved.status == 0, Comment(rawValue: saved.output))
        #expect(saved.output.contains("DistanceWalkingRunning: 5012.5 m (saved with the workout)"), Comment(rawValue: saved.output))
        #expect(saved.output.contains("ActiveEnergyBurned: 312 kcal (saved with the workout)"), Comment(rawValue: saved.output))
        #expect(saved.output.contains("HeartRate: average 150, min 140, max 160 count/min (from samples)"), Comment(rawValue: saved.output))
        let savedJSON = try await Self.salusctl(daemon, ["workouts", "show", totals, "--json"])
        let statistics = Self.object(savedJSON)["statistics"] as? [String: [String: Any]] ?? [:]
        let distance = statistics["HKQuantityTypeIdentifierDistanceWalkingRunning"] ?? [:]
        #expect(distance["sum"] as? Double == 5012.5 && distance["unit"] as? String == "m" && distance["from"] as? String == "workout", "\(savedJSON.output)")
        #expect(statistics["HKQuantityTypeIdentifierHeartRate"]?["from"] as? String == "samples", "\(savedJSON.output)")

        // The run with the duration its device recorded.
        let recordedText = try await Self.salusctl(daemon, ["workouts", "show", recorded])
        #expect(recordedText.output.contains("31:30"), Comment(rawValue: recordedText.output))
        let recordedJSON = try await Self.salusctl(daemon, ["workouts", "show", recorded, "--json"])
        #expect(Self.object(recordedJSON)["duration"] as? Double == 1890, "\(recordedJSON.output)")

        // The run with a route.
        let routeText = try await Self.salusctl(daemon, ["workouts", "show", routed])
        #expect(routeText.output.contains("Route \(route.uuid.uuidString.lowercased()): 3 points, 2.00 km"), Comment(rawValue: routeText.output))
        let routeJSON = try await Self.salusctl(daemon, ["workouts", "show", routed, "--json"])
        let routes = Self.object(routeJSON)["routes"] as? [[String: Any]] ?? []
        #expect(routes.count == 1 && routes.first?["points"] as? Int == 3, "\(routeJSON.output)")
        #expect(abs((routes.first?["meters"] as? Double ?? 0) - 2 * 0.009 * Double.pi / 180 * 6_371_008.8) < 0.01)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("route-\(UUID().uuidString).gpx")
        defer { try? FileManager.default.removeItem(at: file) }
        let written = try await Self.salusctl(daemon, ["workouts", "route", routed, "--gpx", file.path])
        #expect(written.status == 0, Comment(rawValue: written.output))
        let gpx = try String(contentsOf: file, encoding: .utf8)
        #expect(gpx.components(separatedBy: "<trkpt ").count - 1 == 3)
        #expect(gpx.contains("<trkpt lon=\"8.5\" lat=\"47.018\">"), Comment(rawValue: gpx))
        #expect(gpx.contains("<time>2026-11-24T08:40:00Z</time>"), Comment(rawValue: gpx))
        _ = try await daemon.stop()
    }
}
