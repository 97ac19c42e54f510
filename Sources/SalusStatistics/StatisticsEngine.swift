import Foundation
import SalusModel
import SalusStore

/// Statistics and statistics collections over a `SampleStore`, merged across sources by the
/// owner's priorities (see `StatisticsCalculator` for the rules).
///
/// **Visibility hook.** Every method takes `visibility`: a predicate ANDed with the query's
/// own, so that statistics use only the samples the caller may read. The service layer passes
/// the caller's read filter (for an app without read access, `.sources([its own app id])`);
/// nil means every sample (the owner).
///
/// Samples are read by the store's lean read (`SampleStore.reduceQuantities`: five numbers a
/// row, no `Sample` built, one snapshot per read), about 40 bytes per matching sample held; a
/// collection reads and holds one chunk's samples at a time (`chunkSpan`), each chunk in its
/// own snapshot.
package struct StatisticsEngine: Sendable {
    /// The store read.
    package let store: SampleStore
    /// The owner's source priorities.
    package let priorities: SourcePriorityStore
    /// A collection is computed in chunks of consecutive intervals spanning at most this long
    /// (or one interval, if longer), each from the samples overlapping it, so memory follows
    /// the samples of one chunk, not of the whole range. The results do not depend on it.
    package var chunkSpan: TimeInterval

    /// The most intervals one collection may have: a year of hours is 8,760, a day of seconds
    /// 86,400.
    package static let maximumIntervals = 100_000

    /// Creates an engine.
    package init(store: SampleStore, priorities: SourcePriorityStore, chunkSpan: TimeInterval = 31 * 86_400) {
        self.store = store
        self.priorities = priorities
        self.chunkSpan = chunkSpan
    }

    /// The type's aggregation style and canonical unit; throws `invalidArgument` naming `type`
    /// for an unknown or non-quantity type.
    package func quantityInfo(_ type: TypeIdentifier) throws(StoreError) -> (style: AggregationStyle, unit: SalusUnit) {
        guard let info = store.catalog.rules(for: type) else {
            throw StoreError(code: .invalidArgument, field: "type", value: type.rawValue, expected: "a known quantity type")
        }
        guard info.kind == .quantity, let unit = info.canonicalUnit else {
            throw StoreError(
                code: .invalidArgument, field: "type", value: type.rawValue,
                expected: "a quantity type (statistics are for quantity types only; this is a \(info.kind) type)")
        }
        return (info.aggregationStyle ?? .discreteArithmetic, unit)
    }

    /// Statistics for one query. No matching sample gives an empty `Statistics`, not an error.
    package func statistics(_ query: StatisticsQuery, visibility: SamplePredicate? = nil) async throws -> Statistics {
        let (style, canonical) = try quantityInfo(query.type)
        var calculator = try StatisticsCalculator(
            type: query.type, style: style, canonicalUnit: canonical, options: query.options,
            priority: priorities.priority(for: query.type))
        try Self.check(unit: query.unit, canonical: canonical, type: query.type)
        try await load(
            into: &calculator, type: query.type, predicate: query.predicate, window: query.window, visibility: visibility)
        let boundaries = query.window.map { [$0.start.timeIntervalSinceReferenceDate, $0.end.timeIntervalSinceReferenceDate] }
            ?? [-Double.infinity, Double.infinity]
        return try calculator.compute(boundaries: boundaries, unit: query.unit)[0]
    }

    /// A statistics collection: every interval of the grid overlapping `[from, to)`. Throws
    /// `invalidArgument` naming `to` when the range holds more than `maximumIntervals`.
    package func collection(_ query: StatisticsCollectionQuery, visibility: SamplePredicate? = nil) async throws
        -> StatisticsCollection
    {
        let (style, canonical) = try quantityInfo(query.type)
        guard query.from <= query.to else {
            throw StoreError(
                code: .invalidArgument, field: "to", value: "\(query.to)", expected: "a date at or after from (\(query.from))")
        }
        // Intervals overlapping [from, to): up to the one containing the last instant before `to`.
        var lastIndex = query.grid.index(containing: query.to)
        if query.to > query.from && query.grid.start(ofInterval: lastIndex) == query.to { lastIndex -= 1 }
        let count = lastIndex - query.grid.index(containing: query.from) + 1
        guard count <= Self.maximumIntervals else {
            throw StoreError(
                code: .invalidArgument, field: "to", value: "\(query.to)",
                expected: "a range of at most \(Self.maximumIntervals) intervals of \(query.grid.interval) from \(query.from) "
                    + "(this one has \(count)): a longer interval or a shorter range")
        }
        let priority = priorities.priority(for: query.type)
        // Checked once, before any chunk is read.
        _ = try StatisticsCalculator(
            type: query.type, style: style, canonicalUnit: canonical, options: query.options, priority: priority)
        try Self.check(unit: query.unit, canonical: canonical, type: query.type)
        let boundaries = query.grid.boundaries(from: query.from, to: query.to)
        // A point sample's weight in a time-weighted average looks ahead to the next sample
        // start, at most `pointHoldLimit`: a chunk that is not the last reads that far beyond it.
        let lookahead = style == .discreteArithmetic || style.isCumulative ? 0 : StatisticsCalculator.pointHoldLimit
        var statistics: [Statistics] = []
        statistics.reserveCapacity(boundaries.count - 1)
        var first = 0
        while first < boundaries.count - 1 {
            var last = first + 1
            while last < boundaries.count - 1 && boundaries[last + 1].timeIntervalSince(boundaries[first]) <= chunkSpan {
                last += 1
            }
            var calculator = try StatisticsCalculator(
                type: query.type, style: style, canonicalUnit: canonical, options: query.options, priority: priority)
            let end = last < boundaries.count - 1 ? boundaries[last].addingTimeInterval(lookahead) : boundaries[last]
            try await load(
                into: &calculator, type: query.type, predicate: query.predicate,
                window: DateInterval(start: boundaries[first], end: end), visibility: visibility)
            statistics += try calculator.compute(
                boundaries: boundaries[first...last].map(\.timeIntervalSinceReferenceDate), unit: query.unit)
            first = last
        }
        return StatisticsCollection(grid: query.grid, statistics: statistics)
    }

    static func check(unit: SalusUnit?, canonical: SalusUnit, type: TypeIdentifier) throws(StoreError) {
        if let unit, !unit.isCompatible(with: canonical) {
            throw StoreError(
                code: .invalidArgument, field: "unit", value: "\(unit)",
                expected: "a unit compatible with \(canonical), the unit of \(type)")
        }
    }

    /// The predicate the store runs: the query's, the window's overlap and the visibility hook.
    package static func combinedPredicate(
        _ predicate: SamplePredicate?, window: DateInterval?, visibility: SamplePredicate?
    ) -> SamplePredicate? {
        var parts: [SamplePredicate] = []
        if let predicate { parts.append(predicate) }
        if let window { parts.append(.dateWindow(DateWindow(start: window.start, end: window.end))) }
        if let visibility { parts.append(visibility) }
        switch parts.count {
        case 0: return nil
        case 1: return parts[0]
        default: return .and(parts)
        }
    }

    func load(
        into calculator: inout StatisticsCalculator, type: TypeIdentifier, predicate: SamplePredicate?,
        window: DateInterval?, visibility: SamplePredicate?
    ) async throws {
        calculator = try await store.reduceQuantities(
            type: type, matching: Self.combinedPredicate(predicate, window: window, visibility: visibility),
            into: calculator
        ) { calculator, row, appIDs in
            calculator.add(row, appIDs: appIDs)
        }
    }
}
