#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusStore

/// A person's decade: heart rate every 21 s and steps every 63 s for ten years (20,000,000
/// samples in the full run), built once into `.bench/scale-N/` and reused by later runs. A salusd
/// serves it; the figures are what an app sees: a day's heart rate, a year of merged daily step
/// totals, an anchored catch-up of one type, the bytes each sample costs beside a minimal table,
/// and the daemon's memory.
enum ScaleBenchmark {
    static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    static let steps = "HKQuantityTypeIdentifierStepCount"
    /// 2015-01-01T00:00:00Z.
    static let origin: Int64 = 1_420_070_400_000_000
    static let decade: Int64 = 10 * 365 * 86_400_000_000
    /// Bumped when the fixture changes, so a cached store of another shape is rebuilt. 2: saved
    /// at schema 16 (a store migrated in place keeps its old pages as free pages, and its UUIDs
    /// in the UUID index, so its bytes per sample would not be schema 16's).
    static let fixtureVersion = 2

    static func interval(samples: Int) -> Int64 { decade / Int64(samples) }

    /// The cached store for `total` samples (¾ heart rate, ¼ steps), built when missing.
    static func prepare(total: Int, cache: String) async throws -> String {
        let directory = cache + "/scale-\(total)"
        let marker = directory + "/complete-v\(fixtureVersion)"
        if FileManager.default.fileExists(atPath: marker) { return directory }
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        var logger = Logger(label: "salus.bench.scale")
        logger.logLevel = .error
        let perMinute = try SalusUnit(parsing: "count/min")
        let catalog = TypeCatalog(types: [
            TypeRules(identifier: steps, kind: .quantity, canonicalUnit: .count, aggregationStyle: .cumulative),
            TypeRules(identifier: heartRate, kind: .quantity, canonicalUnit: perMinute, aggregationStyle: .discreteTemporallyWeighted),
        ])
        let store = try await SampleStore.open(path: directory + "/data/salus.sqlite", catalog: catalog, logger: logger)
        let watch = SourceRevision(appID: "com.apple.health.watch", name: "Apple Watch", version: "10.1", productType: "Watch6,2", osVersion: "10.1")
        let device = Device(name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,2", softwareVersion: "10.1")
        let counts = [(heartRate, total * 3 / 4, perMinute), (steps, total - total * 3 / 4, SalusUnit.count)]
        let started = ContinuousClock.now
        var saved = 0
        for (type, count, unit) in counts {
            let step = interval(samples: count)
            var batch: [Sample] = []
            batch.reserveCapacity(20_000)
            for index in 0..<count {
                let start = origin + Int64(index) * step
                let value = type == heartRate ? Double(55 + (index * 7) % 90) : Double((index * 13) % 120)
                batch.append(
                    Sample(
                        type: TypeIdentifier(type), startDate: Date(timeIntervalSince1970: Double(start) / 1e6),
                        endDate: Date(timeIntervalSince1970: Double(start + (type == heartRate ? 0 : step)) / 1e6),
                        value: .quantity(Quantity(value: value, unit: unit)), sourceRevision: watch, device: device))
                if batch.count == 20_000 {
                    _ = try await store.save(batch, source: watch)
                    saved += batch.count
                    batch.removeAll(keepingCapacity: true)
                    if saved % 1_000_000 == 0 {
                        let elapsed = StoreBenchmark.seconds(ContinuousClock.now - started)
                        FileHandle.standardError.write(Data(
                            "scale fixture: \(saved / 1_000_000)M of \(total / 1_000_000)M samples (\(Int(Double(saved) / elapsed)) /s)\n".utf8))
                    }
                }
            }
            if !batch.isEmpty { _ = try await store.save(batch, source: watch) }
        }
        await store.close()
        try minimalTable(store: directory + "/data/salus.sqlite", into: directory + "/minimal.sqlite")
        FileManager.default.createFile(atPath: marker, contents: Data())
        return directory
    }

    /// The same samples in one plain table with each column once (no index but the rowid):
    /// the floor for bytes per sample.
    static func minimalTable(store: String, into path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute("""
            PRAGMA journal_mode=OFF;
            CREATE TABLE samples (uuid BLOB, type_id INTEGER, start_us INTEGER, end_us INTEGER, value REAL, \
            source_id INTEGER, device_id INTEGER, creation_us INTEGER);
            ATTACH DATABASE '\(store)' AS store;
            INSERT INTO samples SELECT uuid, type_id, start_us, end_us, value, source_id, device_id, creation_us FROM store.samples;
            DETACH DATABASE store;
            """)
    }

    /// Milliseconds to read each of `days` days' heart-rate rows (the days the query phases
    /// read, in order) with one plain SELECT on a read-only connection to `store`, sorted.
    static func plainDaySelects(_ store: String, days: Int, origin: Int64, expected: [Int]) throws -> [Double] {
        let database = try Database(path: store, create: false, readOnly: true)
        defer { database.close() }
        let day: Int64 = 86_400_000_000
        let select = try database.prepare(
            // Since schema 16 a heart rate's row leaves out its unit and value as given (the type's).
            "SELECT id, uuid, type_id, kind, start_us, end_us, coalesce(value_in_unit, value), unit, category, payload, "
                + "creation_us, id, "
                + "source_id, device_id FROM samples WHERE type_id = (SELECT id FROM types WHERE identifier = ?) "
                + "AND start_us >= ? AND start_us < ? ORDER BY start_us, id",
            cached: false)
        defer { select.reset() }
        var latencies: [Double] = []
        var state: UInt64 = 0x5A1D_5EED
        for index in 0..<days {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let first = origin + Int64((state >> 33) % 3650) * day
            let start = ContinuousClock.now
            select.reset()
            try select.bind([.text(heartRate), .integer(first), .integer(first + day)])
            var count = 0
            var checksum = 0.0
            while try select.step() {
                checksum += select.double(6) + Double(select.int64(4) &+ select.int64(5) &+ select.int64(10) &+ select.int64(11) & 1)
                _ = select.rawBytes(1)
                _ = select.rawBytes(7)
                count += select.int64(12) > 0 ? 1 : 0
            }
            latencies.append(milliseconds(ContinuousClock.now - start))
            precondition(count == expected[index] && checksum.isFinite, "the plain SELECT read \(count) of \(expected[index]) rows")
        }
        return latencies.sorted()
    }

    /// Bytes the database file takes per row of `table`.
    static func bytesPerRow(_ path: String, table: String) throws -> (bytes: Double, rows: Int) {
        let database = try Database(path: path, create: false, readOnly: true)
        defer { database.close() }
        let pages = try database.scalarInt("PRAGMA page_count") ?? 0
        let size = try database.scalarInt("PRAGMA page_size") ?? 0
        let rows = Int(try database.scalarInt("SELECT count(*) FROM \(table)") ?? 0)
        return (Double(pages * size) / Double(max(rows, 1)), rows)
    }
}

extension ScaleBenchmark {
    static func milliseconds(_ duration: Duration) -> Double { StoreBenchmark.seconds(duration) * 1000 }

