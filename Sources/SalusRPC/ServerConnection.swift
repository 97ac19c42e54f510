import Logging
import NIOCore
import SalusProto
import Synchronization
import SwiftProtobuf

/// One accepted connection: routes frames to streams, runs one task per call, and drains on
/// shutdown. Frame handling runs on the channel's event loop; handlers run in tasks.
/// A count of running call handlers shared by a server's connections.
final class HandlerCount: Sendable {
    let count = Atomic<Int>(0)
    /// Handlers ever started (for tests: a call has reached its handler even if it has ended).
    let started = Atomic<Int>(0)
    /// The most bytes of client messages one stream has held unread by its handler so far, over
    /// every stream of the server (for tests and diagnostics: what a slow handler lets queue).
    let largestUnreadStreamBytes = Atomic<Int>(0)
}

final class ServerConnection: FrameConnection {
    /// Handlers running for the server this connection belongs to, over all its connections: a
    /// handler may outlive its connection (it finishes after the client has gone).
    let runningHandlers: HandlerCount

    let channel: any Channel
    let context: ConnectionContext
    let router: RPCRouter
    let configuration: RPCServer.Configuration
    let writability = WritabilityGate()
    let logger: Logger
    /// An error every call on this connection gets instead of running (a refused peer).
    let refusal: RPCError?
    /// The per-app counts this connection, its calls and their bytes are kept in.
    let ledger: ResourceLedger
    /// Where handler tasks run: the connection's event loop.
    let executor: EventLoopExecutor
    /// Whether a flush of Data frames written on the event loop is already scheduled.
    private let flushScheduled = Mutex(false)

    private struct State {
        var streams: [UInt32: ServerStream] = [:]
        var lastStreamID: UInt32 = 0
        /// What the client's Hello turned on.
        var features: HelloFeatures = []
        var goingAway = false
        /// Whether the close after the last call is already scheduled (``closeOnceDrained()``).
        var closeScheduled = false
        var runningTasks = 0
        var closed = false
        var drained: [CheckedContinuation<Void, Never>] = []
        /// Whom the connection is counted against; nil until a connection on a socket where
        /// apps declare their id has called (``resolveTenant(declaring:)``).
        var tenant: Tenant?
        /// Whether the ledger counts this connection (released once, when it closes).
        var admitted = false
        /// The cap this connection was refused by: every call gets it, then the connection closes.
        var capacityRefusal: RPCError?
    }

    private let state = Mutex(State())

    init(
        channel: any Channel, context: ConnectionContext, router: RPCRouter, configuration: RPCServer.Configuration, logger: Logger,
        refusal: RPCError?, ledger: ResourceLedger, runningHandlers: HandlerCount = HandlerCount()
    ) {
        self.runningHandlers = runningHandlers
        self.ledger = ledger
        self.channel = channel
        self.context = context
        self.router = router
        self.configuration = configuration
        self.refusal = refusal
        self.executor = EventLoopExecutor(eventLoop: channel.eventLoop)
        var logger = logger
        logger[metadataKey: "connection"] = "\(context.id)"
        logger[metadataKey: "listener"] = "\(context.listener.label)"
        logger[metadataKey: "peer"] = "\(context.peer)"
        self.logger = logger
    }

    // MARK: Writing

    /// Writes a Data frame. On the event loop the flush is deferred until the handler yields,
    /// so a burst of messages leaves in one system call. `written` runs once the frame has left
    /// the process (or could not be written).
    func writeData(_ frame: Frame, written: @escaping @Sendable () -> Void) {
        let promise = channel.eventLoop.makePromise(of: Void.self)
        promise.futureResult.whenComplete { _ in written() }
        guard channel.eventLoop.inEventLoop else {
            channel.writeAndFlush(frame, promise: promise)
            return
        }
        channel.write(frame, promise: promise)
        let schedule = flushScheduled.withLock { scheduled -> Bool in
            defer { scheduled = true }
            return !scheduled
        }
        if schedule {
            channel.eventLoop.execute {
                self.flushScheduled.withLock { $0 = false }
                self.channel.flush()
            }
        }
    }

    private func respond(streamID: UInt32, error: RPCError, thenClose: Bool = false) {
        var response = Salus_V1_Response()
        response.status = error.status
        guard let payload = try? encodeMessage(response) else { return }
        let frame = Frame(streamID: streamID, type: .response, payload: payload)
        if thenClose {
            channel.write(frame, promise: nil)
            closeRefused(error, lastStreamID: streamID)
        } else {
            write(frame)
        }
    }

