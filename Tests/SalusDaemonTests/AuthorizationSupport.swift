import Foundation
import SalusRPC
import SalusTestSupport

/// How the end-to-end tests connect the owner and apps to a real daemon.
extension Authz {
    static func owner(_ daemon: DaemonHarness) async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        configuration.clientName = "owner"
        return try await RPCClient.connect(unixSocketPath: daemon.adminSocketPath, configuration: configuration)
    }

    static func app(_ daemon: DaemonHarness, _ appID: String, socket: String? = nil) async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        configuration.declaredAppID = appID
        configuration.clientName = appID
        return try await RPCClient.connect(unixSocketPath: socket ?? daemon.socketPath, configuration: configuration)
    }
}
