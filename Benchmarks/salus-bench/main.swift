// `make bench`: measures the RPC layer beside raw Unix-socket baselines in the same run and
// writes every figure to .bench/results.json (one flat object).
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import NIOCore
import NIOPosix
import SalusProto
import SalusRPC
import SalusServer
import SalusSoak
import SalusSpawn
import Synchronization

let quick = CommandLine.arguments.contains("--quick")
let resultsPath = CommandLine.arguments.firstIndex(of: "--output").map { CommandLine.arguments[$0 + 1] } ?? ".bench/results.json"
/// Seconds per trial of an RPC figure.
let seconds: Double = quick ? 0.5 : 1.5
/// Each ratio is the median of this many trials, Salus and its baseline alternating.
let trials = 5
/// `--only rpc|store|scale|statistics|import|fit` runs one part (for working on it); the default runs all.
/// `--only migration` runs the store part's migration figure alone.
let only = CommandLine.arguments.firstIndex(of: "--only").map { CommandLine.arguments[$0 + 1] }
let parts = ["rpc", "store", "scale", "statistics", "import", "fit", "migration"]
if let only, !parts.contains(only) {
    FileHandle.standardError.write(Data("salus-bench: --only \(only): expected one of \(parts.joined(separator: ", "))\n".utf8))
    exit(2)
}
/// Where the scale fixture is cached between runs.
let cacheDirectory = CommandLine.arguments.firstIndex(of: "--cache").map { CommandLine.arguments[$0 + 1] } ?? ".bench"
func wants(_ part: String) -> Bool { only == nil || only == part }

var results: [String: Double] = [:]
var table: [(String, String, String, String)] = []

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

/// A table row for a comparison: Salus's median (min–max), the baseline's median, the ratio's
/// median (min–max).
func tableRow(_ label: String, _ comparison: Comparison, digits: Int = 1) -> (String, String, String, String) {
    (
        label, comparison.salus.formatted(digits), format(comparison.baseline.median, digits),
        format(comparison.ratio.median, 2) + "× (" + format(comparison.ratio.min, 2) + "–" + format(comparison.ratio.max, 2) + ")"
    )
}

// MARK: Raw baselines over a socketpair

/// Blocking helpers for the raw baseline: read or write exactly `count` bytes.
func writeAll(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) {
    var offset = 0
    while offset < count {
        let n = write(fd, pointer + offset, count - offset)
        if n <= 0 { return }
        offset += n
    }
}

