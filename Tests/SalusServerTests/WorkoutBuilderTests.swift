import Foundation
import SalusKit
import SalusModel
import SalusRPC
import SalusTestSupport
import Testing

/// The workout builder through SalusKit, in process: what a finish saves, what a discard
/// leaves, each refusal's field and value, elapsed time with a pause, and a builder recovered
/// after a restart.
@Suite("The workout builder")
struct WorkoutBuilderTests {
    static let start = Date(timeIntervalSince1970: 1_795_250_000)
    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }
    static let perMinute = SalusUnit.count.divided(by: .minute)
    static let heartRate = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRate")
    static let distance = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceWalkingRunning")

    static func bpm(_ value: Double, at seconds: TimeInterval) -> Sample {
        .quantity(.heartRate, Quantity(value: value, unit: perMinute), start: at(seconds))
    }

    static func count(_ store: HealthStore, _ type: SampleType) async throws -> Int {
        try await SampleQueryDescriptor(type: type).result(for: store).count
    }

    /// The error `body` throws, as a SalusError.
    static func refusal(_ body: () async throws -> Void) async -> SalusError? {
        do {
            try await body()
            return nil
        } catch let error as SalusError {
            return error
        } catch {
            return nil
        }
    }

    @Test("Finish saves the workout, its activities, events and samples, with statistics; the builder is gone")
    func finish() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.run", name: "Run")
        let builder = try await WorkoutBuilder.begin(
            healthStore: store, activityType: WorkoutActivityType.running, start: Self.start)
        try await builder.add([Self.bpm(140, at: 60), Self.bpm(160, at: 600)])
        try await builder.add([
            .quantity(.distanceWalkingRunning, Quantity(value: 2, unit: .kilometer), start: Self.at(0), end: Self.at(600))
        ])
        try await builder.addWorkoutEvents([WorkoutEvent(.marker, startDate: Self.at(300))])
        try await builder.addMetadata([MetadataKey.indoorWorkout: .bool(false)])
        let live = try await builder.snapshot()
        #expect(live.sampleCount == 3)
        #expect(live.workout.allStatistics[Self.distance]?.sum == Quantity(value: 2000, unit: .meter))
        // Nothing is saved before Finish.
        #expect(try await Self.count(store, .workout) == 0)
        #expect(try await Self.count(store, .quantity(.heartRate)) == 0)

        try await builder.endCollection(at: Self.at(600))
        let saved = try await builder.finishWorkout()
        guard case .workout(let workout) = saved.value else {
            Issue.record("finish returned \(saved.kind)")
            return
        }
        #expect(saved.startDate == Self.start && saved.endDate == Self.at(600))
        #expect(saved.metadata[MetadataKey.indoorWorkout] == .bool(false))
        #expect(workout.activities.count == 1)
        #expect(workout.events.map(\.type) == [WorkoutEventType.marker.rawValue])
        let average = try #require(workout.allStatistics[Self.heartRate]?.average)
        #expect(abs(try average.doubleValue(for: Self.perMinute) - 150) < 1e-9)
        #expect(try await Self.count(store, .workout) == 1)
        #expect(try await Self.count(store, .quantity(.heartRate)) == 2)
        #expect(try await Self.count(store, .quantity(.distanceWalkingRunning)) == 1)
        #expect(try await WorkoutBuilder.inProgress(healthStore: store).isEmpty)
        let again = await Self.refusal { _ = try await builder.finishWorkout() }
        #expect(again?.field == "builderID" && again?.value == builder.id.uuidString)
    }

    @Test("Discard leaves nothing in the store")
    func discard() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.run", name: "Run")
        let builder = try await WorkoutBuilder.begin(
            healthStore: store, activityType: WorkoutActivityType.running, start: Self.start)
        try await builder.add((0..<20).map { Self.bpm(120 + Double($0), at: Double($0) * 30) })
        try await builder.beginActivity(WorkoutActivityType.running, at: Self.at(0))
        try await builder.endCollection(at: Self.at(600))
        #expect(try await builder.discardWorkout() == 20)
        #expect(try await Self.count(store, .workout) == 0)
        #expect(try await Self.count(store, .quantity(.heartRate)) == 0)
        #expect(try await WorkoutBuilder.inProgress(healthStore: store).isEmpty)
        let gone = await Self.refusal { _ = try await builder.snapshot() }
        #expect(gone?.code == .notFound)
        #expect(gone?.field == "builderID" && gone?.value == builder.id.uuidString)
    }

    @Test("Each refusal names its field and value and changes nothing")
    func refusals() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.tri", name: "Tri")
        let builder = try await WorkoutBuilder.begin(
            healthStore: store, activityType: WorkoutActivityType.swimBikeRun, start: Self.start)
        try await builder.beginActivity(WorkoutActivityType.swimming, at: Self.at(0))

        // An activity of a type a swimBikeRun does not have (the workout rules).
        let wrongType = await Self.refusal {
            try await builder.beginActivity(WorkoutActivityType.wheelchairRunPace, at: Self.at(600))
        }
        #expect(wrongType?.code == .invalidArgument)
        #expect(wrongType?.field == "workout.activities[1].activityType" && wrongType?.value == "71")
        // An event before the workout's start.
        let early = await Self.refusal { try await builder.addWorkoutEvents([WorkoutEvent(.lap, startDate: Self.at(-5))]) }
        #expect(early?.field == "workout.events[0].startDate")
        // A stroke style outside its enumeration.
        let stroke = await Self.refusal {
            try await builder.addWorkoutEvents([
                WorkoutEvent(.lap, startDate: Self.at(30), metadata: [MetadataKey.swimmingStrokeStyle: .number(9)])
            ])
        }
        #expect(stroke?.field == "workout.events[0].metadata.\(MetadataKey.swimmingStrokeStyle)" && stroke?.value.map { $0.contains("9") } == true)
        // A sample that breaks its type's rules.
        let badUnit = await Self.refusal {
            try await builder.add([.quantity(.heartRate, Quantity(value: 3, unit: .meter), start: Self.at(10))])
        }
        #expect(badUnit?.field == "samples[0].quantity.unit")
        // Finishing before the end.
        let early2 = await Self.refusal { _ = try await builder.finishWorkout() }
        #expect(early2?.field == "phase")
        let unchanged = try await builder.snapshot()
        #expect(unchanged.recording.activities.map(\.activityType) == [WorkoutActivityType.swimming])
        #expect(unchanged.recording.events.isEmpty && unchanged.sampleCount == 0)

        // Adding after the end.
        try await builder.endCollection(at: Self.at(600))
        let late = await Self.refusal { try await builder.add([Self.bpm(150, at: 100)]) }
        #expect(late?.field == "samples" && late?.value?.contains(builder.id.uuidString) == true)
        let lateEvent = await Self.refusal { try await builder.addWorkoutEvents([WorkoutEvent(.marker, startDate: Self.at(10))]) }
        #expect(lateEvent?.field == "events")

        // Another app's builder, and an id no builder has.
        let other = try await server.healthStore("org.example.other", name: "Other")
        let stolen = await Self.refusal { _ = try await WorkoutBuilder(healthStore: other, id: builder.id).discardWorkout() }
        #expect(stolen?.code == .permissionDenied)
        #expect(stolen?.field == "builderID" && stolen?.value == builder.id.uuidString)
        let unknownID = UUID()
        let unknown = await Self.refusal { _ = try await WorkoutBuilder(healthStore: store, id: unknownID).snapshot() }
        #expect(unknown?.code == .notFound && unknown?.value == unknownID.uuidString)
        #expect(try await builder.snapshot().recording.phase == .ended)
    }

    @Test("Samples need their own types' share permission; the workout needs the workout type's")
    func permissions() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let appID = "org.example.run"
        try await Authz.register(owner, appID)
        let store = try await server.healthStore(appID, name: "Run")
        let denied = await Self.refusal {
            _ = try await WorkoutBuilder.begin(healthStore: store, activityType: WorkoutActivityType.running, start: Self.start)
        }
        #expect(denied?.code == .authorizationNotDetermined || denied?.code == .authorizationDenied)
        try await Authz.grant(owner, appID, "HKWorkoutTypeIdentifier", read: nil, share: .granted)
        let builder = try await WorkoutBuilder.begin(
            healthStore: store, activityType: WorkoutActivityType.running, start: Self.start)
        let heartRate = await Self.refusal { try await builder.add([Self.bpm(150, at: 10)]) }
        #expect(heartRate?.code == .authorizationNotDetermined || heartRate?.code == .authorizationDenied)
        #expect(try await builder.snapshot().sampleCount == 0)
        try await Authz.grant(owner, appID, Self.heartRate.rawValue, read: nil, share: .granted)
        try await builder.add([Self.bpm(150, at: 10)])
        #expect(try await builder.snapshot().sampleCount == 1)
    }

    @Test("Elapsed time leaves out a pause and stops at the end")
    func elapsedTime() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.run", name: "Run")
        let builder = try await WorkoutBuilder.begin(
            healthStore: store, activityType: WorkoutActivityType.running, start: Self.start)
        try await builder.addWorkoutEvents([
            WorkoutEvent(.pause, startDate: Self.at(600)), WorkoutEvent(.resume, startDate: Self.at(720)),
        ])
        #expect(try await builder.elapsedTime(at: Self.at(300)) == 300)
        #expect(try await builder.elapsedTime(at: Self.at(660)) == 600)
        #expect(try await builder.elapsedTime(at: Self.at(1000)) == 880)
        try await builder.endCollection(at: Self.at(1200))
        #expect(try await builder.elapsedTime(at: Self.at(5000)) == 1080)
        let saved = try await builder.finishWorkout()
        guard case .workout(let workout) = saved.value else { return }
        #expect(workout.activeDuration(from: saved.startDate, to: saved.endDate) == 1080)
    }

    @Test("Beginning an activity ends the open one; a builder survives a restart")
    func activitiesAndRestart() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.tri", name: "Tri")
        let builder = try await WorkoutBuilder.begin(
            healthStore: store, activityType: WorkoutActivityType.swimBikeRun, start: Self.start)
        try await builder.beginActivity(WorkoutActivityType.swimming, at: Self.at(0))
        try await builder.add([Self.bpm(130, at: 100)])
        let snapshot = try await builder.beginActivity(WorkoutActivityType.transition, at: Self.at(900))
        #expect(snapshot.recording.activities.map(\.endDate) == [Self.at(900), nil])
        await server.stop()

        let restarted = try await server.restart()
        let again = try await restarted.healthStore("org.example.tri", name: "Tri")
        let found = try await WorkoutBuilder.inProgress(healthStore: again)
        #expect(found.map(\.id) == [builder.id])
        let recovered = try #require(found.first)
        let state = try await recovered.snapshot()
        #expect(state.sampleCount == 1)
        #expect(state.recording.activities.map(\.activityType) == [WorkoutActivityType.swimming, WorkoutActivityType.transition])
        try await recovered.beginActivity(WorkoutActivityType.cycling, at: Self.at(1000))
        try await recovered.endCollection(at: Self.at(2000))
        let saved = try await recovered.finishWorkout()
        guard case .workout(let workout) = saved.value else { return }
        #expect(workout.activities.map(\.activityType) == [46, 83, 13])
        #expect(workout.activities.last?.endDate == Self.at(2000))
        #expect(try await Self.count(again, .quantity(.heartRate)) == 1)
    }
}
