#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SalusRPC

/// The per-app sockets (Wayland security-context style): `salusctl launch --app ID` asks for
/// one over the admin socket, and every connection through it is that app. One socket per app,
/// made on first use, in a 0700 folder beside the app socket. Each connection is looked at once
/// to tell a sandboxed launch from a plain one (``PeerIdentifier/launched(hidden:)``).
actor AppEndpoints {
    private let server: RPCServer
    private let folder: String
    private let router: RPCRouter
    private let permissions: mode_t
    private let groupID: gid_t?
    private let engine: AuthorizationEngine
    private let identification: PeerIdentification
    private var paths: [String: String] = [:]

    init(server: RPCServer, folder: String, router: RPCRouter, permissions: mode_t, groupID: gid_t?, engine: AuthorizationEngine,
         identification: @escaping PeerIdentification) {
        self.server = server
        self.folder = folder
        self.router = router
        self.permissions = permissions
        self.groupID = groupID
        self.engine = engine
        self.identification = identification
    }

    /// The socket of `appID`, listening.
    func endpoint(for appID: String) async throws -> String {
        if let path = paths[appID] { return path }
        guard AppRegistry.isValidAppID(appID) else {
            throw RPCError.invalidArgument(field: "appId", value: appID, expected: "a reverse-DNS app id such as org.example.sleepdiary")
        }
        try SalusDaemon.makeDirectory(folder)
        let path = folder + "/" + appID + ".sock"
        guard path.utf8.count < 108 else {
            throw RPCError.invalidArgument(field: "appId", value: appID, expected: "an app id short enough for a socket path under \(folder) (108 bytes)")
        }
        try await server.listen(
            unixSocketPath: path, router: router,
            listener: SalusServices.launchedAppListener(appID),
            permissions: permissions, groupID: groupID, identification: identification)
        paths[appID] = path
        engine.apps.setEndpoint(path, for: appID)
        return path
    }

    /// Removes the socket files (on shutdown).
    func removeAll() {
        for path in paths.values { unlink(path) }
        paths = [:]
    }
}
