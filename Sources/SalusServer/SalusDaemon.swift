#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Logging
import SalusPluginHost
import SalusRPC
import SalusStore
import ServiceLifecycle

/// The daemon as a service: opens the store, listens on the app and admin sockets, and on
/// graceful shutdown sends GoAway, drains calls in flight and closes the database.
public final class SalusDaemon: Service, Sendable {
    public static let version = "0.1.0"

    public let configuration: DaemonConfiguration
    private let logger: Logger
    private let server: RPCServer
    private let onReady: @Sendable (String) -> Void

    /// `onReady` gets a short report of what the daemon serves once its sockets accept calls.
    public init(configuration: DaemonConfiguration, logger: Logger, onReady: @escaping @Sendable (String) -> Void = { _ in }) {
        self.configuration = configuration
        self.logger = logger
        var serverConfiguration = RPCServer.Configuration()
        serverConfiguration.serverVersion = Self.version
        self.server = RPCServer(configuration: serverConfiguration, logger: logger)
        self.onReady = onReady
    }

    /// The router of the app socket.
    func appRouter(store: StoreService, authorization: AuthorizationService) -> RPCRouter {
        var router = RPCRouter()
        DiagnosticsService.register(into: &router)
        store.register(into: &router, owner: false)
        StatisticsService.shared(for: store, dataDirectory: configuration.dataDirectory).register(into: &router, owner: false)
        authorization.register(into: &router)
        return router
    }

    /// The router of the admin socket.
    func adminRouter(plugins: PluginLoadReport, store: StoreService, consent: ConsentService) -> RPCRouter {
        var router = RPCRouter()
        DiagnosticsService.register(into: &router)
        TypesService.register(into: &router, plugins: plugins, directories: configuration.pluginDirectories)
        store.register(into: &router, owner: true)
        StatisticsService.shared(for: store, dataDirectory: configuration.dataDirectory).register(into: &router, owner: true)
        consent.register(into: &router)
        return router
    }

    public func run() async throws {
        try Self.makeDirectory(configuration.dataDirectory)
        try Self.makeDirectory((configuration.socketPath as NSString).deletingLastPathComponent)
        try Self.makeDirectory((configuration.adminSocketPath as NSString).deletingLastPathComponent)
        // Refused plugins are logged with their path and reason; the daemon serves on without them.
        let plugins = PluginHost.load(directories: configuration.pluginDirectories, logger: logger)
        let store: SampleStore
        do {
            store = try await SampleStore.open(
                path: configuration.databasePath,
                catalog: plugins.registry.catalog,
                configuration: SampleStore.Configuration(tombstoneRetention: configuration.tombstoneRetention),
                logger: logger
            )
        } catch {
            throw DaemonError("cannot open the store at \(configuration.databasePath): \(error)")
        }
        let authorization: AuthorizationEngine
        do {
            authorization = try AuthorizationEngine(
                registry: plugins.registry, developmentMode: configuration.developmentMode,
                open: configuration.openAuthorization, databasePath: configuration.authorizationDatabasePath, logger: logger)
        } catch {
            throw DaemonError("cannot open the authorization database at \(configuration.authorizationDatabasePath): \(error)")
        }
        if configuration.developmentMode {
            logger.warning("development mode: app ids declared in Hello are accepted, marked unverified")
        }
        if configuration.openAuthorization {
            logger.warning("authorization is open: every app may read and write every type (development only)")
        }
        let storeService = StoreService(store: store, registry: plugins.registry, authorization: authorization)
        let appRouter = appRouter(store: storeService, authorization: AuthorizationService(engine: authorization, store: store))
        let purge = Task { [logger] in
            while !Task.isCancelled {
                do {
                    let result = try await store.purgeExpiredTombstones()
                    if result.purged > 0 {
                        logger.info("purged expired tombstones", metadata: ["count": "\(result.purged)", "horizon": "\(result.horizon)"])
                    }
                } catch {
                    logger.error("purging tombstones failed: \(error)")
                }
                try? await Task.sleep(for: .seconds(3600))
            }
        }

        let owner = getuid()
        let permissions: mode_t = configuration.socketGroup == nil ? 0o600 : 0o660
        let endpoints = AppEndpoints(
            server: server, folder: configuration.appEndpointDirectory, router: appRouter,
            permissions: permissions, groupID: configuration.socketGroup, engine: authorization)
        try await server.listen(
            unixSocketPath: configuration.socketPath,
            router: appRouter,
            listener: ListenerInfo(label: "app", attributes: configuration.developmentMode ? [Caller.developmentAttribute: "true"] : [:]),
            permissions: permissions,
            groupID: configuration.socketGroup
        )
        try await server.listen(
            unixSocketPath: configuration.adminSocketPath,
            router: adminRouter(
                plugins: plugins, store: storeService,
                consent: ConsentService(engine: authorization) { appID in try await endpoints.endpoint(for: appID) }),
            listener: ListenerInfo(label: "admin"),
            permissions: 0o600,
            admission: { peer in
                peer.uid == owner ? nil : RPCError(
                    code: .permissionDenied,
                    message: "the admin socket serves only its owner (uid \(owner)); you are uid \(peer.uid)",
                    reason: .permissionDenied, field: "uid", value: "\(peer.uid)", expected: "uid \(owner)"
                )
            }
        )
        onReady("""
            salusd \(Self.version) ready
              app socket:   \(configuration.socketPath)
              admin socket: \(configuration.adminSocketPath)
              database:     \(configuration.databasePath)
              plugins:      \(plugins.loaded.count) loaded, \(plugins.refused.count) refused, \(plugins.registry.types.count) types
            """)
        logger.info("serving", metadata: ["socket": "\(configuration.socketPath)", "admin": "\(configuration.adminSocketPath)"])

        try? await gracefulShutdown()
        logger.info("shutting down: sending GoAway and draining calls in flight")
        await server.shutdown(gracePeriod: configuration.drainTimeout)
        purge.cancel()
        await store.close()
        authorization.flush()
        await endpoints.removeAll()
        unlink(configuration.socketPath)
        unlink(configuration.adminSocketPath)
        logger.info("stopped")
    }

    static func makeDirectory(_ path: String) throws {
        guard !path.isEmpty else { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw DaemonError("\(path) exists and is not a directory")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw DaemonError("cannot create \(path): \(error.localizedDescription)")
        }
    }
}

/// A startup failure, with a message meant for the person running the daemon.
public struct DaemonError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
