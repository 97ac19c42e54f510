import Logging
import NIOCore
import SalusProto
import Synchronization
import SwiftProtobuf

/// The call as the type-erased handler sees it.
final class ServerCall: Sendable {
    let context: ServerContext
    let requestPayload: ByteBuffer
    let stream: ServerStream

    init(context: ServerContext, requestPayload: ByteBuffer, stream: ServerStream) {
        self.context = context
        self.requestPayload = requestPayload
        self.stream = stream
    }

    func decode<M: SwiftProtobuf.Message>(_ type: M.Type, from buffer: ByteBuffer) throws(RPCError) -> M {
        try SalusRPC.decodeRequest(type, from: buffer)
    }

    /// A decoded request over this many bytes, by ``DecodingBudget``'s estimate, counts against
    /// its app's buffered bytes while its call lasts: 64 KiB (the 256 calls an app may have
    /// hold up to 16 MiB of smaller ones).
    static let countedRequestBytes = 64 << 10

    /// Decodes the call's request, which its handler holds until it returns: refused past the
    /// decoding budget, and counted against the app's buffered bytes for the call's life when
    /// over ``countedRequestBytes`` (RESOURCE_EXHAUSTED naming `bufferedBytesPerApp` past the
    /// cap: an app holding many calls with large requests would otherwise hold memory no cap sees).
    func decodeRequest<M: SwiftProtobuf.Message>(_ type: M.Type) throws(RPCError) -> M {
        let estimate = requestPayload.withUnsafeReadableBytes { DecodingBudget.estimate(M.self, $0) }
        switch estimate {
        case .over(let bytes, let field):
            throw decodingBudgetError(
                M.self, payloadBytes: requestPayload.readableBytes, estimate: bytes, field: field, limit: DecodingBudget.defaultLimit)
        case .within(let bytes):
            if bytes > Self.countedRequestBytes {
                try stream.budget.reserve(bytes, what: "a decoded \(M.protoMessageName)")
            }
        }
        return try decodeMessage(M.self, from: requestPayload)
    }

    func nextInbound() async throws -> ByteBuffer? {
        try await stream.nextInbound()
    }
}

/// One call on a server connection: its credits, its inbound messages, its handler task and
/// the single Response that ends it.
final class ServerStream: Sendable {
    let id: UInt32
    let kind: MethodDescriptor.Kind
    private let connection: ServerConnection
    /// Credits for the Data frames this side sends.
    let outbound: CreditGate
    /// Messages the client streams (client-streaming and bidirectional calls).
    private let inbound = AsyncQueue<ByteBuffer>()
    /// The most messages buffered for the handler before the stream fails.
    private let inboundLimit: Int
    /// The most bytes of messages buffered for the handler before the stream fails.
    private let inboundByteLimit: Int
    /// The bytes the call holds against its app's buffered-bytes cap: messages the client sent
    /// that the handler has not read, and what the handler reserves itself.
    let budget: CallBudget

    private struct State {
        var finished = false
        var task: Task<Void, Never>?
        var deadline: Scheduled<Void>?
        var window: ReceiveWindow?
        var inboundClosed = false
        /// A credit taken by ``reserveCredit()`` and not yet used by ``send(_:)``.
        var heldCredit = false
        /// Bytes of client messages queued for the handler and not yet read.
        var unreadBytes = 0
    }

    private let state: Mutex<State>

    /// `inboundLimit` and `inboundByteLimit` bound the unread messages of a stream without
    /// flow control; with it, the window does: at most `receive` messages, each at most a frame.
    init(
        id: UInt32, kind: MethodDescriptor.Kind, connection: ServerConnection, flowControl: (send: Int, receive: Int)?, inboundLimit: Int,
        inboundByteLimit: Int, budget: CallBudget
    ) {
        self.id = id
        self.budget = budget
        self.kind = kind
        self.connection = connection
        self.outbound = CreditGate(credits: flowControl?.send)
        self.inboundLimit = flowControl?.receive ?? inboundLimit
        self.inboundByteLimit = flowControl.map { $0.receive * WireLimits.maxFramePayload } ?? inboundByteLimit
        var state = State()
        state.window = flowControl.map { ReceiveWindow(size: $0.receive) }
        self.state = Mutex(state)
    }

    var isFinished: Bool { state.withLock { $0.finished } }

    func attach(task: Task<Void, Never>) {
        let cancelNow = state.withLock { state -> Bool in
            state.task = task
            return state.finished
        }
        if cancelNow { task.cancel() }
    }

    func attach(deadline: Scheduled<Void>) {
        let cancelNow = state.withLock { state -> Bool in
            state.deadline = deadline
            return state.finished
        }
        if cancelNow { deadline.cancel() }
    }

    // MARK: Inbound (event loop)

