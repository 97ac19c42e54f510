// The grpc-swift-2 peer (Benchmarks/grpc-peer, its own package, built by `make bench`): the same
// unary echo and server stream run on grpc-swift-2 over a Unix socket, in trials interleaved with
// Salus's so that both see the same machine load, and Salus's ratios against it.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SalusSpawn

/// Median, minimum and maximum of repeated trials of one figure.
struct Trials {
    private(set) var values: [Double]

    init(_ values: [Double] = []) { self.values = values }

    mutating func append(_ value: Double) { values.append(value) }

    /// The middle value; with an even count, the mean of the two middle values. NaN when empty.
    var median: Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    var min: Double { values.min() ?? .nan }
    var max: Double { values.max() ?? .nan }

    /// `key`, `key_min` and `key_max`, for results.json.
    func figures(_ key: String) -> [String: Double] {
        [key: median, key + "_min": min, key + "_max": max]
    }
}

enum GRPCPeer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The peer binary named by `--grpc-peer PATH` on salus-bench's command line (the Makefile
    /// passes it), or nil when the run has none.
    static var binaryFromArguments: String? {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: "--grpc-peer"), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// Runs the peer once (`binary arguments…`) and returns the figures of the one JSON object
    /// it prints on its last line of standard output. Its standard error passes through.
    static func run(binary: String, arguments: [String]) throws -> [String: Double] {
        let peer: ChildProcess
        do {
            peer = try ChildProcess(executable: binary, arguments: arguments, standardInput: .inherit, standardOutput: .pipe)
        } catch {
            throw Failure(description: "grpc-peer: \(error)")
        }
        let text = String(decoding: ChildProcess.readToEnd(peer.outputDescriptor), as: UTF8.self)
        let command = ([binary] + arguments).joined(separator: " ")
        let ended = peer.waitUntilExit()
        guard ended == .exited(0) else {
            throw Failure(description: "grpc-peer: `\(command)` ended with \(ended), expected status 0 (its standard error is above)")
        }
        let line = text.split(whereSeparator: \.isNewline).last.map(String.init) ?? ""
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw Failure(description: "grpc-peer: `\(command)` printed \(line.debugDescription), expected one JSON object")
        }
        var figures: [String: Double] = [:]
        for (key, value) in object {
            guard let number = value as? NSNumber else {
                throw Failure(description: "grpc-peer: `\(command)`: \(key) is \(value), expected a number")
            }
            figures[key] = number.doubleValue
        }
        return figures
    }

    static func figure(_ figures: [String: Double], _ key: String, from command: String) throws -> Double {
        guard let value = figures[key], value.isFinite, value > 0 else {
            throw Failure(description: "grpc-peer \(command): \(key) is \(figures[key].map { "\($0)" } ?? "missing"), expected a number > 0")
        }
        return value
    }

    /// Interleaved trials, each Salus measurement right before the same measurement on the peer
    /// (S, G, S, G, …), `trials` of each (at least 5). Salus's closures return its unary p50 in µs
    /// (one caller), its server-stream messages/s and, if given, its unary calls/s with 16 callers.
    /// Each ratio is taken within a trial pair; the results hold the medians of the peer's figures
    /// (`grpc_unary_p50_us`, `grpc_unary_calls_per_s_c16`, `grpc_stream_msgs_per_s`) and of the
    /// ratios (`rpc_vs_grpc_unary_ratio` = Salus p50 / grpc p50, `rpc_vs_grpc_stream_ratio` = Salus
    /// rate / grpc rate, `rpc_vs_grpc_unary_rate_ratio_c16`), every one with `_min` and `_max`.
    static func compare(
        binary: String,
        trials: Int = 5,
        seconds: Double,
        payload: Int = 64,
        salusUnary: () async throws -> Double,
        salusStream: () async throws -> Double,
        salusUnaryRate16: (() async throws -> Double)? = nil
    ) async throws -> [String: Double] {
        guard trials >= 5 else { throw Failure(description: "grpc-peer: trials \(trials), expected at least 5") }
        let time = ["--seconds", "\(seconds)", "--payload", "\(payload)"]
        var grpcP50 = Trials(), grpcRate16 = Trials(), grpcStream = Trials()
        var unaryRatio = Trials(), rate16Ratio = Trials(), streamRatio = Trials()
        for _ in 0..<trials {
            let salusP50 = try await salusUnary()
            let unary = try run(binary: binary, arguments: ["unary", "--callers", "1"] + time)
            let p50 = try figure(unary, "p50_us", from: "unary --callers 1")
            grpcP50.append(p50)
            unaryRatio.append(salusP50 / p50)

            let salusRate16 = try await salusUnaryRate16?()
            let unary16 = try run(binary: binary, arguments: ["unary", "--callers", "16"] + time)
            let rate16 = try figure(unary16, "calls_per_s", from: "unary --callers 16")
            grpcRate16.append(rate16)
            if let salusRate16 { rate16Ratio.append(salusRate16 / rate16) }

            let salusRate = try await salusStream()
            let stream = try run(binary: binary, arguments: ["stream"] + time)
            let rate = try figure(stream, "msgs_per_s", from: "stream")
            grpcStream.append(rate)
            streamRatio.append(salusRate / rate)
        }
        var results: [String: Double] = [:]
        results.merge(grpcP50.figures("grpc_unary_p50_us")) { _, new in new }
        results.merge(grpcRate16.figures("grpc_unary_calls_per_s_c16")) { _, new in new }
        results.merge(grpcStream.figures("grpc_stream_msgs_per_s")) { _, new in new }
        results.merge(unaryRatio.figures("rpc_vs_grpc_unary_ratio")) { _, new in new }
        results.merge(streamRatio.figures("rpc_vs_grpc_stream_ratio")) { _, new in new }
        if !rate16Ratio.values.isEmpty {
            results.merge(rate16Ratio.figures("rpc_vs_grpc_unary_rate_ratio_c16")) { _, new in new }
        }
        results["grpc_trials"] = Double(trials)
        return results
    }

    /// Report lines for `compare`'s results: each figure's median with its min and max beside it,
    /// and the issue's targets (Salus unary p50 ≤ 1/5 of grpc-swift-2's, stream rate ≥ 2×).
    static func summary(_ results: [String: Double]) -> [String] {
        func spread(_ key: String, _ digits: Int, _ unit: String = "") -> String {
            let f = { (value: Double?) in value.map { String(format: "%.\(digits)f", $0) + unit } ?? "–" }
            return "\(f(results[key])) (min \(f(results[key + "_min"])), max \(f(results[key + "_max"])))"
        }
        let trials = Int(results["grpc_trials"] ?? 0)
        var lines = [
            "grpc-swift-2 peer, medians of \(trials) trials interleaved with Salus's:",
            "  grpc unary p50, 1 caller: \(spread("grpc_unary_p50_us", 1, " µs"))",
            "  grpc unary calls/s, 16 callers: \(spread("grpc_unary_calls_per_s_c16", 0))",
            "  grpc server stream messages/s: \(spread("grpc_stream_msgs_per_s", 0))",
            "  Salus / grpc unary p50: \(spread("rpc_vs_grpc_unary_ratio", 3, "×"))",
            "  Salus / grpc stream rate: \(spread("rpc_vs_grpc_stream_ratio", 2, "×"))",
        ]
        if results["rpc_vs_grpc_unary_rate_ratio_c16"] != nil {
            lines.append("  Salus / grpc unary calls/s, 16 callers: \(spread("rpc_vs_grpc_unary_rate_ratio_c16", 2, "×"))")
        }
        if let unary = results["rpc_vs_grpc_unary_ratio"], let stream = results["rpc_vs_grpc_stream_ratio"] {
            lines.append(
                "  targets: unary p50 ≤ 1/5 of grpc (\(String(format: "%.3f", unary))× \(unary <= 0.2 ? "met" : "not met")), "
                    + "stream ≥ 2× grpc (\(String(format: "%.2f", stream))× \(stream >= 2 ? "met" : "not met"))"
            )
        }
        return lines
    }
}
