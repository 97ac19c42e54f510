import Foundation
import SalusModel

/// The statistics of one quantity type over one time interval, as HealthKit's `HKStatistics`.
///
/// **Empty result.** When no sample counts, every value is nil, `sources` is empty and
/// `bySource` is empty; this is a result, not an error (HealthKit's `noData` case).
package struct Statistics: Hashable, Sendable {
    /// The type.
    package var type: TypeIdentifier
    /// The interval's start: the query window's or collection interval's start; without a window,
    /// the earliest counted sample's start (`Date.distantPast` when empty).
    package var startDate: Date
    /// The interval's end (exclusive), chosen as `startDate` is (`Date.distantFuture` when empty).
    package var endDate: Date
    /// The values merged across sources.
    package var values: StatisticValues
    /// The app ids whose samples contributed to `values`, sorted.
    package var sources: [String]
    /// With `separateBySource`: each source's own values, computed from its samples alone.
    package var bySource: [String: StatisticValues]

    /// Creates statistics.
    package init(
        type: TypeIdentifier, startDate: Date, endDate: Date, values: StatisticValues = .empty,
        sources: [String] = [], bySource: [String: StatisticValues] = [:]
    ) {
        self.type = type
        self.startDate = startDate
        self.endDate = endDate
        self.values = values
        self.sources = sources
        self.bySource = bySource
    }

    /// Whether no sample counted.
    package var isEmpty: Bool { sources.isEmpty && values.isEmpty }

    /// The merged total (`cumulativeSum`).
    package var sum: Quantity? { values.sum }
    /// The merged average (`discreteAverage`).
    package var average: Quantity? { values.average }
    /// The smallest value (`discreteMin`).
    package var minimum: Quantity? { values.minimum }
    /// The largest value (`discreteMax`).
    package var maximum: Quantity? { values.maximum }
    /// The latest value (`mostRecent`).
    package var mostRecent: Quantity? { values.mostRecent }
    /// The latest sample's date interval (`mostRecent`).
    package var mostRecentInterval: DateInterval? { values.mostRecentInterval }
    /// The time covered (`duration`).
    package var duration: Quantity? { values.duration }
}
