import Foundation
import SalusModel
import SalusStore

/// A statistics query: one quantity type, an optional predicate and window, the options and
/// the unit of the results.
public struct StatisticsQuery: Hashable, Sendable {
    /// The quantity type.
    public var type: TypeIdentifier
    /// The filter; nil means every sample of the type.
    public var predicate: SamplePredicate?
    /// The time window: samples overlapping it count, and cumulative sums are pro-rated to it.
    /// Nil counts whole samples of any date.
    public var window: DateInterval?
    /// What to compute.
    public var options: StatisticsOptions
    /// The unit of the results; nil means the type's canonical unit.
    public var unit: SalusUnit?

    /// Creates a query.
    public init(
        type: TypeIdentifier, predicate: SamplePredicate? = nil, window: DateInterval? = nil,
        options: StatisticsOptions, unit: SalusUnit? = nil
    ) {
        self.type = type
        self.predicate = predicate
        self.window = window
        self.options = options
        self.unit = unit
    }
}

/// A statistics collection query: a statistics query over every interval of a grid between two
/// dates.
public struct StatisticsCollectionQuery: Hashable, Sendable {
    /// The quantity type.
    public var type: TypeIdentifier
    /// The filter; nil means every sample of the type.
    public var predicate: SamplePredicate?
    /// What to compute in each interval.
    public var options: StatisticsOptions
    /// The unit of the results; nil means the type's canonical unit.
    public var unit: SalusUnit?
    /// The intervals.
    public var grid: IntervalGrid
    /// The range to compute: every interval overlapping `[from, to)`.
    public var from: Date
    /// The range's end (exclusive).
    public var to: Date

    /// Creates a query.
    public init(
        type: TypeIdentifier, predicate: SamplePredicate? = nil, options: StatisticsOptions, unit: SalusUnit? = nil,
        grid: IntervalGrid, from: Date, to: Date
    ) {
        self.type = type
        self.predicate = predicate
        self.options = options
        self.unit = unit
        self.grid = grid
        self.from = from
        self.to = to
    }
}
