#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Serves routers on Unix-domain sockets (and on already-connected descriptors).
///
/// Each connection runs one task per call; frames of different calls never wait for each
/// other. ``shutdown(gracePeriod:)`` sends GoAway, lets calls in flight finish, then closes.
package final class RPCServer: Sendable {
    /// Limits and identity of the server.
    package struct Configuration: Sendable {
        /// Data frames the server sends on a stream before the client must grant more.
        package var initialWindow: Int = 64
        /// Data frames a client may send on a stream before the server grants more. The server
        /// grants only as the handler reads, so a stream holds at most this many unread
        /// messages: 4 frames of at most 4 MiB is 16 MiB, whatever the messages' size (a window
        /// of 64 let 64 chunks of 1 MiB queue for one slow upload).
        package var receiveWindow: Int = 4
        /// For clients without flow control (no Hello): unread messages buffered per stream
        /// before the stream fails with RESOURCE_EXHAUSTED.
        package var unflowedInboundLimit: Int = 256
        /// For clients without flow control: bytes of unread messages buffered per stream
        /// before the stream fails with RESOURCE_EXHAUSTED (as much as a window can hold).
        package var unflowedInboundBytes: Int = 4 * WireLimits.maxFramePayload
        /// Run handlers on their connection's event loop (no thread hop to answer). Handlers
        /// must then never block; turn this off for handlers that might.
        package var runHandlersOnEventLoop = true
        /// The largest attachment the services accept, reported in Hello's limits (0: none
        /// stated). The attachments service enforces it; the transport only reports it.
        package var maxAttachmentSize: UInt64 = 0
        /// A connection that sent part of a frame and then nothing for this long is closed
        /// (slow-loris protection); a quiet connection with no partial frame is never closed.
        package var stalledFrameTimeout: Duration = .seconds(30)
        /// On shutdown, how long after its last call ended a connection is closed: Requests
        /// already sent meanwhile are read and answered UNAVAILABLE, not dropped unread.
        package var drainedCloseDelay: Duration = .milliseconds(50)
        /// Connections of apps kept open at once over every listener (the owner's admin socket
        /// has its own reserve, ``maxOwnerConnections``); every call on one beyond them fails
        /// with RESOURCE_EXHAUSTED naming `connections` (reported in Hello's limits).
        package var maxConnections = 512
        /// Connections one app keeps open at once over all its sockets; every call on one
        /// beyond them fails with RESOURCE_EXHAUSTED naming `connectionsPerApp`. An app is
        /// what its listener's ``ListenerAccounting`` says: the app of its own socket, the app
        /// id declared in Hello on a development daemon's socket, else the peer's uid.
        package var maxConnectionsPerApp = 64
        /// Calls one app has open at once over all its connections (a call counts until its
        /// handler returns); another fails with RESOURCE_EXHAUSTED naming `callsPerApp`.
        package var maxCallsPerApp = 256
        /// Bytes buffered for one app's calls at once: messages it sent that no handler has
        /// read yet, what handlers gather from its client streams
        /// (``ServerContext/reserveBuffer(_:for:)``), and responses written for it that its
        /// socket has not taken. A call that would pass it fails with RESOURCE_EXHAUSTED
        /// naming `bufferedBytesPerApp`, which frees what it held.
        package var maxBufferedBytesPerApp = 64 * 1024 * 1024
        /// Connections of the owner's admin socket (``ListenerAccounting/owner``) open at once:
        /// a reserve of their own, never counted against the apps; beyond it, RESOURCE_EXHAUSTED
        /// naming `ownerConnections`.
        package var maxOwnerConnections = 32
        /// A connection refused by a cap answers its first call with the refusal and is then
        /// closed; one that does not call is closed after this long. A refused peer holds no
        /// descriptor for long.
        package var refusedConnectionLinger: Duration = .seconds(5)
        /// Calls open at once on one connection; another fails with RESOURCE_EXHAUSTED naming
        /// `streams` (reported in Hello's limits).
        package var maxStreamsPerConnection = 256
        /// Authorization requests of one app waiting for the owner at once, reported in Hello's
        /// limits (0: none stated). The authorization service enforces it.
        package var maxPendingRequestsPerApp = 0
        package var serverName = "salusd"
        package var serverVersion = "0.1.0"

        package init() {}
    }

    /// A peer check run at accept: return an error to refuse every call on the connection.
    package typealias Admission = @Sendable (PeerCredentials) -> RPCError?

    package let configuration: Configuration
    private let group: any EventLoopGroup
    private let logger: Logger

    private struct State {
        var listeners: [any Channel] = []
        var connections: [UInt64: ServerConnection] = [:]
        var nextConnectionID: UInt64 = 0
        var shuttingDown = false
    }

    private let state = Mutex(State())

    /// Connections, calls and buffered bytes per app, against their caps.
    let ledger: ResourceLedger

    package init(configuration: Configuration = .init(), group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger) {
        self.configuration = configuration
        ledger = ResourceLedger(limits: .init(
            maxConnections: configuration.maxConnections, maxConnectionsPerApp: configuration.maxConnectionsPerApp,
            maxCallsPerApp: configuration.maxCallsPerApp, maxBufferedBytesPerApp: configuration.maxBufferedBytesPerApp,
            maxOwnerConnections: configuration.maxOwnerConnections))
        self.group = group
        self.logger = logger
    }

    /// Listens on `path`, replacing a stale socket file and refusing to start when another
    /// server answers there. The socket gets `permissions` (never world-accessible) and, when
    /// given, `groupID`, right after it is bound; until then the process umask applies, so a
    /// daemon sets a strict umask (salusd uses 077) and keeps its sockets in a 0700 folder.
    package func listen(
        unixSocketPath path: String,
        router: RPCRouter,
        listener: ListenerInfo,
        permissions: mode_t = 0o600,
        groupID: gid_t? = nil,
        admission: Admission? = nil,
        identification: PeerIdentification? = nil
    ) async throws {
        try UnixSocketFile.prepare(path: path)
        let channel = try await ServerBootstrap(group: group)
            // Connections waiting to be accepted; beyond them (and the kernel's somaxconn) a
            // client's connect fails with EAGAIN, which it sees as UNAVAILABLE.
            .serverChannelOption(.backlog, value: 1024)
            .childChannelInitializer { channel in
                self.initialize(channel: channel, router: router, listener: listener, admission: admission, identification: identification)
            }
            .bind(unixDomainSocketPath: path)
            .get()
        if chmod(path, permissions & 0o770) != 0 {
            throw RPCError(code: .internal, message: "cannot set permissions of \(path): \(String(cString: strerror(errno)))")
        }
        if let groupID, chown(path, UInt32.max, groupID) != 0 {
            throw RPCError(code: .internal, message: "cannot set group \(groupID) of \(path): \(String(cString: strerror(errno)))")
        }
        let accepted = state.withLock { state -> Bool in
            guard !state.shuttingDown else { return false }
            state.listeners.append(channel)
            return true
        }
        if !accepted { try await channel.close() }
    }

    /// Serves on a socket that is already bound and listening (one that systemd passed by
    /// socket activation). The server owns the descriptor from then on; its file is neither
    /// replaced nor given permissions here, since whoever bound it decided both.
    package func listen(
        boundSocket descriptor: CInt,
        router: RPCRouter,
        listener: ListenerInfo,
        admission: Admission? = nil,
        identification: PeerIdentification? = nil
    ) async throws {
        let channel = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                self.initialize(channel: channel, router: router, listener: listener, admission: admission, identification: identification)
            }
            .withBoundSocket(descriptor)
            .get()
        let accepted = state.withLock { state -> Bool in
            guard !state.shuttingDown else { return false }
            state.listeners.append(channel)
            return true
        }
        if !accepted { try await channel.close() }
    }

    /// Serves one already-connected socket (the other end of a socketpair, or a descriptor a
    /// launcher handed over). The server owns the descriptor from then on.
    package func serve(
        connectedSocket descriptor: CInt, router: RPCRouter, listener: ListenerInfo, admission: Admission? = nil,
        identification: PeerIdentification? = nil
    ) async throws {
        _ = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                self.initialize(channel: channel, router: router, listener: listener, admission: admission, identification: identification)
            }
            .withConnectedSocket(descriptor)
            .get()
    }

    private func initialize(
        channel: any Channel, router: RPCRouter, listener: ListenerInfo, admission: Admission?,
        identification: PeerIdentification? = nil
    ) -> EventLoopFuture<Void> {
        PeerCredentials.read(from: channel).flatMapErrorThrowing { _ in .current }.flatMap { peer -> EventLoopFuture<(PeerCredentials, [String: String])> in
            guard let identification, admission?(peer) == nil else { return channel.eventLoop.makeSucceededFuture((peer, [:])) }
            return PeerFacts.read(from: channel, credentials: peer).map { facts in
                defer { if let pidfd = facts.pidfd { close(pidfd) } }
                return (peer, identification(facts))
            }
        }.flatMapThrowing { peer, identity in
            let id: UInt64? = self.state.withLock { state in
                guard !state.shuttingDown else { return nil }
                state.nextConnectionID += 1
                return state.nextConnectionID
            }
            guard let id else { throw ChannelError.ioOnClosedChannel }
            let context = ConnectionContext(id: id, peer: peer, listener: listener, identity: identity)
            let connection = ServerConnection(
                channel: channel, context: context, router: router, configuration: self.configuration,
                logger: self.logger, refusal: admission?(peer), ledger: self.ledger, runningHandlers: self.runningHandlers
            )
            // Checked again with the insertion: a shutdown that began meanwhile did not see this
            // connection, so it would never be told to go away.
            let added = self.state.withLock { state -> Bool in
                guard !state.shuttingDown else { return false }
                state.connections[id] = connection
                return true
            }
            guard added else { throw ChannelError.ioOnClosedChannel }
            channel.closeFuture.whenComplete { _ in
                _ = self.state.withLock { $0.connections.removeValue(forKey: id) }
            }
            try connection.installHandlers(
                stalledFrameTimeout: .nanoseconds(ServerConnection.nanoseconds(self.configuration.stalledFrameTimeout)))
            // Counted at once where the socket says whose it is (a peer refused by admission is
            // not counted); on a socket where apps declare their id, at its first call.
            if connection.refusal == nil, listener.accounting != .shared(declaredAppIDs: true) {
                connection.resolveTenant(declaring: nil)
            }
            connection.logger.debug("connection accepted")
        }
    }

    /// Whether ``shutdown(gracePeriod:)`` has begun (for tests).
    package var isShuttingDown: Bool { state.withLock { $0.shuttingDown } }

    /// Open connections (for diagnostics and tests).
    package var connectionCount: Int { state.withLock { $0.connections.count } }

    /// The bytes buffered for `appID`'s calls now, as counted against `maxBufferedBytesPerApp`
    /// (for diagnostics and tests).
    package func bufferedBytes(ofApp appID: String) -> Int { ledger.usage(of: .app(appID)).bufferedBytes }

    /// The calls `appID` has open now, as counted against `maxCallsPerApp` (for tests).
    package func openCalls(ofApp appID: String) -> Int { ledger.usage(of: .app(appID)).calls }

    /// Call handlers of this server still running, those of closed connections included (for
    /// diagnostics and tests).
    package var runningHandlerCount: Int { runningHandlers.count.load(ordering: .relaxed) }
    /// The most bytes of client messages one stream has held unread by its handler since the
    /// server started (for diagnostics and tests: what a slow handler let queue).
    package var largestUnreadStreamBytes: Int { runningHandlers.largestUnreadStreamBytes.load(ordering: .relaxed) }
    /// Call handlers this server has started, ended ones included (for tests).
    package var startedHandlerCount: Int { runningHandlers.started.load(ordering: .relaxed) }
    private let runningHandlers = HandlerCount()

    /// Stops accepting, sends GoAway, waits up to `gracePeriod` for calls in flight, then
    /// fails what is left with UNAVAILABLE and closes every connection.
    package func shutdown(gracePeriod: Duration = .seconds(10)) async {
        let (listeners, connections) = state.withLock { state in
            state.shuttingDown = true
            defer { state.listeners = [] }
            return (state.listeners, Array(state.connections.values))
        }
        // Connections first: while the listeners close, a Request on an open connection is
        // already refused, not started as a new call.
        for connection in connections { connection.beginShutdown() }
        for listener in listeners {
            try? await listener.close()
        }
        let drained = await Self.finishes(within: gracePeriod) {
            for connection in connections {
                await connection.waitForTasks()
                try? await connection.channel.closeFuture.get()
            }
        }
        if !drained {
            logger.warning("calls still running after the grace period; failing them with UNAVAILABLE")
            for connection in connections { connection.abort(reason: "the server shut down") }
            // Cancelled handlers get a moment to return; one that ignores cancellation does
            // not keep the process from stopping.
            let finished = await Self.finishes(within: .seconds(2)) {
                for connection in connections { await connection.waitForTasks() }
            }
            if !finished { logger.error("a cancelled handler did not return; stopping without it") }
        }
    }
}

