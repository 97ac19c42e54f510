import Foundation
import SalusModel
import SalusProto
import Testing

@testable import SalusPluginHost

/// The bundled plugins' upper bounds on cumulative totals (`ValueBounds.lifetimeTotal`,
/// `.lifetimeMinutes`): what no sample reaches in a lifetime is refused, real totals are not; a
/// workout's saved totals lie in their types' bounds.
@Suite("Upper bounds of cumulative types")
struct LifetimeBoundsTests {
    static func quantity(_ type: String, _ value: Double, _ unit: String, seconds: Int64 = 60) -> Salus_V1_Sample {
        ValidatorTests.quantity(type, value, unit, seconds: seconds)
    }

    static func workout(statistics: [String: (Double, String)]) -> Salus_V1_Sample {
        OneProcessTests.sample("HKWorkoutTypeIdentifier", seconds: 3600) { sample in
            var activity = Salus_V1_WorkoutActivity()
            activity.activityType = 37
            activity.startDate = sample.startDate
            activity.endDate = sample.endDate
            sample.workout.activityType = 37
            sample.workout.activities = [activity]
            sample.workout.statistics = statistics.mapValues { value, unit in Salus_V1_Quantity.with { $0.value = value; $0.unit = unit } }
        }
    }

    @Test("1e300 steps, kilocalories, metres or minutes are refused naming the value; a day's, a year's and a lifetime's real totals are not")
    func cumulativeTotals() throws {
        let registry = try OneProcessTests.registry()
        let absurd: [(String, String)] = [
            ("HKQuantityTypeIdentifierStepCount", "count"), ("HKQuantityTypeIdentifierActiveEnergyBurned", "kcal"),
            ("HKQuantityTypeIdentifierBasalEnergyBurned", "kcal"), ("HKQuantityTypeIdentifierDistanceWalkingRunning", "km"),
            ("HKQuantityTypeIdentifierDistanceCycling", "m"), ("HKQuantityTypeIdentifierFlightsClimbed", "count"),
            ("HKQuantityTypeIdentifierAppleExerciseTime", "min"), ("HKQuantityTypeIdentifierPushCount", "count"),
            ("HKQuantityTypeIdentifierDistanceWheelchair", "m"), ("HKQuantityTypeIdentifierDietaryEnergyConsumed", "kcal"),
            ("HKQuantityTypeIdentifierDietaryWater", "L"), ("HKQuantityTypeIdentifierNumberOfTimesFallen", "count"),
        ]
        for (type, unit) in absurd {
            let error = try #require(registry.checkError(Self.quantity(type, 1e300, unit)), "\(type)")
            #expect(error.reason == .valueOutOfRange, "\(type): \(error)")
            #expect(error.field == "sample.quantity.value", "\(type): \(error)")
            #expect(error.expected.contains("the possible range of \(type)"), "\(error.expected)")
        }
        // What people do record: a day of an ultramarathon, a year of walking in one sample, a
        // cyclist's lifetime, a day of a Tour de France stage.
        let real: [(String, Double, String, Int64)] = [
            ("HKQuantityTypeIdentifierStepCount", 250_000, "count", 86_400),
            ("HKQuantityTypeIdentifierStepCount", 40_000_000, "count", 365 * 86_400),
            ("HKQuantityTypeIdentifierDistanceCycling", 1_000_000, "km", 60 * 365 * 86_400),
            ("HKQuantityTypeIdentifierActiveEnergyBurned", 8_000, "kcal", 86_400),
            ("HKQuantityTypeIdentifierAppleExerciseTime", 1_440, "min", 86_400),
        ]
        for (type, value, unit, seconds) in real {
            #expect(registry.check(Self.quantity(type, value, unit, seconds: seconds)) == nil, "\(type) \(value) \(unit)")
        }
    }

    @Test("A workout's saved totals lie in their types' bounds: 1e300 kcal, -5 kcal and a heart rate of 900 are refused")
    func workoutStatistics() throws {
        let registry = try OneProcessTests.registry()
        let energy = "HKQuantityTypeIdentifierActiveEnergyBurned"
        for (type, value, unit) in [(energy, 1e300, "kcal"), (energy, -5, "kcal"), ("HKQuantityTypeIdentifierHeartRate", 900, "count/min")] {
            let error = try #require(registry.checkError(Self.workout(statistics: [type: (value, unit)])), "\(type) \(value)")
            #expect(error.reason == .valueOutOfRange, "\(error)")
            #expect(error.field == "sample.workout.statistics.\(type)", "\(error)")
        }
        #expect(registry.check(Self.workout(statistics: [energy: (640, "kcal"), "HKQuantityTypeIdentifierHeartRate": (152, "count/min")])) == nil)
    }
}
