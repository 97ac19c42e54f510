import SalusProto
import SalusRPC

/// Where an app finds the daemon: `SALUS_SOCKET`, else the default app socket.
public enum SalusEndpoint {
    /// The app socket path this process would use.
    public static var appSocketPath: String { DefaultPaths.appSocket() }
}

/// A connection to the daemon's app socket, for calls that have no typed wrapper yet.
public final class SalusConnection: Sendable {
    /// The RPC client underneath.
    public let client: RPCClient

    private init(client: RPCClient) {
        self.client = client
    }

    /// Connects to `socketPath` (default: `SALUS_SOCKET`, else the default path) and says Hello.
    public static func connect(socketPath: String? = nil, clientName: String = "SalusKit") async throws -> SalusConnection {
        var configuration = RPCClient.Configuration()
        configuration.clientName = clientName
        let client = try await RPCClient.connect(unixSocketPath: socketPath ?? SalusEndpoint.appSocketPath, configuration: configuration)
        return SalusConnection(client: client)
    }

    /// What the daemon said in Hello: its version, limits and services.
    public var serverInfo: Salus_V1_HelloResponse? { client.serverHello }

    /// Closes the connection.
    public func close() async {
        await client.close()
    }
}
