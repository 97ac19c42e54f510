import Foundation

/// The intervals of a statistics collection: they start at the anchor date and repeat every
/// `interval` in both directions without gaps, in `calendar` (its time zone decides wall-clock
/// times), as HealthKit's `anchorDate` plus `intervalComponents`.
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

    /// The start of interval `index` (0 starts at the anchor).
    package func start(ofInterval index: Int) -> Date {
        let count = interval.count
        switch interval.unit {
        case .second: return anchor.addingTimeInterval(Double(index * count))
        case .minute: return anchor.addingTimeInterval(Double(index * count * 60))
        case .hour: return anchor.addingTimeInterval(Double(index * count * 3600))
        case .day: return calendar.date(byAdding: .day, value: index * count, to: anchor)!
        case .week: return calendar.date(byAdding: .day, value: index * count * 7, to: anchor)!
        case .month: return calendar.date(byAdding: .month, value: index * count, to: anchor)!
        }
    }

    /// The index of the interval containing `date`.
    package func index(containing date: Date) -> Int {
        let elapsed = date.timeIntervalSince(anchor)
        let approximate: Double
        switch interval.unit {
        case .second: approximate = elapsed
        case .minute: approximate = elapsed / 60
        case .hour: approximate = elapsed / 3600
        case .day: approximate = elapsed / 86_400
        case .week: approximate = elapsed / (7 * 86_400)
        case .month: approximate = elapsed / (30.436875 * 86_400)
        }
        var index = Int((approximate / Double(interval.count)).rounded(.down))
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
}
