import Foundation
import SalusKit

/// What a running `salus-sync` last wrote about itself, in its status file (JSON), so that
/// `salus-sync status` can tell what the server cannot: the error while the server was down.
///
/// The file is replaced whole (written beside it, then renamed), so a reader never sees half of
/// it, even when the process is killed while writing.
package struct SyncStatus: Codable, Hashable, Sendable {
    /// What the process is doing.
    package enum Phase: String, Codable, Sendable {
        /// Connecting to the server and the store.
        case starting
        /// Reading the changes after the server's anchor, page by page.
        case catchingUp
        /// Reading everything again after the store said the anchor expired.
        case resyncing
        /// Following the live feed.
        case live
        /// Waiting before connecting again after a failure.
        case retrying
        /// Stopped.
        case stopped
    }

    /// The process id.
    package var pid: Int32
    /// What it is doing.
    package var phase: Phase
    /// The person and the store (origin) of the feed.
    package var person: String
    /// The store (a machine's name).
    package var origin: String
    /// The anchor on the server after the last commit this process made.
    package var anchor: UInt64
    /// When it committed last.
    package var committedAt: Date?
    /// Changes (added plus deleted) this process committed.
    package var changesCommitted: Int64
    /// The last error, with its code, and when; nil after a later success.
    package var lastError: String?
    /// The code of ``lastError`` (`server`, `store`, `accessRevoked`, ...).
    package var lastErrorCode: String?
    /// When ``lastError`` happened.
    package var lastErrorAt: Date?
    /// Types whose access the owner withdrew (their changes are no longer delivered).
    package var revokedTypes: [String]
    /// Inbox rows saved into the store by this process, and rows rejected.
    package var inboxApplied: Int64
    /// Inbox rows that could not become samples.
    package var inboxRejected: Int64
    /// Samples saved and deleted in this store from the person's other stores (nil in status
    /// files written before there was a pull).
    package var replicasApplied: Int64?
    /// The backfills under way: types whose earlier changes are being sent (added to
    /// `--types`, or granted again); nil when none.
    package var backfills: [Backfill]?
    /// When this status was written.
    package var updatedAt: Date

    /// One type's backfill: its changes after ``from`` being sent, ``sent`` of ``owed``.
    package struct Backfill: Codable, Hashable, Sendable {
        /// The type's identifier.
        package var type: String
        /// The anchor its changes are sent after; 0: the start of its history.
        package var from: UInt64
        /// Changes sent so far.
        package var sent: Int64
        /// Changes owed when it started (counted up to a limit: more with ``atLeast``), raised to
        /// ``sent`` when samples saved meanwhile make it more.
        package var owed: Int64
        /// There were more than ``owed`` to count.
        package var atLeast: Bool

        /// A backfill of `type` after `from`, `sent` of `owed`.
        package init(type: String, from: UInt64, sent: Int64, owed: Int64, atLeast: Bool) {
            self.type = type
            self.from = from
            self.sent = sent
            self.owed = owed
            self.atLeast = atLeast
        }

        /// "backfilling TYPE: 2 of 4 changes, from the start of its history".
        package var text: String {
            let whence = from == 0 ? "from the start of its history" : "after anchor \(from)"
            return "backfilling \(type): \(sent) of \(atLeast ? "more than " : "")\(owed) changes, \(whence)"
        }
    }

    /// A status at start.
    package init(person: String, origin: String) {
        pid = getpid()
        phase = .starting
        self.person = person
        self.origin = origin
        anchor = 0
        changesCommitted = 0
        revokedTypes = []
        inboxApplied = 0
        inboxRejected = 0
        updatedAt = Date()
    }

    /// Writes the status to `path` atomically.
    package func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    /// The status at `path`, or nil when there is none.
    package static func read(from path: String) -> SyncStatus? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(SyncStatus.self, from: data)
    }

    /// The default status file for a feed: `$XDG_STATE_HOME/salus-sync/<person>@<origin>.json`
    /// (else under `~/.local/state`).
    package static func defaultPath(person: String, origin: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/state")
        let safe = { (text: String) in String(text.map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "_" }) }
        return "\(base)/salus-sync/\(safe(person))@\(safe(origin)).json"
    }
}

extension SyncLag {
    /// The local changes of `predicates` in `store` after `anchor` (0: every sample), counted up
    /// to `limit`, and the creation date of the oldest sample among them. An anchor the store
    /// no longer keeps deletions for counts every sample, as a backfill then sends them.
    static func pending(
        store: HealthStore, predicates: [SampleTypePredicate], after anchor: UInt64, limit: Int
    ) async throws(SalusError) -> (changes: Int, atLeast: Bool, oldest: Date?) {
        let result: AnchoredObjectQueryResult
        do {
            result = try await AnchoredObjectQueryDescriptor(
                predicates: predicates, anchor: QueryAnchor(rawValue: anchor), limit: limit, localChangesOnly: true
            ).result(for: store)
        } catch where error.code == .anchorExpired && anchor > 0 {
            return try await pending(store: store, predicates: predicates, after: 0, limit: limit)
        }
        return (result.addedSamples.count + result.deletedObjects.count, result.hasMore, result.addedSamples.map(\.creationDate).min())
    }
}

/// How far the server is behind the store, as `salus-sync status` reports it.
package struct SyncLag: Hashable, Sendable, Codable {
    /// Changes (added plus deleted, of the followed types) in the store after the server's anchor;
    /// with ``atLeast`` there are more than were counted.
    package var changes: Int
    /// The count stopped at the limit.
    package var atLeast: Bool
    /// Seconds since the oldest change the server lacks was made (0 when none).
    package var seconds: Double

    /// A lag of `changes` (more with `atLeast`) and `seconds`.
    package init(changes: Int, atLeast: Bool, seconds: Double) {
        self.changes = changes
        self.atLeast = atLeast
        self.seconds = seconds
    }
}
