import ServiceLifecycle

/// The store as a service of the daemon's group: it holds the store open until graceful
/// shutdown (or cancellation), then closes it and writes the authorization decisions still queued.
///
/// It must come first in the group: the group shuts services down in reverse order, so the
/// listeners have drained every call before the database closes.
package struct StoreLifecycleService: Service {
    let services: SalusServices

    /// The service closing `services` on shutdown.
    package init(services: SalusServices) {
        self.services = services
    }

    package func run() async throws {
        // Cancellation (another service failed) closes the store too.
        try? await gracefulShutdown()
        await services.close()
    }
}
