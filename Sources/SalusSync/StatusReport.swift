import Foundation
import Logging
import SalusKit
import SalusModel

/// What `salus-sync status` prints: the server's feed, the lag behind the store, and the last
/// error from the server or from the running process's status file.
package struct StatusReport: Codable, Hashable, Sendable {
    /// The person and store of the feed.
    package var person: String
    /// The store's name.
    package var origin: String
    /// The feed on the server, when the server answered.
    package var serverAnchor: UInt64?
    /// When the server's feed last committed.
    package var committedAt: Date?
    /// Changes committed over the feed's life.
    package var changesCommitted: Int64?
    /// A full resync is under way.
    package var resyncing: Bool?
    /// Behind the store by this much, when both answered.
    package var lag: SyncLag?
    /// The running process's view (its phase, revoked types, inbox counts), when its file exists.
    package var process: SyncStatus?
    /// The most recent error known, from the server or the status file.
    package var lastError: String?
    /// When it happened.
    package var lastErrorAt: Date?
    /// Why the server or the store could not be asked.
    package var unreachable: [String]

    /// Gathers the report: each source is asked independently, and one that cannot be reached
    /// is named in ``unreachable`` rather than failing the whole report.
    package static func gather(
        options: SyncOptions, database: DatabaseSettings, storeSocket: String?, appID: String, logger: Logger,
        lagLimit: Int = 100_000
    ) async -> StatusReport {
        var report = StatusReport(person: options.person, origin: options.origin, unreachable: [])
        if let path = options.statusFile { report.process = SyncStatus.read(from: path) }
        var feed: FeedState? = nil
        do {
            let mirror = try await PostgresMirror.connect(database, person: options.person, origin: options.origin, logger: logger)
            do { feed = try await mirror.state() } catch { await mirror.close(); throw error }
            await mirror.close()
        } catch {
            report.unreachable.append("PostgreSQL: \(PostgresMirror.describe(error))")
        }
        if let feed {
            report.serverAnchor = feed.anchor
            report.committedAt = feed.committedAt
            report.changesCommitted = feed.changesCommitted
            report.resyncing = feed.resyncing
            report.lastError = feed.lastError
            report.lastErrorAt = feed.lastErrorAt
        }
        if let process = report.process, let at = process.lastErrorAt, report.lastErrorAt.map({ $0 < at }) ?? true {
            report.lastError = process.lastError
            report.lastErrorAt = at
        }
        if let anchor = feed?.anchor {
            do {
                let store = try await HealthStore.connect(socketPath: storeSocket, appID: appID, appName: "Salus Sync")
                let result = try await AnchoredObjectQueryDescriptor(
                    predicates: options.types.map { SampleTypePredicate($0) }, anchor: QueryAnchor(rawValue: anchor), limit: lagLimit,
                    localChangesOnly: true
                ).result(for: store)
                await store.close()
                let changes = result.addedSamples.count + result.deletedObjects.count
                var seconds = 0.0
                if changes > 0 {
                    let oldest = result.addedSamples.map(\.creationDate).min() ?? feed?.committedAt ?? Date()
                    seconds = max(0, Date().timeIntervalSince(oldest))
                }
                report.lag = SyncLag(changes: changes, atLeast: result.hasMore, seconds: seconds)
            } catch {
                report.unreachable.append("the store: \(error)")
            }
        }
        return report
    }

    /// The report for people, one fact a line.
    package var text: String {
        var lines = ["feed: \(person)@\(origin)"]
        if let serverAnchor {
            var line = "server anchor: \(serverAnchor)"
            if let committedAt { line += ", committed \(committedAt.formatted(.iso8601))" }
            if let changesCommitted { line += ", \(changesCommitted) changes in all" }
            if resyncing == true { line += ", full resync under way" }
            lines.append(line)
        }
        if let lag {
            lines.append("lag: \(lag.atLeast ? "more than " : "")\(lag.changes) changes, \(String(format: "%.1f", lag.seconds)) s")
        }
        if let process {
            lines.append("process: \(process.pid), \(process.phase.rawValue), status of \(process.updatedAt.formatted(.iso8601))")
            if !process.revokedTypes.isEmpty { lines.append("access withdrawn: \(process.revokedTypes.joined(separator: ", "))") }
            if process.inboxApplied + process.inboxRejected > 0 {
                lines.append("inbox: \(process.inboxApplied) applied, \(process.inboxRejected) rejected")
            }
        }
        lines.append("last error: \(lastError.map { "\($0) at \(lastErrorAt?.formatted(.iso8601) ?? "?")" } ?? "none")")
        for reason in unreachable { lines.append("unreachable: \(reason)") }
        return lines.joined(separator: "\n")
    }
}
