import Logging
import Synchronization

/// What a listener is: a label and the facts every connection through it carries (for
/// example the app id of a per-app socket that a launcher created).
package struct ListenerInfo: Hashable, Sendable {
    /// "app", "admin", or a per-app label.
    package var label: String
    /// Facts about connections accepted here, set by whoever created the listener.
    package var attributes: [String: String]
    /// Whom its connections are counted against (the per-app caps).
    package var accounting: ListenerAccounting

    package init(label: String, attributes: [String: String] = [:], accounting: ListenerAccounting = .shared(declaredAppIDs: false)) {
        self.label = label
        self.attributes = attributes
        self.accounting = accounting
    }
}

/// One connection as handlers see it: who connected (kernel credentials), through which
/// listener, and what the client declared in Hello.
package final class ConnectionContext: Sendable {
    /// A number unique within the server process.
    package let id: UInt64
    /// The peer's credentials, read at accept.
    package let peer: PeerCredentials
    package let listener: ListenerInfo
    /// What the listener's ``PeerIdentification`` found at accept (empty without one).
    package let identity: [String: String]
    private let hello = Mutex<HelloInfo?>(nil)

    init(id: UInt64, peer: PeerCredentials, listener: ListenerInfo, identity: [String: String] = [:]) {
        self.id = id
        self.peer = peer
        self.listener = listener
        self.identity = identity
    }

    /// What the client said in Hello, if it called it.
    package var helloRequest: HelloInfo? { hello.withLock { $0 } }

    func recordHello(_ snapshot: HelloInfo) {
        hello.withLock { $0 = snapshot }
    }
}

/// The parts of a client's Hello that outlive the call.
package struct HelloInfo: Hashable, Sendable {
    package var clientName: String
    package var clientVersion: String
    /// The app id the client declared; only a development-mode daemon honours it.
    package var declaredAppID: String
    package var features: [String]
}

/// Everything a handler knows about its call besides the request.
package struct ServerContext: Sendable {
    package let method: MethodDescriptor
    package let connection: ConnectionContext
    package let metadata: Metadata
    /// When the call's deadline passes, if it has one.
    package let deadline: ContinuousClock.Instant?
    /// The connection's logger; ``logger`` adds the stream and method.
    let connectionLogger: Logger

    /// A logger with the connection, stream and method as metadata (made when first asked
    /// for: most calls never log).
    package var logger: Logger {
        var logger = connectionLogger
        logger[metadataKey: "stream"] = "\(streamID)"
        logger[metadataKey: "method"] = "\(method)"
        return logger
    }
    /// The stream the call runs on.
    package let streamID: UInt32
    /// What the call holds against its app's buffered-bytes cap.
    let budget: CallBudget

    /// Counts `bytes` that the handler keeps in memory for this call (what it gathers from a
    /// client stream, for example) against the app's buffered-bytes cap, until the handler
    /// returns. Throws RESOURCE_EXHAUSTED naming `bufferedBytesPerApp` when the app would pass
    /// it; `what` names what is held ("locations"). Nothing is counted then: the handler should
    /// end the call with the error, which frees what it holds.
    package func reserveBuffer(_ bytes: Int, for what: String) throws(RPCError) {
        try budget.reserve(bytes, what: what)
    }

    /// The peer's kernel credentials.
    package var peer: PeerCredentials { connection.peer }
}
