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
    /// The followed types whose earlier changes the server lacks (added to `--types`, or
    /// granted again), each with what is owed; counted in ``lag``. Nil when the server could
    /// not say.
    package var backfills: [OwedBackfill]?
    /// Where ``lag`` was counted from: `server` (its anchor), or `status file` (the anchor of
    /// the running process's last status, while the server cannot be asked).
    package var lagFrom: String?
    /// Why the server or the store could not be asked.
    package var unreachable: [String]
    /// The server refused the connection string (authentication, database, permission): asking
    /// again will not help until it is fixed.
    package var misconfigured: Bool?

    /// A type's changes the server lacks, before or while they are sent.
    package struct OwedBackfill: Codable, Hashable, Sendable {
        /// The type's identifier.
        package var type: String
        /// The anchor its changes are owed after; 0: the start of its history.
        package var from: UInt64
        /// Changes owed (counted up to the limit: more with ``atLeast``).
        package var changes: Int
        /// There were more than ``changes`` to count.
        package var atLeast: Bool
    }

    /// The exit status of `salus-sync status`: 0 when the server and the store answered, 64
    /// (`EX_USAGE`) when the server refused the connection string, 69 (`EX_UNAVAILABLE`) when
    /// either could not be asked. Why not 0 then: a script or a monitor that checks the status
    /// must see that the mirror is not being kept, not read "no error".
    package var exitStatus: Int32 {
        if misconfigured == true { return 64 }
        return unreachable.isEmpty ? 0 : 69
    }

    /// An empty report for `person`'s store `origin`; ``gather(options:database:storeSocket:appID:logger:lagLimit:)``
    /// fills it.
    package init(person: String, origin: String, unreachable: [String] = []) {
        self.person = person
        self.origin = origin
        self.unreachable = unreachable
    }

    /// Gathers the report: each source is asked independently, and one that cannot be reached
    /// is named in ``unreachable`` rather than failing the whole report.
    ///
    /// The lag counts the store's changes of the followed types after the server's anchor, and,
    /// for a type owed a backfill, its changes after the backfill's anchor. While the server
    /// cannot be asked, it counts after the anchor of the running process's last status (its
    /// file), without the backfills, which only the server records.
    package static func gather(
        options: SyncOptions, database: DatabaseSettings, storeSocket: String?, appID: String, logger: Logger,
        lagLimit: Int = SyncEngine.countLimit
    ) async -> StatusReport {
        var report = StatusReport(person: options.person, origin: options.origin, unreachable: [])
        if let path = options.statusFile { report.process = SyncStatus.read(from: path) }
        var feed: FeedState? = nil
        var record: AccessRecord? = nil
        do {
            let mirror = try await PostgresMirror.connect(database, person: options.person, origin: options.origin, logger: logger)
            do {
                feed = try await mirror.state()
                record = try await mirror.access()
            } catch {
                await mirror.close()
                throw error
            }
            await mirror.close()
        } catch {
            let failure = SyncEngine.syncError(error, settings: database)
            if failure.code == .configuration { report.misconfigured = true }
            report.unreachable.append(failure.code == .configuration ? failure.description : "PostgreSQL: \(PostgresMirror.describe(error))")
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
        // The server's anchor; else the last one the running process saw on the server.
        var anchor = feed?.anchor
        if anchor == nil, let process = report.process, process.anchor > 0 || process.committedAt != nil {
            anchor = process.anchor
            report.lagFrom = "status file"
        } else if anchor != nil {
            report.lagFrom = "server"
        }
        guard let anchor else { return report }
        var owed: [SampleType: UInt64] = [:]
        if let feed, let record {
            var memory = SyncEngine.AccessMemory()
            memory.restore(record, types: options.types, anchor: feed.anchor)
            owed = memory.backfill
        }
        do {
            let store = try await HealthStore.connect(socketPath: storeSocket, appID: appID, appName: "Salus Sync")
            do {
                let steady = options.types.filter { owed[$0] == nil }.map { SampleTypePredicate($0) }
                var changes = 0
                var atLeast = false
                var oldest: Date? = nil
                if !steady.isEmpty {
                    let pending = try await SyncLag.pending(store: store, predicates: steady, after: anchor, limit: lagLimit)
                    (changes, atLeast, oldest) = pending
                }
                if feed != nil { report.backfills = [] }
                for (type, from) in owed.sorted(by: { $0.key.identifier.rawValue < $1.key.identifier.rawValue }) {
                    let pending = try await SyncLag.pending(store: store, predicates: [SampleTypePredicate(type)], after: from, limit: lagLimit)
                    report.backfills?.append(
                        OwedBackfill(type: type.identifier.rawValue, from: from, changes: pending.changes, atLeast: pending.atLeast))
                    changes += pending.changes
                    atLeast = atLeast || pending.atLeast
                    oldest = [oldest, pending.oldest].compactMap { $0 }.min()
                }
                await store.close()
                var seconds = 0.0
                if changes > 0 {
                    seconds = max(0, Date().timeIntervalSince(oldest ?? feed?.committedAt ?? report.process?.committedAt ?? Date()))
                }
                report.lag = SyncLag(changes: changes, atLeast: atLeast, seconds: seconds)
            } catch {
                await store.close()
                throw error
            }
        } catch {
            report.unreachable.append("the store: \(error)")
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
            var line = "lag: \(lag.atLeast ? "more than " : "")\(lag.changes) changes, \(String(format: "%.1f", lag.seconds)) s"
            if lagFrom == "status file", let process {
                line += " (after anchor \(process.anchor), from the status file of \(process.updatedAt.formatted(.iso8601)): the server cannot be asked)"
            }
            lines.append(line)
        } else if !unreachable.isEmpty {
            lines.append("lag: unknown (no anchor from the server or a status file)")
        }
        let running = Set((process?.backfills ?? []).map(\.type))
        for owed in backfills ?? [] where !running.contains(owed.type) {
            let whence = owed.from == 0 ? "from the start of its history" : "after anchor \(owed.from)"
            lines.append("backfill owed: \(owed.type), \(owed.atLeast ? "more than " : "")\(owed.changes) changes \(whence)")
        }
        if let process {
            lines.append("process: \(process.pid), \(process.phase.rawValue), status of \(process.updatedAt.formatted(.iso8601))")
            for backfill in process.backfills ?? [] { lines.append(backfill.text) }
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
