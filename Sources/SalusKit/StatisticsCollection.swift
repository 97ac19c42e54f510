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
    let grid: IntervalGrid
    /// The quantity type.
    let type: SampleType
    /// The unit of empty intervals outside the computed range.
    let unit: SalusUnit
    /// Where each computed interval starts, by position.
    let positions: [Date: Int]

    init(statistics: [Statistics], grid: IntervalGrid, type: SampleType, unit: SalusUnit) {
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

/// The length of a collection's intervals, read from HealthKit-style `intervalComponents`: the
/// daemon's ``StatisticsInterval`` (SalusModel), with its limits, so SalusKit refuses before
/// sending what the daemon would refuse.
enum CollectionInterval {
    /// The components an interval may be given in, with the unit each stands for.
    static let accepted: [(name: String, component: Calendar.Component, unit: StatisticsInterval.Unit)] = [
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
        "exactly one of second, minute, hour, day, weekOfYear (or weekOfMonth) or month, set to a whole number from 1 up to 100 years of it, such as DateComponents(day: 1)"

    /// The interval `components` describe; throws ``SalusError/Code/invalidArgument`` naming
    /// `intervalComponents`, the components given and what was expected.
    static func interval(_ components: DateComponents) throws(SalusError) -> StatisticsInterval {
        let given = accepted.compactMap { entry in components.value(for: entry.component).map { (entry, $0) } }
        let refusedGiven = refused.compactMap { entry in components.value(for: entry.component).map { (entry.name, $0) } }
        let text = (given.map { "\($0.0.name): \($0.1)" } + refusedGiven.map { "\($0.0): \($0.1)" }).joined(separator: ", ")
        func failure(_ problem: String, expected: String = expectation) -> SalusError {
            SalusError(
                code: .invalidArgument,
                message: "\(field): \(text.isEmpty ? "(no component)" : text) \(problem); expected \(expected)",
                field: field, value: text.isEmpty ? "(no component)" : text, expected: expected
            )
        }
        if let (name, _) = refusedGiven.first {
            let hint = name == "year" ? " (for years, use month: 12)" : ""
            throw failure("has \(name), which is not an interval length\(hint)")
        }
        guard given.count == 1, let (entry, value) = given.first else {
            throw failure(given.isEmpty ? "gives no interval length" : "gives \(given.count) interval lengths")
        }
        guard value >= 1 else {
            throw failure("is not a positive count")
        }
        guard value <= entry.unit.maximumCount, let interval = try? StatisticsInterval(value, entry.unit) else {
            throw failure("is longer than 100 years", expected: entry.unit.limit)
        }
        return interval
    }
}

extension StatisticsInterval.Unit {
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
