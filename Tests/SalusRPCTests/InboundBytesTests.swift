import Foundation
import Logging
import SalusProto
import SalusRPC
import Synchronization
import Testing

/// What the server buffers of a client's stream is bounded in bytes, not only in messages
/// (docs/protocol.md section 7; section 18: an upload of 48 MiB never sits in the daemon's
/// memory). A window of 64 messages of 1 MiB would let 64 MiB queue for a slow handler.
@Suite("Unread client messages are bounded in bytes")
struct InboundBytesTests {
    static let slowGather = MethodDescriptor(service: "test.Probe", method: "SlowGather")
    static let app = ListenerInfo(label: "app", accounting: .app("org.example.upload"))

    @Test("48 chunks of 1 MiB to a handler that stalls: the bytes buffered for it stay under 12 MiB, and every chunk arrives",
          arguments: [true, false])
    func slowConsumer(hello: Bool) async throws {
        var logger = Logger(label: "inbound-bytes")
        logger.logLevel = .critical
        let server = RPCServer(logger: logger)
        // The most the app had buffered, looked at before each message is read.
        let peak = Mutex(0)
        var router = RPCRouter()
        router.registerClientStreaming(Self.slowGather) {
            (messages: RPCRequestStream<Salus_V1_EchoRequest>, _) -> Salus_V1_EchoResponse in
            var received = 0
            var bytes = 0
            var iterator = messages.makeAsyncIterator()
            func look() {
                let held = server.bufferedBytes(ofApp: "org.example.upload")
                peak.withLock { $0 = max($0, held) }
            }
            // A stalled disk: nothing is read for a while (0.3 s, or until 16 MiB are queued).
            let stall = ContinuousClock.now + .milliseconds(300)
            while ContinuousClock.now < stall && server.bufferedBytes(ofApp: "org.example.upload") < 16 << 20 {
                look()
                try await Task.sleep(for: .milliseconds(2))
            }
            while true {
                look()
                guard let message = try await iterator.next() else { break }
                received += 1
                bytes += message.payload.count
            }
            var response = Salus_V1_EchoResponse()
            response.sequence = UInt64(received)
            response.text = "\(bytes)"
            return response
        }
        var configuration = RPCClient.Configuration()
        configuration.hello = hello
        let client = try await server.connectInProcess(router: router, listener: Self.app, configuration: configuration)
        let chunk = Data(repeating: 7, count: 1 << 20)
        let response: Salus_V1_EchoResponse = try await client.clientStreaming(Self.slowGather) {
            (writer: RPCClientWriter<Salus_V1_EchoRequest>) in
            for index in 0..<48 {
                var message = Salus_V1_EchoRequest()
                message.text = "\(index)"
                message.payload = chunk
                try await writer.write(message)
            }
        }
        #expect(response.sequence == 48)
        #expect(response.text == "\(48 << 20)")
        let most = peak.withLock { $0 }
        #expect(most < 12 << 20, "\(most) bytes buffered for the handler at once")
        #expect(server.bufferedBytes(ofApp: "org.example.upload") == 0)
        await client.close()
        await server.shutdown(gracePeriod: .seconds(2))
    }
}
