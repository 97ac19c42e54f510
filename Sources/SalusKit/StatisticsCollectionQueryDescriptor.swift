import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire

/// A statistics collection query, as HealthKit's `HKStatisticsCollectionQueryDescriptor`: the
/// statistics of every interval of a calendar grid (hours, days, weeks, months) over a range,
/// once or live.
///
/// ```swift
/// let daily = StatisticsCollectionQueryDescriptor(
///     predicate: .quantitySample(type: .stepCount),
///     options: .cumulativeSum,
///     anchorDate: midnight,
///     intervalComponents: DateComponents(day: 1),
///     timeZone: TimeZone(identifier: "Europe/Paris")
/// )
/// let week = try await daily.result(for: store, from: monday, to: nextMonday)
/// for try await update in daily.results(for: store, from: monday, to: nextMonday) {
///     for day in update.updatedStatistics { redraw(day) }   // every day first, then only changed days
/// }
/// ```
///
/// Interval `k` starts at `anchorDate` plus `k` intervals, for negative `k` too. Seconds,
/// minutes and hours are absolute lengths; days, weeks and months keep the anchor's wall-clock
/// time in the time zone, so a day is 23 or 25 hours across a DST change. The range `[from, to)`
/// gives every interval from the one containing `from` through the one containing the last
/// instant before `to`, empty ones included. Options, type and unit are checked by the daemon
/// as for ``StatisticsQueryDescriptor``.
public struct StatisticsCollectionQueryDescriptor: Hashable, Sendable {
    /// The quantity type and which of its samples count.
    public var predicate: SampleTypePredicate
    /// What to compute per interval.
    public var options: StatisticsOptions
    /// Where intervals start; they extend both ways from it.
    public var anchorDate: Date
    /// The interval length: exactly one of `second`, `minute`, `hour`, `day`, `weekOfYear` (or
    /// `weekOfMonth`) or `month`, set to a positive count. Anything else fails with
    /// ``SalusError/Code/invalidArgument`` naming `intervalComponents`, before anything is sent.
    public var intervalComponents: DateComponents
    /// The time zone of calendar lengths; nil means the daemon's.
    public var timeZone: TimeZone?
    /// The unit of the results; nil means the owner's preferred unit, else the type's canonical one.
    public var unit: SalusUnit?

    /// A query for `options` per interval of `intervalComponents` from `anchorDate`.
    public init(
        predicate: SampleTypePredicate,
        options: StatisticsOptions,
        anchorDate: Date,
        intervalComponents: DateComponents,
        timeZone: TimeZone? = nil,
        unit: SalusUnit? = nil
    ) {
        self.predicate = predicate
        self.options = options
        self.anchorDate = anchorDate
        self.intervalComponents = intervalComponents
        self.timeZone = timeZone
        self.unit = unit
    }

    /// The request sent (`salus.v1.StatisticsCollectionRequest`) for the range `[from, to)`;
    /// throws ``SalusError/Code/invalidArgument`` naming `intervalComponents` when they are not
    /// one positive interval length.
    package func request(from: Date, to: Date, live: Bool) throws(SalusError) -> Salus_V1_StatisticsCollectionRequest {
        let interval = try CollectionInterval.interval(intervalComponents)
        var request = Salus_V1_StatisticsCollectionRequest()
        request.type = predicate.type.identifier.rawValue
        if let predicate = predicate.predicate { request.predicate = predicate.wire }
        request.options = options.wire
        request.unit = unit?.description ?? ""
        request.anchorDate = WireDate.microseconds(anchorDate)
        request.intervalCount = UInt32(interval.count)
        request.intervalUnit = interval.unit.wire
        request.timeZone = timeZone?.identifier ?? ""
        request.from = WireDate.microseconds(from)
        request.to = WireDate.microseconds(to)
        request.live = live
        return request
    }

    /// The statistics of every interval overlapping `[from, to)`.
    public func result(for store: HealthStore, from: Date, to: Date) async throws(SalusError) -> StatisticsCollection {
        var iterator = StatisticsCollectionUpdates(store: store, descriptor: self, from: from, to: to, live: false).makeAsyncIterator()
        do {
            guard let first = try await iterator.next() else {
                throw SalusError(code: .malformedMessage, message: "the daemon ended QueryCollection without sending the collection")
            }
            return first.statisticsCollection
        } catch {
            throw SalusError.from(error)
        }
    }

