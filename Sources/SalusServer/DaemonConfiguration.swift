#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import SalusRPC

/// Everything the daemon needs to start.
package struct DaemonConfiguration: Sendable {
    /// The folder of the database; created (0700) when missing.
    package var dataDirectory: String
    /// The app socket's path.
    package var socketPath: String
    /// The admin socket's path (owner only).
    package var adminSocketPath: String
    /// Folders whose `*.so` plugins are loaded, in order.
    package var pluginDirectories: [String]
    /// A group that may use the sockets (mode 0660); nil: owner only (0600).
    package var socketGroup: gid_t?
    /// Accept app ids that clients declare in Hello, marked unverified.
    package var developmentMode: Bool
    /// Nothing is enforced: every app may read and write every type (development only).
    package var openAuthorization: Bool = false
    /// Authorization requests of one app waiting for the owner at once; reported in Hello's limits.
    package var maxPendingRequestsPerApp = ConsentQueue.defaultMaxPendingPerApp
    /// The largest attachment accepted, in bytes (100 MiB); reported in Hello's limits.
    package var maxAttachmentSize: Int64 = 100 * 1024 * 1024
    /// What the apps together, and each app, may hold at once (docs/reliability.md,
    /// "Connections and streams have caps").
    package var limits = ClientLimits()
    /// How long calls in flight may take to finish after SIGTERM.
    package var drainTimeout: Duration
    /// How long deletions are remembered for anchored queries (30 days by default).
    package var tombstoneRetention: Duration
    /// How often the tombstones older than the retention are purged (hourly; tests shorten it).
    package var tombstonePurgeInterval: Duration = .seconds(3600)
    /// Sockets systemd bound and passed (socket activation): served as they are, and their
    /// files left in place at shutdown, since systemd keeps listening on them. Nil: the daemon
    /// binds `socketPath` and `adminSocketPath` itself.
    package var activatedSockets: ActivatedSockets?

    package init(
        dataDirectory: String,
        socketPath: String,
        adminSocketPath: String,
        pluginDirectories: [String] = [],
        socketGroup: gid_t? = nil,
        developmentMode: Bool = false,
        drainTimeout: Duration = .seconds(10),
        tombstoneRetention: Duration = .seconds(30 * 86_400)
    ) {
        self.dataDirectory = dataDirectory
        self.socketPath = socketPath
        self.adminSocketPath = adminSocketPath
        self.pluginDirectories = pluginDirectories
        self.socketGroup = socketGroup
        self.developmentMode = developmentMode
        self.drainTimeout = drainTimeout
        self.tombstoneRetention = tombstoneRetention
    }

    /// The database file inside the data folder.
    package var databasePath: String { dataDirectory + "/salus.sqlite" }

    /// The registered apps and the owner's decisions, beside the store.
    package var authorizationDatabasePath: String { dataDirectory + "/" + Self.authorizationDatabaseName }

    /// The authorization database's file name in the data folder.
    package static let authorizationDatabaseName = "authorization.sqlite"

    /// The folder of the per-app sockets (`salusctl launch`), beside the app socket.
    package var appEndpointDirectory: String { (socketPath as NSString).deletingLastPathComponent + "/apps" }
}

/// The caps on what clients hold at once: connections over every app, and per app its
/// connections, its calls open at once and the bytes buffered for them; the owner's admin
/// socket has its own reserve of connections. Defaults for one person's machine: a handful of
/// apps, each with a few connections and at most a few dozen live queries; the defaults are
/// the transport's (`RPCServer.Configuration`).
package struct ClientLimits: Sendable, Equatable {
    private static let defaults = RPCServer.Configuration()
    /// Connections of apps open at once over every socket (512).
    package var maxConnections = defaults.maxConnections
    /// Connections one app keeps open at once (64).
    package var maxConnectionsPerApp = defaults.maxConnectionsPerApp
    /// Calls one app has open at once over all its connections (256).
    package var maxCallsPerApp = defaults.maxCallsPerApp
    /// Bytes buffered for one app's calls at once (unread requests, gathered client-stream
    /// input such as a route's locations, responses its socket has not taken): 64 MiB.
    package var maxBufferedBytesPerApp = defaults.maxBufferedBytesPerApp
    /// Connections of the owner's admin socket open at once, never counted against the apps (32).
    package var maxOwnerConnections = defaults.maxOwnerConnections

    package init() {}

    /// Sets these caps in a server's configuration.
    package func apply(to configuration: inout RPCServer.Configuration) {
        configuration.maxConnections = maxConnections
        configuration.maxConnectionsPerApp = maxConnectionsPerApp
        configuration.maxCallsPerApp = maxCallsPerApp
        configuration.maxBufferedBytesPerApp = maxBufferedBytesPerApp
        configuration.maxOwnerConnections = maxOwnerConnections
    }
}
