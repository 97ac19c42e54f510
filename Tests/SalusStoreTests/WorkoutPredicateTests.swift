import Foundation
import SalusModel
import SalusStore
import Testing

/// Predicates on workouts' activities and on statistics computed from their associated samples,
/// compiled to SQL: the figures match those served with the workout (docs/workouts.md).
@Suite("Workout predicates")
struct WorkoutPredicateTests {
    static let perMinute = try! SalusUnit(parsing: "count/min")

    /// A swim-bike-run 0–3600 s (swim 0–900, ride 900–2400, run 2400–3600) and a run 0–1800 s,
    /// each with its app's heart rates and distances; an other app's heart rates.
    static func populate(_ store: SampleStore) async throws -> (triathlon: UUID, run: UUID) {
        let triathlon = Sample(
            type: Fixtures.workout, startDate: Fixtures.at(0), endDate: Fixtures.at(3600),
            value: .workout(
                Workout(
                    activityType: 82,
                    activities: [
                        WorkoutActivity(activityType: 46, startDate: Fixtures.at(0), endDate: Fixtures.at(900)),
                        WorkoutActivity(activityType: 13, startDate: Fixtures.at(900), endDate: Fixtures.at(2400)),
                        WorkoutActivity(activityType: 37, startDate: Fixtures.at(2400), endDate: Fixtures.at(3600)),
                    ])),
            sourceRevision: Fixtures.app)
        let saved = try await store.save(
            [
                triathlon,
                // The run's heart rate: 140 before 2400 s is the ride's; a 60 s sample 2370–2430 at 170
                // is half in each; 160 at 3000 s. Run average: (170·½ + 160) / 1.5 = 163.33.
                Fixtures.quantity(Fixtures.heartRate, 140, "count/min", start: 2000),
                Fixtures.quantity(Fixtures.heartRate, 170, "count/min", start: 2370, end: 2430),
                Fixtures.quantity(Fixtures.heartRate, 160, "count/min", start: 3000),
                // 12 km over 2400–3600 s, and a 2 km sample 2300–2500 half in the run.
                Fixtures.quantity(Fixtures.distance, 12, "km", start: 2400, end: 3600),
                Fixtures.quantity(Fixtures.distance, 2, "km", start: 2300, end: 2500),
            ], source: Fixtures.app)
        let run = Sample(
            type: Fixtures.workout, startDate: Fixtures.at(7200), endDate: Fixtures.at(9000),
            value: .workout(Workout(activityType: 37, activities: [
                WorkoutActivity(activityType: 37, startDate: Fixtures.at(7200), endDate: Fixtures.at(9000))
            ])),
            sourceRevision: Fixtures.otherApp)
        let other = try await store.save(
            [
                run, Fixtures.quantity(Fixtures.heartRate, 150, "count/min", start: 8000),
                Fixtures.quantity(Fixtures.distance, 5, "km", start: 7200, end: 9000),
            ], source: Fixtures.otherApp)
        return (saved.results[0].uuid, other.results[0].uuid)
    }

    static func uuids(_ store: SampleStore, _ predicate: SamplePredicate) async throws -> Set<UUID> {
        Set(try await store.all(Fixtures.workout, predicate).map(\.uuid))
    }

    @Test("A running activity whose average heart rate is above 150 count/min, pro-rated at its start")
    func activityAverage() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let (triathlon, run) = try await Self.populate(store)
        func running(_ comparison: ComparisonOperator, _ bpm: Double) -> SamplePredicate {
            .workoutActivityStatistic(37, Fixtures.heartRate, .average, comparison, Quantity(value: bpm, unit: Self.perMinute))
        }
        #expect(try await Self.uuids(store, running(.greaterThan, 150)) == [triathlon])
        #expect(try await Self.uuids(store, running(.greaterThan, 163.3)) == [triathlon])
        #expect(try await Self.uuids(store, running(.greaterThan, 163.4)) == [])
        #expect(try await Self.uuids(store, running(.greaterThanOrEqual, 150)) == [triathlon, run])
        // The ride's maximum counts the 170 sample half inside it; the swim has no heart rate.
        #expect(
            try await Self.uuids(store, .workoutActivityStatistic(13, Fixtures.heartRate, .maximum, .equal, Quantity(value: 170, unit: Self.perMinute)))
                == [triathlon])
        #expect(
            try await Self.uuids(store, .workoutActivityStatistic(46, Fixtures.heartRate, .minimum, .greaterThan, Quantity(value: 0, unit: Self.perMinute)))
                == [])
        // Composes: a triathlon with a run, but not the run workout.
        #expect(try await Self.uuids(store, .workoutActivity(37) && .workoutActivityType(82)) == [triathlon])
        #expect(try await Self.uuids(store, .workoutActivity(37) && !.workoutActivityType(82)) == [run])
        #expect(try await Self.uuids(store, .workoutActivity(13)) == [triathlon])
    }

    @Test("Total distance over 10 km, of a workout and of its run; durations of activities")
    func distances() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let (triathlon, run) = try await Self.populate(store)
        let tenKilometers = Quantity(value: 10, unit: .kilometer)
        #expect(try await Self.uuids(store, .workoutStatistic(Fixtures.distance, .sum, .greaterThan, tenKilometers)) == [triathlon])
        // The run leg: 12 km + half of 2 km = 13 km.
        #expect(
            try await Self.uuids(store, .workoutActivityStatistic(37, Fixtures.distance, .sum, .equal, Quantity(value: 13, unit: .kilometer)))
                == [triathlon])
        #expect(
            try await Self.uuids(store, .workoutActivityStatistic(nil, Fixtures.distance, .sum, .lessThan, Quantity(value: 6, unit: .kilometer)))
                == [triathlon, run])
        // A cumulative type has no average.
        #expect(try await Self.uuids(store, .workoutStatistic(Fixtures.distance, .average, .greaterThan, Quantity(value: 0, unit: .meter))) == [])
        #expect(
            try await Self.uuids(store, .workout(.activity(WorkoutActivityTest(duration: (.greaterThan, 1400))))) == [triathlon, run])
        #expect(
            try await Self.uuids(store, .workout(.activity(WorkoutActivityTest(activityType: 46, duration: (.greaterThan, 1000))))) == [])
    }

    @Test("Deleting a workout deletes its activities and events, leaves a tombstone anchored queries report, and keeps its samples")
    func deletion() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let (triathlon, run) = try await Self.populate(store)
        let before = try await store.currentAnchor()
        let deleted = try await store.delete([triathlon], requester: .app(Fixtures.app.appID))
        #expect(deleted.deleted == 1)
        #expect(try await Self.uuids(store, .workoutActivity(46)) == [])
        #expect(try await Self.uuids(store, .workoutActivity(37)) == [run])
        #expect(try await store.all(Fixtures.workout).map(\.uuid) == [run])
        let changes = try await store.anchoredQuery([QueryDescriptor(type: Fixtures.workout)], anchor: before)
        #expect(changes.added.isEmpty)
        #expect(changes.deleted.map(\.uuid) == [triathlon])
        // The heart rates and distances are samples of their own and stay.
        #expect(try await store.count(Fixtures.heartRate) == 4)
    }
}