    /// Closes a connection refused by a cap once GoAway carrying the refusal (`status`) has
    /// left: a call the client makes after the close, or had queued behind the refused one,
    /// then fails with the refusal instead of a bare "connection closed". Event loop only.
    private func closeRefused(_ refusal: RPCError, lastStreamID: UInt32) {
        var goAway = Salus_V1_GoAway()
        goAway.lastStreamID = lastStreamID
        goAway.reason = refusal.message
        goAway.status = refusal.status
        let channel = self.channel
        guard let payload = try? encodeMessage(goAway) else {
            channel.close(promise: nil)
            return
        }
        channel.writeAndFlush(Frame(streamID: 0, type: .goAway, payload: payload)).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    // MARK: Per-app caps (event loop)

    /// Counts the connection against its tenant once that is known: at accept for the admin
    /// socket, an app's own socket and a shared socket whose peers cannot declare an app id;
    /// else at its first call, against the app id its Hello declares (`declared`) or its
    /// peer's uid. Returns the refusal every call on the connection gets, if any.
    @discardableResult
    func resolveTenant(declaring declared: String?) -> RPCError? {
        let decided: Tenant? = state.withLock { state in
            guard state.tenant == nil, state.capacityRefusal == nil, !state.closed else { return nil }
            let tenant: Tenant
            switch context.listener.accounting {
            case .owner: tenant = .owner
            case .app(let id): tenant = .app(id)
            case .shared(let declaredAppIDs):
                if declaredAppIDs, let declared, !declared.isEmpty {
                    tenant = .app(declared)
                } else {
                    tenant = .peer(uid: context.peer.uid)
                }
            }
            state.tenant = tenant
            return tenant
        }
        if let decided {
            let refusal = ledger.admitConnection(decided)
            let releaseNow = state.withLock { state -> Bool in
                if let refusal {
                    state.capacityRefusal = refusal
                    return false
                }
                state.admitted = true
                // Closed meanwhile (not on the event loop): released here, as channelClosed did not.
                if state.closed {
                    state.admitted = false
                    return true
                }
                return false
            }
            if releaseNow { ledger.releaseConnection(decided) }
            if let refusal {
                logger.notice("connection refused: \(refusal.message)")
                // A refused connection that never calls is closed after a while too, telling
                // its client why (a client starved past the linger calls after the close).
                channel.eventLoop.scheduleTask(in: .nanoseconds(Self.nanoseconds(configuration.refusedConnectionLinger))) {
                    self.closeRefused(refusal, lastStreamID: self.state.withLock { $0.lastStreamID })
                }
            }
        }
        return state.withLock { $0.capacityRefusal }
    }

    /// Whom the connection is counted against once known.
    var tenant: Tenant? { state.withLock { $0.tenant } }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }

    // MARK: Reading (event loop)

    func receive(_ inbound: InboundFrame) {
        switch inbound {
        case .frame(let frame):
            switch frame.type {
            case .request: receiveRequest(frame)
            case .data: stream(frame.streamID)?.receiveData(frame)
            case .cancel:
                // Without "cancel" in Hello, Cancel is an unknown frame type: ignored.
                guard state.withLock({ $0.features.contains(.cancel) }) else { return }
                stream(frame.streamID)?.fail(RPCError(code: .cancelled, message: "cancelled by the client", reason: .cancelled))
            case .windowUpdate:
                guard let update = try? decodeMessage(Salus_V1_WindowUpdate.self, from: frame.payload) else { return }
                stream(frame.streamID)?.outbound.grant(Int(update.credits))
            default:
                // Responses, GoAway and unknown types from a client are ignored, as ttrpc does.
                break
            }
        case .oversized(let streamID, let type, let length):
            let error = RPCError(
                code: .resourceExhausted,
                message: "\(type) frame of \(length) bytes on stream \(streamID) exceeds the 4 MiB frame limit",
                reason: .resourceExhausted,
                field: "length",
                value: "\(length)",
                expected: "at most \(WireLimits.maxFramePayload) bytes"
            )
            if type == .request {
                let fresh = state.withLock { state -> Bool in
                    guard streamID % 2 == 1, streamID > state.lastStreamID else { return false }
                    state.lastStreamID = streamID
                    return true
                }
                if fresh { respond(streamID: streamID, error: error) }
            } else if type == .data {
                stream(streamID)?.fail(error)
            }
        }
    }

    private func stream(_ id: UInt32) -> ServerStream? {
        state.withLock { $0.streams[id] }
    }