    /// The figures an app sees on the fixture `fixture` (built for `total` samples), from salusd
    /// `daemonPID` at `socketPath`.
    static func run(socketPath: String, daemonPID: Int32, total: Int, fixture: String, quick: Bool) async throws
        -> (results: [String: Double], table: [(String, String, String, String)])
    {
        var configuration = RPCClient.Configuration()
        configuration.declaredAppID = "org.salus.bench"
        let client = try await RPCClient.connect(unixSocketPath: socketPath, configuration: configuration)
        let idle = StoreBenchmark.memory(of: daemonPID)
        let day: Int64 = 86_400_000_000

        // One day's heart rate, on days spread over the decade (the same days every run).
        // First, untimed for the figures, each day once: the page cache may be cold (a start
        // on a stamped store reads nothing before it answers), and its first reads, from disk,
        // are reported apart.
        var coldLatencies: [Double] = []
        var state: UInt64 = 0x5A1D_5EED
        for _ in 0..<(quick ? 40 : 200) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var request = Salus_V1_SampleQueryRequest()
            request.type = heartRate
            request.predicate.dateWindow.startDate = origin + Int64((state >> 33) % 3650) * day
            request.predicate.dateWindow.endDate = request.predicate.dateWindow.startDate + day
            coldLatencies.append(try await StoreBenchmark.streamedQuery(client, request).1 * 1000)
        }
        coldLatencies.sort()
        var latencies: [Double] = []
        var perDay = 0
        var dayCounts: [Int] = []
        state = 0x5A1D_5EED
        let (daemonCPUBefore, clientCPUBefore) = (StoreBenchmark.cpuSeconds(of: daemonPID), StoreBenchmark.cpuSeconds(of: getpid()))
        for _ in 0..<(quick ? 40 : 200) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let first = origin + Int64((state >> 33) % 3650) * day
            var request = Salus_V1_SampleQueryRequest()
            request.type = heartRate
            var window = Salus_V1_DateWindow()
            window.startDate = first
            window.endDate = first + day
            request.predicate.dateWindow = window
            let (count, elapsed) = try await StoreBenchmark.streamedQuery(client, request)
            latencies.append(elapsed * 1000)
            perDay = count
            dayCounts.append(count)
        }
        let daemonCPU = (StoreBenchmark.cpuSeconds(of: daemonPID) - daemonCPUBefore) * 1000 / Double(latencies.count)
        let clientCPU = (StoreBenchmark.cpuSeconds(of: getpid()) - clientCPUBefore) * 1000 / Double(latencies.count)
        latencies.sort()
        // The same days through SalusKit, into model samples: what an app gets.
        let kit = HealthStore(client: client)
        var kitLatencies: [Double] = []
        state = 0x5A1D_5EED
        let (kitDaemonCPUBefore, kitClientCPUBefore) = (StoreBenchmark.cpuSeconds(of: daemonPID), StoreBenchmark.cpuSeconds(of: getpid()))
        for _ in 0..<(quick ? 40 : 200) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let first = origin + Int64((state >> 33) % 3650) * day
            let window = SamplePredicate.dateWindow(DateWindow(
                start: Date(timeIntervalSince1970: Double(first) / 1e6), end: Date(timeIntervalSince1970: Double(first + day) / 1e6)))
            let start = ContinuousClock.now
            var count = 0
            for try await _ in SampleQueryDescriptor(type: .quantity(.heartRate), predicate: window).samples(for: kit) { count += 1 }
            kitLatencies.append(milliseconds(ContinuousClock.now - start))
            precondition(
                count == dayCounts[kitLatencies.count - 1],
                "SalusKit's day query returned \(count) of \(dayCounts[kitLatencies.count - 1]) samples")
        }
        let kitDaemonCPU = (StoreBenchmark.cpuSeconds(of: daemonPID) - kitDaemonCPUBefore) * 1000 / Double(kitLatencies.count)
        let kitClientCPU = (StoreBenchmark.cpuSeconds(of: getpid()) - kitClientCPUBefore) * 1000 / Double(kitLatencies.count)
        kitLatencies.sort()

        // The floor: the same days' rows read by a plain SELECT from the store's file, in this
        // process, through the same (type, start) index, each column read once.
        let selectLatencies = try plainDaySelects(
            fixture + "/data/salus.sqlite", days: quick ? 40 : 200, origin: origin, expected: dayCounts)

        // A year of daily step totals, merged across sources.
        var yearly: [Double] = []
        for _ in 0..<5 {
            var request = Salus_V1_StatisticsCollectionRequest()
            request.type = steps
            request.options = [.cumulativeSum]
            request.anchorDate = origin
            request.intervalCount = 1
            request.intervalUnit = .day
            request.timeZone = "UTC"
            request.from = origin + 5 * 365 * day
            request.to = request.from + 365 * day
            var intervals = 0
            let start = ContinuousClock.now
            for try await batch in try client.serverStreaming(
                SalusMethods.Statistics.queryCollection, request: request)
            {
                intervals += batch.statistics.count
                if batch.initialResultsComplete { break }
            }
            yearly.append(milliseconds(ContinuousClock.now - start))
            precondition(intervals == 365, "the collection returned \(intervals) days of 365")
        }
        let year = Spread(yearly)

        // An anchored catch-up of every step sample.
        let (caught, catchUpSeconds) = try await StoreBenchmark.catchUp(client, type: steps)
        precondition(caught == total - total * 3 / 4, "the catch-up returned \(caught) step samples")
        let peak = StoreBenchmark.memory(of: daemonPID)
        await client.close()

        let stored = try bytesPerRow(fixture + "/data/salus.sqlite", table: "samples")
        let minimal = try bytesPerRow(fixture + "/minimal.sqlite", table: "samples")
        // The store's bytes include its metadata, source, device and type tables; per sample.
        var results: [String: Double] = [:]
        results["scale_samples"] = Double(stored.rows)
        results["scale_day_query_samples"] = Double(perDay)
        results["scale_day_query_p50_ms"] = percentile(latencies, 0.5)
        results["scale_day_query_p99_ms"] = percentile(latencies, 0.99)
        results["scale_day_query_first_read_p50_ms"] = percentile(coldLatencies, 0.5)
        results["scale_day_query_first_read_p99_ms"] = percentile(coldLatencies, 0.99)
        results["scale_day_query_daemon_cpu_ms"] = daemonCPU
        results["scale_day_query_client_cpu_ms"] = clientCPU
        results["scale_day_query_kit_p50_ms"] = percentile(kitLatencies, 0.5)
        results["scale_day_query_kit_p99_ms"] = percentile(kitLatencies, 0.99)
        results["scale_day_query_kit_daemon_cpu_ms"] = kitDaemonCPU
        results["scale_day_query_kit_client_cpu_ms"] = kitClientCPU
        results["scale_day_query_select_p50_ms"] = percentile(selectLatencies, 0.5)
        results["scale_day_query_select_p99_ms"] = percentile(selectLatencies, 0.99)
        results["scale_year_daily_sums_ms"] = year.median
        results["scale_year_daily_sums_ms_min"] = year.min
        results["scale_year_daily_sums_ms_max"] = year.max
        results["scale_catch_up_rows"] = Double(caught)
        results["scale_catch_up_rows_per_s"] = Double(caught) / catchUpSeconds
        results["scale_catch_up_s"] = catchUpSeconds
        results["scale_bytes_per_sample"] = stored.bytes
        results["scale_minimal_bytes_per_sample"] = minimal.bytes
        results["scale_bytes_ratio"] = stored.bytes / minimal.bytes
        results["scale_daemon_rss_idle_mb"] = idle.rss
        results["scale_daemon_peak_rss_mb"] = peak.peak
        let table: [(String, String, String, String)] = [
            ("\(stored.rows / 1_000_000)M samples: a day's first read, maybe from disk, p50 / p99 ms",
             format(percentile(coldLatencies, 0.5), 2) + " / " + format(percentile(coldLatencies, 0.99), 2), "", ""),
            ("\(stored.rows / 1_000_000)M samples: a day's heart rate (\(perDay)), p50 / p99 ms",
             format(percentile(latencies, 0.5), 2) + " / " + format(percentile(latencies, 0.99), 2), "", ""),
            ("\(stored.rows / 1_000_000)M samples: CPU per day's query, salusd / client (SwiftProtobuf) ms",
             format(daemonCPU, 2) + " / " + format(clientCPU, 2), "", ""),
            ("\(stored.rows / 1_000_000)M samples: the same through SalusKit, model samples, p50 / p99 ms",
             format(percentile(kitLatencies, 0.5), 2) + " / " + format(percentile(kitLatencies, 0.99), 2), "", ""),
            ("\(stored.rows / 1_000_000)M samples: CPU per day's query, salusd / SalusKit client ms",
             format(kitDaemonCPU, 2) + " / " + format(kitClientCPU, 2), "", ""),
            ("\(stored.rows / 1_000_000)M samples: the same days by a plain SELECT in-process, p50 / p99 ms",
             format(percentile(selectLatencies, 0.5), 2) + " / " + format(percentile(selectLatencies, 0.99), 2), "", ""),
            ("\(stored.rows / 1_000_000)M samples: a year of merged daily step sums, ms", year.formatted(), "", ""),
            ("\(stored.rows / 1_000_000)M samples: catch-up of \(caught) steps, rows/s",
             format(Double(caught) / catchUpSeconds, 0), "", format(catchUpSeconds, 1) + " s"),
            ("bytes per sample beside a minimal table", format(stored.bytes, 1), format(minimal.bytes, 1),
             format(stored.bytes / minimal.bytes, 2) + "×"),
            ("daemon RSS idle / peak MiB", format(idle.rss) + " / " + format(peak.peak), "", ""),
        ]
        return (results, table)
    }
}
