import Foundation
@testable import SalusAdmin
import SalusKit
import SalusModel
import SalusTestSupport
import SalusReport
import Testing

/// Every app's workouts through the admin client in process, what `salusctl workouts` lists and
/// shows: which workouts a type finds, their durations, each leg's figures from samples beside
/// the totals a workout was saved with, and routes. (The printed text and the GPX file are
/// checked on the command, in the daemon's `WorkoutsCommandTests`.)
@Suite("AdminClient: workouts and their figures")
struct AdminClientWorkoutsTests {
    static let app = "org.example.triathlon"
    static let start = Date(timeIntervalSince1970: 1_795_250_000)
    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }
    static let perMinute = SalusUnit.count.divided(by: .minute)
    static let heartRate = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRate")
    static let distance = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceWalkingRunning")

    static func workout(_ value: Workout, end: TimeInterval) -> Sample {
        Sample(
            type: TypeIdentifier(rawValue: SampleType.workout.description), startDate: start, endDate: at(end),
            value: .workout(value), sourceRevision: Sample.unsavedSource)
    }

    /// A heart-rate figure's average in count/min (served in the canonical count/s), to 1/1000.
    static func averagePerMinute(_ figures: [WorkoutFigure]) -> Double? {
        guard let average = figures.first(where: { $0.type == heartRate })?.statistics.average,
            let value = try? average.doubleValue(for: perMinute)
        else { return nil }
        return (value * 1000).rounded() / 1000
    }

    @Test("a type finds the workouts of that type or with a leg of it (a triathlon is swimBikeRun and running, not walking); a triathlon's legs have the heart rate of their own samples; its duration excludes the pause; an unknown UUID is none")
    func triathlon() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore(Self.app)
        let saved = try await store.save(TriathlonFixture.samples)
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let listing = try await admin.types()

        let running = try await admin.workouts(activityType: WorkoutActivityType.running)
        #expect(running.map(\.uuid) == [saved[0].uuid])
        // The workout's own type finds it too: a triathlon is a swimBikeRun, though no leg is one.
        #expect(try await admin.workouts(activityType: WorkoutActivityType.swimBikeRun).map(\.uuid) == [saved[0].uuid])
        #expect(listing.workoutActivityTypes.first { UInt($0.rawValue) == WorkoutActivityType.swimBikeRun }?.name == "swimBikeRun")
        let walking = try #require(listing.workoutActivityTypes.first { $0.name == "walking" })
        #expect(try await admin.workouts(activityType: UInt(walking.rawValue)).isEmpty)
        #expect(try await admin.workouts(endingAtOrAfter: Self.at(3601)).isEmpty)
        #expect(try await admin.workouts(endingAtOrAfter: Self.at(3600)).count == 1)

        let detail = try #require(try await admin.workout(saved[0].uuid, listing: listing))
        #expect(detail.duration == 3540, "an hour less the minute's pause")
        #expect(detail.activities.map(\.activity.activityType) == [WorkoutActivityType.swimming, WorkoutActivityType.cycling, WorkoutActivityType.running])
        #expect(detail.activities.map { Self.averagePerMinute($0.figures) } == [130, 150, 165])
        #expect(detail.activities.allSatisfy { $0.figures.allSatisfy { $0.origin == .samples } })
        let runLines = WorkoutFigureText.lines(detail.activities[2].figures)
        #expect(runLines.contains { $0.hasPrefix("HeartRate: average 165") }, "\(runLines)")
        #expect(runLines.contains("DistanceWalkingRunning: 10000 m (from samples)"), "\(runLines)")
        #expect(WorkoutFigureText.lines(detail.figures).contains("DistanceWalkingRunning: 10000 m (from samples)"))
        #expect(detail.workout.events.map(\.type) == [WorkoutEventType.pause.rawValue, WorkoutEventType.resume.rawValue])
        #expect(detail.routes.isEmpty)

        #expect(try await admin.workout(UUID(uuidString: "0190c2a0-0000-7000-8000-000000000001")!) == nil)
        await store.close()
        await admin.close()
    }

    @Test("the totals a workout was saved with (an import's, with no samples) stand beside the figures from samples, each marked: a cumulative type's total a sum")
    func savedTotals() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore(Self.app)
        let saved = try await store.save([
            Self.workout(
                Workout(
                    activityType: WorkoutActivityType.running,
                    statistics: [
                        Self.distance: Quantity(value: 5012.5, unit: .meter),
                        TypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned"): Quantity(value: 312, unit: .kilocalorie),
                    ]),
                end: 1800),
            .quantity(.heartRate, Quantity(value: 140, unit: Self.perMinute), start: Self.at(300)),
            .quantity(.heartRate, Quantity(value: 160, unit: Self.perMinute), start: Self.at(900)),
        ])
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let detail = try #require(try await admin.workout(saved[0].uuid))
        #expect(WorkoutFigureText.lines(detail.figures) == [
            "ActiveEnergyBurned: 312 kcal (saved with the workout)",
            "DistanceWalkingRunning: 5012.5 m (saved with the workout)",
            "HeartRate: average 150, min 140, max 160 count/min (from samples)",
        ])
        let object = WorkoutFigureText.jsonObject(detail.figures) as? [String: [String: Any]] ?? [:]
        let distance = object[Self.distance.rawValue] ?? [:]
        #expect(distance["sum"] as? Double == 5012.5 && distance["unit"] as? String == "m" && distance["from"] as? String == "workout")
        #expect(object[Self.heartRate.rawValue]?["from"] as? String == "samples")
        await store.close()
        await admin.close()
    }

    @Test("a workout's duration is the one its device recorded (an imported run's), not the one its events give")
    func recordedDuration() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore(Self.app)
        // 40 minutes from start to end, a pause of 446 s in the events, 31:30 by the device.
        var workout = Workout(
            activityType: WorkoutActivityType.running,
            events: [WorkoutEvent(.pause, startDate: Self.at(600)), WorkoutEvent(.resume, startDate: Self.at(1046))])
        workout.recordedDuration = 1890
        let uuid = try await store.save([Self.workout(workout, end: 2400)])[0].uuid
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let listed = try #require(try await admin.workouts().first)
        guard case .workout(let value) = listed.value else { Issue.record("not a workout"); return }
        #expect(value.duration(from: listed.startDate, to: listed.endDate) == 1890)
        #expect(try await admin.workout(uuid)?.duration == 1890)
        await store.close()
        await admin.close()
    }

    @Test("a workout's route comes with all its locations and its length along them")
    func route() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore(Self.app)
        let run = try await store.save(Self.workout(Workout(activityType: WorkoutActivityType.running), end: 600))
        // Three points 0.009° apart on one meridian: 2 × 0.009 × π/180 × 6,371,008.8 m = 2,001.5 m.
        let builder = WorkoutRouteBuilder(healthStore: store)
        builder.insertRouteData((0..<3).map { index in
            RouteLocation(
                timestamp: Self.at(Double(index) * 200), latitude: 47 + Double(index) * 0.009, longitude: 8.5, altitude: 400, speed: 5)
        })
        let route = try await builder.finishRoute(with: run.uuid)
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let detail = try #require(try await admin.workout(run.uuid))
        #expect(detail.routes.map(\.sample.uuid) == [route.uuid])
        #expect(detail.routes.first?.locations.count == 3)
        #expect(abs((detail.routes.first?.meters ?? 0) - 2 * 0.009 * Double.pi / 180 * 6_371_008.8) < 0.01)
        await store.close()
        await admin.close()
    }
}
