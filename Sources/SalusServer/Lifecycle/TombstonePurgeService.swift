import Logging
import SalusStore
import ServiceLifecycle

/// Purges the tombstones older than the store's retention: once at start, then every `interval`.
/// Ends on graceful shutdown or cancellation, also in the middle of its wait.
package struct TombstonePurgeService: Service {
    let store: SampleStore
    let interval: Duration
    let logger: Logger

    /// Purges `store` every `interval` (an hour in the daemon).
    package init(store: SampleStore, interval: Duration = .seconds(3600), logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    package func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while !Task.isCancelled {
                    await purgeOnce()
                    try await Task.sleep(for: interval)
                }
            }
        } catch is CancellationError {
            // Shutdown or cancellation ended the wait.
        }
    }

    /// One purge; a failure is logged and the next round tries again.
    func purgeOnce() async {
        do {
            let result = try await store.purgeExpiredTombstones()
            if result.purged > 0 {
                logger.info("purged expired tombstones", metadata: ["count": "\(result.purged)", "horizon": "\(result.horizon)"])
            }
        } catch {
            logger.error("purging tombstones failed: \(error)")
        }
    }
}