extension RPCServer {
    /// Whether `operation` finishes within `limit`. The operation runs in a task of its own
    /// and is left running when the time is up: waits that ignore cancellation cannot hold
    /// the caller.
    static func finishes(within limit: Duration, _ operation: @escaping @Sendable () async -> Void) async -> Bool {
        let outcome = FirstOutcome()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            outcome.set(continuation)
            let work = Task {
                await operation()
                outcome.resolve(true)
            }
            Task {
                try? await Task.sleep(for: limit)
                outcome.resolve(false)
                _ = work
            }
        }
    }
}

/// Resumes a continuation with the first of several outcomes.
private final class FirstOutcome: Sendable {
    private let continuation = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resolve(_ value: Bool) {
        let pending = continuation.withLock { pending in
            defer { pending = nil }
            return pending
        }
        pending?.resume(returning: value)
    }
}

/// Socket files: a stale one is replaced, a live one means another server.
package enum UnixSocketFile {
    static func prepare(path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw RPCError(code: .failedPrecondition, message: "\(path) exists and is not a socket; refusing to replace it")
        }
        if isAlive(path: path) {
            throw RPCError(code: .failedPrecondition, message: "another salusd is running: \(path) accepts connections")
        }
        unlink(path)
    }

    /// Whether a server accepts connections on the socket at `path`.
    package static func isAlive(path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }
}
