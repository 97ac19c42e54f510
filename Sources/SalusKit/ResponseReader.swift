import NIOCore
import SalusRPC
import SwiftProtobuf

/// The messages of one server-streaming call as bytes, read one at a time, with every failure
/// as a ``SalusError``: what readers that decode pages themselves read from (samples and
/// anchored batches, ``SamplePageDecoder``), and what ``ResponseReader`` decodes.
///
/// A call that could not start fails on the first read. After the end or a failure, reads
/// return nil. Dropping the reader before the end cancels the call on the daemon.
struct ByteResponseReader {
    /// Kept so that the call lives as long as the reader.
    private let stream: RPCResponseBytes?
    private var messages: RPCResponseBytes.AsyncIterator?
    private var failure: SalusError?

    /// Starts `method` with `request` on `store`'s connection.
    init<Request, Response>(store: HealthStore, method: ServerStreamingMethod<Request, Response>, request: Request) {
        do {
            let stream = try store.client.serverStreamingBytes(method, request: request)
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

    /// Ends the reader: later reads return nil.
    mutating func finish() {
        messages = nil
    }
}

/// The messages of one server-streaming call, decoded with the generated code, one at a time;
/// the same rules as ``ByteResponseReader`` (a message that does not decode ends the reader).
struct ResponseReader<Message: SwiftProtobuf.Message> {
    private var bytes: ByteResponseReader

    /// Starts `method` with `request` on `store`'s connection.
    init<Request>(store: HealthStore, method: ServerStreamingMethod<Request, Message>, request: Request) {
        bytes = ByteResponseReader(store: store, method: method, request: request)
    }

    /// A reader that fails with `failure` on the first read, without calling the daemon.
    init(failing failure: SalusError) {
        bytes = ByteResponseReader(failing: failure)
    }

    /// The next message, or nil when the call has ended.
    mutating func next() async throws(SalusError) -> Message? {
        guard let buffer = try await bytes.next() else { return nil }
        do {
            return try decodeMessage(Message.self, from: buffer)
        } catch {
            bytes.finish()
            throw SalusError.from(error)
        }
    }
}
