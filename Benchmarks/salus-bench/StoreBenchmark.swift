#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusStore

/// The store over the socket beside raw SQLite on the same rows, in the same run: batch
/// saves, a streamed sample query and an anchored catch-up, plus the daemon's memory.
enum StoreBenchmark {
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let batchSize = 10_000
    static let base: Int64 = 1_600_000_000_000_000

    static func sample(_ index: Int) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = steps
        sample.startDate = base + Int64(index) * 60_000_000
        sample.endDate = sample.startDate + 60_000_000
        sample.quantity.value = Double(index % 120)
        sample.quantity.unit = "count"
        return sample
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Resident memory of `pid` from /proc: (current, peak) in MiB.
    static func memory(of pid: Int32) -> (rss: Double, peak: Double) {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (.nan, .nan) }
        func field(_ name: String) -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return .nan }
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? .nan
            return kilobytes / 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// CPU seconds (user and system) the process `pid` has used so far (/proc/PID/stat).
    static func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .nan }
        // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Bytes the process `pid` has caused to be written to storage (/proc/PID/io).
    static func bytesWritten(by pid: Int32) -> Double {
        guard let io = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8),
            let line = io.split(separator: "\n").first(where: { $0.hasPrefix("write_bytes:") })
        else { return .nan }
        return Double(line.split(separator: " ").last ?? "") ?? .nan
    }

    /// Runs the store figures against the daemon `pid` listening on `socketPath`: `trials`
    /// rounds, each saving `rowsPerTrial` more rows through salusd and into the raw table, then
    /// reading everything back from both, Salus and raw SQLite alternating.
    static func run(socketPath: String, daemonPID: Int32, rowsPerTrial: Int, trials: Int, directory: String) async throws
        -> (results: [String: Double], table: [(String, String, String, String)])
    {
        var results: [String: Double] = [:]
        var configuration = RPCClient.Configuration()
        configuration.declaredAppID = "org.salus.bench"
        let client = try await RPCClient.connect(unixSocketPath: socketPath, configuration: configuration)
        let raw = try RawStore(path: directory + "/raw.sqlite")
        defer { raw.close() }
        var saved = 0

        let writtenBefore = bytesWritten(by: daemonPID)
        // CPU the saves take in salusd and in this client (encoding the requests), per row.
        var saveCPU = (daemon: 0.0, client: 0.0)
        let saves = try await Comparison.interleaved(trials: trials) {
            // Build the batches before the clock starts.
            let batches: [Salus_V1_SaveRequest] = stride(from: saved, to: saved + rowsPerTrial, by: batchSize).map { first in
                var request = Salus_V1_SaveRequest()
                request.samples = (first..<min(saved + rowsPerTrial, first + batchSize)).map(sample)
                return request
            }
            let (daemonBefore, clientBefore) = (cpuSeconds(of: daemonPID), cpuSeconds(of: getpid()))
            let start = ContinuousClock.now
            for batch in batches {
                let _: Salus_V1_SaveResponse = try await client.unary(SalusMethods.Store.save, request: batch)
            }
            saveCPU.daemon += cpuSeconds(of: daemonPID) - daemonBefore
            saveCPU.client += cpuSeconds(of: getpid()) - clientBefore
            saved += rowsPerTrial
            return Double(rowsPerTrial) / seconds(ContinuousClock.now - start)
        } baseline: {
            try raw.insert(rowsPerTrial)
        }
        let writtenPerRow = (bytesWritten(by: daemonPID) - writtenBefore) / Double(saved)
        let afterSave = memory(of: daemonPID)

        let queries = try await Comparison.interleaved(trials: trials) {
            try await query(client, pinned: false, expecting: saved)
        } baseline: {
            try raw.selectAll()
        }
        let pinned = try await query(client, pinned: true, expecting: saved)
        // The same query as an app makes it: SalusKit, into model samples.
        let kit = HealthStore(client: client)
        // salusd's CPU per row read, over the trials of each SalusKit figure: the daemon's own
        // cost, apart from the client's and the scheduling of the two.
        var kitCPU = (query: 0.0, anchored: 0.0)
        let kitQueries = try await Comparison.interleaved(trials: trials) {
            let before = cpuSeconds(of: daemonPID)
            defer { kitCPU.query += cpuSeconds(of: daemonPID) - before }
            return try await kitQuery(kit, expecting: saved)
        } baseline: {
            try raw.selectAll()
        }
        let anchoredReads = try await Comparison.interleaved(trials: trials) {
            let (caught, elapsed) = try await catchUp(client, type: steps)
            precondition(caught == saved, "the anchored query returned \(caught) of \(saved) changes")
            return Double(caught) / elapsed
        } baseline: {
            try raw.selectAll()
        }
        // The same catch-up as an app makes it: SalusKit, into model samples.
        let kitAnchoredReads = try await Comparison.interleaved(trials: trials) {
            let before = cpuSeconds(of: daemonPID)
            defer { kitCPU.anchored += cpuSeconds(of: daemonPID) - before }
            let start = ContinuousClock.now
            let result = try await AnchoredObjectQueryDescriptor(predicates: [SampleTypePredicate(.quantity(.stepCount))])
                .result(for: kit)
            precondition(result.addedSamples.count == saved, "SalusKit's catch-up returned \(result.addedSamples.count) of \(saved)")
            return Double(result.addedSamples.count) / seconds(ContinuousClock.now - start)
        } baseline: {
            try raw.selectAll()
        }
        let afterQueries = memory(of: daemonPID)
        await client.close()

        results["store_rows"] = Double(saved)
        results["store_trials"] = Double(trials)
        saves.record(into: &results, key: "save_rows_per_s", baselineKey: "raw_insert_rows_per_s", ratioKey: "save_ratio")
        queries.record(into: &results, key: "query_rows_per_s", baselineKey: "raw_select_rows_per_s", ratioKey: "query_ratio")
        kitQueries.record(
            into: &results, key: "kit_query_rows_per_s", baselineKey: "raw_select_rows_per_s_kit", ratioKey: "kit_query_ratio")
        anchoredReads.record(
            into: &results, key: "anchored_rows_per_s", baselineKey: "raw_select_rows_per_s_anchored", ratioKey: "anchored_ratio")
        kitAnchoredReads.record(
            into: &results, key: "kit_anchored_rows_per_s", baselineKey: "raw_select_rows_per_s_kit_anchored",
            ratioKey: "kit_anchored_ratio")
        results["query_rows_per_s_pinned"] = pinned
        let readsPerFigure = Double(saved * trials)
        results["kit_query_daemon_cpu_us_per_row"] = kitCPU.query * 1e6 / readsPerFigure
        results["kit_anchored_daemon_cpu_us_per_row"] = kitCPU.anchored * 1e6 / readsPerFigure
        results["save_bytes_written_per_row"] = writtenPerRow
        results["save_daemon_cpu_us_per_row"] = saveCPU.daemon * 1e6 / Double(saved)
        results["save_client_cpu_us_per_row"] = saveCPU.client * 1e6 / Double(saved)
        results["daemon_rss_after_save_mb"] = afterSave.rss
        results["daemon_rss_after_queries_mb"] = afterQueries.rss
        results["daemon_peak_rss_mb"] = afterQueries.peak
        let table = [
            tableRow("store save: rows/s", saves, digits: 0),
            tableRow("store sample query, reader on the global executor: rows/s", queries, digits: 0),
            ("store sample query, reader on the client's loop: rows/s", format(pinned, 0), "", ""),
            tableRow("store sample query through SalusKit, into model samples: rows/s", kitQueries, digits: 0),
            tableRow("store anchored catch-up: rows/s", anchoredReads, digits: 0),
            tableRow("store anchored catch-up through SalusKit, into model samples: rows/s", kitAnchoredReads, digits: 0),
            ("SalusKit query / catch-up: salusd CPU per row µs",
             format(kitCPU.query * 1e6 / readsPerFigure, 2) + " / " + format(kitCPU.anchored * 1e6 / readsPerFigure, 2), "", ""),
            ("save: bytes written per row", format(writtenPerRow, 0), "", ""),
            ("save: CPU per row, salusd / client µs",
             format(saveCPU.daemon * 1e6 / Double(saved), 2) + " / " + format(saveCPU.client * 1e6 / Double(saved), 2), "", ""),
            ("daemon RSS after save / after queries / peak MiB",
             format(afterSave.rss) + " / " + format(afterQueries.rss) + " / " + format(afterQueries.peak), "", ""),
        ]
        return (results, table)
    }

    /// A streamed query of every step sample; rows/s. `pinned`: the reader runs on the
    /// connection's event loop instead of the global executor (the default an app gets).
    static func query(_ client: RPCClient, pinned: Bool, expecting rows: Int) async throws -> Double {
        if pinned {
            return try await withTaskExecutorPreference(client.executor) {
                try await query(client, pinned: false, expecting: rows)
            }
        }
        var request = Salus_V1_SampleQueryRequest()
        request.type = steps
        let (queried, elapsed) = try await streamedQuery(client, request)
        precondition(queried == rows, "the query returned \(queried) of \(rows) rows")
        return Double(queried) / elapsed
    }

    /// The same query through SalusKit (``SampleQueryDescriptor``), each sample a model sample;
    /// rows/s.
    static func kitQuery(_ store: HealthStore, expecting rows: Int) async throws -> Double {
        let start = ContinuousClock.now
        var count = 0
        for try await _ in SampleQueryDescriptor(type: .quantity(.stepCount)).samples(for: store) { count += 1 }
        precondition(count == rows, "SalusKit's query returned \(count) of \(rows) rows")
        return Double(count) / seconds(ContinuousClock.now - start)
    }

    /// Runs a streamed sample query to its end: (samples received, seconds).
    static func streamedQuery(_ client: RPCClient, _ request: Salus_V1_SampleQueryRequest) async throws -> (Int, Double) {
        var count = 0
        let start = ContinuousClock.now
        for try await page in try client.serverStreaming(
            SalusMethods.Store.querySamples, request: request)
        {
            count += page.samples.count
        }
        return (count, seconds(ContinuousClock.now - start))
    }

    /// An anchored catch-up of every sample of `type` from the start: (changes received, seconds).
    static func catchUp(_ client: RPCClient, type: String) async throws -> (Int, Double) {
        var request = Salus_V1_AnchoredQueryRequest()
        var descriptor = Salus_V1_TypedPredicate()
        descriptor.type = type
        request.descriptors = [descriptor]
        var caught = 0
        let start = ContinuousClock.now
        for try await batch in try client.serverStreaming(
            SalusMethods.Store.queryAnchored, request: request)
        {
            caught += batch.added.count
        }
        return (caught, seconds(ContinuousClock.now - start))
    }

    /// The same rows in a table shaped like the store's, with its indexes: prepared inserts,
    /// one transaction per batch; and a plain SELECT of every row.
    final class RawStore {
        let database: Database
        let insertStatement: Statement
        var rows = 0

        init(path: String) throws {
            database = try Database(path: path)
            try database.execute("""
                CREATE TABLE samples (
                    id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, type_id INTEGER NOT NULL, kind INTEGER NOT NULL,
                    start_us INTEGER NOT NULL, end_us INTEGER NOT NULL, value REAL, value_in_unit REAL, unit TEXT,
                    app_ref INTEGER NOT NULL, source_id INTEGER NOT NULL, creation_us INTEGER NOT NULL
                );
                CREATE INDEX samples_type_start ON samples(type_id, start_us);
                """)
            insertStatement = try database.prepare(
                "INSERT INTO samples (id, uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit, app_ref, source_id, creation_us) VALUES (?, ?, 1, 0, ?, ?, ?, ?, 'count', 1, 1, ?)"
            )
        }

        func close() {
            insertStatement.reset()
            database.close()
        }

        /// Inserts `count` more rows; rows/s.
        func insert(_ count: Int) throws -> Double {
            let now = Int64(Date().timeIntervalSince1970 * 1e6)
            let first = rows
            let start = ContinuousClock.now
            for batchStart in stride(from: first, to: first + count, by: batchSize) {
                try database.execute("BEGIN IMMEDIATE")
                for index in batchStart..<min(first + count, batchStart + batchSize) {
                    let sample = sample(index)
                    insertStatement.reset()
                    try insertStatement.bind([
                        .integer(Int64(index + 1)), .uuid(UUIDv7.make()), .integer(sample.startDate), .integer(sample.endDate),
                        .real(sample.quantity.value), .real(sample.quantity.value), .integer(now),
                    ])
                    _ = try insertStatement.step()
                }
                try database.execute("COMMIT")
            }
            rows += count
            return Double(count) / seconds(ContinuousClock.now - start)
        }

        /// Reads every row; rows/s.
        func selectAll() throws -> Double {
            let select = try database.prepare(
                "SELECT id, uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit, app_ref, source_id, creation_us, id FROM samples",
                cached: false)
            var count = 0
            var checksum = 0.0
            let start = ContinuousClock.now
            while try select.step() {
                checksum += select.double(6) + Double(select.int64(4) & 1)
                _ = select.blob(1)
                _ = select.text(8)
                count += 1
            }
            let rate = Double(count) / seconds(ContinuousClock.now - start)
            precondition(count == rows && checksum >= 0)
            return rate
        }
    }
}