    private func receiveRequest(_ frame: Frame) {
        let id = frame.streamID
        if id % 2 == 0 {
            respond(streamID: id, error: RPCError(
                code: .invalidArgument,
                message: "stream id \(id) is even; client streams use odd ids",
                reason: .protocolViolation, field: "stream_id", value: "\(id)", expected: "an odd stream id"
            ))
            return
        }
        enum Admission { case accept(HelloFeatures), reused(UInt32), goingAway }
        let admission: Admission = state.withLock { state in
            if id <= state.lastStreamID { return .reused(state.lastStreamID) }
            state.lastStreamID = id
            if state.goingAway { return .goingAway }
            return .accept(state.features)
        }
        let features: HelloFeatures
        switch admission {
        case .reused(let last):
            respond(streamID: id, error: RPCError(
                code: .invalidArgument,
                message: "stream id \(id) is not greater than the last one (\(last)); stream ids cannot be reused",
                reason: .protocolViolation, field: "stream_id", value: "\(id)", expected: "a stream id greater than \(last)"
            ))
            return
        case .goingAway:
            respond(streamID: id, error: RPCError(code: .unavailable, message: "the server is shutting down", reason: .unavailable))
            return
        case .accept(let enabled):
            features = enabled
        }

        let request: Salus_V1_Request
        do {
            request = try decodeRequest(Salus_V1_Request.self, from: frame.payload)
        } catch {
            respond(streamID: id, error: error)
            return
        }
        let metadata = Metadata(request.metadata)
        if metadata.size > WireLimits.maxMetadataSize {
            respond(streamID: id, error: RPCError(
                code: .resourceExhausted,
                message: "request metadata of \(metadata.size) bytes exceeds the 8 KiB limit",
                reason: .resourceExhausted, field: "metadata", value: "\(metadata.size) bytes",
                expected: "at most \(WireLimits.maxMetadataSize) bytes"
            ))
            return
        }
        if let refusal {
            respond(streamID: id, error: refusal)
            return
        }
        let isHello = request.service == SalusMethods.Session.name && request.method == SalusMethods.Session.hello.method
        var hello: Salus_V1_HelloRequest?
        if isHello {
            do {
                hello = try decodeRequest(Salus_V1_HelloRequest.self, from: ByteBuffer(bytes: request.payload))
            } catch {
                respond(streamID: id, error: error)
                return
            }
        }
        if let capacityRefusal = resolveTenant(declaring: hello?.appID) {
            // Said once, then the place is given up: a refused peer holds no descriptor.
            respond(streamID: id, error: capacityRefusal, thenClose: true)
            return
        }
        let open = state.withLock { $0.streams.count }
        if open >= configuration.maxStreamsPerConnection {
            respond(streamID: id, error: RPCError(
                code: .resourceExhausted,
                message: "\(open) calls are open on this connection, its limit; wait for one to end",
                reason: .resourceExhausted, field: "streams", value: "\(open + 1)",
                expected: "at most \(configuration.maxStreamsPerConnection) calls open at once on one connection"
            ))
            return
        }
        if let hello {
            answerHello(streamID: id, request: hello)
            return
        }
        guard let entry = router.entry(service: request.service, method: request.method) else {
            let what = router.hasService(request.service)
                ? "unknown method \(request.method) of service \(request.service)"
                : "unknown service \(request.service)"
            respond(streamID: id, error: RPCError(
                code: .unimplemented, message: what, reason: .unimplemented,
                field: router.hasService(request.service) ? "method" : "service",
                value: router.hasService(request.service) ? request.method : request.service,
                expected: "a method listed by salus.v1.Session/Hello"
            ))
            return
        }
        // Every connection that reaches here has its tenant (resolveTenant above).
        guard let tenant else { return }
        if let error = ledger.openCall(tenant) {
            respond(streamID: id, error: error)
            return
        }
        startCall(frame: frame, request: request, metadata: metadata, entry: entry, features: features, tenant: tenant)
    }

