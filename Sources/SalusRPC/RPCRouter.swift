import NIOCore
import SalusProto
import SwiftProtobuf

/// The methods a listener serves, registered with typed handlers.
///
/// Handlers run on their connection's event loop unless registered with `onEventLoop: false`:
/// one that may block or compute for long (decoding large batches, waiting on a database
/// thread is fine) should opt out, so it does not hold up other connections on that loop.
///
/// Requests are decoded before a handler runs: a payload that does not decode fails the call
/// with INVALID_ARGUMENT naming the message type, and the handler is not called.
package struct RPCRouter: Sendable {
    struct Entry: Sendable {
        var kind: MethodDescriptor.Kind
        /// Run on the connection's event loop (no thread hop) or on the global executor.
        var onEventLoop: Bool
        var handler: @Sendable (ServerCall) async throws -> ByteBuffer?
    }

    private(set) var services: [String: [String: Entry]] = [:]

    package init() {}

    /// Every registered method, by service, sorted by name.
    package var methods: [(service: String, methods: [(name: String, kind: MethodDescriptor.Kind)])] {
        services.keys.sorted().map { service in
            (service, services[service]!.keys.sorted().map { ($0, services[service]![$0]!.kind) })
        }
    }

    func entry(service: String, method: String) -> Entry? {
        services[service]?[method]
    }

    func hasService(_ service: String) -> Bool { services[service] != nil }

    private mutating func add(_ method: MethodDescriptor, _ entry: Entry) {
        services[method.service, default: [:]][method.method] = entry
    }

    /// Registers a method that takes one request and returns one response.
    package mutating func registerUnary<Request, Response>(
        _ method: UnaryMethod<Request, Response>,
        onEventLoop: Bool = true,
        handler: @escaping @Sendable (Request, ServerContext) async throws -> Response
    ) {
        add(method.descriptor, Entry(kind: .unary, onEventLoop: onEventLoop) { call in
            let request = try call.decodeRequest(Request.self)
            return try encodeMessage(try await handler(request, call.context))
        })
    }

    /// Registers a method that takes one request, handed to `handler` as its encoded payload,
    /// and returns one response: for a handler that reads part of a large request before, or
    /// instead of, decoding it whole. It decodes with ``decodeMessage(_:from:)`` to answer
    /// as any other method would.
    package mutating func registerUnary<Request, Response>(
        _ method: UnaryMethod<Request, Response>,
        onEventLoop: Bool = true,
        payload handler: @escaping @Sendable (ByteBuffer, ServerContext) async throws -> Response
    ) {
        add(method.descriptor, Entry(kind: .unary, onEventLoop: onEventLoop) { call in
            try encodeMessage(try await handler(call.requestPayload, call.context))
        })
    }

    /// Registers a method like ``registerUnary(_:onEventLoop:payload:)`` whose handler returns
    /// its response already encoded, the bytes of a `Response`: for a large response written
    /// straight from the values it reports (a save's results), with no message built first.
    package mutating func registerUnary<Request, Response>(
        _ method: UnaryMethod<Request, Response>,
        onEventLoop: Bool = true,
        encoded handler: @escaping @Sendable (ByteBuffer, ServerContext) async throws -> ByteBuffer
    ) {
        add(method.descriptor, Entry(kind: .unary, onEventLoop: onEventLoop) { call in
            try await handler(call.requestPayload, call.context)
        })
    }

    /// Registers a method that takes one request and streams responses.
    package mutating func registerServerStreaming<Request, Response>(
        _ method: ServerStreamingMethod<Request, Response>,
        onEventLoop: Bool = true,
        handler: @escaping @Sendable (Request, RPCWriter<Response>, ServerContext) async throws -> Void
    ) {
        add(method.descriptor, Entry(kind: .serverStreaming, onEventLoop: onEventLoop) { call in
            let request = try call.decodeRequest(Request.self)
            try await handler(request, RPCWriter(stream: call.stream), call.context)
            return nil
        })
    }

    /// Registers a method that takes a stream of requests and returns one response.
    package mutating func registerClientStreaming<Request, Response>(
        _ method: ClientStreamingMethod<Request, Response>,
        onEventLoop: Bool = true,
        handler: @escaping @Sendable (RPCRequestStream<Request>, ServerContext) async throws -> Response
    ) {
        add(method.descriptor, Entry(kind: .clientStreaming, onEventLoop: onEventLoop) { call in
            try encodeMessage(try await handler(RPCRequestStream(call: call), call.context))
        })
    }

    /// Registers a method where both sides stream.
    package mutating func registerBidirectionalStreaming<Request, Response>(
        _ method: BidirectionalMethod<Request, Response>,
        onEventLoop: Bool = true,
        handler: @escaping @Sendable (RPCRequestStream<Request>, RPCWriter<Response>, ServerContext) async throws -> Void
    ) {
        add(method.descriptor, Entry(kind: .bidirectionalStreaming, onEventLoop: onEventLoop) { call in
            try await handler(RPCRequestStream(call: call), RPCWriter(stream: call.stream), call.context)
            return nil
        })
    }
}

