import Foundation
import SalusModel
import SalusProto

/// The statistics of every interval of a collection query over a date range, as HealthKit's
/// `HKStatisticsCollection`: intervals without samples are present, with no values.
///
/// ```swift
/// let week = try await query.result(for: store, from: monday, to: nextMonday)
/// for day in week.statistics() { print(day.startDate, day.sumQuantity()?.value ?? 0) }
/// week.enumerateStatistics(from: monday, to: nextMonday) { day, stop in ... }
/// ```
public struct StatisticsCollection: Hashable, Sendable {
    /// The intervals the query computed, in order, without gaps.
    let computed: [Statistics]
    /// The interval grid, for intervals outside the computed range.
    let grid: CollectionGrid
    /// The quantity type.
    let type: SampleType
    /// The unit of empty intervals outside the computed range.
    let unit: SalusUnit
    /// Where each computed interval starts, by position.
    let positions: [Date: Int]

    init(statistics: [Statistics], grid: CollectionGrid, type: SampleType, unit: SalusUnit) {
        computed = statistics
        self.grid = grid
        self.type = type
        self.unit = unit
        positions = Dictionary(statistics.enumerated().map { ($1.startDate, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Every computed interval, in order, empty ones included.
    public func statistics() -> [Statistics] {
        computed
    }

    /// The statistics of the interval containing `date`, or nil when `date` is outside the
    /// computed range.
    public func statistics(for date: Date) -> Statistics? {
        guard let first = computed.first, let last = computed.last, date >= first.startDate, date < last.endDate else {
            return nil
        }
        return positions[grid.interval(containing: date).start].map { computed[$0] }
    }

    /// The app ids that counted in some interval's merged values, sorted.
    public func sources() -> [String] {
        Set(computed.flatMap(\.sources)).sorted()
    }

    /// Calls `body` with every interval from the one containing `from` through the one
    /// containing the last instant before `to`, in order, as HealthKit's
    /// `enumerateStatistics(from:to:with:)`; intervals outside the computed range come empty.
    /// Setting the `Bool` to true stops the enumeration.
    public func enumerateStatistics(
        from: Date, to: Date, _ body: (Statistics, inout Bool) throws -> Void
    ) rethrows {
        var stop = false
        for interval in grid.intervals(from: from, to: to) {
            let statistics =
                positions[interval.start].map { computed[$0] }
                ?? Statistics(quantityType: type, startDate: interval.start, endDate: interval.end, unit: unit)
            try body(statistics, &stop)
            if stop { return }
        }
    }

    /// This collection with `updated` intervals in place of the ones that start at the same
    /// time; intervals outside the computed range are ignored.
    func merging(_ updated: [Statistics]) -> StatisticsCollection {
        var statistics = computed
        for interval in updated {
            if let position = positions[interval.startDate] { statistics[position] = interval }
        }
        return StatisticsCollection(statistics: statistics, grid: grid, type: type, unit: unit)
    }
}

/// The length of a collection's intervals, read from HealthKit-style `intervalComponents`.
struct CollectionInterval: Hashable, Sendable {
    /// A unit of interval length.
    enum Unit: String, Hashable, Sendable {
        case second, minute, hour, day, week, month

        var wire: Salus_V1_IntervalUnit {
            switch self {
            case .second: .second
            case .minute: .minute
            case .hour: .hour
            case .day: .day
            case .week: .week
            case .month: .month
            }
        }
    }

    /// How many units (at least 1).
    var count: Int
    var unit: Unit

    /// The components an interval may be given in, with the unit each stands for.
    static let accepted: [(name: String, component: Calendar.Component, unit: Unit)] = [
        ("second", .second, .second), ("minute", .minute, .minute), ("hour", .hour, .hour), ("day", .day, .day),
        ("weekOfYear", .weekOfYear, .week), ("weekOfMonth", .weekOfMonth, .week), ("month", .month, .month),
    ]

    /// The components that cannot give an interval length.
    static let refused: [(name: String, component: Calendar.Component)] = [
        ("era", .era), ("year", .year), ("yearForWeekOfYear", .yearForWeekOfYear), ("quarter", .quarter),
        ("weekday", .weekday), ("weekdayOrdinal", .weekdayOrdinal), ("nanosecond", .nanosecond),
    ]

    static let field = "intervalComponents"
    static let expectation =
        "exactly one of second, minute, hour, day, weekOfYear (or weekOfMonth) or month, set to a whole number from 1 to \(UInt32.max), such as DateComponents(day: 1)"

    /// The interval `components` describe; throws ``SalusError/Code/invalidArgument`` naming
    /// `intervalComponents`, the components given and what was expected.
    init(_ components: DateComponents) throws(SalusError) {
        let given = Self.accepted.compactMap { entry in components.value(for: entry.component).map { (entry, $0) } }
        let refused = Self.refused.compactMap { entry in components.value(for: entry.component).map { (entry.name, $0) } }
        let text = (given.map { "\($0.0.name): \($0.1)" } + refused.map { "\($0.0): \($0.1)" }).joined(separator: ", ")
        func failure(_ problem: String) -> SalusError {
            SalusError(
                code: .invalidArgument,
                message: "\(Self.field): \(text.isEmpty ? "(no component)" : text) \(problem); expected \(Self.expectation)",
                field: Self.field, value: text.isEmpty ? "(no component)" : text, expected: Self.expectation
            )
        }
        if let (name, _) = refused.first {
            let hint = name == "year" ? " (for years, use month: 12)" : ""
            throw failure("has \(name), which is not an interval length\(hint)")
        }
        guard given.count == 1, let (entry, value) = given.first else {
            throw failure(given.isEmpty ? "gives no interval length" : "gives \(given.count) interval lengths")
        }
        guard value >= 1, value <= Int(UInt32.max) else {
            throw failure("is not a positive count")
        }
        count = value
        unit = entry.unit
    }

    init(count: Int, unit: Unit) {
        self.count = count
        self.unit = unit
    }
}

/// The intervals of a collection: interval `k` starts at the anchor plus `k` intervals (`k` may
/// be negative), computed from the anchor each time. Seconds, minutes and hours are absolute
/// lengths; days, weeks and months keep the anchor's wall-clock time in the calendar's time zone.
/// The daemon computes the same grid (docs/statistics.md, "Collections").
struct CollectionGrid: Hashable, Sendable {
    var anchor: Date
    var interval: CollectionInterval
    var calendar: Calendar

    /// The start of interval `index` (0 starts at the anchor).
    func start(ofInterval index: Int) -> Date {
        let count = interval.count
        switch interval.unit {
        case .second: return anchor.addingTimeInterval(Double(index * count))
        case .minute: return anchor.addingTimeInterval(Double(index * count * 60))
        case .hour: return anchor.addingTimeInterval(Double(index * count * 3600))
        case .day: return calendar.date(byAdding: .day, value: index * count, to: anchor) ?? anchor
        case .week: return calendar.date(byAdding: .day, value: index * count * 7, to: anchor) ?? anchor
        case .month: return calendar.date(byAdding: .month, value: index * count, to: anchor) ?? anchor
        }
    }

    /// The index of the interval containing `date`.
    func index(containing date: Date) -> Int {
        let seconds: Double
        switch interval.unit {
        case .second: seconds = 1
        case .minute: seconds = 60
        case .hour: seconds = 3600
        case .day: seconds = 86_400
        case .week: seconds = 7 * 86_400
        case .month: seconds = 30.436875 * 86_400
        }
        let approximate = date.timeIntervalSince(anchor) / seconds / Double(interval.count)
        var index = Int(approximate.rounded(.down))
        while start(ofInterval: index) > date { index -= 1 }
        while start(ofInterval: index + 1) <= date { index += 1 }
        return index
    }

    /// The interval containing `date`.
    func interval(containing date: Date) -> DateInterval {
        let index = index(containing: date)
        return DateInterval(start: start(ofInterval: index), end: start(ofInterval: index + 1))
    }

    /// Every interval from the one containing `from` through the one containing the last
    /// instant before `to`; the one containing `from` when `to <= from`.
    func intervals(from: Date, to: Date) -> [DateInterval] {
        var index = index(containing: from)
        var result: [DateInterval] = []
        repeat {
            result.append(DateInterval(start: start(ofInterval: index), end: start(ofInterval: index + 1)))
            index += 1
        } while result[result.count - 1].end < to
        return result
    }
}
