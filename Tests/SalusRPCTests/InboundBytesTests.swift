#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import NIOCore
import SalusProto
import SalusRPC
import SalusServer
import Synchronization
import Testing

/// A door a handler waits at until the test opens it.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A number tests and handlers share.
final class SharedCount: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func add(_ amount: Int = 1) { count.withLock { $0 += amount } }
}

/// What the server buffers of a client's stream is bounded in bytes, not only in messages
/// (docs/protocol.md section 7; section 18: an upload never sits whole in the daemon's memory).
/// A window of 64 messages let 64 chunks of 1 MiB queue for a handler that had not read them.
@Suite("Unread client messages are bounded in bytes")
struct InboundBytesTests {
    static let slowGather = ClientStreamingMethod<Salus_V1_EchoRequest, Salus_V1_EchoResponse>(service: "test.Probe", method: "SlowGather")
    static let app = ListenerInfo(label: "app", accounting: .app("org.example.upload"))
    static let chunk = Data(repeating: 7, count: 1 << 20)

    /// A server whose `SlowGather` waits at `gate` before it reads anything, then counts the
    /// messages and their payload bytes; with Diagnostics for the neighbour calls.
    static func server(gate: Gate, started: SharedCount) -> (RPCServer, RPCRouter) {
        var logger = Logger(label: "inbound-bytes")
        logger.logLevel = .critical
        let server = RPCServer(logger: logger)
        var router = RPCRouter()
        DiagnosticsService.register(into: &router)
        router.registerClientStreaming(slowGather) { messages, _ in
            started.add()
            // A stalled disk: nothing is read until the test says so.
            await gate.wait()
            var received: UInt64 = 0
            var bytes = 0
            for try await message in messages {
                received += 1
                bytes += message.payload.count
            }
            var response = Salus_V1_EchoResponse()
            response.sequence = received
            response.text = "\(bytes)"
            return response
        }
        return (server, router)
    }

    static func message(_ index: Int) -> Salus_V1_EchoRequest {
        var message = Salus_V1_EchoRequest()
        message.text = "\(index)"
        message.payload = chunk
        return message
    }

