import SalusKit
import SalusProto
import SalusRPC

/// What the daemon said of itself in Hello: its name, version and protocol, its features, the
/// limits it enforces and the services it serves on the admin socket.
public struct DaemonStatus: Sendable, Hashable {
    /// `salusd`.
    public var serverName: String
    /// The daemon's version.
    public var serverVersion: String
    /// The protocol version it speaks.
    public var protocolVersion: UInt32
    /// The optional features it offers, by name.
    public var features: [String]
    /// The limits it enforces on this connection.
    public var limits: Limits
    /// The services it serves here, each with its methods.
    public var services: [Service]
    /// The Hello response, for the JSON.
    let proto: Salus_V1_HelloResponse

    /// The daemon's limits (docs/protocol.md).
    public struct Limits: Sendable, Hashable {
        /// The largest frame, in bytes.
        public var maxFrameSize: UInt32
        /// The largest metadata of a sample, in bytes.
        public var maxMetadataSize: UInt32
        /// The stream window: the messages a side may send before credit, and those it takes.
        public var initialWindow: UInt32
        public var receiveWindow: UInt32
        /// The largest attachment, in bytes.
        public var maxAttachmentSize: UInt64
        /// Connections at once.
        public var maxConnections: UInt32
        /// Calls at once on one connection.
        public var maxStreamsPerConnection: UInt32
        /// Authorization requests waiting per app.
        public var maxPendingRequestsPerApp: UInt32
    }

    /// A service and its methods.
    public struct Service: Sendable, Hashable {
        /// `salus.v1.Admin`.
        public var name: String
        public var methods: [Method]
    }

    /// A method and whether each side streams.
    public struct Method: Sendable, Hashable {
        public var name: String
        public var clientStreaming: Bool
        public var serverStreaming: Bool
    }
}

extension AdminClient {
    /// What the daemon said of itself when this client connected (`salusctl status`). Throws
    /// ``SalusError`` (``SalusError/Code/unavailable``) when the connection carries no Hello
    /// response.
    public func status() throws -> DaemonStatus {
        guard let hello = rpc.serverHello else {
            throw SalusError(code: .unavailable, message: "the daemon did not answer Hello")
        }
        return DaemonStatus(hello)
    }
}

extension DaemonStatus {
    init(_ hello: Salus_V1_HelloResponse) {
        serverName = hello.serverName
        serverVersion = hello.serverVersion
        protocolVersion = hello.protocolVersion
        features = hello.features
        let limits = hello.limits
        self.limits = Limits(
            maxFrameSize: limits.maxFrameSize, maxMetadataSize: limits.maxMetadataSize, initialWindow: limits.initialWindow,
            receiveWindow: limits.receiveWindow, maxAttachmentSize: limits.maxAttachmentSize, maxConnections: limits.maxConnections,
            maxStreamsPerConnection: limits.maxStreamsPerConnection, maxPendingRequestsPerApp: limits.maxPendingRequestsPerApp)
        services = hello.services.map { service in
            Service(name: service.name, methods: service.methods.map {
                Method(name: $0.name, clientStreaming: $0.clientStreaming, serverStreaming: $0.serverStreaming)
            })
        }
        proto = hello
    }
}
