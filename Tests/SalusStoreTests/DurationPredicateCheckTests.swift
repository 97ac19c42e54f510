import Foundation
import SalusModel
import SalusProto
import SalusStore
import SalusWire
import Testing

/// A workout or activity duration in a predicate is checked by one rule, whether the predicate
/// comes from the wire (SalusWire's conversion) or straight to the store (the compiler): the
/// same field, value and expectation either way.
@Suite("Duration predicates: one check on both paths")
struct DurationPredicateCheckTests {
    static let bad: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300, 9.3e12, -9.3e12]

    /// The wire predicate "duration > `seconds`" for a workout, or for its activity.
    static func wire(_ seconds: Double, activity: Bool) -> Salus_V1_Predicate {
        var comparison = Salus_V1_DurationComparison()
        comparison.operator = .greaterThan
        comparison.seconds = seconds
        var workout = Salus_V1_WorkoutPredicate()
        if activity {
            var test = Salus_V1_WorkoutActivityPredicate()
            test.duration = comparison
            workout.activity = test
        } else {
            workout.duration = comparison
        }
        var predicate = Salus_V1_Predicate()
        predicate.workout = workout
        return predicate
    }

    @Test("a bad duration is refused with the same field, value and expectation by the wire conversion and by the store", arguments: bad)
    func samePreciseError(seconds: Double) async throws {
        let temporary = try await TemporaryStore.make()
        for activity in [false, true] {
            let field = activity ? "predicate.workout.activity.duration.seconds" : "predicate.workout.duration.seconds"
            var wireError: ValidationError?
            do {
                _ = try SamplePredicate(wire: Self.wire(seconds, activity: activity))
            } catch {
                wireError = error
            }
            let model: SamplePredicate =
                activity
                ? .workout(.activity(WorkoutActivityTest(duration: (.greaterThan, seconds))))
                : .workoutDuration(.greaterThan, seconds)
            var storeError: StoreError?
            do {
                _ = try await temporary.store.all(Fixtures.workout, model)
            } catch let error as StoreError {
                storeError = error
            }
            #expect(wireError?.field == field, "wire, \(seconds): \(String(describing: wireError))")
            #expect(storeError?.code == .invalidArgument)
            #expect(storeError?.field == wireError?.field, "\(seconds)")
            #expect(storeError?.value == wireError?.value, "\(seconds)")
            #expect(storeError?.expected == wireError?.expected, "\(seconds)")
            #expect(storeError?.reason == wireError?.reason, "\(seconds)")
            #expect(wireError?.value == "\(seconds)")
            #expect(wireError?.expected.contains("what int64 microseconds hold") == true)
        }
    }
}
