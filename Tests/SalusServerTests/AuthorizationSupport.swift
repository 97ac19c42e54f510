import Foundation
import SalusRPC
import SalusTestSupport

/// How the in-process tests connect the owner and apps.
extension Authz {
    static func owner(_ server: ServerHarness) async throws -> RPCClient {
        try await server.owner()
    }

    static func app(_ server: ServerHarness, _ appID: String) async throws -> RPCClient {
        try await server.app(appID)
    }
}