/// Encodes a message into a buffer.
package func encodeMessage(_ message: some SwiftProtobuf.Message) throws -> ByteBuffer {
    let bytes: [UInt8] = try message.serializedBytes()
    return ByteBuffer(bytes: bytes)
}

/// Decodes a message from a buffer, or fails with INVALID_ARGUMENT naming the message type.
package func decodeMessage<M: SwiftProtobuf.Message>(_ type: M.Type, from buffer: ByteBuffer) throws(RPCError) -> M {
    do {
        return try buffer.withUnsafeReadableBytes { raw in
            try M(serializedBytes: Array(raw))
        }
    } catch {
        throw decodingError(M.self, error, payloadBytes: buffer.readableBytes)
    }
}

/// Decodes a request from a client, or fails: with RESOURCE_EXHAUSTED, before decoding any of it,
/// when its bytes would take more than `limit` bytes of memory once decoded (by
/// ``DecodingBudget``'s estimate: two bytes make an empty nested message, which decodes into
/// tens or hundreds), and with INVALID_ARGUMENT when it does not decode.
package func decodeRequest<M: SwiftProtobuf.Message>(
    _ type: M.Type, from buffer: ByteBuffer, limit: Int = DecodingBudget.defaultLimit
) throws(RPCError) -> M {
    try checkDecodingBudget(type, of: buffer, limit: limit)
    return try decodeMessage(type, from: buffer)
}

/// Fails with RESOURCE_EXHAUSTED when `buffer` would take more than `limit` bytes of memory once
/// decoded as `M`, by ``DecodingBudget``'s estimate, naming the field where it went past.
package func checkDecodingBudget<M: SwiftProtobuf.Message>(
    _ type: M.Type, of buffer: ByteBuffer, limit: Int = DecodingBudget.defaultLimit
) throws(RPCError) {
    let estimate = buffer.withUnsafeReadableBytes { DecodingBudget.estimate(M.self, $0, limit: limit) }
    if case .over(let bytes, let field) = estimate {
        throw decodingBudgetError(M.self, payloadBytes: buffer.readableBytes, estimate: bytes, field: field, limit: limit)
    }
}

/// The error of a `payloadBytes`-byte `M` whose estimate reached `estimate` bytes, past `limit`,
/// at `field`.
package func decodingBudgetError<M: SwiftProtobuf.Message>(
    _ type: M.Type, payloadBytes: Int, estimate: Int, field: String, limit: Int
) -> RPCError {
    let path = field.isEmpty ? "" : " at \(field)"
    return RPCError(
        code: .resourceExhausted,
        message: "\(M.protoMessageName) of \(payloadBytes) bytes would take more than \(limit >> 20) MiB of memory once decoded "
            + "(its nested messages and lists reached an estimated \(estimate) bytes\(path)); send fewer or larger elements",
        reason: .resourceExhausted,
        field: field.isEmpty ? "payload" : field,
        value: "\(payloadBytes) bytes, an estimated \(estimate) bytes decoded",
        expected: "at most \(limit >> 20) MiB decoded"
    )
}

