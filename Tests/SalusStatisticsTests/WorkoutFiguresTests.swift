import Foundation
import SalusModel
import Testing

@testable import SalusStatistics

/// Workout statistics per activity, pro-rated at activity boundaries, SWOLF and heart-rate
/// recovery, computed by hand.
@Suite("Workout figures")
struct WorkoutFiguresTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    static let distance: TypeIdentifier = "HKQuantityTypeIdentifierDistanceSwimming"
    static let heartRate: TypeIdentifier = "HKQuantityTypeIdentifierHeartRate"
    static let perMinute = SalusUnit.count.divided(by: .minute)
    static let figures = WorkoutFigures(styles: [
        distance: (.cumulative, .meter),
        heartRate: (.discreteArithmetic, perMinute),
        WorkoutFigures.strokeCount: (.cumulative, .count),
    ])

    static func entry(_ type: TypeIdentifier, _ from: TimeInterval, _ to: TimeInterval, _ value: Double) -> WorkoutFigures.Entry {
        WorkoutFigures.Entry(type: type, start: at(from), end: at(to), value: value)
    }

    @Test("A distance and a heart-rate sample crossing the swim-bike boundary count pro rata in each leg")
    func proRating() throws {
        let workout = Workout(
            activityType: WorkoutActivityType.swimBikeRun,
            activities: [
                WorkoutActivity(activityType: WorkoutActivityType.swimming, startDate: Self.at(0), endDate: Self.at(600)),
                WorkoutActivity(activityType: WorkoutActivityType.cycling, startDate: Self.at(600), endDate: Self.at(1800)),
            ])
        let entries = [
            // 800 m over 540...700 s: 60 of its 160 s in the swim (300 m), 100 s in the ride (500 m).
            Self.entry(Self.distance, 540, 700, 800),
            // 150 count/min over 580...640 s: a third in the swim, two thirds in the ride.
            Self.entry(Self.heartRate, 580, 640, 150),
            Self.entry(Self.heartRate, 300, 300, 120),
            Self.entry(Self.heartRate, 900, 900, 160),
        ]
        let completed = Self.figures.completing(workout, from: Self.start, to: Self.at(1800), entries: entries)
        let swim = completed.activities[0].allStatistics
        let ride = completed.activities[1].allStatistics
        #expect(try #require(swim[Self.distance]?.sum?.value).isApproximately(300))
        #expect(try #require(ride[Self.distance]?.sum?.value).isApproximately(500))
        // Swim: (120·1 + 150·⅓) / (1 + ⅓) = 127.5; ride: (150·⅔ + 160·1) / (⅔ + 1) = 156.
        #expect(try #require(swim[Self.heartRate]?.average?.value).isApproximately(127.5))
        #expect(try #require(ride[Self.heartRate]?.average?.value).isApproximately(156))
        #expect(swim[Self.heartRate]?.minimum?.value == 120)
        #expect(swim[Self.heartRate]?.maximum?.value == 150)
        #expect(ride[Self.heartRate]?.minimum?.value == 150)
        #expect(swim[Self.distance]?.average == nil)
        #expect(ride[Self.heartRate]?.sum == nil)
        // The workout counts every sample whole: 800 m; (120 + 150 + 160) / 3.
        #expect(try #require(completed.allStatistics[Self.distance]?.sum?.value).isApproximately(800))
        #expect(try #require(completed.statistics[Self.heartRate]?.value).isApproximately(430.0 / 3))
        #expect(completed.activities[1].statistics[Self.distance]?.unit == .meter)
    }

    @Test("A type with no sample in an activity has no statistics there; given totals stand without samples")
    func noSamples() throws {
        let kilocalorie = try SalusUnit(parsing: "kcal")
        let energy: TypeIdentifier = "HKQuantityTypeIdentifierActiveEnergyBurned"
        let workout = Workout(
            activityType: WorkoutActivityType.running,
            activities: [
                WorkoutActivity(activityType: WorkoutActivityType.running, startDate: Self.at(0), endDate: Self.at(60)),
                WorkoutActivity(activityType: WorkoutActivityType.running, startDate: Self.at(60), endDate: Self.at(120)),
            ],
            statistics: [energy: Quantity(value: 40, unit: kilocalorie)])
        let completed = Self.figures.completing(
            workout, from: Self.start, to: Self.at(120), entries: [Self.entry(Self.heartRate, 10, 10, 100)])
        #expect(completed.activities[1].allStatistics.isEmpty)
        #expect(completed.activities[0].allStatistics[Self.heartRate]?.average?.value == 100)
        #expect(completed.statistics[energy] == Quantity(value: 40, unit: kilocalorie))
    }

    @Test("SWOLF on a 25 m pool: strokes plus seconds per length, per lap and per activity")
    func swolf() {
        let pool = WorkoutConfiguration(swimmingLocationType: .pool, lapLength: Quantity(value: 25, unit: .meter))
        let workout = Workout(
            activityType: WorkoutActivityType.swimming, configuration: pool,
            events: [
                WorkoutEvent(.lap, startDate: Self.at(0), endDate: Self.at(30)),
                WorkoutEvent(.lap, startDate: Self.at(30), endDate: Self.at(62)),
                WorkoutEvent(.lap, startDate: Self.at(62), endDate: Self.at(140)),
            ],
            activities: [
                WorkoutActivity(activityType: WorkoutActivityType.swimming, configuration: pool, startDate: Self.at(0), endDate: Self.at(140))
            ])
        let entries = [
            Self.entry(WorkoutFigures.strokeCount, 0, 30, 18), Self.entry(Self.distance, 0, 30, 25),
            Self.entry(WorkoutFigures.strokeCount, 30, 62, 20), Self.entry(Self.distance, 30, 62, 25),
            // The third lap covered two lengths: (40 strokes + 78 s) / 2.
            Self.entry(WorkoutFigures.strokeCount, 62, 140, 40), Self.entry(Self.distance, 62, 140, 50),
        ]
        let completed = Self.figures.completing(workout, from: Self.start, to: Self.at(140), entries: entries)
        #expect(completed.events.map { $0.metadata[MetadataKey.swolfScore] } == [.number(48), .number(52), .number(59)])
        // The activity: (78 strokes + 140 s) / (100 m / 25 m) = 54.5.
        #expect(completed.activities[0].metadata[MetadataKey.swolfScore] == .number(54.5))

        let openWater = Self.figures.completing(
            Workout(activityType: WorkoutActivityType.swimming, events: workout.events, activities: [
                WorkoutActivity(activityType: WorkoutActivityType.swimming, startDate: Self.at(0), endDate: Self.at(140))
            ]),
            from: Self.start, to: Self.at(140), entries: entries)
        #expect(openWater.events.allSatisfy { $0.metadata[MetadataKey.swolfScore] == nil })
    }

    @Test("Heart-rate recovery: the rate at the end minus the rate a minute later, with its test type")
    func heartRateRecovery() throws {
        let workout = Workout(activityType: WorkoutActivityType.running, events: [
            WorkoutEvent(.pause, startDate: Self.at(600)), WorkoutEvent(.resume, startDate: Self.at(660)),
        ])
        let source = SourceRevision(appID: "org.example.run", name: "Run")
        let rates = [
            Self.entry(Self.heartRate, 1700, 1700, 150), Self.entry(Self.heartRate, 1795, 1795, 171),
            Self.entry(Self.heartRate, 1850, 1850, 140), Self.entry(Self.heartRate, 1862, 1862, 139),
        ]
        let sample = try #require(
            WorkoutFigures.heartRateRecovery(workout: workout, from: Self.start, to: Self.at(1800), heartRates: rates, source: source))
        #expect(sample.type == WorkoutFigures.heartRateRecovery)
        #expect(sample.startDate == Self.at(1800))
        #expect(sample.endDate == Self.at(1860))
        #expect(sample.value == .quantity(Quantity(value: 32, unit: Self.perMinute)))
        #expect(sample.metadata[MetadataKey.heartRateRecoveryTestType] == .number(1))
        #expect(sample.metadata[MetadataKey.heartRateRecoveryActivityType] == .number(37))
        #expect(sample.metadata[MetadataKey.heartRateRecoveryActivityDuration] == .quantity(Quantity(value: 1740, unit: .second)))

        let tooLate = [Self.entry(Self.heartRate, 1795, 1795, 171), Self.entry(Self.heartRate, 1880, 1880, 139)]
        #expect(WorkoutFigures.heartRateRecovery(workout: workout, from: Self.start, to: Self.at(1800), heartRates: tooLate, source: source) == nil)
    }
}

extension Double {
    /// Equal within floating-point rounding.
    func isApproximately(_ other: Double) -> Bool { abs(self - other) <= 1e-9 * max(1, abs(other)) }
}
