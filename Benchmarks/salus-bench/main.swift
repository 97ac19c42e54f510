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
import Synchronization

let quick = CommandLine.arguments.contains("--quick")
let resultsPath = CommandLine.arguments.firstIndex(of: "--output").map { CommandLine.arguments[$0 + 1] } ?? ".bench/results.json"
let seconds: Double = quick ? 1 : 4
/// `--only rpc|store|statistics|import` runs one part (for working on it); the default runs all.
let only = CommandLine.arguments.firstIndex(of: "--only").map { CommandLine.arguments[$0 + 1] }
if let only, !["rpc", "store", "statistics", "import"].contains(only) {
    FileHandle.standardError.write(Data("salus-bench: --only \(only): expected rpc, store, statistics or import\n".utf8))
    exit(2)
}
func wants(_ part: String) -> Bool { only == nil || only == part }

var results: [String: Double] = [:]
var table: [(String, String, String, String)] = []

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

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
    let stream = try client.serverStreaming(SalusMethods.Diagnostics.generate, request: request, responseType: Salus_V1_EchoResponse.self)
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

/// The daemon's pid, for the signal handlers below.
nonisolated(unsafe) var daemonPID: pid_t = 0

/// If the bench is interrupted or crashes (a failed precondition traps), its salusd is stopped
/// too instead of living on.
func stopDaemonOnExit(_ pid: pid_t) {
    daemonPID = pid
    for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGSEGV] {
        signal(signalNumber) { received in
            if daemonPID > 0 { kill(daemonPID, SIGTERM) }
            signal(received, SIG_DFL)
            raise(received)
        }
    }
}

let payloadSize = 64
var template = Array("/tmp/salus-bench-XXXXXX".utf8CString)
let directory = String(cString: mkdtemp(&template))
let socketPath = directory + "/app.sock"