func readAll(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Bool {
    var offset = 0
    while offset < count {
        let n = read(fd, pointer + offset, count - offset)
        if n <= 0 { return false }
        offset += n
    }
    return true
}

func socketPair() -> (Int32, Int32) {
    var fds: [Int32] = [0, 0]
    precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
    return (fds[0], fds[1])
}

/// A length-prefixed ping-pong: the client writes u32 length + payload, the echo thread
/// reads it and writes it back. Returns per-round-trip latencies (µs) of each caller.
func rawPingPong(callers: Int, payloadSize: Int, duration: Double) -> (latencies: [Double], calls: Int, elapsed: Double) {
    let collected = Mutex<[Double]>([])
    let start = Date()
    let group = DispatchGroup()
    for _ in 0..<callers {
        let (client, server) = socketPair()
        let echo = Thread {
            var buffer = [UInt8](repeating: 0, count: 4 + payloadSize)
            while true {
                let ok = buffer.withUnsafeMutableBytes { readAll(server, $0.baseAddress!, 4 + payloadSize) }
                if !ok { break }
                buffer.withUnsafeBytes { writeAll(server, $0.baseAddress!, 4 + payloadSize) }
            }
            close(server)
        }
        echo.start()
        group.enter()
        let caller = Thread {
            var message = [UInt8](repeating: 7, count: 4 + payloadSize)
            message.withUnsafeMutableBytes { $0.storeBytes(of: UInt32(payloadSize).bigEndian, as: UInt32.self) }
            var latencies: [Double] = []
            let end = Date().addingTimeInterval(duration)
            let clock = ContinuousClock()
            while Date() < end {
                let t0 = clock.now
                message.withUnsafeBytes { writeAll(client, $0.baseAddress!, 4 + payloadSize) }
                _ = message.withUnsafeMutableBytes { readAll(client, $0.baseAddress!, 4 + payloadSize) }
                let elapsed = clock.now - t0
                latencies.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
            }
            close(client)
            collected.withLock { $0 += latencies }
            group.leave()
        }
        caller.start()
    }
    group.wait()
    let all = collected.withLock { $0 }
    return (all.sorted(), all.count, Date().timeIntervalSince(start))
}

/// A raw frame stream: one thread writes 10-byte-header frames, the other reads and counts.
func rawFrameStream(payloadSize: Int, duration: Double) -> Double {
    let (writer, reader) = socketPair()
    let frameSize = 10 + payloadSize
    let stopped = Atomic<Bool>(false)
    let producer = Thread {
        var frame = [UInt8](repeating: 0x5A, count: frameSize * 64)
        for index in 0..<64 {
            frame.withUnsafeMutableBytes { raw in
                raw.storeBytes(of: UInt32(payloadSize).bigEndian, toByteOffset: index * frameSize, as: UInt32.self)
                raw.storeBytes(of: UInt32(1).bigEndian, toByteOffset: index * frameSize + 4, as: UInt32.self)
                raw[index * frameSize + 8] = 3
                raw[index * frameSize + 9] = 0
            }
        }
        while true {
            if stopped.load(ordering: .relaxed) { break }
            frame.withUnsafeBytes { writeAll(writer, $0.baseAddress!, $0.count) }
        }
        close(writer)
    }
    producer.start()
    var frames = 0
    var header = [UInt8](repeating: 0, count: 10)
    var payload = [UInt8](repeating: 0, count: payloadSize)
    let start = Date()
    let end = start.addingTimeInterval(duration)
    while Date() < end {
        for _ in 0..<256 {
            guard header.withUnsafeMutableBytes({ readAll(reader, $0.baseAddress!, 10) }) else { break }
            let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            _ = payload.withUnsafeMutableBytes { readAll(reader, $0.baseAddress!, length) }
            frames += 1
        }
    }
    let elapsed = Date().timeIntervalSince(start)
    stopped.store(true, ordering: .relaxed)
    // Drain so the producer sees the close.
    close(reader)
    return Double(frames) / elapsed
}

// MARK: The RPC layer

func rpcUnary(client: RPCClient, callers: Int, payloadSize: Int, duration: Double, pinned: Bool = false) async throws -> (latencies: [Double], calls: Int, elapsed: Double) {
    var request = Salus_V1_EchoRequest()
    request.payload = Data(repeating: 7, count: payloadSize)
    let frozen = request
    // Warm up.
    for _ in 0..<200 {
        let _: Salus_V1_EchoResponse = try await client.unary(SalusMethods.Diagnostics.echo, request: frozen)
    }
    let start = ContinuousClock.now
    let end = start + .milliseconds(Int(duration * 1000))
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for _ in 0..<callers {
            group.addTask(executorPreference: pinned ? client.executor : nil) {
                var latencies: [Double] = []
                while ContinuousClock.now < end {
                    let t0 = ContinuousClock.now
                    let _: Salus_V1_EchoResponse = try await client.unary(SalusMethods.Diagnostics.echo, request: frozen)
                    let elapsed = ContinuousClock.now - t0
                    latencies.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
                }
                return latencies
            }
        }
        var all: [Double] = []
        for try await part in group { all += part }
        return all
    }
    let elapsed = ContinuousClock.now - start
    return (latencies.sorted(), latencies.count, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

func rpcStream(client: RPCClient, payloadSize: Int, duration: Double, pinned: Bool = false) async throws -> Double {
    if pinned {
        return try await withTaskExecutorPreference(client.executor) {
            try await rpcStream(client: client, payloadSize: payloadSize, duration: duration)
        }
    }
    var request = Salus_V1_GenerateRequest()
    request.count = 0
    request.size = UInt32(payloadSize)
    let stream = try client.serverStreaming(SalusMethods.Diagnostics.generate, request: request)
    var count = 0
    let start = ContinuousClock.now
    let end = start + .milliseconds(Int(duration * 1000))
    for try await _ in stream {
        count += 1
        if count % 256 == 0, ContinuousClock.now >= end { break }
    }
    let elapsed = ContinuousClock.now - start
    stream.cancel()
    return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

// MARK: Run

let payloadSize = 64
var template = Array("/tmp/salus-bench-XXXXXX".utf8CString)
let directory = String(cString: mkdtemp(&template))
let socketPath = directory + "/app.sock"

/// The daemon under test: the salusd built beside this program, in a process of its own.
let binDirectory = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    .deletingLastPathComponent()
// The bundled plugins, for the store figures.
let pluginDirectory = directory + "/plugins"
try DaemonProcess.copyBundledPlugins(from: binDirectory, to: pluginDirectory)
/// Starts the salusd built beside this program over `dataDirectory`, listening at `socket`,
/// and waits until it answers; returns it and a connected client.
func launchDaemon(dataDirectory: String, socket: String) async throws -> (ChildProcess, RPCClient) {
    let daemon = try ChildProcess(
        executable: binDirectory.appendingPathComponent("salusd").path,
        arguments: [
            "--socket", socket, "--admin-socket", socket + ".admin",
            "--data-dir", dataDirectory, "--log-level", "error", "--plugins-dir", pluginDirectory,
            // The benchmark client declares its app id and measures the store, not consent.
            "--dev", "--authorization", "open",
        ],
        standardOutput: .null)
    DaemonProcess.stopOnExit(daemon.processIdentifier)
    // A large store not stamped by a clean stop takes a while: the damaged-file check reads
    // every page (over 10 minutes for the 20M store with a cold cache).
    for _ in 0..<48_000 {
        if let client = try? await RPCClient.connect(unixSocketPath: socket) { return (daemon, client) }
        try await Task.sleep(for: .milliseconds(50))
    }
    daemon.send(SIGTERM)
    fatalError("salusd did not start at \(socket)")
}

/// The migration figure: a schema-13 store migrated to the current schema, rows/s.
@MainActor func measureMigration() throws {
    let migrationSamples = quick ? 200_000 : 1_000_000
    print("Migration: a schema-13 store of \(migrationSamples) heart rates with 2.25 metadata keys each, migrated to the current schema (migrations 14, 15 and 16, written anew beside it and renamed over it), \(trials) trials")
    let migration = try MigrationBenchmark.run(samples: migrationSamples, trials: trials, directory: directory)
    results["migration_rows_per_s"] = migration.median
    results["migration_rows_per_s_min"] = migration.min
    results["migration_rows_per_s_max"] = migration.max
    table.append(("migration to the current schema, \(migrationSamples / 1000)k samples: rows/s", migration.formatted(0), "", ""))
}

if only == "migration" { try measureMigration() }

if wants("rpc") || wants("store") {
    let (daemon, client) = try await launchDaemon(dataDirectory: directory + "/data", socket: socketPath)

    if wants("rpc") {
        print("Salus RPC benchmark: salusd in its own process (\(quick ? "quick" : "full") run, \(trials) trials of \(format(seconds)) s per figure, Salus and the raw socket alternating, \(payloadSize)-byte messages)")
        for callers in [1, 16] {
            var rawP50: [Double] = [], rpcP50: [Double] = [], rawP99: [Double] = [], rpcP99: [Double] = []
            var rawRate: [Double] = [], rpcRate: [Double] = []
            for _ in 0..<trials {
                let rpc = try await rpcUnary(client: client, callers: callers, payloadSize: payloadSize, duration: seconds)
                let raw = rawPingPong(callers: callers, payloadSize: payloadSize, duration: seconds)
                rpcP50.append(percentile(rpc.latencies, 0.5))
                rpcP99.append(percentile(rpc.latencies, 0.99))
                rpcRate.append(Double(rpc.calls) / rpc.elapsed)
                rawP50.append(percentile(raw.latencies, 0.5))
                rawP99.append(percentile(raw.latencies, 0.99))
                rawRate.append(Double(raw.calls) / raw.elapsed)
            }
            let suffix = callers == 1 ? "" : "_c\(callers)"
            let p50 = Comparison(salus: rpcP50, baseline: rawP50)
            let p99 = Comparison(salus: rpcP99, baseline: rawP99)
            let rate = Comparison(salus: rpcRate, baseline: rawRate)
            p50.record(into: &results, key: "rpc_unary_p50_us\(suffix)", baselineKey: "raw_roundtrip_p50_us\(suffix)", ratioKey: "rpc_unary_p50_ratio\(suffix)")
            p99.record(into: &results, key: "rpc_unary_p99_us\(suffix)", baselineKey: "raw_roundtrip_p99_us\(suffix)", ratioKey: "rpc_unary_p99_ratio\(suffix)")
            rate.record(into: &results, key: "rpc_unary_calls_per_s\(suffix)", baselineKey: "raw_roundtrip_per_s\(suffix)", ratioKey: "rpc_unary_rate_ratio\(suffix)")
            let label = "unary, \(callers) caller\(callers == 1 ? "" : "s")"
            table.append(tableRow(label + ": p50 µs", p50))
            table.append(tableRow(label + ": p99 µs", p99))
            table.append(tableRow(label + ": calls/s", rate))
        }
        // Callers that run on the connection's event loop (RPCClient.executor): no thread hops.
        var pinnedP50: [Double] = [], pinnedRaw: [Double] = []
        for _ in 0..<trials {
            let pinned = try await rpcUnary(client: client, callers: 1, payloadSize: payloadSize, duration: seconds, pinned: true)
            pinnedP50.append(percentile(pinned.latencies, 0.5))
            pinnedRaw.append(percentile(rawPingPong(callers: 1, payloadSize: payloadSize, duration: seconds).latencies, 0.5))
        }
        let pinned = Comparison(salus: pinnedP50, baseline: pinnedRaw)
        pinned.record(into: &results, key: "rpc_unary_p50_us_pinned", baselineKey: "raw_roundtrip_p50_us_pinned_run", ratioKey: "rpc_unary_p50_ratio_pinned")
        table.append(tableRow("unary, 1 caller on the client's loop: p50 µs", pinned))

        // The reader on the global executor: the default an app gets.
        let stream = try await Comparison.interleaved(trials: trials) {
            try await rpcStream(client: client, payloadSize: payloadSize, duration: seconds)
        } baseline: {
            rawFrameStream(payloadSize: payloadSize, duration: seconds)
        }
        stream.record(into: &results, key: "rpc_stream_msgs_per_s", baselineKey: "raw_stream_frames_per_s", ratioKey: "rpc_stream_ratio")
        table.append(tableRow("server stream, reader on the global executor: msgs/s", stream))
        let pinnedStream = try await Comparison.interleaved(trials: trials) {
            try await rpcStream(client: client, payloadSize: payloadSize, duration: seconds, pinned: true)
        } baseline: {
            rawFrameStream(payloadSize: payloadSize, duration: seconds)
        }
        pinnedStream.record(into: &results, key: "rpc_stream_msgs_per_s_pinned", baselineKey: "raw_stream_frames_per_s_pinned_run", ratioKey: "rpc_stream_ratio_pinned")
        table.append(tableRow("server stream, reader on the client's loop: msgs/s", pinnedStream))
        // The same stream on a client that keeps the window Hello announced (64 credits),
        // alternating with the default client, whose window widens for small messages.
        var announced = RPCClient.Configuration()
        announced.streamWindowBytes = 0
        let fixedClient = try await RPCClient.connect(unixSocketPath: socketPath, configuration: announced)
        let widening = try await Comparison.interleaved(trials: trials) {
            try await rpcStream(client: client, payloadSize: payloadSize, duration: seconds)
        } baseline: {
            try await rpcStream(client: fixedClient, payloadSize: payloadSize, duration: seconds)
        }
        await fixedClient.close()
        widening.record(
            into: &results, key: "rpc_stream_msgs_per_s_widened_run", baselineKey: "rpc_stream_msgs_per_s_announced_window",
            ratioKey: "rpc_stream_window_gain")
        table.append(tableRow("server stream, widened window against the announced one: msgs/s", widening))

        // grpc-swift-2 in its own process (`--grpc-peer`, built by `make bench`), alternating with Salus.
        if let peer = GRPCPeer.binaryFromArguments {
            print("gRPC peer: grpc-swift-2 echo over a Unix socket, \(trials) trials alternating with Salus")
            let grpc = try await GRPCPeer.compare(
                binary: peer, trials: trials, seconds: seconds, payload: payloadSize,
                salusUnary: {
                    percentile(try await rpcUnary(client: client, callers: 1, payloadSize: payloadSize, duration: seconds).latencies, 0.5)
                },
                salusStream: { try await rpcStream(client: client, payloadSize: payloadSize, duration: seconds) },
                salusUnaryRate16: {
                    let run = try await rpcUnary(client: client, callers: 16, payloadSize: payloadSize, duration: seconds)
                    return Double(run.calls) / run.elapsed
                })
            results.merge(grpc) { _, new in new }
            GRPCPeer.summary(grpc).forEach { print($0) }
        }
    }
    await client.close()

    if wants("store") {
        let rowsPerTrial = quick ? 40_000 : 200_000
        print("Store: \(trials) trials of \(rowsPerTrial) step samples saved in batches of \(StoreBenchmark.batchSize) over the socket, each followed by reading everything back; raw SQLite alternating")
        let store = try await StoreBenchmark.run(
            socketPath: socketPath, daemonPID: daemon.processIdentifier, rowsPerTrial: rowsPerTrial, trials: trials,
            directory: directory)
        results.merge(store.results) { _, new in new }
        table += store.table
        print("Access log: the same saves and queries through two salusd, one recording its access log and one with it off (retention 0), \(trials) trials alternating")
        let accessLog = try await AccessLogBenchmark.run(
            directory: directory, rowsPerTrial: rowsPerTrial, trials: trials, launch: launchDaemon)
        results.merge(accessLog.results) { _, new in new }
        table += accessLog.table
        try measureMigration()
    }
    daemon.send(SIGTERM)
    daemon.waitUntilExit()
}

if wants("scale") {
    let total = quick ? 2_000_000 : 20_000_000
    print("Scale: \(total / 1_000_000)M samples (heart rate every \(ScaleBenchmark.interval(samples: total * 3 / 4) / 1_000_000) s and steps for ten years), cached in \(cacheDirectory)/scale-\(total); salusd serves it")
    let fixture = try await ScaleBenchmark.prepare(total: total, cache: cacheDirectory)
    // A store salusd stopped cleanly is not checked again at start (docs/reliability.md).
    let stamped = FileManager.default.fileExists(atPath: fixture + "/data/.database-check")
    if !stamped { print("  the store has no check stamp: salusd checks every page before it answers") }
    let launched = ContinuousClock.now
    let (daemon, client) = try await launchDaemon(dataDirectory: fixture + "/data", socket: directory + "/scale.sock")
    let startSeconds = StoreBenchmark.seconds(ContinuousClock.now - launched)
    await client.close()
    results["scale_daemon_start_s"] = startSeconds
    results["scale_daemon_start_checked"] = stamped ? 0 : 1
    table.append((
        "\(total / 1_000_000)M samples: salusd start until it answers (\(stamped ? "stamped, not checked" : "checked")), s",
        format(startSeconds, 1), "", ""))
    let figures = try await ScaleBenchmark.run(
        socketPath: directory + "/scale.sock", daemonPID: daemon.processIdentifier, total: total, fixture: fixture, quick: quick)
    results.merge(figures.results) { _, new in new }
    table += figures.table
    daemon.send(SIGTERM)
    daemon.waitUntilExit()
}

if wants("statistics") {
    let statisticsDays = quick ? 30 : 365
    print("Statistics: \(statisticsDays) days of per-minute steps from two overlapping sources, merged daily beside a plain GROUP BY day")
    let statistics = try await StatisticsBenchmark.run(days: statisticsDays, directory: directory)
    results.merge(statistics) { _, new in new }
    table.append(("merged daily sums, \(statisticsDays) days: ms", format(statistics["stats_year_daily_ms"]!), format(statistics["raw_groupby_ms"]!), format(statistics["stats_ratio"]!, 2) + "×"))
    table.append(("merged hourly sums, one week: ms", format(statistics["stats_week_hourly_ms"]!), "", ""))
    table.append(("live day update after a save / delete: ms", format(statistics["live_update_ms"]!, 2), format(statistics["live_delete_ms"]!, 2), ""))
}

if wants("import") {
    let records = quick ? 100_000 : 1_000_000
    print("Import: a synthetic Apple Health export of \(records) records, salusctl import into a fresh salusd beside healthkit-to-sqlite 1.0.1 on the same zip and raw SQLite inserts of the stored rows, 5 trials interleaved")
    let figures = try await ImportBenchmark.run(records: records, trials: 5, directory: directory, binDirectory: binDirectory, pluginDirectory: pluginDirectory)
    results.merge(figures) { _, new in new }
    table.append(("import: records/s", format(figures["import_records_per_s"]!, 0), format(figures["peer_import_records_per_s"]!, 0), format(figures["import_ratio"]!, 2) + "×"))
    table.append(("  beside raw inserts into a minimal table: records/s", format(figures["import_records_per_s"]!, 0), format(figures["raw_import_records_per_s"]!, 0), format(figures["import_raw_ratio"]!, 2) + "×"))
    table.append(("import peak RSS, salusctl + salusd: MiB", format(figures["import_peak_rss_mb"]!), "", ""))
    table.append(("export of the imported samples, jsonl: samples/s", format(figures["export_records_per_s"]!, 0), "", ""))
}

if wants("fit") {
    let files = quick ? 160 : 1_000
    let sharedData = ProcessInfo.processInfo.environment["SALUS_SHARED_DATA"] ?? "../shared/data"
    print("FIT import: a folder of \(files) FIT activity files, salusctl import into a fresh salusd beside fitdecode 0.11.0 reading the same files")
    let figures = try await FITImportBenchmark.run(
        files: files, trials: 3, sharedData: sharedData, directory: directory, binDirectory: binDirectory, pluginDirectory: pluginDirectory)
    results.merge(figures) { _, new in new }
    table.append(("FIT import: MiB of FIT/s", format(figures["fit_import_mb_per_s"]!, 2), format(figures["fit_peer_mb_per_s"]!, 2), format(figures["fit_import_ratio"]!, 2) + "×"))
    table.append(("FIT import peak RSS, salusctl + salusd: MiB", format(figures["fit_import_peak_rss_mb"]!), "", ""))
}

try? FileManager.default.removeItem(atPath: directory)

let widths = [54, 30, 12, 20]
func row(_ cells: [String]) -> String {
    zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: " ")
}
print(row(["figure", "Salus", "baseline", "ratio"]))
print(String(repeating: "-", count: widths.reduce(0, +) + widths.count - 1))
for entry in table { print(row([entry.0, entry.1, entry.2, entry.3])) }
var targets: [String] = []
/// A target line: the figure's median, min and max from its trials.
@MainActor func target(_ text: String, _ key: String, scale: Double = 1, digits: Int = 2, unit: String = "×") -> String? {
    guard let median = results[key] else { return nil }
    let spread = [results[key + "_min"], results[key + "_max"]].compactMap { $0 }
    let range = spread.count == 2 ? " [\(format(spread[0] * scale, digits))–\(format(spread[1] * scale, digits))]" : ""
    return "\(text): \(format(median * scale, digits))\(unit)\(range)"
}
targets += [
    target("unary p50 ≤ 2× raw", "rpc_unary_p50_ratio"),
    target("stream ≥ 40% of raw, reader on the global executor", "rpc_stream_ratio", scale: 100, digits: 0, unit: "%"),
    target("Salus unary p50 ≤ 1/5 of grpc-swift-2's", "rpc_vs_grpc_unary_ratio"),
    target("Salus stream ≥ 2× grpc-swift-2's", "rpc_vs_grpc_stream_ratio"),
    target("batch save ≥ 60% of raw SQLite", "save_ratio", scale: 100, digits: 0, unit: "%"),
    target("streamed query through SalusKit ≥ 60% of a plain SELECT", "kit_query_ratio", scale: 100, digits: 0, unit: "%"),
    target("  the same as wire messages, reader on the global executor (≥ 40%)", "query_ratio", scale: 100, digits: 0, unit: "%"),
    target("anchored catch-up through SalusKit ≥ 60% of a plain SELECT", "kit_anchored_ratio", scale: 100, digits: 0, unit: "%"),
    target("  the same as wire messages (≥ 40%)", "anchored_ratio", scale: 100, digits: 0, unit: "%"),
    target("a day's query p50 ≤ 5 ms through SalusKit on the scale store", "scale_day_query_kit_p50_ms", unit: " ms"),
    target("  the same as SwiftProtobuf messages", "scale_day_query_p50_ms", unit: " ms"),
    target("  the same rows by a plain SELECT, in-process (the floor)", "scale_day_query_select_p50_ms", unit: " ms"),
    target("a year of merged daily sums ≤ 1 s on the scale store", "scale_year_daily_sums_ms", digits: 0, unit: " ms"),
    target("bytes per sample ≤ 1.5× the minimal table", "scale_bytes_ratio"),
    target("peak daemon RSS ≤ 64 MB", "scale_daemon_peak_rss_mb", digits: 0, unit: " MiB"),
    target("migration to the current schema ≥ 200,000 rows/s", "migration_rows_per_s", scale: 0.001, digits: 0, unit: "k rows/s"),
    target("store daemon peak RSS ≤ 64 MB", "daemon_peak_rss_mb", digits: 0, unit: " MiB"),
    target("access log costs ≤ 2% on save (recording / off ≥ 98%)", "access_log_save_ratio", scale: 100, digits: 1, unit: "%"),
    target("access log costs ≤ 2% on query (recording / off ≥ 98%)", "access_log_query_ratio", scale: 100, digits: 1, unit: "%"),
].compactMap { $0 }
if let ratio = results["stats_ratio"] { targets.append("merged daily year ≤ 3× GROUP BY (\(format(ratio, 2))×)") }
if let live = results["live_update_ms"] { targets.append("live update ≤ 5 ms (\(format(live, 2)) ms)") }
targets += [
    target("import ≥ 5× healthkit-to-sqlite", "import_ratio"),
    target("import ≥ 50% of raw inserts into a minimal table", "import_raw_ratio", scale: 100, digits: 0, unit: "%"),
    target("import peak RSS ≤ 100 MB (salusctl + salusd)", "import_peak_rss_mb", digits: 0, unit: " MiB"),
].compactMap { $0 }
targets += [target("FIT import ≥ 5× fitdecode reading alone", "fit_import_ratio")].compactMap { $0 }
if let rate = results["export_records_per_s"] { targets.append("export ≥ 200k samples/s (\(format(rate / 1000, 0))k)") }
print("targets (median [min–max] of the trials):")
for line in targets { print("  " + line) }

// Merge with figures other benchmarks wrote in this run's file.
var merged: [String: Double] = [:]
if let data = FileManager.default.contents(atPath: resultsPath),
   let existing = try? JSONSerialization.jsonObject(with: data) as? [String: Double] {
    merged = existing
}
merged.merge(results) { _, new in new }
try FileManager.default.createDirectory(atPath: (resultsPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
let json = try JSONSerialization.data(withJSONObject: merged, options: [.prettyPrinted, .sortedKeys])
try json.write(to: URL(fileURLWithPath: resultsPath))
print("figures written to \(resultsPath)")