    private func startCall(
        frame: Frame, request: Salus_V1_Request, metadata: Metadata, entry: RPCRouter.Entry, features: HelloFeatures, tenant: Tenant
    ) {
        let id = frame.streamID
        let method = MethodDescriptor(service: request.service, method: request.method)
        let flowControl = features.contains(.windowUpdate) ? (send: configuration.initialWindow, receive: configuration.receiveWindow) : nil
        let budget = CallBudget(ledger: ledger, tenant: tenant)
        let stream = ServerStream(
            id: id, kind: entry.kind, connection: self, flowControl: flowControl, inboundLimit: configuration.unflowedInboundLimit,
            inboundByteLimit: configuration.unflowedInboundBytes, budget: budget)
        var payload = ByteBuffer(bytes: request.payload)
        if entry.kind.clientStreams {
            if !request.payload.isEmpty {
                stream.receiveData(Frame(streamID: id, type: .data, payload: payload))
                payload = ByteBuffer()
            }
            if frame.flags.contains(.remoteClosed) { stream.closeInbound() }
        } else {
            stream.closeInbound()
        }
        var deadline: ContinuousClock.Instant?
        if request.timeoutNano > 0 {
            deadline = .now + .nanoseconds(request.timeoutNano)
        }
        let context = ServerContext(
            method: method, connection: self.context, metadata: metadata, deadline: deadline,
            connectionLogger: logger, streamID: id, budget: budget
        )
        let call = ServerCall(context: context, requestPayload: payload, stream: stream)
        state.withLock { state in
            state.streams[id] = stream
            state.runningTasks += 1
        }
        runningHandlers.count.add(1, ordering: .relaxed)
        runningHandlers.started.add(1, ordering: .relaxed)
        let handlerExecutor: (any TaskExecutor)? = configuration.runHandlersOnEventLoop && entry.onEventLoop ? executor : nil
        let task = Task(executorPreference: handlerExecutor) {
            let result: Result<ByteBuffer?, any Error>
            do {
                result = .success(try await entry.handler(call))
            } catch {
                result = .failure(error)
            }
            stream.complete(with: result)
            // The handler has returned: what it held is freed, and so is its place.
            budget.releaseAll()
            self.ledger.closeCall(tenant)
            self.taskEnded()
        }
        stream.attach(task: task)
        if request.timeoutNano > 0 {
            let scheduled = channel.eventLoop.scheduleTask(in: .nanoseconds(request.timeoutNano)) {
                stream.fail(RPCError(
                    code: .deadlineExceeded,
                    message: "the deadline of \(Double(request.timeoutNano) / 1e9) s passed before \(method) finished",
                    reason: .deadlineExceeded
                ))
            }
            stream.attach(deadline: scheduled)
        }
    }

    private func answerHello(streamID: UInt32, request: Salus_V1_HelloRequest) {
        let features = state.withLock { state in
            state.features.formUnion(HelloFeatures(names: request.features))
            return state.features
        }
        context.recordHello(HelloInfo(
            clientName: request.clientName,
            clientVersion: request.clientVersion,
            declaredAppID: request.appID,
            features: request.features
        ))
        var hello = Salus_V1_HelloResponse()
        hello.protocolVersion = 1
        hello.serverName = configuration.serverName
        hello.serverVersion = configuration.serverVersion
        hello.features = features.names
        hello.limits.maxFrameSize = UInt32(WireLimits.maxFramePayload)
        hello.limits.maxMetadataSize = UInt32(WireLimits.maxMetadataSize)
        hello.limits.initialWindow = UInt32(configuration.initialWindow)
        hello.limits.receiveWindow = UInt32(configuration.receiveWindow)
        hello.limits.maxAttachmentSize = configuration.maxAttachmentSize
        hello.limits.maxConnections = UInt32(clamping: configuration.maxConnections)
        hello.limits.maxStreamsPerConnection = UInt32(clamping: configuration.maxStreamsPerConnection)
        hello.limits.maxPendingRequestsPerApp = UInt32(clamping: configuration.maxPendingRequestsPerApp)
        var services = router.methods.map { service in
            var info = Salus_V1_ServiceInfo()
            info.name = service.service
            info.methods = service.methods.map { method in
                var info = Salus_V1_MethodInfo()
                info.name = method.name
                info.clientStreaming = method.kind.clientStreams
                info.serverStreaming = method.kind.serverStreams
                return info
            }
            return info
        }
        var session = Salus_V1_ServiceInfo()
        session.name = SalusMethods.Session.name
        var helloMethod = Salus_V1_MethodInfo()
        helloMethod.name = SalusMethods.Session.hello.method
        session.methods = [helloMethod]
        services.append(session)
        hello.services = services.sorted { $0.name < $1.name }
        var response = Salus_V1_Response()
        response.status = Google_Rpc_Status()
        response.payload = (try? hello.serializedBytes() as [UInt8]).map { Data($0) } ?? Data()
        if let encoded = try? encodeMessage(response) {
            write(Frame(streamID: streamID, type: .response, payload: encoded))
        }
    }

