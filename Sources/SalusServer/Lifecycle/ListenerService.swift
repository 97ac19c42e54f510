#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Logging
import SalusRPC
import ServiceLifecycle

/// The daemon's sockets as a service: listens on the app socket and the owner's admin socket
/// (or serves the two that systemd passed), reports ready, and on graceful shutdown sends
/// GoAway, drains the calls in flight (at most the configured drain timeout) and removes its
/// socket files, the per-app sockets included (but not systemd's, which stay bound for the
/// next activation).
///
/// It must come after the store in the group, so that it is shut down, and drained, first.
package struct ListenerService: Service {
    let services: SalusServices
    let logger: Logger
    let onReady: @Sendable (String) -> Void

    /// Serves `services`' routers; `onReady` gets the ready banner once both sockets accept.
    package init(services: SalusServices, logger: Logger, onReady: @escaping @Sendable (String) -> Void) {
        self.services = services
        self.logger = logger
        self.onReady = onReady
    }

    package func run() async throws {
        let configuration = services.configuration
        let server = services.server
        if let activated = configuration.activatedSockets {
            try await server.listen(
                boundSocket: activated.app, router: services.appRouter, listener: services.appListener,
                identification: services.appIdentification)
            try await server.listen(
                boundSocket: activated.admin, router: services.adminRouter, listener: SalusServices.adminListener,
                admission: services.adminAdmission
            )
        } else {
            try SalusDaemon.makeDirectory((configuration.socketPath as NSString).deletingLastPathComponent)
            try SalusDaemon.makeDirectory((configuration.adminSocketPath as NSString).deletingLastPathComponent)
            try await server.listen(
                unixSocketPath: configuration.socketPath,
                router: services.appRouter,
                listener: services.appListener,
                permissions: configuration.appSocketPermissions,
                groupID: configuration.socketGroup,
                identification: services.appIdentification
            )
            try await server.listen(
                unixSocketPath: configuration.adminSocketPath,
                router: services.adminRouter,
                listener: SalusServices.adminListener,
                permissions: 0o600,
                admission: services.adminAdmission
            )
        }
        let plugins = services.plugins
        onReady("""
            salusd \(SalusDaemon.version) ready
              app socket:   \(configuration.socketPath)
              admin socket: \(configuration.adminSocketPath)
              database:     \(configuration.databasePath)
              plugins:      \(plugins.loaded.count) loaded, \(plugins.refused.count) refused, \(plugins.registry.types.count) types
            """)
        logger.info("serving", metadata: ["socket": "\(configuration.socketPath)", "admin": "\(configuration.adminSocketPath)"])

        try? await gracefulShutdown()
        logger.info("shutting down: sending GoAway and draining calls in flight")
        await server.shutdown(gracePeriod: configuration.drainTimeout)
        await services.removeAppEndpoints()
        if configuration.activatedSockets == nil {
            unlink(configuration.socketPath)
            unlink(configuration.adminSocketPath)
        }
    }
}
