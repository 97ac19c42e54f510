#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Logging
import SalusModel
import SalusPluginHost
import SalusRPC
import SalusStatistics
import SalusStore

/// The daemon's parts, wired once from a ``DaemonConfiguration``: the plugins loaded, the store
/// and the authorization engine open, and the routers of the app and admin sockets built over
/// them.
///
/// `salusd` serves ``appRouter`` and ``adminRouter`` on its sockets (``SalusDaemon``); tests
/// connect to the same routers in process (`server.connectInProcess`) with ``appListener`` or
/// ``adminListener``, so they exercise exactly the daemon's wiring without a socket file.
///
/// Rules:
/// - Call ``close()`` once, after `server` has drained: closing first fails calls in flight.
/// - Refused plugins are logged with their path and reason; the services run without them.
package final class SalusServices: Sendable {
    /// What the services were made from.
    package let configuration: DaemonConfiguration
    /// The plugins loaded and refused, with the frozen type registry.
    package let plugins: PluginLoadReport
    /// The open store.
    package let store: SampleStore
    /// The open authorization engine.
    package let authorization: AuthorizationEngine
    /// The owner's characteristics, activity goals and time zone.
    package let settings: PersonSettings
    /// The server that every connection, socket or in-process, is served by.
    package let server: RPCServer
    /// The router of the app socket and of the per-app sockets.
    package let appRouter: RPCRouter
    /// The router of the owner's admin socket.
    package let adminRouter: RPCRouter
    /// The per-app sockets made for `salusctl launch`.
    let endpoints: AppEndpoints
    /// What each app did with the data (docs/authorization.md, "The access log").
    package let accessLog: AccessLog
    private let logger: Logger

    /// Opens everything `configuration` names, creating the data folder (0700) when missing;
    /// `additionalTypes` are registered beside the plugins' types (see `TypeRegistry.adding`),
    /// for tests of kinds no bundled plugin declares yet; the daemon passes none.
    ///
    /// Throws ``DaemonError`` naming the path when the store or the authorization database
    /// cannot be opened.
    package static func open(
        _ configuration: DaemonConfiguration, logger: Logger, additionalTypes: [TypeRules] = []
    ) async throws -> SalusServices {
        try SalusDaemon.makeDirectory(configuration.dataDirectory)
        try DamagedDatabaseCheck.run(
            paths: [configuration.databasePath, configuration.authorizationDatabasePath], dataDirectory: configuration.dataDirectory,
            logger: logger)
        BackupArchive.removeLeftovers(in: configuration.dataDirectory)
        var plugins = PluginHost.load(directories: configuration.pluginDirectories, logger: logger)
        plugins.registry = plugins.registry.adding(additionalTypes)
        let store: SampleStore
        do {
            store = try await SampleStore.open(
                path: configuration.databasePath,
                catalog: plugins.registry.catalog,
                configuration: SampleStore.Configuration(
                    tombstoneRetention: configuration.tombstoneRetention,
                    beforeFinishingWorkoutBuilderCommits: WorkoutBuilderService.finishHold(logger: logger)),
                logger: logger
            )
        } catch {
            throw DaemonError("cannot open the store at \(configuration.databasePath): \(error)")
        }
        let authorization: AuthorizationEngine
        do {
            authorization = try AuthorizationEngine(
                registry: plugins.registry, developmentMode: configuration.developmentMode,
                open: configuration.openAuthorization, databasePath: configuration.authorizationDatabasePath, logger: logger,
                maxPendingRequestsPerApp: configuration.maxPendingRequestsPerApp)
        } catch {
            await store.close()
            throw DaemonError("cannot open the authorization database at \(configuration.authorizationDatabasePath): \(error)")
        }
        let settings: PersonSettings
        do {
            settings = try PersonSettings(path: configuration.dataDirectory + "/" + PersonSettings.fileName)
        } catch {
            await store.close()
            throw DaemonError("cannot read the person settings: \(error.message)")
        }
        let accessLog: AccessLog
        do {
            accessLog = try AccessLog(path: configuration.dataDirectory + "/" + AccessLog.fileName, logger: logger)
        } catch {
            await store.close()
            throw error
        }
        if configuration.developmentMode {
            logger.warning("development mode: app ids declared in Hello are accepted, marked unverified")
        }
        if configuration.openAuthorization {
            logger.warning("authorization is open: every app may read and write every type (development only)")
        }
        return SalusServices(
            configuration: configuration, plugins: plugins, store: store, authorization: authorization, settings: settings,
            accessLog: accessLog, logger: logger)
    }

    private init(
        configuration: DaemonConfiguration, plugins: PluginLoadReport, store: SampleStore,
        authorization: AuthorizationEngine, settings: PersonSettings, accessLog: AccessLog, logger: Logger
    ) {
        self.accessLog = accessLog
        self.settings = settings
        self.logger = logger
        self.configuration = configuration
        self.plugins = plugins
        self.store = store
        self.authorization = authorization
        var serverConfiguration = RPCServer.Configuration()
        serverConfiguration.serverVersion = SalusDaemon.version
        serverConfiguration.maxAttachmentSize = UInt64(max(0, configuration.maxAttachmentSize))
        serverConfiguration.maxPendingRequestsPerApp = configuration.maxPendingRequestsPerApp
        configuration.limits.apply(to: &serverConfiguration)
        server = RPCServer(configuration: serverConfiguration, logger: logger)

        let storeService = StoreService(
            store: store, registry: plugins.registry, authorization: authorization, accessLog: accessLog)
        // One statistics service for both sockets, so that they share priorities and units.
        var statistics = StatisticsService(
            store: store, authorization: authorization,
            priorityPath: configuration.dataDirectory + "/" + StatisticsService.priorityFileName,
            preferredUnitPath: configuration.dataDirectory + "/" + StatisticsService.preferredUnitFileName)
        statistics.accessLog = accessLog

        let person = PersonService(
            store: store, authorization: authorization, settings: settings, statistics: statistics)

        var app = RPCRouter()
        DiagnosticsService.register(into: &app)
        CatalogueService.register(into: &app, registry: plugins.registry)
        storeService.register(into: &app, owner: false)
        ReplicaService(store: store, registry: plugins.registry, authorization: authorization).register(into: &app)
        statistics.register(into: &app, owner: false)
        person.register(into: &app, owner: false)
        AuthorizationService(engine: authorization, store: store).register(into: &app)
        let attachments = AttachmentsService(
            store: store, registry: plugins.registry, authorization: authorization,
            maximumSize: configuration.maxAttachmentSize)
        attachments.register(into: &app)
        let routes = RoutesService(store: store, registry: plugins.registry, authorization: authorization)
        routes.register(into: &app)
        let workoutBuilders = WorkoutBuilderService(store: store, registry: plugins.registry, authorization: authorization)
        workoutBuilders.register(into: &app)
        WorkoutSessionService(builders: workoutBuilders).register(into: &app)
        appRouter = app

        let endpoints = AppEndpoints(
            server: server, folder: configuration.appEndpointDirectory, router: app,
            permissions: configuration.appSocketPermissions, groupID: configuration.socketGroup, engine: authorization,
            identification: PeerIdentifier.launched(hidden: Self.hiddenFromSandboxes(configuration)))
        self.endpoints = endpoints
        var admin = RPCRouter()
        DiagnosticsService.register(into: &admin)
        CatalogueService.register(into: &admin, registry: plugins.registry)
        TypesService.register(into: &admin, plugins: plugins, directories: configuration.pluginDirectories)
        storeService.register(into: &admin, owner: true)
        statistics.register(into: &admin, owner: true)
        person.register(into: &admin, owner: true)
        attachments.register(into: &admin)
        routes.register(into: &admin)
        ConsentService(engine: authorization) { appID in try await endpoints.endpoint(for: appID) }.register(into: &admin)
        ImportService(store: store, settings: settings).register(into: &admin)
        FileImportService(store: store).register(into: &admin)
        BackupService(dataDirectory: configuration.dataDirectory, authorization: authorization).register(into: &admin)
        AccessLogService(log: accessLog, store: store, registry: plugins.registry, authorization: authorization)
            .register(into: &admin)
        adminRouter = admin
    }

    /// The listener of the app socket: on a development daemon it lets clients declare their
    /// app id in Hello (marked unverified).
    package var appListener: ListenerInfo {
        ListenerInfo(
            label: "app", attributes: configuration.developmentMode ? [Caller.developmentAttribute: "true"] : [:],
            accounting: .shared(declaredAppIDs: configuration.developmentMode))
    }

    /// How the shared app socket knows a peer (Flatpak, Snap, systemd scope), once at accept.
    package var appIdentification: PeerIdentification {
        PeerIdentifier.identification(logger: logger)
    }

    /// What an app launched in a sandbox must not reach at its path for its launch to count as
    /// sandboxed: the admin socket, the folder of the apps' sockets and the data folder.
    static func hiddenFromSandboxes(_ configuration: DaemonConfiguration) -> [String] {
        [configuration.adminSocketPath, configuration.appEndpointDirectory, configuration.dataDirectory]
    }

    /// How an app's own socket tells a sandboxed launch from a plain one, once at accept.
    package var launchedAppIdentification: PeerIdentification {
        PeerIdentifier.launched(hidden: Self.hiddenFromSandboxes(configuration))
    }

    /// The listener of the owner's admin socket: every caller is the owner.
    package static let adminListener = ListenerInfo(label: "admin", accounting: .owner)

    /// The listener of `appID`'s own socket (`salusctl launch`): every caller is that app,
    /// whatever it declares.
    package static func launchedAppListener(_ appID: String) -> ListenerInfo {
        ListenerInfo(label: "app", attributes: [Caller.launchedAppAttribute: appID], accounting: .app(appID))
    }

    /// Admits only the daemon's own uid, as the admin socket does (SO_PEERCRED).
    package var adminAdmission: RPCServer.Admission {
        let owner = getuid()
        return { peer in
            peer.uid == owner ? nil : RPCError(
                code: .permissionDenied,
                message: "the admin socket serves only its owner (uid \(owner)); you are uid \(peer.uid)",
                reason: .permissionDenied, field: "uid", value: "\(peer.uid)", expected: "uid \(owner)"
            )
        }
    }

    /// Removes the per-app socket files made for `salusctl launch`.
    package func removeAppEndpoints() async {
        await endpoints.removeAll()
    }

    /// Closes the store, writes the authorization decisions still queued, and stamps the files
    /// closed cleanly (``DatabaseCheckStamp``: the next start need not check them again).
    package func close() async {
        await store.close()
        authorization.flush()
        accessLog.close()
        DatabaseCheckStamp.write(
            dataDirectory: configuration.dataDirectory,
            paths: [configuration.databasePath, configuration.authorizationDatabasePath], logger: logger)
    }
}

extension DaemonConfiguration {
    /// The mode of the app sockets: 0660 when a group may use them, else 0600.
    var appSocketPermissions: mode_t { socketGroup == nil ? 0o600 : 0o660 }
}