    /// A stream now holds `bytes` of client messages its handler has not read.
    func recordUnreadInbound(_ bytes: Int) {
        var seen = runningHandlers.largestUnreadStreamBytes.load(ordering: .relaxed)
        while bytes > seen {
            let (exchanged, original) = runningHandlers.largestUnreadStreamBytes.compareExchange(
                expected: seen, desired: bytes, ordering: .relaxed)
            if exchanged { break }
            seen = original
        }
    }

    // MARK: Lifecycle

    func streamFinished(_ id: UInt32) {
        let drained = state.withLock { state -> Bool in
            state.streams[id] = nil
            return state.goingAway && state.streams.isEmpty
        }
        if drained { closeOnceDrained() }
    }

    /// Closes a connection going away that has no call left, after
    /// ``RPCServer/Configuration/drainedCloseDelay``: a Request its client sent before the last
    /// Response reached it is then in the socket, and is read and answered UNAVAILABLE before
    /// the close (a close at once dropped it unread, and a client without GoAway never learnt
    /// of it). The delay lets the event loop poll the socket once more, whatever it had queued.
    private func closeOnceDrained() {
        let schedule = state.withLock { state -> Bool in
            guard !state.closeScheduled, !state.closed else { return false }
            state.closeScheduled = true
            return true
        }
        guard schedule else { return }
        let delay = TimeAmount.nanoseconds(Self.nanoseconds(configuration.drainedCloseDelay))
        channel.eventLoop.scheduleTask(in: delay) {
            // Checked again on the event loop: a Request admitted before the connection began
            // going away may have started its call since.
            let close = self.state.withLock { state -> Bool in
                state.closeScheduled = false
                return state.streams.isEmpty
            }
            if close { self.channel.close(promise: nil) }
        }
    }

    private func taskEnded() {
        runningHandlers.count.subtract(1, ordering: .relaxed)
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.runningTasks -= 1
            guard state.runningTasks == 0, state.closed || state.goingAway else { return [] }
            defer { state.drained = [] }
            return state.drained
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Stops taking calls: from its return every Request with a greater id than the last one
    /// admitted gets UNAVAILABLE (it is not left to the event loop, which a Request read first
    /// would overtake). Then sends GoAway (to clients whose Hello turned it on), lets running
    /// calls finish, and closes the connection when none is left.
    func beginShutdown() {
        let (send, last): (Bool, UInt32) = state.withLock { state in
            let first = !state.goingAway
            state.goingAway = true
            return (first && state.features.contains(.goAway), state.lastStreamID)
        }
        channel.eventLoop.execute {
            if send {
                var goAway = Salus_V1_GoAway()
                goAway.lastStreamID = last
                goAway.reason = "server shutting down"
                if let payload = try? encodeMessage(goAway) {
                    self.write(Frame(streamID: 0, type: .goAway, payload: payload))
                }
            }
            // On the event loop, where calls start: one admitted before the flag has its stream.
            if self.state.withLock({ $0.streams.isEmpty }) { self.closeOnceDrained() }
        }
    }

    /// Fails every call still running with UNAVAILABLE and closes the connection.
    func abort(reason: String) {
        let streams = state.withLock { Array($0.streams.values) }
        for stream in streams {
            stream.fail(RPCError(code: .unavailable, message: reason, reason: .unavailable))
        }
        channel.close(promise: nil)
    }

    /// Returns when no handler task of this connection is running.
    func waitForTasks() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.runningTasks == 0 { return true }
                state.drained.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// A framing violation or a channel error: logged; the channel is closed after it.
    func channelFailed(_ error: any Error) {
        if let violation = error as? ProtocolViolation {
            logger.notice("closing connection: \(violation.description)")
        } else if !(error is ChannelError) {
            logger.debug("connection error: \(error)")
        }
    }

    /// The channel closed: every call ends, handlers are cancelled.
    func channelClosed() {
        let (streams, admitted): ([ServerStream], Tenant?) = state.withLock { state in
            state.closed = true
            defer { state.admitted = false }
            return (Array(state.streams.values), state.admitted ? state.tenant : nil)
        }
        if let admitted { ledger.releaseConnection(admitted) }
        writability.close()
        for stream in streams {
            stream.fail(RPCError(code: .unavailable, message: "connection closed", reason: .unavailable))
        }
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard state.runningTasks == 0 else { return [] }
            defer { state.drained = [] }
            return state.drained
        }
        for waiter in waiters { waiter.resume() }
    }
}

import Foundation
