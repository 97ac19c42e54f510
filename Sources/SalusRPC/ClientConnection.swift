import NIOCore
import SalusProto
import Synchronization

/// The client side of one connection: allocates odd, increasing stream ids, routes frames
/// to calls, and fails every call when the connection goes away.
final class ClientConnection: FrameConnection {
    let channel: any Channel
    let writability = WritabilityGate()
    let executor: EventLoopExecutor

    private struct State {
        var nextStreamID: UInt32 = 1
        var streams: [UInt32: ClientStream] = [:]
        var flowControl: (send: Int, receive: Int)?
        /// Whether the server honours Cancel frames ("cancel" confirmed in Hello).
        var cancel = false
        /// The server's GoAway: the last stream it serves, and what later calls fail with.
        var goAway: (lastStreamID: UInt32, error: RPCError)?
        /// The refusal a GoAway carried (a connection cap): every call on the connection that
        /// the server did not answer fails with it, also one made after the close.
        var refusal: RPCError?
        var closedError: RPCError?
        /// Request frames queued for the event loop and not yet written.
        var queuedOpens = 0
    }

    private let state = Mutex(State())
    /// Streams given messages during the current read whose readers are still to be woken
    /// (event loop only).
    private let readersToWake = Mutex<[ClientStream]>([])

    /// The byte budget and most credits of each stream's receive window (``ReceiveWindow``).
    let streamWindow: (bytes: Int, credits: Int)

    init(channel: any Channel, streamWindow: (bytes: Int, credits: Int) = (0, 0)) {
        self.channel = channel
        self.streamWindow = streamWindow
        self.executor = EventLoopExecutor(eventLoop: channel.eventLoop)
    }

    /// Turns on the extensions the server confirmed in Hello.
    func enableExtensions(_ hello: Salus_V1_HelloResponse) {
        let features = HelloFeatures(names: hello.features)
        state.withLock { state in
            state.cancel = features.contains(.cancel)
            if features.contains(.windowUpdate) {
                state.flowControl = (send: Int(hello.limits.receiveWindow), receive: Int(hello.limits.initialWindow))
            }
        }
    }

    /// Opens a stream and sends its Request frame.
    ///
    /// Request frames must reach the server in the order of their ids. Callers off the event
    /// loop queue their frame while holding the lock that hands out ids; a caller on the event
    /// loop writes at once, unless frames queued before it are still waiting.
    func open(request: Salus_V1_Request, flags: FrameFlags) throws -> ClientStream {
        let payload = try encodeMessage(request)
        if payload.readableBytes > WireLimits.maxFramePayload {
            throw RPCError(
                code: .resourceExhausted,
                message: "request of \(payload.readableBytes) bytes exceeds the 4 MiB frame limit",
                reason: .resourceExhausted
            )
        }
        let onLoop = channel.eventLoop.inEventLoop
        let (stream, inline): (ClientStream, Frame?) = try state.withLock { state in
            if let error = state.refusal ?? state.closedError ?? state.goAway?.error { throw error }
            guard state.nextStreamID < UInt32.max - 2 else {
                throw RPCError(code: .unavailable, message: "stream ids of this connection are used up; reconnect", reason: .unavailable)
            }
            let id = state.nextStreamID
            state.nextStreamID += 2
            let stream = ClientStream(id: id, connection: self, flowControl: state.flowControl)
            state.streams[id] = stream
            let frame = Frame(streamID: id, type: .request, flags: flags, payload: payload)
            if onLoop && state.queuedOpens == 0 { return (stream, frame) }
            state.queuedOpens += 1
            channel.eventLoop.execute {
                self.channel.writeAndFlush(frame, promise: nil)
                self.state.withLock { $0.queuedOpens -= 1 }
            }
            return (stream, nil)
        }
        if let inline { channel.writeAndFlush(inline, promise: nil) }
        return stream
    }

    func streamEnded(_ id: UInt32) {
        _ = state.withLock { $0.streams.removeValue(forKey: id) }
    }

    func sendCancel(streamID: UInt32) {
        guard state.withLock({ $0.cancel }) else { return }
        write(Frame(streamID: streamID, type: .cancel))
    }

    // MARK: Event loop

    func receive(_ inbound: InboundFrame) {
        guard case .frame(let frame) = inbound else {
            if case .oversized(let streamID, _, let length) = inbound {
                stream(streamID)?.finish(.failure(RPCError(
                    code: .resourceExhausted,
                    message: "the server sent a frame of \(length) bytes, over the 4 MiB limit",
                    reason: .resourceExhausted
                )))
            }
            return
        }
        if frame.type == .goAway {
            let goAway = (try? decodeMessage(Salus_V1_GoAway.self, from: frame.payload)) ?? Salus_V1_GoAway()
            let refusal = goAway.hasStatus && goAway.status.code != 0 ? RPCError(status: goAway.status) : nil
            let error = refusal ?? RPCError(code: .unavailable, message: "the server is going away: \(goAway.reason)", reason: .unavailable)
            let later: [ClientStream] = state.withLock { state in
                state.goAway = (goAway.lastStreamID, error)
                if state.refusal == nil { state.refusal = refusal }
                return state.streams.filter { $0.key > goAway.lastStreamID }.map(\.value)
            }
            for stream in later { stream.finish(.failure(error)) }
            return
        }
        if let stream = stream(frame.streamID), stream.receive(frame) {
            readersToWake.withLock { $0.append(stream) }
        }
    }

    /// The read ended: each stream that got messages in it wakes its reader, once.
    func readComplete() {
        let streams = readersToWake.withLock { pending -> [ClientStream] in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        for stream in streams { stream.wakeReader() }
    }

    private func stream(_ id: UInt32) -> ClientStream? {
        state.withLock { $0.streams[id] }
    }

    /// Whether the server announced that it is going away.
    var isGoingAway: Bool { state.withLock { $0.goAway != nil } }

    func channelClosed() {
        closed(error: RPCError(code: .unavailable, message: "the connection to the server closed", reason: .unavailable))
    }

    func channelFailed(_ error: any Error) {
        closed(error: RPCError(code: .unavailable, message: "connection error: \(error)", reason: .unavailable))
    }

    func closed(error: RPCError) {
        let (streams, error): ([ClientStream], RPCError) = state.withLock { state in
            if state.closedError == nil { state.closedError = error }
            return (Array(state.streams.values), state.refusal ?? error)
        }
        writability.close()
        for stream in streams { stream.finish(.failure(error)) }
    }
}
