import Foundation
import SalusModel
@testable import SalusServer
import Testing

/// The one rule of the same workout from several sources (`WorkoutDuplicates`), on values a file
/// or an export can carry.
@Suite("The same workout from several sources: the rule itself")
struct WorkoutDuplicatesRuleTests {
    static func run(start: Double, end: Double) -> Sample {
        Sample(
            type: TypeIdentifier("HKWorkoutTypeIdentifier"), startDate: Date(timeIntervalSince1970: start),
            endDate: Date(timeIntervalSince1970: end), value: .workout(Workout(activityType: WorkoutActivityType.running)),
            sourceRevision: Sample.unsavedSource)
    }

    @Test("a workout's report line holds dates past int64 microseconds at the nearest end, never a trap")
    func extremeDatesListed() {
        let listed = WorkoutDuplicates.listed(Self.run(start: -1e300, end: 1e300), source: "fit.example")
        #expect(listed.startDate == Int64.min && listed.endDate == Int64.max)
        let usual = WorkoutDuplicates.listed(Self.run(start: 1_700_000_000, end: 1_700_000_600.5), source: "fit.example")
        #expect(usual.startDate == 1_700_000_000_000_000 && usual.endDate == 1_700_000_600_500_000)
    }

    @Test("the overlap rule: 80% of the shorter one shared is the same workout, less is not, none that lasts no time")
    func overlapRule() {
        let hour = Self.run(start: 0, end: 3600)
        #expect(WorkoutDuplicates.overlap(hour, Self.run(start: 720, end: 4320)) == 2880)
        #expect(WorkoutDuplicates.overlap(hour, Self.run(start: 721, end: 4321)) == nil)
        #expect(WorkoutDuplicates.overlap(hour, Self.run(start: 100, end: 100)) == nil)
        #expect(WorkoutDuplicates.overlap(hour, Self.run(start: -1e300, end: 1e300)) == 3600)
    }
}
