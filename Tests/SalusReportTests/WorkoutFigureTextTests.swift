import Foundation
import SalusModel
import SalusReport
import Testing

/// The one rule for a workout's figures, which `salusctl workouts` and the report share: the
/// statistics served, each marked by where it comes from, and a saved total for a type without
/// them, a sum when the type is cumulative and an average otherwise.
@Suite("Workout figures as the owner's tools show them")
struct WorkoutFigureTextTests {
    static let distance = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierDistanceWalkingRunning")
    static let heartRate = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRate")
    static let power = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierRunningPower")
    static let perSecond = SalusUnit.count.divided(by: .second)

    @Test("served figures keep their origin; a saved total fills only a type with none, a sum when cumulative, an average otherwise; sorted by type")
    func rule() {
        var fromSamples = WorkoutStatistics(average: Quantity(value: 2.5, unit: Self.perSecond))
        fromSamples.fromSamples = true
        let figures = WorkoutFigureText.all(
            [Self.heartRate: fromSamples],
            saved: [
                Self.heartRate: Quantity(value: 3, unit: Self.perSecond),
                Self.distance: Quantity(value: 5012.5, unit: .meter),
                Self.power: Quantity(value: 250, unit: .watt),
            ],
            cumulative: [Self.distance])
        #expect(figures.map(\.type) == [Self.distance, Self.heartRate, Self.power])
        #expect(figures[0] == WorkoutFigure(type: Self.distance, statistics: WorkoutStatistics(sum: Quantity(value: 5012.5, unit: .meter)), origin: .workout))
        #expect(figures[1] == WorkoutFigure(type: Self.heartRate, statistics: fromSamples, origin: .samples), "the served figure, not the saved one")
        #expect(figures[2] == WorkoutFigure(type: Self.power, statistics: WorkoutStatistics(average: Quantity(value: 250, unit: .watt)), origin: .workout))
        #expect(WorkoutFigureText.lines(figures) == [
            "DistanceWalkingRunning: 5012.5 m (saved with the workout)",
            "HeartRate: average 150 count/min (from samples)",
            "RunningPower: average 250 W (saved with the workout)",
        ])
    }

    @Test("the report reads saved totals by the same rule: a discrete type's is an average, not a sum")
    func reportSharesTheRule() {
        let saved = [Self.power: Quantity(value: 250, unit: .watt), Self.distance: Quantity(value: 5012.5, unit: .meter)]
        let merged = WorkoutFigureText.merged([:], saved: saved, cumulative: [Self.distance])
        #expect(merged == Dictionary(
            WorkoutFigureText.all([:], saved: saved, cumulative: [Self.distance]).map { ($0.type, $0.statistics) }, uniquingKeysWith: { a, _ in a }))
        #expect(merged[Self.power] == WorkoutStatistics(average: Quantity(value: 250, unit: .watt)))
        #expect(WorkoutFigureText.figures(merged) == ["5.01 km running"])
    }
}
