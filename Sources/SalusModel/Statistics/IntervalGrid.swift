import Foundation

/// The length of a statistics collection's intervals: a count of seconds, minutes, hours, days,
/// weeks or months, as HealthKit's `intervalComponents`. The one rule for the daemon's
/// collections (SalusStatistics) and SalusKit's `StatisticsCollection`.
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

        /// What an interval of this unit may be: "at most 36525 days (100 years) in one interval".
        package var limit: String { "at most \(maximumCount) \(rawValue)s (100 years) in one interval" }
    }

    /// How many units one interval spans (1 to ``Unit/maximumCount``).
    package var count: Int
    /// The unit.
    package var unit: Unit

    /// Creates an interval length; throws a validation error naming `field` for a count below 1
    /// or above 100 years of the unit.
    package init(_ count: Int, _ unit: Unit, field: String = "interval.count") throws(ValidationError) {
        guard count >= 1 else {
            throw ValidationError(reason: .invalidValue, field: field, value: "\(count)", expected: "a count of at least 1")
        }
        guard count <= unit.maximumCount else {
            throw ValidationError(reason: .valueOutOfRange, field: field, value: "\(count)", expected: unit.limit)
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

/// The intervals of a statistics collection: they start at the anchor date and repeat every
/// `interval` in both directions without gaps, in `calendar` (its time zone decides wall-clock
/// times), as HealthKit's `anchorDate` plus `intervalComponents`. The daemon computes its
/// collections on this grid and SalusKit finds and enumerates their intervals on it
/// (docs/statistics.md, "Collections").
///
/// Interval `k` starts at the anchor plus `k × interval` (k may be negative), computed from the
/// anchor each time — never by stepping — so month intervals anchored on the 31st start on the
/// last day of shorter months and return to the 31st after. A day interval anchored at 02:00
/// starts every day at 02:00 local time; when that time does not exist (a spring-forward
/// night), the calendar's next valid time is used.
package struct IntervalGrid: Hashable, Sendable {
    /// Where intervals start.
    package var anchor: Date
    /// Their length.
    package var interval: StatisticsInterval
    /// The calendar and time zone of calendar lengths.
    package var calendar: Calendar

    /// Creates a grid.
    package init(anchor: Date, interval: StatisticsInterval, calendar: Calendar) {
        self.anchor = anchor
        self.interval = interval
        self.calendar = calendar
    }

    /// The start of interval `index` (0 starts at the anchor). A start the calendar cannot give
    /// (far past the years it counts) is the distant past or future, so that searches end.
    package func start(ofInterval index: Int) -> Date {
        let count = interval.count
        let calendarUnits: (Calendar.Component, Int)
        switch interval.unit {
        case .second: return anchor.addingTimeInterval(Double(index) * Double(count))
        case .minute: return anchor.addingTimeInterval(Double(index) * Double(count) * 60)
        case .hour: return anchor.addingTimeInterval(Double(index) * Double(count) * 3600)
        case .day: calendarUnits = (.day, 1)
        case .week: calendarUnits = (.day, 7)
        case .month: calendarUnits = (.month, 1)
        }
        let (product, overflow) = index.multipliedReportingOverflow(by: count * calendarUnits.1)
        guard !overflow, let start = calendar.date(byAdding: calendarUnits.0, value: product, to: anchor) else {
            return index < 0 ? .distantPast : .distantFuture
        }
        return start
    }

    /// The index of the interval containing `date`.
    package func index(containing date: Date) -> Int {
        let seconds: Double
        switch interval.unit {
        case .second: seconds = 1
        case .minute: seconds = 60
        case .hour: seconds = 3600
        case .day: seconds = 86_400
        case .week: seconds = 7 * 86_400
        case .month: seconds = 30.436875 * 86_400
        }
        let approximate = (date.timeIntervalSince(anchor) / seconds / Double(interval.count)).rounded(.down)
        var index = approximate.isFinite ? Int(max(min(approximate, 1e15), -1e15)) : 0
        while start(ofInterval: index) > date { index -= 1 }
        while start(ofInterval: index + 1) <= date { index += 1 }
        return index
    }

    /// The interval containing `date`.
    package func interval(containing date: Date) -> DateInterval {
        let index = index(containing: date)
        return DateInterval(start: start(ofInterval: index), end: start(ofInterval: index + 1))
    }

    /// The boundaries of every interval overlapping `[from, to)` — from the start of the one
    /// containing `from` to the end of the one containing the last instant before `to` — in
    /// order; n + 1 boundaries for n intervals. When `to <= from`, the one interval containing
    /// `from`.
    package func boundaries(from: Date, to: Date) -> [Date] {
        let first = index(containing: from)
        var result = [start(ofInterval: first)]
        var index = first + 1
        repeat {
            result.append(start(ofInterval: index))
            index += 1
        } while result.last! < to
        return result
    }

    /// Every interval overlapping `[from, to)`, in order (the one containing `from` when
    /// `to <= from`), as HealthKit's `enumerateStatistics(from:to:)` walks them.
    package func intervals(from: Date, to: Date) -> [DateInterval] {
        let boundaries = boundaries(from: from, to: to)
        return (0..<(boundaries.count - 1)).map { DateInterval(start: boundaries[$0], end: boundaries[$0 + 1]) }
    }
}
