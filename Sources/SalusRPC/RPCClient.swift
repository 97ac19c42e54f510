import Foundation
import NIOCore
import NIOPosix
import SalusProto
import SwiftProtobuf
import Synchronization

/// A connection to a Salus server with typed calls.
///
/// Many calls may run at once on one client. Cancelling the task of a call cancels the call on
/// the server (Cancel frame); a call's timeout is sent as its deadline and enforced here too.
package final class RPCClient: Sendable {
    /// How the client connects.
    package struct Configuration: Sendable {
        /// Call salus.v1.Session/Hello on connect, which enables cancel, flow control and GoAway.
        package var hello: Bool = true
        package var clientName = "SalusRPC"
        package var clientVersion = "0.1.0"
        /// An app id to declare in Hello (honoured only by a daemon in development mode).
        package var declaredAppID = ""
        /// Bytes of streamed messages one stream lets the server have in flight: a stream of
        /// small messages is granted credits beyond the window Hello announced, up to
        /// ``maximumStreamCredits``, so its reader grants less often. 0 keeps the announced window.
        package var streamWindowBytes = 1 << 20
        /// The most credits one stream keeps granted, however small its messages.
        package var maximumStreamCredits = 1024

        package init() {}
    }

    private let connection: ClientConnection
    /// The server's answer to Hello, when the client called it.
    package let serverHello: Salus_V1_HelloResponse?

    private init(connection: ClientConnection, serverHello: Salus_V1_HelloResponse?) {
        self.connection = connection
        self.serverHello = serverHello
    }

    /// Connects to the server listening on `path`.
    package static func connect(
        unixSocketPath path: String,
        configuration: Configuration = .init(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> RPCClient {
        let made = MadeConnection()
        let channel: any Channel
        do {
            channel = try await bootstrap(group: group, configuration: configuration, made: made).connect(unixDomainSocketPath: path).get()
        } catch {
            throw RPCError(code: .unavailable, message: "cannot connect to \(path): \(describeConnectFailure(error))", reason: .unavailable)
        }
        return try await start(channel: channel, made: made, configuration: configuration)
    }

    /// Why a connect failed, in words a person acts on: the system's reason and what it usually
    /// means for a Unix socket, without the event loop's function names.
    package static func describeConnectFailure(_ error: any Error) -> String {
        guard let io = error as? IOError else { return "\(error)" }
        let reason = String(cString: strerror(io.errnoCode)).lowercased()
        switch io.errnoCode {
        case ENOENT: return "\(reason) (no socket there: nothing is listening)"
        case ECONNREFUSED: return "\(reason) (the socket is there but nothing is listening: a daemon that stopped)"
        case EACCES, EPERM: return "\(reason) (the socket belongs to another user)"
        default: return reason
        }
    }

    /// Uses an already-connected socket descriptor (one end of a socketpair, or one a
    /// launcher handed over). The client owns the descriptor from then on.
    package static func connect(
        connectedSocket descriptor: CInt,
        configuration: Configuration = .init(),
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> RPCClient {
        let made = MadeConnection()
        let channel = try await bootstrap(group: group, configuration: configuration, made: made).withConnectedSocket(descriptor).get()
        return try await start(channel: channel, made: made, configuration: configuration)
    }

    /// The connection a bootstrap's initializer made, kept apart from the channel's pipeline: a
    /// server may close the channel (and the pipeline drop its handlers) before the client has
    /// started, and the connection still holds what the server said before closing (a refusal).
    private final class MadeConnection: Sendable {
        let connection = Mutex<ClientConnection?>(nil)
    }

    private static func bootstrap(group: any EventLoopGroup, configuration: Configuration, made: MadeConnection) -> ClientBootstrap {
        let budget = (bytes: configuration.streamWindowBytes, credits: configuration.maximumStreamCredits)
        return ClientBootstrap(group: group).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let connection = ClientConnection(channel: channel, streamWindow: budget)
                try connection.installHandlers()
                made.connection.withLock { $0 = connection }
            }
        }
    }

    private static func start(channel: any Channel, made: MadeConnection, configuration: Configuration) async throws -> RPCClient {
        let connection: ClientConnection
        do {
            connection = try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.handler(type: FrameConnectionHandler<ClientConnection>.self).connection
            }.get()
        } catch {
            // The server closed the connection before it was set up here (a refused connection
            // closed after its linger): its handlers are gone with it, but the connection they
            // fed kept what the server said before closing, which its calls then fail with.
            guard let made = made.connection.withLock({ $0 }) else {
                throw RPCError(code: .unavailable, message: "the server closed the connection as it was made: \(error)", reason: .unavailable)
            }
            connection = made
        }
        guard configuration.hello else { return RPCClient(connection: connection, serverHello: nil) }
        let plain = RPCClient(connection: connection, serverHello: nil)
        var hello = Salus_V1_HelloRequest()
        hello.protocolVersion = 1
        hello.clientName = configuration.clientName
        hello.clientVersion = configuration.clientVersion
        hello.features = HelloFeatures.offered.map(\.name)
        hello.appID = configuration.declaredAppID
        do {
            let response: Salus_V1_HelloResponse = try await plain.unary(
                SalusMethods.Session.hello, request: hello
            )
            connection.enableExtensions(response)
            return RPCClient(connection: connection, serverHello: response)
        } catch {
            try? await channel.close()
            throw error
        }
    }

    /// The executor of this connection's event loop. Code that runs its calls under
    /// `withTaskExecutorPreference(client.executor)` (or in tasks created with it) writes and
    /// reads without thread hops, the lowest latency this client offers. Such code must not
    /// block.
    package var executor: any TaskExecutor { connection.executor }

    /// Whether the server has said it is shutting down; new calls fail with UNAVAILABLE.
    package var isGoingAway: Bool { connection.isGoingAway }

    /// Closes the connection; calls still running fail with UNAVAILABLE.
    package func close() async {
        try? await connection.channel.close()
    }

    // MARK: Calls

    private func open(_ method: MethodDescriptor, payload: Data, flags: FrameFlags, options: CallOptions) throws -> ClientStream {
        var request = Salus_V1_Request()
        request.service = method.service
        request.method = method.method
        request.payload = payload
        request.timeoutNano = options.timeoutNanoseconds
        request.metadata = options.metadata.keyValues
        if options.metadata.size > WireLimits.maxMetadataSize {
            throw RPCError(
                code: .resourceExhausted,
                message: "request metadata of \(options.metadata.size) bytes exceeds the 8 KiB limit",
                reason: .resourceExhausted
            )
        }
        let stream = try connection.open(request: request, flags: flags)
        if let timeout = options.timeout {
            let scheduled = connection.channel.eventLoop.scheduleTask(in: .nanoseconds(options.timeoutNanoseconds)) {
                guard !stream.isFinished else { return }
                self.connection.sendCancel(streamID: stream.id)
                stream.finish(.failure(RPCError(
                    code: .deadlineExceeded,
                    message: "\(method) did not finish within \(timeout)",
                    reason: .deadlineExceeded
                )))
            }
            stream.attach(deadline: scheduled)
        }
        return stream
    }

    /// Calls a unary method.
    package func unary<Request, Response>(
        _ method: UnaryMethod<Request, Response>,
        request: Request,
        options: CallOptions = .init()
    ) async throws -> Response {
        try await rawUnary(method.descriptor, request: request, responseType: Response.self, options: options)
    }

    /// Calls a server-streaming method. Iterate the returned sequence for the responses; it
    /// throws the call's error at the end. Dropping it unfinished cancels the call.
    package func serverStreaming<Request, Response>(
        _ method: ServerStreamingMethod<Request, Response>,
        request: Request,
        options: CallOptions = .init()
    ) throws -> RPCResponseStream<Response> {
        try rawServerStreaming(method.descriptor, request: request, responseType: Response.self, options: options)
    }

    /// Calls a client-streaming method: `body` writes the requests; the call's response is
    /// returned after `body` returns (which closes the request stream).
    package func clientStreaming<Request, Response>(
        _ method: ClientStreamingMethod<Request, Response>,
        options: CallOptions = .init(),
        body: (RPCClientWriter<Request>) async throws -> Void
    ) async throws -> Response {
        try await rawClientStreaming(method.descriptor, requestType: Request.self, responseType: Response.self, options: options, body: body)
    }

    /// Calls a bidirectional method: `body` gets a writer and the response stream; closing
    /// the writer (or returning) ends the requests. The call is cancelled if `body` throws or
    /// returns before the server has finished.
    package func bidirectionalStreaming<Request, Response, Result: Sendable>(
        _ method: BidirectionalMethod<Request, Response>,
        options: CallOptions = .init(),
        body: (RPCClientWriter<Request>, RPCResponseStream<Response>) async throws -> Result
    ) async throws -> Result {
        let stream = try open(method.descriptor, payload: Data(), flags: [.remoteOpen], options: options)
        let responses = RPCResponseStream<Response>(stream: stream)
        do {
            let result = try await body(RPCClientWriter(stream: stream), responses)
            stream.closeSend()
            responses.cancelIfUnfinished()
            return result
        } catch {
            responses.cancelIfUnfinished()
            throw error
        }
    }

    // MARK: Raw calls

    /// Calls `method` by name as a unary call with any request, decoding the response as
    /// `responseType`, whatever the method's kind or types: only for what must send a method
    /// what it does not expect (unknown methods, another kind, another message) to check the
    /// server's answer. Everything else calls ``unary(_:request:options:)`` with a typed method.
    package func rawUnary<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>(
        _ method: MethodDescriptor,
        request: Request,
        responseType: Response.Type,
        options: CallOptions = .init()
    ) async throws -> Response {
        let stream = try open(method, payload: try request.serializedBytes(), flags: [], options: options)
        let response = try await stream.response()
        guard response.status.code == 0 else { throw RPCError(status: response.status) }
        return try decodeMessage(Response.self, from: ByteBuffer(bytes: response.payload))
    }

    /// Calls `method` by name as a server-streaming call with any request and response types;
    /// only for what must send a method what it does not expect (see
    /// ``rawUnary(_:request:responseType:options:)``).
    package func rawServerStreaming<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>(
        _ method: MethodDescriptor,
        request: Request,
        responseType: Response.Type,
        options: CallOptions = .init()
    ) throws -> RPCResponseStream<Response> {
        let stream = try open(method, payload: try request.serializedBytes(), flags: [.remoteClosed], options: options)
        return RPCResponseStream(stream: stream)
    }

    /// Calls `method` by name as a client-streaming call with any request and response types;
    /// only for what must send a method what it does not expect (see
    /// ``rawUnary(_:request:responseType:options:)``).
    package func rawClientStreaming<Request: SwiftProtobuf.Message, Response: SwiftProtobuf.Message>(
        _ method: MethodDescriptor,
        requestType: Request.Type,
        responseType: Response.Type,
        options: CallOptions = .init(),
        body: (RPCClientWriter<Request>) async throws -> Void
    ) async throws -> Response {
        let stream = try open(method, payload: Data(), flags: [.remoteOpen], options: options)
        do {
            try await body(RPCClientWriter(stream: stream))
            stream.closeSend()
        } catch {
            if !stream.isFinished {
                stream.cancel()
                throw error
            }
        }
        let response = try await stream.response()
        guard response.status.code == 0 else { throw RPCError(status: response.status) }
        return try decodeMessage(Response.self, from: ByteBuffer(bytes: response.payload))
    }
}