    /// The collection over `[from, to)` as a first element, then, after every commit that
    /// changes some interval's statistics, the changed intervals with the merged collection,
    /// until the iterating task is cancelled or the loop ends (which cancels the query on the
    /// daemon). Errors are ``SalusError``s.
    public func results(for store: HealthStore, from: Date, to: Date) -> StatisticsCollectionUpdates {
        StatisticsCollectionUpdates(store: store, descriptor: self, from: from, to: to, live: true)
    }
}

/// One delivery of a live statistics collection query, as HealthKit's
/// `HKStatisticsCollectionQueryDescriptor.Result`.
public struct StatisticsCollectionUpdate: Hashable, Sendable {
    /// The whole collection, with every change so far.
    public var statisticsCollection: StatisticsCollection
    /// Every interval in the first update; then only the intervals whose statistics changed, in
    /// order.
    public var updatedStatistics: [Statistics]
    /// True for the first update (the initial collection).
    public var isInitial: Bool
}

/// The updates of a live statistics collection query: the collection first, then one element
/// per commit that changed some interval.
public struct StatisticsCollectionUpdates: AsyncSequence, Sendable {
    /// One update.
    public typealias Element = StatisticsCollectionUpdate

    let store: HealthStore
    let descriptor: StatisticsCollectionQueryDescriptor
    let from: Date
    let to: Date
    let live: Bool

    /// Starts the query; a descriptor that cannot be sent fails on the first `next()`.
    public func makeAsyncIterator() -> AsyncIterator {
        do throws(SalusError) {
            let request = try descriptor.request(from: from, to: to, live: live)
            let grid = IntervalGrid(
                anchor: WireDate.date(request.anchorDate), interval: try CollectionInterval.interval(descriptor.intervalComponents),
                calendar: Self.calendar(descriptor.timeZone ?? .current))
            let batches = ResponseReader<Salus_V1_StatisticsCollectionBatch>(
                store: store, method: SalusMethods.Statistics.queryCollection, request: request)
            return AsyncIterator(batches: batches, descriptor: descriptor, grid: grid)
        } catch {
            let grid = IntervalGrid(anchor: descriptor.anchorDate, interval: .day, calendar: Self.calendar(.current))
            return AsyncIterator(batches: ResponseReader(failing: error), descriptor: descriptor, grid: grid)
        }
    }

    static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// Reads batches from the daemon as updates are consumed.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var batches: ResponseReader<Salus_V1_StatisticsCollectionBatch>
        let descriptor: StatisticsCollectionQueryDescriptor
        var grid: IntervalGrid
        var collection: StatisticsCollection?
        var batchIndex = 0

        init(batches: ResponseReader<Salus_V1_StatisticsCollectionBatch>, descriptor: StatisticsCollectionQueryDescriptor, grid: IntervalGrid) {
            self.batches = batches
            self.descriptor = descriptor
            self.grid = grid
        }

        /// The next update, or nil when the query has ended; throws ``SalusError``.
        public mutating func next() async throws -> StatisticsCollectionUpdate? {
            var initial: [Statistics] = []
            while let batch = try await batches.next() {
                let path = "batches[\(batchIndex)]"
                batchIndex += 1
                var statistics: [Statistics] = []
                for (index, result) in batch.statistics.enumerated() {
                    statistics.append(try Statistics(
                        received: result, type: descriptor.predicate.type, requestedUnit: descriptor.unit,
                        path: "\(path).statistics[\(index)]"))
                }
                if let collection {
                    // After the initial collection, one batch is one update of changed intervals.
                    let merged = collection.merging(statistics)
                    self.collection = merged
                    return StatisticsCollectionUpdate(statisticsCollection: merged, updatedStatistics: statistics, isInitial: false)
                }
                if !batch.timeZone.isEmpty {
                    guard let zone = TimeZone(identifier: batch.timeZone) else {
                        throw SalusError.malformed(field: "\(path).timeZone", value: batch.timeZone, expected: "an IANA time zone")
                    }
                    grid.calendar.timeZone = zone
                }
                initial += statistics
                if batch.initialResultsComplete {
                    return initialUpdate(initial)
                }
            }
            // A stream that ends before saying its initial results are complete still delivers them.
            return collection == nil && !initial.isEmpty ? initialUpdate(initial) : nil
        }

        private mutating func initialUpdate(_ statistics: [Statistics]) -> StatisticsCollectionUpdate {
            let unit = statistics.first?.unit ?? descriptor.unit ?? .count
            let collection = StatisticsCollection(statistics: statistics, grid: grid, type: descriptor.predicate.type, unit: unit)
            self.collection = collection
            return StatisticsCollectionUpdate(statisticsCollection: collection, updatedStatistics: statistics, isInitial: true)
        }
    }
}