/// The error of a `payloadBytes`-byte payload that does not decode as `M`, SwiftProtobuf having
/// said `error`: what ``decodeMessage(_:from:)`` throws.
package func decodingError<M: SwiftProtobuf.Message>(_ type: M.Type, _ error: any Error, payloadBytes: Int) -> RPCError {
    RPCError(
        code: .invalidArgument,
        message: "\(M.protoMessageName) does not decode: \(error)",
        reason: .malformedMessage,
        field: "payload",
        value: "\(payloadBytes) bytes",
        expected: "an encoded \(M.protoMessageName)"
    )
}

/// Sends the response messages of a streaming call. Each write waits for flow-control
/// credit and for room in the connection's outbound buffer, so a slow reader slows the
/// handler instead of growing memory.
package struct RPCWriter<Message: SwiftProtobuf.Message>: Sendable {
    let stream: ServerStream

    /// Sends one message; throws when the call has ended (cancelled, deadline, closed).
    package func write(_ message: Message) async throws {
        try await stream.send(try encodeMessage(message))
    }

    /// Sends one message read while `held` bytes of the call's were counted for it
    /// (``reserveHeld(_:)``): they are released as the message's own bytes are counted, once it
    /// may be sent, so what waits for the client stays counted throughout, and once.
    package func write(_ message: Message, releasing held: Int) async throws {
        try await stream.send(try encodeMessage(message), releasing: held)
    }

    /// Counts `bytes` that the handler holds for this call before it sends them (a page read
    /// ahead of the client) against the app's buffered-bytes cap, until a write releases them
    /// (``writeSerialized(_:releasing:)``) or the handler returns. Throws RESOURCE_EXHAUSTED
    /// naming `bufferedBytesPerApp` when the app would pass it.
    package func reserveHeld(_ bytes: Int) throws(RPCError) {
        try stream.budget.reserve(bytes, what: "pages read for the client before it takes them")
    }

    /// Releases `bytes` reserved with ``reserveHeld(_:)`` for something the handler will not send.
    package func releaseHeld(_ bytes: Int) {
        stream.budget.release(bytes)
    }

    /// Sends one message already serialized (the bytes of a `Message`, written by a lean
    /// encoder that the caller has checked against SwiftProtobuf's form); same flow control as
    /// `write(_:)`. `buffer` becomes the Data frame's payload, not copied.
    package func writeSerialized(_ buffer: ByteBuffer, releasing held: Int = 0) async throws {
        try await stream.send(buffer, releasing: held)
    }

    /// Sends `elements` as the repeated message field `field` of `Message`, in order, in as many
    /// messages as it takes for each to hold at most `frameBytes` of elements (one element
    /// past it goes alone). For a `Message` whose only field set is that one (`SampleBatch`), the
    /// bytes are SwiftProtobuf's: each element serialized once, with its tag and length.
    package func writeRepeated<Element: SwiftProtobuf.Message>(
        _ elements: [Element], field: Int, frameBytes: Int
    ) async throws {
        var frame = ByteBuffer()
        let tag = UInt64(field) << 3 | 2  // length-delimited
        func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                frame.writeInteger(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            frame.writeInteger(UInt8(value))
        }
        for element in elements {
            let bytes: [UInt8] = try element.serializedBytes()
            if frame.readableBytes > 0 && frame.readableBytes + bytes.count > frameBytes {
                try await stream.send(frame)
                frame = ByteBuffer()
            }
            varint(tag)
            varint(UInt64(bytes.count))
            frame.writeBytes(bytes)
        }
        if frame.readableBytes > 0 { try await stream.send(frame) }
    }

    /// Waits until the stream may send one more message (a credit, room in the outbound buffer)
    /// and keeps that credit for the next write. A handler calls it before reading what it will
    /// send, so that a reader that grants nothing holds back the database, not memory
    /// (docs/protocol.md section 7). Throws when the call has ended.
    package func waitUntilSendable() async throws {
        try await stream.reserveCredit()
    }
}

/// The request messages of a client-streaming or bidirectional call.
package struct RPCRequestStream<Message: SwiftProtobuf.Message>: AsyncSequence, Sendable {
    package typealias Element = Message
    let call: ServerCall

    package struct AsyncIterator: AsyncIteratorProtocol {
        let call: ServerCall

        package mutating func next() async throws -> Message? {
            guard let buffer = try await call.nextInbound() else { return nil }
            return try call.decode(Message.self, from: buffer)
        }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(call: call) }
}
