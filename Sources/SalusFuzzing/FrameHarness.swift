#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SalusRPC
import SalusServer

/// The bytes as a client writes them to the app socket: the server's frame decoder, envelope
/// decoding and dispatch to the daemon's services (`SalusServices`, the assembly `salusd` serves,
/// over a fresh data folder with the bundled plugins, in development mode with open
/// authorization so calls reach the services). Each input is one connection: the bytes are
/// written, the answers are read until every Request frame in them has its Response (or nothing
/// arrives for a while: a live stream, a call never completed), the client's side is shut for
/// writing and read until the server closes, and the connection must then be gone from the
/// server, so none outlives its client.
///
/// The admin socket's router is not fuzzed: its calls name files to read and write.
enum FrameHarness {
    static let services: SalusServices = blocking {
        let folder = FuzzEnvironment.folder
        var configuration = DaemonConfiguration(
            dataDirectory: folder.appendingPathComponent("data", isDirectory: true).path,
            socketPath: folder.appendingPathComponent("app.sock").path,
            adminSocketPath: folder.appendingPathComponent("admin.sock").path,
            pluginDirectories: [FuzzEnvironment.pluginFolder],
            developmentMode: true,
            drainTimeout: .seconds(1)
        )
        configuration.openAuthorization = true
        do {
            return try await SalusServices.open(configuration, logger: FuzzEnvironment.logger)
        } catch {
            fatalError("cannot open the services for the frame harness: \(error)")
        }
    }

    /// How long the server may take to close a connection whose client has gone.
    static let closeDeadline: Duration = .seconds(10)
    /// How long to read answers before giving up on the server closing first.
    static let readDeadline: Duration = .seconds(2)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let services = Self.services
        var descriptors: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0 else {
            fatalError("socketpair failed: \(String(cString: strerror(errno)))")
        }
        let (serverSide, client) = (descriptors[0], descriptors[1])
        let served: Bool = blocking {
            do {
                try await services.server.serve(
                    connectedSocket: serverSide, router: services.appRouter, listener: services.appListener)
                return true
            } catch {
                return false
            }
        }
        guard served else {
            close(serverSide)
            close(client)
            return
        }
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        exchange(bytes, on: client)
        close(client)
        let clock = ContinuousClock()
        let deadline = clock.now + closeDeadline
        while services.server.connectionCount > 0 {
            guard clock.now < deadline else {
                fatalError("the server still holds \(services.server.connectionCount) connection(s) \(closeDeadline) after the client closed")
            }
            usleep(1_000)
        }
        // A handler may finish after its connection is gone (a save that outlasts the client):
        // the input ends when it has, so that what it allocated is freed before libFuzzer's
        // leak check, on a loaded machine too.
        while services.server.runningHandlerCount > 0 {
            guard clock.now < deadline else {
                fatalError("\(services.server.runningHandlerCount) call handler(s) still run \(closeDeadline) after the client closed")
            }
            usleep(1_000)
        }
    }

    /// How long to wait for more answers when nothing arrives.
    static let quietPeriod: Duration = .milliseconds(25)

    /// The stream ids of the Request frames in `bytes`, read as a client's frames.
    static func requestedStreams(_ bytes: UnsafeRawBufferPointer) -> Set<UInt32> {
        var streams: Set<UInt32> = []
        var offset = 0
        while offset + 10 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let stream = bytes[offset + 4..<offset + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if bytes[offset + 8] == 0x01 { streams.insert(stream) }
            offset += 10 + length
        }
        return streams
    }

    /// Writes `bytes` and reads the answers until each request has its Response or nothing comes
    /// for ``quietPeriod``; then shuts the writing side and reads until end of file. Everything
    /// stops at ``readDeadline``.
    private static func exchange(_ bytes: UnsafeRawBufferPointer, on socket: Int32) {
        let clock = ContinuousClock()
        let deadline = clock.now + readDeadline
        var awaited = requestedStreams(bytes)
        var written = 0
        var received: [UInt8] = []
        var parsed = 0
        var readBuffer = [UInt8](repeating: 0, count: 65_536)
        var shut = false
        var lastProgress = clock.now
        while clock.now < deadline {
            if !shut && written == bytes.count && (awaited.isEmpty || clock.now - lastProgress > quietPeriod) {
                shutdown(socket, Int32(SHUT_WR))
                shut = true
            }
            let wantsWrite = written < bytes.count
            var poller = pollfd(fd: socket, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0)
            let ready = poll(&poller, 1, 10)
            if ready < 0 && errno != EINTR { return }
            if ready <= 0 { continue }
            if poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let count = readBuffer.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
                if count == 0 { return }
                if count < 0 && errno != EAGAIN && errno != EINTR { return }
                if count > 0 {
                    lastProgress = clock.now
                    received += readBuffer[..<count]
                    // Responses (type 2) end calls; only headers matter here.
                    while parsed + 10 <= received.count {
                        let length = received[parsed..<parsed + 4].reduce(0) { $0 << 8 | Int($1) }
                        guard parsed + 10 + length <= received.count else { break }
                        let stream = received[parsed + 4..<parsed + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                        if received[parsed + 8] == 0x02 { awaited.remove(stream) }
                        parsed += 10 + length
                    }
                    if parsed > 1 << 20 {
                        received.removeFirst(parsed)
                        parsed = 0
                    }
                }
            }
            if wantsWrite && poller.revents & Int16(POLLOUT) != 0 {
                let count = send(socket, bytes.baseAddress! + written, bytes.count - written, Int32(MSG_NOSIGNAL))
                if count > 0 {
                    written += count
                    lastProgress = clock.now
                }
                if count < 0 && errno != EAGAIN && errno != EINTR { return }
            }
        }
    }
}