    /// A Data frame from the client.
    ///
    /// A message on a unary or server-streaming call fails the call, even though its inbound
    /// side closed when it started (its message came in the Request).
    func receiveData(_ frame: Frame) {
        if isFinished { return }
        if !frame.flags.contains(.noData) && !kind.clientStreams {
            fail(RPCError(
                code: .invalidArgument,
                message: "stream \(id): Data frame for a method that takes a single request",
                reason: .protocolViolation,
                field: "stream_id",
                value: "\(id)",
                expected: "no Data frames from the client on a unary or server-streaming call"
            ))
            return
        }
        let closed = state.withLock { $0.inboundClosed || $0.finished }
        if closed { return }
        if !frame.flags.contains(.noData) {
            do {
                try budget.reserve(frame.payload.readableBytes, what: "messages the server has not read yet")
            } catch {
                fail(error)
                return
            }
            let bytes = frame.payload.readableBytes
            let unread = state.withLock { state in
                state.unreadBytes += bytes
                return state.unreadBytes
            }
            connection.recordUnreadInbound(unread)
            if unread > inboundByteLimit {
                fail(RPCError(
                    code: .resourceExhausted,
                    message: "stream \(id): the client sent \(unread) bytes of messages the server had not read, more than \(inboundByteLimit)",
                    reason: .resourceExhausted,
                    field: "stream_id",
                    value: "\(id)",
                    expected: "at most \(inboundByteLimit) bytes of unread messages"
                ))
                return
            }
            if let count = inbound.push(frame.payload), count > inboundLimit {
                fail(RPCError(
                    code: .resourceExhausted,
                    message: "stream \(id): the client sent more than \(inboundLimit) messages the server had not read"
                        + (state.withLock { $0.window != nil } ? " (beyond the granted window)" : ""),
                    reason: .resourceExhausted,
                    field: "stream_id",
                    value: "\(id)",
                    expected: "at most \(inboundLimit) unread messages"
                ))
                return
            }
        }
        if frame.flags.contains(.remoteClosed) {
            state.withLock { $0.inboundClosed = true }
            inbound.finish()
        }
    }

    /// The client closed its side without a Data frame (unary and server-streaming calls).
    func closeInbound() {
        state.withLock { $0.inboundClosed = true }
        inbound.finish()
    }

    func nextInbound() async throws -> ByteBuffer? {
        let message = try await inbound.next()
        if let message {
            budget.release(message.readableBytes)
            let grant: Int = state.withLock { state in
                state.unreadBytes = max(0, state.unreadBytes - message.readableBytes)
                guard !state.finished else { return 0 }
                return state.window?.consume() ?? 0
            }
            if grant > 0 { connection.sendWindowUpdate(streamID: id, credits: grant) }
        }
        return message
    }

    // MARK: Outbound

    /// Waits for a credit and for room in the outbound buffer, and keeps the credit for the next
    /// ``send(_:)``; a second call before that send waits for nothing more.
    func reserveCredit() async throws {
        if isFinished { throw CancellationError() }
        if !state.withLock({ $0.heldCredit }) {
            try await outbound.acquire()
            state.withLock { $0.heldCredit = true }
        }
        try await connection.writability.waitUntilWritable()
        if isFinished { throw CancellationError() }
    }

    /// Sends one Data frame, waiting for credit (unless ``reserveCredit()`` holds one) and for
    /// room in the outbound buffer.
    /// `heldBytes`: bytes the handler reserved for this payload (`RPCWriter.reserveHeld`), released as
    /// the payload's own are counted.
    func send(_ payload: ByteBuffer, releasing heldBytes: Int = 0) async throws {
        if isFinished { throw CancellationError() }
        if payload.readableBytes > WireLimits.maxFramePayload {
            throw RPCError.oversizedMessage(bytes: payload.readableBytes, what: "stream message")
        }
        let held = state.withLock { state -> Bool in
            defer { state.heldCredit = false }
            return state.heldCredit
        }
        if !held { try await outbound.acquire() }
        try await connection.writability.waitUntilWritable()
        if isFinished { throw CancellationError() }
        // Counted until the socket has taken it: a client that never reads holds at most the
        // cap, not whatever its calls produce.
        let bytes = payload.readableBytes
        let ledger = budget.ledger
        let tenant = budget.tenant
        if heldBytes > 0 { budget.release(heldBytes) }
        if let error = ledger.reserve(bytes, for: tenant, what: "responses the client has not read") { throw error }
        connection.writeData(Frame(streamID: id, type: .data, payload: payload)) {
            ledger.release(bytes, for: tenant)
        }
    }

    /// Ends the call with the handler's outcome.
    func complete(with result: Result<ByteBuffer?, any Error>) {
        switch result {
        case .success(let payload):
            var response = Salus_V1_Response()
            response.status = Google_Rpc_Status()
            if let payload {
                if payload.readableBytes > WireLimits.maxFramePayload - 64 {
                    fail(RPCError(
                        code: .resourceExhausted,
                        message: "response of \(payload.readableBytes) bytes exceeds the 4 MiB frame limit; large results are streamed",
                        reason: .resourceExhausted
                    ))
                    return
                }
                response.payload = Data(payload.readableBytesView)
            }
            finish(response)
        case .failure(let error):
            fail(Self.rpcError(for: error))
        }
    }

    static func rpcError(for error: any Error) -> RPCError {
        switch error {
        case let error as RPCError: error
        case is CancellationError: RPCError(code: .cancelled, message: "the call was cancelled", reason: .cancelled)
        default: RPCError(code: .internal, message: "internal error: \(error)", reason: .internal)
        }
    }

    /// Ends the call with `error` and cancels the handler if it still runs.
    func fail(_ error: RPCError) {
        var response = Salus_V1_Response()
        response.status = error.status
        finish(response)
    }

    private func finish(_ response: Salus_V1_Response) {
        let ending: (task: Task<Void, Never>?, deadline: Scheduled<Void>?)? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            state.unreadBytes = 0
            return (state.task, state.deadline)
        }
        guard let ending else { return }
        let task = ending.task
        let deadline = ending.deadline
        deadline?.cancel()
        outbound.close(CancellationError())
        inbound.fail(CancellationError())
        connection.write(Frame(streamID: id, type: .response, payload: (try? encodeMessage(response)) ?? ByteBuffer()))
        connection.streamFinished(id)
        if response.status.code != 0 { task?.cancel() }
    }
}

import Foundation
