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
import SwiftProtobuf

/// Things a test method on the server observed.
final class Probe: Sendable {
    private let state = Mutex<(sent: Int, cancelled: Int, started: Int, peer: PeerCredentials?)>((0, 0, 0, nil))

    var sent: Int { state.withLock { $0.sent } }
    var cancelled: Int { state.withLock { $0.cancelled } }
    var started: Int { state.withLock { $0.started } }
    var peer: PeerCredentials? { state.withLock { $0.peer } }

    func didSend() { state.withLock { $0.sent += 1 } }
    func didCancel() { state.withLock { $0.cancelled += 1 } }
    func didStart(_ peer: PeerCredentials) {
        state.withLock {
            $0.started += 1
            $0.peer = peer
        }
    }
}

/// A server on a socket in a fresh temporary folder, serving Diagnostics and the probe
/// methods `test.Probe/Block` (waits until cancelled) and `test.Probe/Infinite` (streams
/// until cancelled, counting what it sent).
final class TestServer: Sendable {
    static let block = UnaryMethod<Salus_V1_EchoRequest, Salus_V1_EchoResponse>(service: "test.Probe", method: "Block")
    static let infinite = ServerStreamingMethod<Salus_V1_EchoRequest, Salus_V1_EchoResponse>(service: "test.Probe", method: "Infinite")

    let directory: String
    let socketPath: String
    let server: RPCServer
    let probe = Probe()

    private init(directory: String, server: RPCServer) {
        self.directory = directory
        self.socketPath = directory + "/test.sock"
        self.server = server
    }

    static func start(
        configuration: RPCServer.Configuration = .init(),
        admission: RPCServer.Admission? = nil
    ) async throws -> TestServer {
        let directory = try makeTemporaryDirectory()
        var logger = Logger(label: "test-server")
        logger.logLevel = .error
        let server = TestServer(directory: directory, server: RPCServer(configuration: configuration, logger: logger))
        try await server.server.listen(
            unixSocketPath: server.socketPath,
            router: server.router(),
            listener: ListenerInfo(label: "test"),
            admission: admission
        )
        return server
    }

    func router() -> RPCRouter {
        var router = RPCRouter()
        DiagnosticsService.register(into: &router)
        let probe = self.probe
        router.registerUnary(Self.block) { (_: Salus_V1_EchoRequest, context) -> Salus_V1_EchoResponse in
            probe.didStart(context.peer)
            do {
                try await Task.sleep(for: .seconds(60))
            } catch {
                probe.didCancel()
                throw error
            }
            return Salus_V1_EchoResponse()
        }
        router.registerServerStreaming(Self.infinite) { (_: Salus_V1_EchoRequest, writer: RPCWriter<Salus_V1_EchoResponse>, context) in
            probe.didStart(context.peer)
            var message = Salus_V1_EchoResponse()
            message.payload = Data(repeating: 1, count: 1024)
            do {
                while true {
                    try await writer.write(message)
                    probe.didSend()
                    message.sequence += 1
                }
            } catch {
                probe.didCancel()
                throw error
            }
        }
        return router
    }

    func connect(hello: Bool = true, streamWindowBytes: Int = RPCClient.Configuration().streamWindowBytes) async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        configuration.hello = hello
        configuration.streamWindowBytes = streamWindowBytes
        return try await RPCClient.connect(unixSocketPath: socketPath, configuration: configuration)
    }

    func stop() async {
        await server.shutdown(gracePeriod: .seconds(2))
        try? FileManager.default.removeItem(atPath: directory)
    }
}

func makeTemporaryDirectory() throws -> String {
    // Socket paths must stay under 108 bytes, so keep the folder short.
    var template = Array("/tmp/salus-test-XXXXXX".utf8CString)
    guard let result = mkdtemp(&template) else { throw POSIXError(.EIO) }
    return String(cString: result)
}

/// Waits until `condition` holds, up to `timeout`.
func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Runs blocking work on a thread of its own, so it never occupies the few threads that run
/// tasks (the server under test needs them).
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        thread.start()
    }
}

/// A blocking socket client that writes raw bytes and reads raw frames, for tests of
/// malformed input. Its async methods block a thread of their own.
final class RawConnection: @unchecked Sendable {
    let fd: Int32

    init(path: String, receiveTimeout: Double = 5) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: Int((receiveTimeout - Double(Int(receiveTimeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func write(_ bytes: [UInt8]) async {
        await onThread { self.writeBlocking(bytes) }
    }

    func write(_ frame: Frame) async { await write(FrameCoding.encode(frame)) }

    /// Writes `bytes` in two sends, the first `split` bytes, a pause of `pause` seconds, then the
    /// rest, all on one thread (a busy test process cannot stretch the pause).
    func write(_ bytes: [UInt8], splitAt split: Int, pause: Double) async {
        await onThread {
            self.writeBlocking(Array(bytes.prefix(split)))
            usleep(useconds_t(pause * 1_000_000))
            self.writeBlocking(Array(bytes.dropFirst(split)))
        }
    }

    func readFrame() async -> Frame? {
        await onThread { self.readFrameBlocking() }
    }

    func isClosedByPeer() async -> Bool {
        await onThread { self.isClosedByPeerBlocking() }
    }

    private func writeBlocking(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads exactly `count` bytes; nil on EOF, error or timeout.
    func read(count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + offset, count - offset, 0) }
            if n <= 0 { return nil }
            offset += n
        }
        return buffer
    }

    /// Reads one frame; nil on EOF, error or timeout.
    private func readFrameBlocking() -> Frame? {
        guard let header = read(count: 10) else { return nil }
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        guard let payload = length == 0 ? [] : read(count: length) else { return nil }
        return try? FrameCoding.decode(header + payload)?.frame
    }

    /// True when the server closed the connection (EOF) within the receive timeout. False when
    /// it is still sending after 10 s: random bytes can ask for a stream without end (Generate
    /// with no count) and grant it a window to match, which the server rightly serves.
    private func isClosedByPeerBlocking() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
        return false
    }
}

/// A Request frame for `method` with `message` as its payload.
func requestFrame(
    streamID: UInt32,
    method: MethodDescriptor,
    payload: [UInt8],
    flags: FrameFlags = [],
    timeoutNano: Int64 = 0,
    metadata: [(String, String)] = []
) throws -> Frame {
    var request = Salus_V1_Request()
    request.service = method.service
    request.method = method.method
    request.payload = Data(payload)
    request.timeoutNano = timeoutNano
    request.metadata = metadata.map { key, value in
        var pair = Salus_V1_KeyValue()
        pair.key = key
        pair.value = value
        return pair
    }
    return Frame(streamID: streamID, type: .request, flags: flags, payload: ByteBuffer(bytes: try request.serializedBytes() as [UInt8]))
}

/// The status of a Response frame.
func status(of frame: Frame?) -> RPCError? {
    guard let frame, frame.type == .response,
          let response = try? Salus_V1_Response(serializedBytes: Array(frame.payload.readableBytesView)) else { return nil }
    return RPCError(status: response.status)
}

func echoRequest(_ text: String, payload: Int = 0) -> Salus_V1_EchoRequest {
    var request = Salus_V1_EchoRequest()
    request.text = text
    request.payload = Data(repeating: 7, count: payload)
    return request
}