    @Test("48 chunks of 1 MiB to a handler that stalls: the client waits for credit, the server holds under 8 MiB unread, a neighbour call on the connection is answered meanwhile, and every chunk arrives")
    func stalledUpload() async throws {
        let gate = Gate()
        let started = SharedCount()
        let (server, router) = Self.server(gate: gate, started: started)
        let client = try await server.connectInProcess(router: router, listener: Self.app)
        let window = Int(try #require(client.serverHello).limits.receiveWindow)
        let written = SharedCount()
        let upload = Task {
            try await client.clientStreaming(Self.slowGather) { writer in
                for index in 0..<48 {
                    try await writer.write(Self.message(index))
                    written.add()
                }
            }
        }
        // The client writes what its credits allow, then waits; give the server time to take in
        // anything more it would buffer.
        #expect(await eventually { written.value >= min(window, 48) })
        try await Task.sleep(for: .milliseconds(300))
        #expect(started.value == 1)
        #expect(written.value <= window, "the client wrote past its window")
        let held = server.largestUnreadStreamBytes
        #expect(held < 8 << 20, "the server held \(held) bytes unread for the stalled handler")

        // Section 7: the stalled upload does not stall its neighbours on the connection.
        let echo = try await client.unary(SalusMethods.Diagnostics.echo, request: echoRequest("beside the upload"))
        #expect(echo.text == "beside the upload")
        var generate = Salus_V1_GenerateRequest()
        generate.count = 300
        var streamed = 0
        for try await _ in try client.serverStreaming(SalusMethods.Diagnostics.generate, request: generate) { streamed += 1 }
        #expect(streamed == 300)

        gate.open()
        let response = try await upload.value
        #expect(response.sequence == 48)
        #expect(response.text == "\(48 << 20)")
        let most = server.largestUnreadStreamBytes
        #expect(most < 8 << 20, "the server held \(most) bytes unread at once")
        #expect(server.bufferedBytes(ofApp: "org.example.upload") == 0)
        await client.close()
        await server.shutdown(gracePeriod: .seconds(2))
    }

    @Test("without Hello (no windows) the same upload fails with RESOURCE_EXHAUSTED once 16 MiB are unread, instead of queuing 48 MiB")
    func stalledUploadWithoutHello() async throws {
        let gate = Gate()
        let started = SharedCount()
        let (server, router) = Self.server(gate: gate, started: started)
        var configuration = RPCClient.Configuration()
        configuration.hello = false
        let client = try await server.connectInProcess(router: router, listener: Self.app, configuration: configuration)
        let outcome = Task { () -> RPCError? in
            do {
                _ = try await client.clientStreaming(Self.slowGather) { writer in
                    for index in 0..<48 { try await writer.write(Self.message(index)) }
                }
                return nil
            } catch let error as RPCError {
                return error
            } catch {
                return RPCError(code: .unknown, message: "\(error)")
            }
        }
        // The handler is let go once more than 16 MiB have waited for it. With the whole suite
        // on two cores the client was once slower than that for 30 s (the upload then ended
        // well, never past the bound); the bound below is the property, the refusal its means,
        // asserted whenever the client got past the limit.
        let passedTheLimit = await eventually { server.largestUnreadStreamBytes > 16 << 20 }
        gate.open()
        let error = await outcome.value
        if passedTheLimit {
            #expect(error?.code == .resourceExhausted, "\(String(describing: error))")
        }
        let most = server.largestUnreadStreamBytes
        #expect(most <= (16 << 20) + Self.chunk.count + 64, "the server held \(most) bytes unread at once")
        #expect(await eventually { server.bufferedBytes(ofApp: "org.example.upload") == 0 })
        await client.close()
        await server.shutdown(gracePeriod: .seconds(2))
    }

    @Test("a client that ignores its window and floods 1 MiB messages gets RESOURCE_EXHAUSTED on that stream; the server holds no more than the window")
    func floodPastTheWindow() async throws {
        let gate = Gate()
        let started = SharedCount()
        let (server, router) = Self.server(gate: gate, started: started)
        let directory = try makeTemporaryDirectory()
        let path = directory + "/flood.sock"
        try await server.listen(unixSocketPath: path, router: router, listener: Self.app)
        let raw = try RawConnection(path: path, receiveTimeout: 3)
        var hello = Salus_V1_HelloRequest()
        hello.protocolVersion = 1
        hello.features = ["window_update"]
        await raw.write(try requestFrame(streamID: 1, method: SalusMethods.Session.hello.descriptor, payload: try hello.serializedBytes()))
        let answer = try #require(await raw.readFrame())
        let helloResponse = try Salus_V1_Response(serializedBytes: Array(answer.payload.readableBytesView))
        let window = Int(try Salus_V1_HelloResponse(serializedBytes: helloResponse.payload).limits.receiveWindow)

        await raw.write(try requestFrame(streamID: 3, method: Self.slowGather.descriptor, payload: [], flags: [.remoteOpen]))
        let payload = ByteBuffer(bytes: try Self.message(0).serializedBytes() as [UInt8])
        for _ in 0..<min(window + 4, 24) { await raw.write(Frame(streamID: 3, type: .data, payload: payload)) }
        var status: RPCError?
        while let frame = await raw.readFrame() {
            if frame.streamID == 3, frame.type == .response {
                status = InboundBytesTests.status(of: frame)
                break
            }
        }
        #expect(status?.code == .resourceExhausted, "\(String(describing: status))")
        #expect(status?.detail?.field == "stream_id")
        let most = server.largestUnreadStreamBytes
        #expect(most < 8 << 20, "the server held \(most) bytes unread at once")
        gate.open()
        await server.shutdown(gracePeriod: .seconds(2))
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func status(of frame: Frame) -> RPCError? {
        guard let response = try? Salus_V1_Response(serializedBytes: Array(frame.payload.readableBytesView)) else { return nil }
        return RPCError(status: response.status)
    }
}
