// grpc-peer: a grpc-swift-2 echo server and client in one process over a Unix socket, the peer
// `make bench` measures Salus's RPC layer against. Each mode prints one line of JSON:
//   grpc-peer unary --callers N --seconds S --payload BYTES  → {"p50_us":…,"p99_us":…,"calls_per_s":…}
//   grpc-peer stream --seconds S --payload BYTES             → {"msgs_per_s":…}
// The shapes match salus-bench: unary echo of a payload (latency per call, callers sharing one
// connection) and a server stream of payload-sized messages read until the time is up.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import SwiftProtobuf

struct UsageError: Error, CustomStringConvertible {
    let description: String
}

struct Options {
    enum Mode: String { case unary, stream }
    var mode: Mode
    var callers = 1
    var seconds = 4.0
    var payload = 64

    static let usage = """
        usage: grpc-peer unary [--callers N] [--seconds S] [--payload BYTES]
               grpc-peer stream [--seconds S] [--payload BYTES]
        """

    init(_ arguments: [String]) throws {
        guard let first = arguments.first else { throw UsageError(description: "missing mode: expected unary or stream\n" + Self.usage) }
        guard let mode = Mode(rawValue: first) else {
            throw UsageError(description: "mode \(first): expected unary or stream\n" + Self.usage)
        }
        self.mode = mode
        var rest = arguments.dropFirst()
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else { throw UsageError(description: "\(name): missing value") }
            switch name {
            case "--callers" where mode == .unary:
                guard let n = Int(value), n >= 1 else { throw UsageError(description: "--callers \(value): expected a whole number ≥ 1") }
                callers = n
            case "--seconds":
                guard let s = Double(value), s > 0, s.isFinite else { throw UsageError(description: "--seconds \(value): expected a number > 0") }
                seconds = s
            case "--payload":
                guard let n = Int(value), n >= 0 else { throw UsageError(description: "--payload \(value): expected a byte count ≥ 0") }
                payload = n
            default:
                throw UsageError(description: "\(name): unknown option for \(mode.rawValue)\n" + Self.usage)
            }
        }
    }
}

/// The service: Get echoes the payload; Expand streams `count` copies of it (0: until cancelled).
struct EchoService: Grpcpeer_Echo.SimpleServiceProtocol {
    func get(request: Grpcpeer_EchoRequest, context: ServerContext) async throws -> Grpcpeer_EchoResponse {
        var response = Grpcpeer_EchoResponse()
        response.payload = request.payload
        return response
    }

    func expand(request: Grpcpeer_EchoRequest, response: RPCWriter<Grpcpeer_EchoResponse>, context: ServerContext) async throws {
        var message = Grpcpeer_EchoResponse()
        message.payload = request.payload
        var sent: UInt32 = 0
        while request.count == 0 || sent < request.count {
            try await response.write(message)
            sent &+= 1
        }
    }
}

/// Writes `grpc-peer: message` to standard error and exits with `status`.
func fail(_ message: String, status: Int32) -> Never {
    let line = Array("grpc-peer: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(status)
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// The same percentile salus-bench reports: the element at ⌊(n − 1)·p⌋ of the sorted list.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

func json(_ fields: [(String, Double)]) -> String {
    "{" + fields.map { "\"\($0.0)\":\($0.1.isFinite ? "\($0.1)" : "null")" }.joined(separator: ",") + "}"
}

func unary(_ echo: Grpcpeer_Echo.Client<HTTP2ClientTransport.Posix>, options: Options) async throws -> String {
    var request = Grpcpeer_EchoRequest()
    request.payload = Data(repeating: 7, count: options.payload)
    let frozen = request
    // Warm-up: connection set up, code paths and allocations settled.
    for _ in 0..<200 { _ = try await echo.get(frozen) }
    let start = ContinuousClock.now
    let end = start + .milliseconds(Int(options.seconds * 1000))
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for _ in 0..<options.callers {
            group.addTask {
                var latencies: [Double] = []
                while ContinuousClock.now < end {
                    let t0 = ContinuousClock.now
                    _ = try await echo.get(frozen)
                    latencies.append(seconds(ContinuousClock.now - t0) * 1e6)
                }
                return latencies
            }
        }
        var all: [Double] = []
        for try await part in group { all += part }
        return all.sorted()
    }
    let elapsed = seconds(ContinuousClock.now - start)
    return json([
        ("p50_us", percentile(latencies, 0.5)),
        ("p99_us", percentile(latencies, 0.99)),
        ("calls_per_s", Double(latencies.count) / elapsed),
    ])
}

func stream(_ echo: Grpcpeer_Echo.Client<HTTP2ClientTransport.Posix>, options: Options) async throws -> String {
    var request = Grpcpeer_EchoRequest()
    request.payload = Data(repeating: 7, count: options.payload)
    // Warm-up: a bounded stream read to its end.
    var warmUp = request
    warmUp.count = 20_000
    _ = try await echo.expand(warmUp) { response in
        var count = 0
        for try await _ in response.messages { count += 1 }
        return count
    }
    // Timed: an endless stream read until the time is up, then cancelled.
    request.count = 0
    let duration = options.seconds
    let (count, elapsed) = try await echo.expand(request) { response in
        var count = 0
        let start = ContinuousClock.now
        let end = start + .milliseconds(Int(duration * 1000))
        for try await _ in response.messages {
            count += 1
            if count % 256 == 0, ContinuousClock.now >= end { break }
        }
        return (count, seconds(ContinuousClock.now - start))
    }
    return json([("msgs_per_s", Double(count) / elapsed)])
}

func main() async throws {
    let options: Options
    do {
        options = try Options(Array(CommandLine.arguments.dropFirst()))
    } catch {
        fail("\(error)", status: 2)
    }
    var template = Array("/tmp/grpc-peer-XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else {
        fail("mkdtemp /tmp/grpc-peer-XXXXXX failed (errno \(errno))", status: 1)
    }
    let directory = String(cString: template)
    let socketPath = directory + "/echo.sock"
    defer {
        unlink(socketPath)
        rmdir(directory)
    }

    let line = try await withGRPCServer(
        transport: .http2NIOPosix(address: .unixDomainSocket(path: socketPath), transportSecurity: .plaintext),
        services: [EchoService()]
    ) { server in
        guard try await server.listeningAddress != nil else {
            throw UsageError(description: "the server did not listen on \(socketPath)")
        }
        return try await withGRPCClient(
            transport: .http2NIOPosix(target: .unixDomainSocket(path: socketPath), transportSecurity: .plaintext)
        ) { client in
            let echo = Grpcpeer_Echo.Client(wrapping: client)
            switch options.mode {
            case .unary: return try await unary(echo, options: options)
            case .stream: return try await stream(echo, options: options)
            }
        }
    }
    print(line)
}

do {
    try await main()
} catch {
    fail("\(error)", status: 1)
}
