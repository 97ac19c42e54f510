import Foundation
import Logging
import SalusModel
import SalusStatistics
import SalusStore

/// Merged statistics beside a plain SQL `GROUP BY day` over the same rows, in one run: a year
/// of per-minute steps from two overlapping sources (a phone, and a watch 30 s later).
enum StatisticsBenchmark {
    static let steps = TypeIdentifier("HKQuantityTypeIdentifierStepCount")

    static func milliseconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15
    }

    /// Runs in `directory` over `days` days (365 for the full run) and returns the figures.
    static func run(days: Int, directory: String) async throws -> [String: Double] {
        var logger = Logger(label: "salus.bench.statistics")
        logger.logLevel = .error
        let path = directory + "/statistics.sqlite"
        let catalog = TypeCatalog(types: [TypeRules(identifier: steps.rawValue, kind: .quantity, canonicalUnit: .count, aggregationStyle: .cumulative)])
        let store = try await SampleStore.open(path: path, catalog: catalog, logger: logger)
        let priorities = try SourcePriorityStore(path: nil)
        try priorities.setPriority(["org.example.watch", "org.example.phone"], for: steps)
        let engine = StatisticsEngine(store: store, priorities: priorities)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let start = utc.date(from: DateComponents(year: 2025, month: 1, day: 1))!
        let minutes = days * 1440

        // The fixture: saved directly into the store, 10,000 samples a transaction.
        for (source, offset) in [("org.example.phone", 0.0), ("org.example.watch", 30.0)] {
            let revision = SourceRevision(appID: source, name: source)
            var batch: [Sample] = []
            batch.reserveCapacity(10_000)
            for minute in 0..<minutes {
                let begin = start.addingTimeInterval(Double(minute) * 60 + offset)
                batch.append(
                    Sample(
                        type: steps, startDate: begin, endDate: begin.addingTimeInterval(60),
                        value: .quantity(Quantity(value: Double(60 + minute % 40), unit: .count)), sourceRevision: revision))
                if batch.count == 10_000 {
                    _ = try await store.save(batch, source: revision)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { _ = try await store.save(batch, source: revision) }
        }
        let rows = Double(2 * minutes)
        let end = start.addingTimeInterval(Double(days) * 86_400)

        // Plain GROUP BY day over the same rows: double-counts; the speed floor.
        let database = try Database(path: path, create: false, readOnly: true)
        let groupBy = try database.prepare(
            "SELECT start_us / 86400000000 AS day, SUM(value) FROM samples "
                + "WHERE type_id = (SELECT id FROM types WHERE identifier = ?) GROUP BY day ORDER BY day", cached: false)
        var rawBest = Double.infinity
        var rawDays = 0
        for _ in 0..<3 {
            let clock = ContinuousClock.now
            try groupBy.bind([.text(steps.rawValue)])
            rawDays = 0
            while try groupBy.step() { rawDays += 1 }
            groupBy.reset()
            rawBest = min(rawBest, milliseconds(ContinuousClock.now - clock))
        }
        database.close()

        // Merged daily sums for the whole range, and hourly for one week.
        let daily = IntervalGrid(anchor: start, interval: .day, calendar: utc)
        let yearQuery = StatisticsCollectionQuery(type: steps, options: .cumulativeSum, grid: daily, from: start, to: end)
        var statsBest = Double.infinity
        var merged: StatisticsCollection?
        for _ in 0..<3 {
            let clock = ContinuousClock.now
            merged = try await engine.collection(yearQuery)
            statsBest = min(statsBest, milliseconds(ContinuousClock.now - clock))
        }
        precondition(merged?.statistics.count == days && rawDays == days)
        // The watch ranks first and its samples abut from 00:00:30 on: the merged total is every
        // watch sample but the second half of the last one (past the range), plus the phone's
        // first 30 s (half of its first sample).
        let value = { (minute: Int) in Double(60 + minute % 40) }
        let expected = (0..<minutes).reduce(0.0) { $0 + value($1) } - value(minutes - 1) / 2 + value(0) / 2
        let total = merged!.statistics.reduce(0.0) { $0 + ($1.sum?.value ?? 0) }
        precondition(abs(total - expected) < 1e-6 * expected, "merged total \(total), expected \(expected)")
        let hourly = IntervalGrid(anchor: start, interval: .hour, calendar: utc)
        let weekStart = start.addingTimeInterval(Double(max(days / 2 - 7, 0)) * 86_400)
        var weekBest = Double.infinity
        for _ in 0..<3 {
            let clock = ContinuousClock.now
            _ = try await engine.collection(
                StatisticsCollectionQuery(
                    type: steps, options: .cumulativeSum, grid: hourly, from: weekStart,
                    to: weekStart.addingTimeInterval(7 * 86_400)))
            weekBest = min(weekBest, milliseconds(ContinuousClock.now - clock))
        }

        // A live daily collection over the whole range: the time from saving one sample to the
        // delivery of its changed day, and from deleting it (medians of 5).
        let (updates, continuation) = AsyncStream.makeStream(of: StatisticsEngine.CollectionUpdate.self)
        let live = Task {
            try await engine.liveCollection(yearQuery) { update in continuation.yield(update) }
        }
        var iterator = updates.makeAsyncIterator()
        _ = await iterator.next()
        var liveTimes: [Double] = []
        var deleteTimes: [Double] = []
        var savedUUIDs: [UUID] = []
        // From the watch, the first source: its samples count beside its overlapping ones.
        let watch = SourceRevision(appID: "org.example.watch", name: "watch")
        for round in 0..<5 {
            let at = start.addingTimeInterval(Double(days / 2 + round) * 86_400 + 3600 * 12 + 15)
            let sample = Sample(
                type: steps, startDate: at, endDate: at.addingTimeInterval(10),
                value: .quantity(Quantity(value: 5, unit: .count)), sourceRevision: watch)
            let clock = ContinuousClock.now
            let saved = try await store.save([sample], source: watch)
            let update = await iterator.next()
            liveTimes.append(milliseconds(ContinuousClock.now - clock))
            precondition(update?.statistics.count == 1)
            savedUUIDs.append(saved.results[0].uuid)
        }
        // Then the time from deleting one of them to the delivery of its day.
        for uuid in savedUUIDs {
            let clock = ContinuousClock.now
            _ = try await store.delete([uuid], requester: .owner)
            let update = await iterator.next()
            deleteTimes.append(milliseconds(ContinuousClock.now - clock))
            precondition(update?.statistics.count == 1)
        }
        live.cancel()
        await store.close()
        _ = await live.result
        liveTimes.sort()
        deleteTimes.sort()

        return [
            "stats_rows": rows,
            "stats_year_daily_ms": statsBest,
            "stats_week_hourly_ms": weekBest,
            "raw_groupby_ms": rawBest,
            "stats_ratio": statsBest / rawBest,
            "live_update_ms": liveTimes[liveTimes.count / 2],
            "live_delete_ms": deleteTimes[deleteTimes.count / 2],
        ]
    }
}