/// The daemon under test: the salusd built beside this program, in a process of its own.
let binDirectory = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    .deletingLastPathComponent()
// The bundled plugins, for the store figures.
let pluginDirectory = directory + "/plugins"
try FileManager.default.createDirectory(atPath: pluginDirectory, withIntermediateDirectories: true)
for name in [
    "SalusCore", "SalusSleep", "SalusReproductive", "SalusMobility", "SalusVision", "SalusWheelchair",
    "SalusVitals", "SalusNutrition", "SalusHearing", "SalusSymptoms", "SalusLab", "SalusMindfulness", "SalusClinical",
] {
    try FileManager.default.copyItem(
        atPath: binDirectory.appendingPathComponent("lib\(name).so").path, toPath: pluginDirectory + "/lib\(name).so"
    )
}
let daemon = Process()
if wants("rpc") || wants("store") {
    daemon.executableURL = binDirectory.appendingPathComponent("salusd")
    daemon.arguments = [
        "--socket", socketPath, "--admin-socket", directory + "/admin.sock",
        "--data-dir", directory + "/data", "--log-level", "error", "--plugins-dir", pluginDirectory,
        // The benchmark client declares its app id and measures the store, not consent.
        "--dev", "--authorization", "open",
    ]
    daemon.standardOutput = FileHandle.nullDevice
    try daemon.run()
    stopDaemonOnExit(daemon.processIdentifier)
    var client: RPCClient?
    for _ in 0..<200 where client == nil {
        client = try? await RPCClient.connect(unixSocketPath: socketPath)
        if client == nil { try await Task.sleep(for: .milliseconds(50)) }
    }
    guard let client else {
        daemon.terminate()
        fatalError("salusd did not start at \(socketPath)")
    }

    if wants("rpc") {
        print("Salus RPC benchmark: salusd in its own process (\(quick ? "quick" : "full") run, \(Int(seconds)) s per figure, \(payloadSize)-byte messages)")
        for callers in [1, 16] {
            let raw = rawPingPong(callers: callers, payloadSize: payloadSize, duration: seconds)
            let rpc = try await rpcUnary(client: client, callers: callers, payloadSize: payloadSize, duration: seconds)
            let suffix = callers == 1 ? "" : "_c\(callers)"
            let rawP50 = percentile(raw.latencies, 0.5), rawP99 = percentile(raw.latencies, 0.99)
            let rpcP50 = percentile(rpc.latencies, 0.5), rpcP99 = percentile(rpc.latencies, 0.99)
            let rawRate = Double(raw.calls) / raw.elapsed, rpcRate = Double(rpc.calls) / rpc.elapsed
            results["rpc_unary_p50_us\(suffix)"] = rpcP50
            results["rpc_unary_p99_us\(suffix)"] = rpcP99
            results["rpc_unary_calls_per_s\(suffix)"] = rpcRate
            results["raw_roundtrip_p50_us\(suffix)"] = rawP50
            results["raw_roundtrip_p99_us\(suffix)"] = rawP99
            results["raw_roundtrip_per_s\(suffix)"] = rawRate
            results["rpc_unary_p50_ratio\(suffix)"] = rpcP50 / rawP50
            results["rpc_unary_rate_ratio\(suffix)"] = rpcRate / rawRate
            table.append(("unary, \(callers) caller\(callers == 1 ? "" : "s"): p50 µs", format(rpcP50), format(rawP50), format(rpcP50 / rawP50, 2) + "×"))
            table.append(("unary, \(callers) caller\(callers == 1 ? "" : "s"): p99 µs", format(rpcP99), format(rawP99), format(rpcP99 / rawP99, 2) + "×"))
            table.append(("unary, \(callers) caller\(callers == 1 ? "" : "s"): calls/s", format(rpcRate, 0), format(rawRate, 0), format(rpcRate / rawRate, 2) + "×"))
        }
        // Callers that run on the connection's event loop (RPCClient.executor): no thread hops.
        let pinned = try await rpcUnary(client: client, callers: 1, payloadSize: payloadSize, duration: seconds, pinned: true)
        let pinnedP50 = percentile(pinned.latencies, 0.5)
        results["rpc_unary_p50_us_pinned"] = pinnedP50
        results["rpc_unary_p50_ratio_pinned"] = pinnedP50 / results["raw_roundtrip_p50_us"]!
        table.append(("unary, 1 caller on the client's loop: p50 µs", format(pinnedP50), format(results["raw_roundtrip_p50_us"]!), format(pinnedP50 / results["raw_roundtrip_p50_us"]!, 2) + "×"))

        let rawStream = rawFrameStream(payloadSize: payloadSize, duration: seconds)
        let rpcStreamRate = try await rpcStream(client: client, payloadSize: payloadSize, duration: seconds)
        results["rpc_stream_msgs_per_s"] = rpcStreamRate
        results["raw_stream_frames_per_s"] = rawStream
        results["rpc_stream_ratio"] = rpcStreamRate / rawStream
        table.append(("server stream: messages/s", format(rpcStreamRate, 0), format(rawStream, 0), format(rpcStreamRate / rawStream, 2) + "×"))
        let pinnedStream = try await rpcStream(client: client, payloadSize: payloadSize, duration: seconds, pinned: true)
        results["rpc_stream_msgs_per_s_pinned"] = pinnedStream
        results["rpc_stream_ratio_pinned"] = pinnedStream / rawStream
        table.append(("server stream, reader on the client's loop", format(pinnedStream, 0), format(rawStream, 0), format(pinnedStream / rawStream, 2) + "×"))
    }
    await client.close()

    if wants("store") {
        let storeRows = quick ? 100_000 : 1_000_000
        print("Store: \(storeRows) step samples saved in batches of \(StoreBenchmark.batchSize) over the socket, then read back")
        let store = try await StoreBenchmark.run(socketPath: socketPath, daemonPID: daemon.processIdentifier, rows: storeRows, directory: directory)
        results.merge(store) { _, new in new }
        table.append(("store save: rows/s", format(store["save_rows_per_s"]!, 0), format(store["raw_insert_rows_per_s"]!, 0), format(store["save_ratio"]!, 2) + "×"))
        table.append(("store sample query, streamed: rows/s", format(store["query_rows_per_s"]!, 0), format(store["raw_select_rows_per_s"]!, 0), format(store["query_ratio"]!, 2) + "×"))
        table.append(("store anchored catch-up: rows/s", format(store["anchored_rows_per_s"]!, 0), format(store["raw_select_rows_per_s"]!, 0), format(store["anchored_ratio"]!, 2) + "×"))
        table.append(("daemon RSS after save / after queries / peak MiB", format(store["daemon_rss_after_save_mb"]!) + " / " + format(store["daemon_rss_after_queries_mb"]!), format(store["daemon_peak_rss_mb"]!), ""))
    }
    daemon.terminate()
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
    print("Import: a synthetic Apple Health export of \(records) records, salusctl import into a fresh salusd beside healthkit-to-sqlite 1.0.1 on the same zip")
    let figures = try await ImportBenchmark.run(records: records, directory: directory, binDirectory: binDirectory, pluginDirectory: pluginDirectory)
    results.merge(figures) { _, new in new }
    table.append(("import: records/s", format(figures["import_records_per_s"]!, 0), format(figures["peer_import_records_per_s"]!, 0), format(figures["import_ratio"]!, 2) + "×"))
    table.append(("import peak RSS, salusctl + salusd: MiB", format(figures["import_peak_rss_mb"]!), "", ""))
    table.append(("export of the imported samples, jsonl: samples/s", format(figures["export_records_per_s"]!, 0), "", ""))
}

try? FileManager.default.removeItem(atPath: directory)

let widths = [44, 14, 14, 8]
func row(_ cells: [String]) -> String {
    zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: " ")
}
print(row(["figure", "Salus", "baseline", "ratio"]))
print(String(repeating: "-", count: widths.reduce(0, +) + widths.count - 1))
for entry in table { print(row([entry.0, entry.1, entry.2, entry.3])) }
var targets: [String] = []
if let ratio = results["rpc_unary_p50_ratio"] { targets.append("unary p50 ≤ 2× raw (\(format(ratio, 2))×)") }
if let ratio = results["rpc_stream_ratio"] { targets.append("stream ≥ 40% of raw (\(format(100 * ratio, 0))%)") }
if let ratio = results["save_ratio"] { targets.append("save ≥ 50% of raw SQLite (\(format(100 * ratio, 0))%)") }
if let ratio = results["query_ratio"] { targets.append("streamed query ≥ 40% of a plain SELECT (\(format(100 * ratio, 0))%)") }
if let ratio = results["stats_ratio"] { targets.append("merged daily year ≤ 3× GROUP BY (\(format(ratio, 2))×)") }
if let live = results["live_update_ms"] { targets.append("live update ≤ 5 ms (\(format(live, 2)) ms)") }
if let ratio = results["import_ratio"] { targets.append("import ≥ 10× healthkit-to-sqlite (\(format(ratio, 1))×)") }
if let peak = results["import_peak_rss_mb"] { targets.append("import peak RSS ≤ 100 MB (\(format(peak, 0)) MiB)") }
if let rate = results["export_records_per_s"] { targets.append("export ≥ 200k samples/s (\(format(rate / 1000, 0))k)") }
print("targets: " + targets.joined(separator: ", "))

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
