import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusWire

/// The figures of one statistic; nil where the option was not asked or nothing was counted.
public struct StatisticFigures: Sendable, Hashable {
    public var sum: Double?
    public var average: Double?
    public var minimum: Double?
    public var maximum: Double?

    public init(sum: Double? = nil, average: Double? = nil, minimum: Double? = nil, maximum: Double? = nil) {
        self.sum = sum
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
    }
}

/// The merged statistics of one quantity type over one period, as the daemon computed them:
/// where several apps recorded the same time, only the highest-priority one counts.
public struct MergedStatistics: Sendable, Hashable {
    /// The period; without a window, the counted samples' span (both the epoch when nothing was
    /// counted, see ``hasPeriod``).
    public var startDate: Date
    public var endDate: Date
    /// The unit of the figures, as the daemon names it (`count`, `count/min`, `km`).
    public var unit: String
    /// Merged across sources.
    public var values: StatisticFigures
    /// The app ids that contributed to `values`, sorted.
    public var sources: [String]
    /// Each source's own figures (asked with ``StatisticsOptions/separateBySource``).
    public var bySource: [String: StatisticFigures]

    /// False when the daemon gave no period (a window-less query that counted nothing).
    public var hasPeriod: Bool { !(startDate.timeIntervalSince1970 == 0 && endDate.timeIntervalSince1970 == 0) }
}

/// The length of one interval of a statistics collection.
public enum StatisticsIntervalUnit: String, Sendable, Hashable, CaseIterable {
    case hour, day, week, month
}

/// Statistics over every app's samples (salus.v1.Statistics), what `salusctl stats` and
/// `salusctl report` show.
extension AdminClient {
    /// The statistics of the quantity type `type` over `window` (nil: every sample), in `unit`
    /// (nil: the owner's preferred unit, else the type's). Throws ``SalusError`` for an unknown
    /// or non-quantity type, a unit of another dimension, an option the type's aggregation does
    /// not allow.
    public func statistics(of type: String, options: StatisticsOptions, unit: String? = nil, window: DateInterval? = nil) async throws -> MergedStatistics {
        var request = Salus_V1_StatisticsRequest()
        request.type = type
        request.options = options.wire
        request.unit = unit ?? ""
        if let window {
            request.windowStart = WireDate.microseconds(window.start)
            request.windowEnd = WireDate.microseconds(window.end)
        }
        return MergedStatistics(try await call(SalusMethods.Statistics.query, request).statistics)
    }

    /// The statistics of `type` per interval of one `interval` from `start` to `end`, every
    /// interval listed (empty ones too), in order. Intervals follow the calendar of `timeZone`:
    /// hours and days from the midnight of `start`'s day, weeks from Monday, months from the 1st.
    public func statisticsCollection(
        of type: String, options: StatisticsOptions, unit: String? = nil, interval: StatisticsIntervalUnit,
        from start: Date, to end: Date, timeZone: TimeZone = .current
    ) async throws -> [MergedStatistics] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var request = Salus_V1_StatisticsCollectionRequest()
        request.type = type
        request.options = options.wire
        request.unit = unit ?? ""
        request.intervalCount = 1
        request.timeZone = timeZone.identifier
        request.from = WireDate.microseconds(start)
        request.to = WireDate.microseconds(max(end, start))
        let anchor: Date
        switch interval {
        case .hour:
            request.intervalUnit = .hour
            anchor = calendar.startOfDay(for: start)
        case .day:
            request.intervalUnit = .day
            anchor = calendar.startOfDay(for: start)
        case .week:
            request.intervalUnit = .week
            // 2001-01-01 was a Monday.
            anchor = calendar.date(from: DateComponents(year: 2001, month: 1, day: 1))!
        case .month:
            request.intervalUnit = .month
            anchor = calendar.date(from: calendar.dateComponents([.year, .month], from: start))!
        }
        request.anchorDate = WireDate.microseconds(anchor)
        var results: [MergedStatistics] = []
        do {
            for try await batch in try rpc.serverStreaming(SalusMethods.Statistics.queryCollection, request: request) {
                results += batch.statistics.map(MergedStatistics.init)
                if batch.initialResultsComplete { break }
            }
        } catch let error as RPCError {
            throw SalusError(error)
        }
        return results
    }
}

extension StatisticFigures {
    init(_ values: Salus_V1_StatisticValues) {
        self.init(
            sum: values.optionalSum != nil ? values.sum : nil, average: values.optionalAverage != nil ? values.average : nil,
            minimum: values.optionalMinimum != nil ? values.minimum : nil, maximum: values.optionalMaximum != nil ? values.maximum : nil)
    }
}

extension MergedStatistics {
    init(_ result: Salus_V1_StatisticsResult) {
        self.init(
            startDate: WireDate.date(result.startDate), endDate: WireDate.date(result.endDate), unit: result.unit,
            values: StatisticFigures(result.values), sources: result.sources,
            bySource: result.bySource.mapValues(StatisticFigures.init))
    }
}
