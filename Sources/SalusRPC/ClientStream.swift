import NIOCore
import SalusProto
import Synchronization

/// One call on a client connection: the final Response, streamed messages, credits.
final class ClientStream: Sendable {
    let id: UInt32
    private let connection: ClientConnection
    /// Messages the server streams; finished with the call's error, if any.
    let inbound = AsyncQueue<ByteBuffer>()
    /// Credits for the Data frames this side sends.
    let outbound: CreditGate

    private struct State {
        var response: Result<Salus_V1_Response, RPCError>?
        var waiter: CheckedContinuation<Salus_V1_Response, any Error>?
        var window: ReceiveWindow?
        var deadline: Scheduled<Void>?
    }

    private let state: Mutex<State>

    init(id: UInt32, connection: ClientConnection, flowControl: (send: Int, receive: Int)?) {
        self.id = id
        self.connection = connection
        self.outbound = CreditGate(credits: flowControl?.send)
        var state = State()
        state.window = flowControl.map {
            ReceiveWindow(size: $0.receive, byteBudget: connection.streamWindow.bytes, maximumCredits: connection.streamWindow.credits)
        }
        self.state = Mutex(state)
    }

    var isFinished: Bool { state.withLock { $0.response != nil } }

    func attach(deadline: Scheduled<Void>) {
        let cancelNow = state.withLock { state -> Bool in
            state.deadline = deadline
            return state.response != nil
        }
        if cancelNow { deadline.cancel() }
    }

    // MARK: Inbound (event loop)

    /// Messages this large wake the reader at once; smaller ones wait for the end of the read.
    static let wakeNowBytes = 4096

    /// Takes one frame from the connection. Returns true when a small streamed message was
    /// queued without waking the reader: the connection then calls ``wakeReader()`` when its read
    /// ends, so a reader on another thread is scheduled once per read, not once per message. A
    /// large message (a page of samples) wakes the reader at once, so it starts on that page
    /// while the event loop reads the next.
    func receive(_ frame: Frame) -> Bool {
        switch frame.type {
        case .data:
            guard !frame.flags.contains(.noData) else { break }
            if frame.payload.readableBytes >= Self.wakeNowBytes {
                inbound.push(frame.payload)
            } else {
                return inbound.pushDeferringWake(frame.payload)
            }
        case .response:
            do {
                let response = try decodeMessage(Salus_V1_Response.self, from: frame.payload)
                finish(.success(response))
            } catch {
                finish(.failure(error))
            }
        case .windowUpdate:
            if let update = try? decodeMessage(Salus_V1_WindowUpdate.self, from: frame.payload) {
                outbound.grant(Int(update.credits))
            }
        default:
            break
        }
        return false
    }

    /// Wakes the reader for the messages queued by ``receive(_:)`` since the last call.
    func wakeReader() {
        inbound.wake()
    }

    /// Ends the call: with the server's Response, or locally with an error (deadline,
    /// cancellation, connection loss).
    func finish(_ result: Result<Salus_V1_Response, RPCError>) {
        let (waiter, deadline, first): (CheckedContinuation<Salus_V1_Response, any Error>?, Scheduled<Void>?, Bool) = state.withLock { state in
            guard state.response == nil else { return (nil, nil, false) }
            state.response = result
            defer {
                state.waiter = nil
                state.deadline = nil
            }
            return (state.waiter, state.deadline, true)
        }
        guard first else { return }
        deadline?.cancel()
        let error: RPCError?
        switch result {
        case .success(let response):
            error = response.status.code == 0 ? nil : RPCError(status: response.status)
        case .failure(let failure):
            error = failure
        }
        inbound.finish(throwing: error)
        outbound.close(error ?? RPCError(code: .failedPrecondition, message: "the call has ended"))
        connection.streamEnded(id)
        waiter?.resume(with: result.mapError { $0 as any Error })
    }

    // MARK: For the caller's task

    /// Waits for the final Response; cancelling the waiting task cancels the call.
    func response() async throws -> Salus_V1_Response {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Salus_V1_Response, any Error>) in
                let result: Result<Salus_V1_Response, RPCError>? = state.withLock { state in
                    if let response = state.response { return response }
                    state.waiter = continuation
                    return nil
                }
                if let result { continuation.resume(with: result.mapError { $0 as any Error }) }
            }
        } onCancel: {
            self.cancel()
        }
    }

    /// Cancels the call: tells the server (when it understands Cancel) and ends it here.
    func cancel() {
        guard !isFinished else { return }
        connection.sendCancel(streamID: id)
        finish(.failure(RPCError(code: .cancelled, message: "the call was cancelled", reason: .cancelled)))
    }

    /// The next streamed message; grants the server more credits as messages are consumed.
    func nextMessage() async throws -> ByteBuffer? {
        let message: ByteBuffer?
        do {
            message = try await inbound.next()
        } catch is CancellationError {
            cancel()
            throw CancellationError()
        }
        if message != nil {
            let grant: Int = state.withLock { state in
                guard state.response == nil else { return 0 }
                return state.window?.consume(bytes: message?.readableBytes ?? 0) ?? 0
            }
            if grant > 0 { connection.sendWindowUpdate(streamID: id, credits: grant) }
        }
        return message
    }

    /// Sends one message in a Data frame, waiting for credit.
    func send(_ payload: ByteBuffer) async throws {
        if payload.readableBytes > WireLimits.maxFramePayload {
            throw RPCError.oversizedMessage(bytes: payload.readableBytes)
        }
        try await outbound.acquire()
        try await connection.writability.waitUntilWritable()
        connection.write(Frame(streamID: id, type: .data, payload: payload))
    }

    /// Tells the server this side sends no more messages.
    func closeSend() {
        guard !isFinished else { return }
        connection.write(Frame(streamID: id, type: .data, flags: [.remoteClosed, .noData]))
    }
}
