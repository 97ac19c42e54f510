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

/// The daemon: opens ``SalusServices`` from its configuration, then runs a `ServiceGroup` of
/// the store, the tombstone purge and the listeners until SIGTERM or SIGINT. On graceful
/// shutdown the group stops them in reverse order: the listeners send GoAway, drain calls in
/// flight and remove their sockets; the purge ends; the store closes last.
package struct SalusDaemon: Sendable {
    /// The daemon's version, as Hello and the ready banner report it.
    package static let version = "0.1.0"

    /// What the daemon serves and where.
    package let configuration: DaemonConfiguration
    private let logger: Logger
    private let onReady: @Sendable (String) -> Void

    /// `onReady` gets a short report of what the daemon serves once its sockets accept calls.
    package init(configuration: DaemonConfiguration, logger: Logger, onReady: @escaping @Sendable (String) -> Void = { _ in }) {
        self.configuration = configuration
        self.logger = logger
        self.onReady = onReady
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully and returns.
    ///
    /// Throws ``DaemonError`` (or the `RPCError` of a socket it cannot listen on) when it
    /// cannot start.
    package func run() async throws {
        // A second daemon on the same sockets is refused before it loads a plugin or opens a
        // database: the running one's files are not touched.
        if configuration.activatedSockets == nil {
            for path in [configuration.socketPath, configuration.adminSocketPath] where UnixSocketFile.isAlive(path: path) {
                throw DaemonError("""
                    another salusd is running: \(path) accepts connections. Stop it first, or run a \
                    second one beside it with sockets and data of its own: salusd --socket PATH \
                    --admin-socket PATH --data-dir DIR
                    """)
            }
        }
        let services = try await SalusServices.open(configuration, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: StoreLifecycleService(services: services)),
                    .init(service: TombstonePurgeService(store: services.store, interval: configuration.tombstonePurgeInterval, logger: logger)),
                    .init(service: ListenerService(services: services, logger: logger, onReady: onReady)),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
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
package struct DaemonError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
