import Foundation
import SalusModel

/// The statistics of every interval of a grid over a date range, as HealthKit's
/// `HKStatisticsCollection`: intervals without samples are present, with no values.
package struct StatisticsCollection: Hashable, Sendable {
    /// The grid the intervals follow.
    package var grid: IntervalGrid
    /// One entry per interval, in order, covering the computed range without gaps.
    package var statistics: [Statistics]

    /// Creates a collection.
    package init(grid: IntervalGrid, statistics: [Statistics]) {
        self.grid = grid
        self.statistics = statistics
    }

    /// The statistics of the interval containing `date`, or nil outside the computed range.
    package func statistics(for date: Date) -> Statistics? {
        guard let first = statistics.first, date >= first.startDate, let last = statistics.last, date < last.endDate else {
            return nil
        }
        let offset = grid.index(containing: date) - grid.index(containing: first.startDate)
        return statistics.indices.contains(offset) ? statistics[offset] : nil
    }

    /// The statistics of every interval from the one containing `from` through the one
    /// containing the last instant before `to` (HealthKit's `enumerateStatistics(from:to:)`),
    /// empty ones included; intervals outside the computed range are returned empty.
    package func enumerate(from: Date, to: Date) -> [Statistics] {
        let type = statistics.first?.type ?? TypeIdentifier("")
        let boundaries = grid.boundaries(from: from, to: to)
        return (0..<(boundaries.count - 1)).map { index in
            statistics(for: boundaries[index])
                ?? Statistics(type: type, startDate: boundaries[index], endDate: boundaries[index + 1])
        }
    }
}
