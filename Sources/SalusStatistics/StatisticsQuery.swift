import Foundation
import SalusModel
import SalusStore

/// A statistics query: one quantity type, an optional predicate and window, the options and
/// the unit of the results.
package struct StatisticsQuery: Hashable, Sendable {
    /// The quantity type.
    package var type: TypeIdentifier
    /// The filter; nil means every sample of the type.
    package var predicate: SamplePredicate?
    /// The time window: samples overlapping it count, and cumulative sums are pro-rated to it.
    /// Nil counts whole samples of any date.
    package var window: DateInterval?
    /// What to compute.
    package var options: StatisticsOptions
    /// The unit of the results; nil means the type's canonical unit.
    package var unit: SalusUnit?

    /// Creates a query.
    package init(
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
package struct StatisticsCollectionQuery: Hashable, Sendable {
    /// The quantity type.
    package var type: TypeIdentifier
    /// The filter; nil means every sample of the type.
    package var predicate: SamplePredicate?
    /// What to compute in each interval.
    package var options: StatisticsOptions
    /// The unit of the results; nil means the type's canonical unit.
    package var unit: SalusUnit?
    /// The intervals.
    package var grid: IntervalGrid
    /// The range to compute: every interval overlapping `[from, to)`.
    package var from: Date
    /// The range's end (exclusive).
    package var to: Date

    /// Creates a query.
    package init(
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
