import Logging
import Synchronization

/// What a listener is: a label and the facts every connection through it carries (for
/// example the app id of a per-app socket that a launcher created).
public struct ListenerInfo: Hashable, Sendable {
    /// "app", "admin", or a per-app label.
    public var label: String
    /// Facts about connections accepted here, set by whoever created the listener.
    public var attributes: [String: String]

    public init(label: String, attributes: [String: String] = [:]) {
        self.label = label
        self.attributes = attributes
    }
}

/// One connection as handlers see it: who connected (kernel credentials), through which
/// listener, and what the client declared in Hello.
public final class ConnectionContext: Sendable {
    /// A number unique within the server process.
    public let id: UInt64
    /// The peer's credentials, read at accept.
    public let peer: PeerCredentials
    public let listener: ListenerInfo
    private let hello = Mutex<HelloInfo?>(nil)

    init(id: UInt64, peer: PeerCredentials, listener: ListenerInfo) {
        self.id = id
        self.peer = peer
        self.listener = listener
    }

    /// What the client said in Hello, if it called it.
    public var helloRequest: HelloInfo? { hello.withLock { $0 } }

    func recordHello(_ snapshot: HelloInfo) {
        hello.withLock { $0 = snapshot }
    }
}

/// The parts of a client's Hello that outlive the call.
public struct HelloInfo: Hashable, Sendable {
    public var clientName: String
    public var clientVersion: String
    /// The app id the client declared; only a development-mode daemon honours it.
    public var declaredAppID: String
    public var features: [String]
}

/// Everything a handler knows about its call besides the request.
public struct ServerContext: Sendable {
    public let method: MethodDescriptor
    public let connection: ConnectionContext
    public let metadata: Metadata
    /// When the call's deadline passes, if it has one.
    public let deadline: ContinuousClock.Instant?
    /// The connection's logger; ``logger`` adds the stream and method.
    let connectionLogger: Logger

    /// A logger with the connection, stream and method as metadata (made when first asked
    /// for: most calls never log).
    public var logger: Logger {
        var logger = connectionLogger
        logger[metadataKey: "stream"] = "\(streamID)"
        logger[metadataKey: "method"] = "\(method)"
        return logger
    }
    /// The stream the call runs on.
    public let streamID: UInt32

    /// The peer's kernel credentials.
    public var peer: PeerCredentials { connection.peer }
}
