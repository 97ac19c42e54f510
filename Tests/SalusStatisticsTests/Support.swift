import Foundation
import SalusModel
import SalusStatistics
import SalusStore

/// Shared fixtures: types, a reference time and a way to build calculators from minute offsets.
enum Fixture {
    static let steps = TypeIdentifier("HKQuantityTypeIdentifierStepCount")
    static let heartRate = TypeIdentifier("HKQuantityTypeIdentifierHeartRate")
    static let bodyMass = TypeIdentifier("HKQuantityTypeIdentifierBodyMass")
    static let distance = TypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning")
    static let audio = TypeIdentifier("HKQuantityTypeIdentifierEnvironmentalAudioExposure")
    static let sleep = TypeIdentifier("HKCategoryTypeIdentifierSleepAnalysis")

    static let beatsPerMinute = try! SalusUnit(parsing: "count/min")
    static let kilogram = try! SalusUnit(parsing: "kg")
    static let decibels = try! SalusUnit(parsing: "dBASPL")

    static let catalog = TypeCatalog(types: [
        TypeRules(identifier: steps.rawValue, kind: .quantity, canonicalUnit: .count, aggregationStyle: .cumulative),
        TypeRules(
            identifier: heartRate.rawValue, kind: .quantity, canonicalUnit: beatsPerMinute,
            aggregationStyle: .discreteTemporallyWeighted),
        TypeRules(identifier: bodyMass.rawValue, kind: .quantity, canonicalUnit: kilogram, aggregationStyle: .discreteArithmetic),
        TypeRules(
            identifier: distance.rawValue, kind: .quantity, canonicalUnit: try! SalusUnit(parsing: "m"),
            aggregationStyle: .cumulative),
        TypeRules(
            identifier: audio.rawValue, kind: .quantity, canonicalUnit: decibels,
            aggregationStyle: .discreteEquivalentContinuousLevel),
        TypeRules(identifier: sleep.rawValue, kind: .category),
    ])

    /// 2025-03-01 00:00:00 UTC.
    static let t0 = Date(timeIntervalSince1970: 1_740_787_200)

    /// `t0` plus `minutes`.
    static func at(_ minutes: Double) -> Date { t0.addingTimeInterval(minutes * 60) }

    /// A calculator for `type` with samples given as (source, start minute, end minute, value,
    /// saved minute).
    static func calculator(
        _ type: TypeIdentifier, options: StatisticsOptions, priority: [String] = [],
        _ samples: [(String, Double, Double, Double, Double)]
    ) throws -> StatisticsCalculator {
        let info = catalog.rules(for: type)!
        var calculator = try StatisticsCalculator(
            type: type, style: info.aggregationStyle!, canonicalUnit: info.canonicalUnit!, options: options,
            priority: SourcePriority(priority))
        for (source, start, end, value, saved) in samples {
            calculator.add(start: at(start), end: at(end), value: value, source: source, created: at(saved))
        }
        return calculator
    }

    /// The merged statistics over all time.
    static func total(_ calculator: StatisticsCalculator, unit: SalusUnit? = nil) throws -> Statistics {
        try calculator.compute(boundaries: [-.infinity, .infinity], unit: unit)[0]
    }

    /// The merged sum over all time, in counts.
    static func sum(
        priority: [String] = [], _ samples: [(String, Double, Double, Double, Double)]
    ) throws -> Double? {
        try total(calculator(steps, options: .cumulativeSum, priority: priority, samples)).sum?.value
    }

    /// A Gregorian calendar in `zone`.
    static func calendar(_ zone: String) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: zone)!
        return calendar
    }

    /// A wall-clock date in `calendar`'s zone.
    static func date(_ calendar: Calendar, _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
        calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }
}

/// Whether two numbers agree to 1e-9 relative.
func close(_ a: Double?, _ b: Double) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= 1e-9 * max(1, abs(b))
}