/// Writes the request messages of a client-streaming or bidirectional call.
package struct RPCClientWriter<Message: SwiftProtobuf.Message>: Sendable {
    let stream: ClientStream

    /// Sends one message, waiting for flow-control credit.
    package func write(_ message: Message) async throws {
        try await stream.send(try encodeMessage(message))
    }

    /// Ends the requests; the server sees the end of its request stream.
    package func finish() {
        stream.closeSend()
    }
}

/// The responses of a streaming call, in order; throws the call's error at the end.
///
/// Dropping it before the end cancels the call on the server.
package final class RPCResponseStream<Message: SwiftProtobuf.Message>: AsyncSequence, Sendable {
    package typealias Element = Message
    /// The call's messages as bytes; it cancels the call when released.
    let bytes: RPCResponseBytes

    init(stream: ClientStream) {
        bytes = RPCResponseBytes(stream: stream)
    }

    /// Cancels the call if the server has not ended it.
    package func cancel() {
        bytes.stream.cancel()
    }

    func cancelIfUnfinished() {
        if !bytes.stream.isFinished { bytes.stream.cancel() }
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        var bytes: RPCResponseBytes.AsyncIterator

        package mutating func next() async throws -> Message? {
            guard let buffer = try await bytes.next() else { return nil }
            return try decodeMessage(Message.self, from: buffer)
        }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes.makeAsyncIterator()) }
}

extension RPCClient {
    /// Calls a server-streaming method and yields each response message's bytes undecoded, for
    /// a reader that decodes them itself (SalusKit's sample pages). Same rules as
    /// ``serverStreaming(_:request:options:)``.
    package func serverStreamingBytes<Request, Response>(
        _ method: ServerStreamingMethod<Request, Response>,
        request: Request,
        options: CallOptions = .init()
    ) throws -> RPCResponseBytes {
        let stream = try open(method.descriptor, payload: try request.serializedBytes(), flags: [.remoteClosed], options: options)
        return RPCResponseBytes(stream: stream)
    }
}

/// The responses of a server-streaming call as bytes, in order; throws the call's error at the
/// end. Dropping it before the end cancels the call on the server.
package final class RPCResponseBytes: AsyncSequence, Sendable {
    package typealias Element = ByteBuffer
    let stream: ClientStream

    init(stream: ClientStream) {
        self.stream = stream
    }

    deinit {
        stream.cancel()
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        let owner: RPCResponseBytes

        package mutating func next() async throws -> ByteBuffer? {
            try await owner.stream.nextMessage()
        }
    }

    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(owner: self) }
}
