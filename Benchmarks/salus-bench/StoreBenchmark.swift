#if canImport(Glibc)
import Glibc
#endif
import Foundation
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

    /// Runs the store figures against the daemon `pid` listening on `socketPath`.
    static func run(socketPath: String, daemonPID: Int32, rows: Int, directory: String) async throws -> [String: Double] {
        var results: [String: Double] = [:]
        var configuration = RPCClient.Configuration()
        configuration.declaredAppID = "org.salus.bench"
        let client = try await RPCClient.connect(unixSocketPath: socketPath, configuration: configuration)
        let save = SalusMethods.Store.save
        let query = SalusMethods.Store.querySamples
        let anchored = SalusMethods.Store.queryAnchored

        // Build the batches before the clock starts.
        let batches: [Salus_V1_SaveRequest] = stride(from: 0, to: rows, by: batchSize).map { first in
            var request = Salus_V1_SaveRequest()
            request.samples = (first..<min(rows, first + batchSize)).map(sample)
            return request
        }
        let saveStart = ContinuousClock.now
        for batch in batches {
            let _: Salus_V1_SaveResponse = try await client.unary(save, request: batch)
        }
        let saveRate = Double(rows) / seconds(ContinuousClock.now - saveStart)
        let afterSave = memory(of: daemonPID)

        var request = Salus_V1_SampleQueryRequest()
        request.type = steps
        var queried = 0
        let queryStart = ContinuousClock.now
        for try await page in try client.serverStreaming(query, request: request, responseType: Salus_V1_SampleBatch.self) {
            queried += page.samples.count
        }
        let queryRate = Double(queried) / seconds(ContinuousClock.now - queryStart)
        precondition(queried == rows, "the query returned \(queried) of \(rows) rows")

        var catchUp = Salus_V1_AnchoredQueryRequest()
        var descriptor = Salus_V1_TypedPredicate()
        descriptor.type = steps
        catchUp.descriptors = [descriptor]
        var caught = 0
        let anchoredStart = ContinuousClock.now
        for try await batch in try client.serverStreaming(anchored, request: catchUp, responseType: Salus_V1_AnchoredBatch.self) {
            caught += batch.added.count
        }
        let anchoredRate = Double(caught) / seconds(ContinuousClock.now - anchoredStart)
        precondition(caught == rows, "the anchored query returned \(caught) of \(rows) changes")
        let afterQueries = memory(of: daemonPID)
        await client.close()

        let raw = try rawSQLite(rows: rows, path: directory + "/raw.sqlite")
        results["store_rows"] = Double(rows)
        results["save_rows_per_s"] = saveRate
        results["raw_insert_rows_per_s"] = raw.insert
        results["save_ratio"] = saveRate / raw.insert
        results["query_rows_per_s"] = queryRate
        results["raw_select_rows_per_s"] = raw.select
        results["query_ratio"] = queryRate / raw.select
        results["anchored_rows_per_s"] = anchoredRate
        results["anchored_ratio"] = anchoredRate / raw.select
        results["daemon_rss_after_save_mb"] = afterSave.rss
        results["daemon_rss_after_queries_mb"] = afterQueries.rss
        results["daemon_peak_rss_mb"] = afterQueries.peak
        return results
    }

    /// The same rows into a table shaped like the store's, with its indexes: prepared inserts,
    /// one transaction per batch; then a plain SELECT of every row.
    static func rawSQLite(rows: Int, path: String) throws -> (insert: Double, select: Double) {
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute("""
            CREATE TABLE samples (
                id INTEGER PRIMARY KEY, uuid BLOB NOT NULL UNIQUE, type_id INTEGER NOT NULL, kind INTEGER NOT NULL,
                start_us INTEGER NOT NULL, end_us INTEGER NOT NULL, value REAL, value_in_unit REAL, unit TEXT,
                app_ref INTEGER NOT NULL, source_id INTEGER NOT NULL, creation_us INTEGER NOT NULL, seq INTEGER NOT NULL UNIQUE
            );
            CREATE INDEX samples_type_start ON samples(type_id, start_us);
            CREATE INDEX samples_type_end ON samples(type_id, end_us);
            """)
        let insert = try database.prepare(
            "INSERT INTO samples (uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit, app_ref, source_id, creation_us, seq) VALUES (?, 1, 0, ?, ?, ?, ?, 'count', 1, 1, ?, ?)"
        )
        let now = Int64(Date().timeIntervalSince1970 * 1e6)
        let insertStart = ContinuousClock.now
        for first in stride(from: 0, to: rows, by: batchSize) {
            try database.execute("BEGIN IMMEDIATE")
            for index in first..<min(rows, first + batchSize) {
                let sample = sample(index)
                insert.reset()
                try insert.bind([
                    .uuid(UUIDv7.make()), .integer(sample.startDate), .integer(sample.endDate),
                    .real(sample.quantity.value), .real(sample.quantity.value), .integer(now), .integer(Int64(index + 1)),
                ])
                _ = try insert.step()
            }
            try database.execute("COMMIT")
        }
        let insertRate = Double(rows) / seconds(ContinuousClock.now - insertStart)
        insert.reset()

        let select = try database.prepare("SELECT id, uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit, app_ref, source_id, creation_us, seq FROM samples")
        var count = 0
        var checksum = 0.0
        let selectStart = ContinuousClock.now
        while try select.step() {
            checksum += select.double(6) + Double(select.int64(4) & 1)
            _ = select.blob(1)
            _ = select.text(8)
            count += 1
        }
        let selectRate = Double(count) / seconds(ContinuousClock.now - selectStart)
        select.reset()
        precondition(count == rows && checksum >= 0)
        return (insertRate, selectRate)
    }
}
