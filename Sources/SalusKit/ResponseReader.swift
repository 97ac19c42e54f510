import NIOCore
import SalusRPC
import SwiftProtobuf

/// The messages of one server-streaming call, read one at a time, with every failure as a
/// ``SalusError``: what each descriptor's async iterator reads from.
///
/// A call that could not start fails on the first read. After the end or a failure, reads
/// return nil. Dropping the reader before the end cancels the call on the daemon.
struct ResponseReader<Message: SwiftProtobuf.Message> {
    /// Kept so that the call lives as long as the reader.
    private let stream: RPCResponseStream<Message>?
    private var messages: RPCResponseStream<Message>.AsyncIterator?
    private var failure: SalusError?

    /// Starts `method` with `request` on `store`'s connection.
    init(store: HealthStore, method: MethodDescriptor, request: some SwiftProtobuf.Message) {
        do {
            let stream = try store.client.serverStreaming(method, request: request, responseType: Message.self)
            self.stream = stream
            messages = stream.makeAsyncIterator()
        } catch {
            stream = nil
            failure = SalusError.from(error)
        }
    }

    /// A reader that fails with `failure` on the first read, without calling the daemon.
    init(failing failure: SalusError) {
        stream = nil
        self.failure = failure
    }

    /// Whether the call has ended (or failed): reads return nil.
    var isFinished: Bool { messages == nil && failure == nil }

    /// The next message, or nil when the call has ended.
    mutating func next() async throws(SalusError) -> Message? {
        if let failure {
            self.failure = nil
            throw failure
        }
        do {
            guard let message = try await messages?.next() else {
                messages = nil
                return nil
            }
            return message
        } catch {
            messages = nil
            throw SalusError.from(error)
        }
    }
}

/// The messages of one server-streaming call as bytes, for a reader that decodes them itself;
/// the same rules as ``ResponseReader``.
struct ByteResponseReader {
    /// Kept so that the call lives as long as the reader.
    private let stream: RPCResponseBytes?
    private var messages: RPCResponseBytes.AsyncIterator?
    private var failure: SalusError?

    /// Starts `method` with `request` on `store`'s connection.
    init(store: HealthStore, method: MethodDescriptor, request: some SwiftProtobuf.Message) {
        do {
            let stream = try store.client.serverStreamingBytes(method, request: request)
            self.stream = stream
            messages = stream.makeAsyncIterator()
        } catch {
            stream = nil
            failure = SalusError.from(error)
        }
    }

    /// The next message's bytes, or nil when the call has ended.
    mutating func next() async throws(SalusError) -> ByteBuffer? {
        if let failure {
            self.failure = nil
            throw failure
        }
        do {
            guard let message = try await messages?.next() else {
                messages = nil
                return nil
            }
            return message
        } catch {
            messages = nil
            throw SalusError.from(error)
        }
    }
}
