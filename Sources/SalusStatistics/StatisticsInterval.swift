import Foundation
import SalusStore

/// The length of a collection's intervals: a count of seconds, minutes, hours, days, weeks or
/// months, as HealthKit's `intervalComponents`.
///
/// Seconds, minutes and hours are fixed lengths of absolute time. Days, weeks and months are
/// calendar lengths: they keep the anchor's wall-clock time in the collection's time zone, so a
/// day is 23 or 25 hours long across a DST change, and a month is 28 to 31 days.
package struct StatisticsInterval: Hashable, Sendable, CustomStringConvertible {
    /// A unit of interval length.
    package enum Unit: String, CaseIterable, Hashable, Sendable {
        /// Seconds.
        case second
        /// Minutes (60 s).
        case minute
        /// Hours (3600 s).
        case hour
        /// Calendar days.
        case day
        /// Calendar weeks (7 calendar days).
        case week
        /// Calendar months.
        case month
    }

    /// How many units one interval spans (at least 1).
    package var count: Int
    /// The unit.
    package var unit: Unit

    /// Creates an interval length; throws `invalidArgument` naming `field` for a count below 1.
    package init(_ count: Int, _ unit: Unit, field: String = "interval.count") throws(StoreError) {
        guard count >= 1 else {
            throw StoreError(code: .invalidArgument, field: field, value: "\(count)", expected: "a count of at least 1")
        }
        guard count <= unit.maximumCount else {
            throw StoreError(
                code: .invalidArgument, field: field, value: "\(count)",
                expected: "at most \(unit.maximumCount) \(unit.rawValue)s (100 years) in one interval")
        }
        self.count = count
        self.unit = unit
    }

    /// One day.
    package static let day = try! StatisticsInterval(1, .day)
    /// One hour.
    package static let hour = try! StatisticsInterval(1, .hour)
    /// One week.
    package static let week = try! StatisticsInterval(1, .week)
    /// One month.
    package static let month = try! StatisticsInterval(1, .month)

    /// `"1 day"`, `"15 minute"`.
    package var description: String { "\(count) \(unit.rawValue)" }
}

extension StatisticsInterval.Unit {
    /// The most units one interval may span: about 100 years.
    package var maximumCount: Int {
        switch self {
        case .second: 3_155_760_000
        case .minute: 52_596_000
        case .hour: 876_600
        case .day: 36_525
        case .week: 5_218
        case .month: 1_200
        }
    }
}
