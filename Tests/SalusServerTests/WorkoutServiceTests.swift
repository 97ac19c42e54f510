import Foundation
import SalusKit
import SalusModel
import SalusRPC
import SalusTestSupport
import Testing

/// Workouts through the store service with the bundled plugins: a workout saved without
/// activities gets one, and is served with statistics computed from the samples its app saved
/// during it, recomputed when those samples change.
@Suite("Workouts through the store service")
struct WorkoutServiceTests {
    static let morning = Date(timeIntervalSince1970: 1_795_250_000)
    static func at(_ seconds: TimeInterval) -> Date { morning.addingTimeInterval(seconds) }
    static let perMinute = SalusUnit.count.divided(by: .minute)

    static func workout(_ value: Workout, duration: TimeInterval) -> Sample {
        Sample(
            type: TypeIdentifier(rawValue: SampleType.workout.description), startDate: morning, endDate: at(duration),
            value: .workout(value), sourceRevision: Sample.unsavedSource)
    }

    /// A heart rate in count/min, rounded to 1e-9.
    static func bpm(_ quantity: Quantity?) throws -> Double? {
        try quantity.map { (try $0.doubleValue(for: perMinute) * 1e9).rounded() / 1e9 }
    }

    static func workouts(_ store: HealthStore) async throws -> [Workout] {
        try await SampleQueryDescriptor(type: .workout).result(for: store).compactMap {
            if case .workout(let workout) = $0.value { return workout }
            return nil
        }
    }

