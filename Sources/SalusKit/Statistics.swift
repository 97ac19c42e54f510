import Foundation
import SalusModel
import SalusProto
import SalusWire

/// The statistics of one quantity type over one time interval, as HealthKit's `HKStatistics`:
/// what a ``StatisticsQueryDescriptor`` returns and what a ``StatisticsCollection`` holds per
/// interval.
///
/// ```swift
/// let today = try await StatisticsQueryDescriptor(
///     predicate: .quantitySample(type: .stepCount), options: [.cumulativeSum, .separateBySource],
///     window: DateInterval(start: midnight, end: now)
/// ).result(for: store)
/// print(today.sumQuantity()?.value ?? 0, today.sumQuantity(for: "org.example.watch")?.value ?? 0)
/// ```
///
/// Each value is nil when its option was not asked for or when no sample counted. Merged values
/// count, where sources overlap in time, only the highest-ranked source (the owner's source
/// priority, then the most recently saved); per-source values count each source's samples
/// alone, so they add up to more than the merged ones when sources overlap.
/// docs/statistics.md gives the rules.
public struct Statistics: Hashable, Sendable {
    /// The quantity type.
    public var quantityType: SampleType
    /// The interval's start: the query's window or the collection interval; for a query
    /// without a window, the earliest counted sample's start (`Date.distantPast` when none
    /// counted).
    public var startDate: Date
    /// The interval's end (exclusive), chosen as ``startDate`` is (`Date.distantFuture` when
    /// none counted without a window).
    public var endDate: Date
    /// The unit of every quantity but ``duration()``: the one asked for, else the owner's
    /// preferred unit, else the type's canonical one.
    public var unit: SalusUnit
    /// The app ids whose samples counted in the merged values, sorted. With
    /// ``StatisticsOptions/separateBySource``, ``perSourceAppIDs`` may name more: a source that a
    /// higher-ranked one covered everywhere has values of its own but none merged.
    public var sources: [String]

    /// The merged values, in ``unit`` (durations in seconds).
    public let values: StatisticValues
    /// Each source's own values, by app id (with ``StatisticsOptions/separateBySource``).
    public let bySource: [String: StatisticValues]

    init(quantityType: SampleType, startDate: Date, endDate: Date, unit: SalusUnit, sources: [String] = [],
         values: StatisticValues = .empty, bySource: [String: StatisticValues] = [:]) {
        self.quantityType = quantityType
        self.startDate = startDate
        self.endDate = endDate
        self.unit = unit
        self.sources = sources
        self.values = values
        self.bySource = bySource
    }

    /// Whether no sample counted: no value, no source.
    public var isEmpty: Bool { values == .empty && sources.isEmpty && bySource.isEmpty }

    /// The app ids that have per-source values (``StatisticsOptions/separateBySource``), sorted.
    public var perSourceAppIDs: [String] { bySource.keys.sorted() }

    // MARK: Merged values

    /// The total, merged across sources (``StatisticsOptions/cumulativeSum``).
    public func sumQuantity() -> Quantity? { values.sum }
    /// The average by the type's aggregation style (``StatisticsOptions/discreteAverage``).
    public func averageQuantity() -> Quantity? { values.average }
    /// The smallest value (``StatisticsOptions/discreteMin``).
    public func minimumQuantity() -> Quantity? { values.minimum }
    /// The largest value (``StatisticsOptions/discreteMax``).
    public func maximumQuantity() -> Quantity? { values.maximum }
    /// The latest sample's value (``StatisticsOptions/mostRecent``).
    public func mostRecentQuantity() -> Quantity? { values.mostRecent }
    /// The latest sample's start and end (``StatisticsOptions/mostRecent``).
    public func mostRecentQuantityDateInterval() -> DateInterval? { values.mostRecentInterval }
    /// The time covered by the counted samples, in seconds (``StatisticsOptions/duration``); for
    /// merged cumulative values, the time during which some source counted.
    public func duration() -> Quantity? { values.duration }

    // MARK: One source's values

    /// `source`'s own total (with ``StatisticsOptions/separateBySource``).
    public func sumQuantity(for source: String) -> Quantity? { bySource[source]?.sum }
    /// `source`'s own average.
    public func averageQuantity(for source: String) -> Quantity? { bySource[source]?.average }
    /// `source`'s smallest value.
    public func minimumQuantity(for source: String) -> Quantity? { bySource[source]?.minimum }
    /// `source`'s largest value.
    public func maximumQuantity(for source: String) -> Quantity? { bySource[source]?.maximum }
    /// `source`'s latest value.
    public func mostRecentQuantity(for source: String) -> Quantity? { bySource[source]?.mostRecent }
    /// `source`'s latest sample's start and end.
    public func mostRecentQuantityDateInterval(for source: String) -> DateInterval? { bySource[source]?.mostRecentInterval }
    /// The time `source`'s samples cover, in seconds.
    public func duration(for source: String) -> Quantity? { bySource[source]?.duration }

    /// `source`'s own total; `source` as a ``SourceQueryDescriptor`` returns it.
    public func sumQuantity(for source: Source) -> Quantity? { sumQuantity(for: source.appID) }
    /// `source`'s own average.
    public func averageQuantity(for source: Source) -> Quantity? { averageQuantity(for: source.appID) }
    /// `source`'s smallest value.
    public func minimumQuantity(for source: Source) -> Quantity? { minimumQuantity(for: source.appID) }
    /// `source`'s largest value.
    public func maximumQuantity(for source: Source) -> Quantity? { maximumQuantity(for: source.appID) }
    /// `source`'s latest value.
    public func mostRecentQuantity(for source: Source) -> Quantity? { mostRecentQuantity(for: source.appID) }
    /// `source`'s latest sample's start and end.
    public func mostRecentQuantityDateInterval(for source: Source) -> DateInterval? {
        mostRecentQuantityDateInterval(for: source.appID)
    }
    /// The time `source`'s samples cover, in seconds.
    public func duration(for source: Source) -> Quantity? { duration(for: source.appID) }

    // MARK: From the wire

    /// The statistics the daemon sent for `type`; `requestedUnit` stands in for a result without
    /// a unit, `window` for the bounds of a result without samples.
    init(
        received wire: Salus_V1_StatisticsResult, type: SampleType, requestedUnit: SalusUnit?,
        window: DateInterval? = nil, path: String
    ) throws(SalusError) {
        let unit: SalusUnit
        if wire.unit.isEmpty, let requestedUnit {
            unit = requestedUnit
        } else {
            do {
                unit = try SalusUnit(parsing: wire.unit)
            } catch {
                throw SalusError.malformed(field: "\(path).unit", value: wire.unit, expected: "a unit string such as count or km")
            }
        }
        var start = WireDate.date(wire.startDate)
        var end = WireDate.date(wire.endDate)
        if wire.startDate == 0 && wire.endDate == 0 {
            // The daemon sends 0 and 0 for a query without samples.
            start = window?.start ?? .distantPast
            end = window?.end ?? .distantFuture
        }
        guard end >= start else {
            throw SalusError.malformed(field: "\(path).endDate", value: "\(wire.endDate)", expected: "a time at or after start_date (\(wire.startDate))")
        }
        self.init(
            quantityType: type, startDate: start, endDate: end, unit: unit, sources: wire.sources,
            values: wire.hasValues ? StatisticValues(wire: wire.values, unit: unit) : .empty,
            bySource: wire.bySource.mapValues { StatisticValues(wire: $0, unit: unit) }
        )
    }
}