    @Test("Workouts whose metadata together pass the 4 MiB frame limit come back whole and in order, in frames under it")
    func largeWorkouts() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.journal", name: "Journal")
        // 300 workouts with a 16 KB note each: 4.8 MB, fewer than one page of 500 samples. Saved
        // 100 at a time, each request under the frame limit.
        let note = String(repeating: "n", count: 16_000)
        for first in stride(from: 0, to: 300, by: 100) {
            _ = try await store.save((first..<first + 100).map { index -> Sample in
                var workout = Self.workout(Workout(activityType: WorkoutActivityType.running), duration: 60)
                workout.startDate = Self.at(Double(index) * 120)
                workout.endDate = Self.at(Double(index) * 120 + 60)
                workout.metadata = ["org.example.note": .string(note), "org.example.index": .number(Double(index))]
                return workout
            })
        }
        let read = try await SampleQueryDescriptor(type: .workout).result(for: store)
        #expect(read.map { $0.metadata["org.example.index"] } == (0..<300).map { MetadataValue.number(Double($0)) })
        #expect(read.allSatisfy { $0.metadata["org.example.note"] == .string(note) })
        await server.stop()
    }

    @Test("A run saved without activities gets one; its statistics follow its samples")
    func defaultActivityAndLiveStatistics() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.run", name: "Run")
        let other = try await server.healthStore("org.example.other", name: "Other")
        _ = try await store.save(Self.workout(Workout(activityType: WorkoutActivityType.running), duration: 1200))
        let rates = try await store.save([
            .quantity(.heartRate, Quantity(value: 140, unit: Self.perMinute), start: Self.at(100)),
            .quantity(.heartRate, Quantity(value: 160, unit: Self.perMinute), start: Self.at(700)),
            .quantity(.distanceWalkingRunning, Quantity(value: 3, unit: .kilometer), start: Self.at(0), end: Self.at(1200)),
        ])
        // Another app's samples are not this workout's.
        _ = try await other.save(.quantity(.heartRate, Quantity(value: 60, unit: Self.perMinute), start: Self.at(200)))

        let saved = try #require(try await Self.workouts(store).first)
        #expect(saved.activities.count == 1)
        #expect(saved.activities[0].activityType == WorkoutActivityType.running)
        #expect(saved.activities[0].startDate == Self.morning)
        #expect(saved.activities[0].endDate == Self.at(1200))
        let heartRate = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRate")
        let distance = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceWalkingRunning")
        #expect(try Self.bpm(saved.allStatistics[heartRate]?.average) == 150)
        #expect(try Self.bpm(saved.allStatistics[heartRate]?.minimum) == 140)
        #expect(saved.activities[0].allStatistics[distance]?.sum == Quantity(value: 3000, unit: .meter))

        _ = try await store.delete(uuids: [rates[1].uuid])
        let after = try #require(try await Self.workouts(store).first)
        #expect(try Self.bpm(after.allStatistics[heartRate]?.average) == 140)
        #expect(try Self.bpm(after.activities[0].statistics[heartRate]) == 140)
    }

    @Test("Heart-rate recovery one minute after the end is served with the workout, from its app's heart rate")
    func heartRateRecovery() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.run", name: "Run")
        _ = try await store.save(Self.workout(Workout(activityType: WorkoutActivityType.running), duration: 1200))
        let recovery = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRateRecoveryOneMinute")
        let before = try #require(try await Self.workouts(store).first)
        #expect(before.statistics[recovery] == nil, "no rate a minute after the end yet")
        // 171 at the end, 139 a minute later (two seconds off): a drop of 32.
        _ = try await store.save([
            .quantity(.heartRate, Quantity(value: 171, unit: Self.perMinute), start: Self.at(1195)),
            .quantity(.heartRate, Quantity(value: 139, unit: Self.perMinute), start: Self.at(1262)),
        ])
        let after = try #require(try await Self.workouts(store).first)
        #expect(try Self.bpm(after.statistics[recovery]) == 32)
        #expect(try Self.bpm(after.allStatistics[recovery]?.average) == 32)
        // The rate after the end counts for recovery only, not in the workout's heart rate.
        let heartRate = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRate")
        #expect(try Self.bpm(after.allStatistics[heartRate]?.minimum) == 171)
    }

    @Test("A statistic predicate over the run's activity counts a heart rate at the workout's end, as the served figure does")
    func activityStatisticAtTheEnd() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.run", name: "Run")
        _ = try await store.save(Self.workout(Workout(activityType: WorkoutActivityType.running), duration: 1200))
        // 170 mid-run and 180 at the workout's own end: the run is served at 175.
        _ = try await store.save([
            .quantity(.heartRate, Quantity(value: 170, unit: Self.perMinute), start: Self.at(600)),
            .quantity(.heartRate, Quantity(value: 180, unit: Self.perMinute), start: Self.at(1200)),
        ])
        let heartRate = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRate")
        let served = try #require(try await Self.workouts(store).first)
        let average = try #require(try Self.bpm(served.activities[0].allStatistics[heartRate]?.average))
        #expect(average == 175)
        #expect(try Self.bpm(served.allStatistics[heartRate]?.average) == 175)
        func matches(_ predicate: SamplePredicate) async throws -> Bool {
            try await SampleQueryDescriptor(type: .workout, predicate: predicate).result(for: store).count == 1
        }
        for (comparison, bpm, expected) in [
            (ComparisonOperator.greaterThan, average - 0.5, true), (.lessThan, average + 0.5, true), (.greaterThan, average + 0.5, false),
        ] {
            let quantity = Quantity(value: bpm, unit: Self.perMinute)
            #expect(try await matches(.workoutActivityStatistic(37, heartRate, .average, comparison, quantity)) == expected,
                    "activity average \(comparison) \(bpm)")
            #expect(try await matches(.workoutStatistic(heartRate, .average, comparison, quantity)) == expected,
                    "workout average \(comparison) \(bpm)")
        }
        #expect(try await matches(.workoutActivityStatistic(
            37, heartRate, .maximum, .equal, Quantity(value: 180, unit: Self.perMinute))))
        await server.stop()
    }

    @Test("A refused workout names the field and value and saves nothing")
    func refusal() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.run", name: "Run")
        let legs = Workout(
            activityType: WorkoutActivityType.swimBikeRun,
            activities: [
                WorkoutActivity(activityType: WorkoutActivityType.swimming, startDate: Self.at(0), endDate: Self.at(600)),
                WorkoutActivity(activityType: WorkoutActivityType.wheelchairRunPace, startDate: Self.at(600), endDate: Self.at(900)),
            ])
        await #expect {
            _ = try await store.save(Self.workout(legs, duration: 900))
        } throws: { error in
            let message = "\(error)"
            return message.contains("samples[0].workout.activities[1].activityType") && message.contains("71")
        }
        #expect(try await Self.workouts(store).isEmpty)
    }

    @Test("A reader may filter workouts by a statistic only over a type it may read, and sees only those statistics")
    func statisticsUnderAuthorization() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        let workoutType = SampleType.workout.description
        for app in ["org.example.run", "org.example.coach", "org.example.stranger"] { _ = try await Authz.register(owner, app) }
        try await Authz.grant(owner, "org.example.run", workoutType, read: nil, share: .granted)
        try await Authz.grant(owner, "org.example.run", Authz.heartRate, read: nil, share: .granted)
        try await Authz.grant(owner, "org.example.coach", workoutType, read: .granted, share: nil)
        try await Authz.grant(owner, "org.example.coach", Authz.heartRate, read: .granted, share: nil)
        try await Authz.grant(owner, "org.example.stranger", workoutType, read: .granted, share: nil)
        let run = HealthStore(client: try await Authz.app(server, "org.example.run"))
        _ = try await run.save(Self.workout(Workout(activityType: WorkoutActivityType.running), duration: 1200))
        _ = try await run.save(.quantity(.heartRate, Quantity(value: 170, unit: Self.perMinute), start: Self.at(600)))

        let fast = SamplePredicate.workoutActivityStatistic(
            37, TypeIdentifier(rawValue: Authz.heartRate), .average, .greaterThan, Quantity(value: 150, unit: Self.perMinute))
        let coach = HealthStore(client: try await Authz.app(server, "org.example.coach"))
        let stranger = HealthStore(client: try await Authz.app(server, "org.example.stranger"))
        #expect(try await SampleQueryDescriptor(type: .workout, predicate: fast).result(for: coach).count == 1)
        #expect(try await SampleQueryDescriptor(type: .workout, predicate: fast).result(for: run).count == 1)
        // Without heart-rate read the test is false, and its negation true: nothing is learnt.
        #expect(try await SampleQueryDescriptor(type: .workout, predicate: fast).result(for: stranger).isEmpty)
        #expect(try await SampleQueryDescriptor(type: .workout, predicate: !fast).result(for: stranger).count == 1)
        let seen = try #require(try await Self.workouts(stranger).first)
        #expect(seen.allStatistics.isEmpty)
        #expect(try #require(try await Self.workouts(coach).first).allStatistics.count == 1)
    }
}
