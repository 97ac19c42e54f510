import Dispatch
import Foundation
import Logging
import SalusStore
import Synchronization

/// How an app reached a type, as `salus.v1.AccessKind`.
package enum AccessKind: Int, CaseIterable, Sendable, Hashable, Comparable {
    /// Saved samples of the type.
    case write = 1
    /// Deleted samples of the type.
    case delete = 2
    /// Read through a sample query.
    case sampleQuery = 3
    /// Read through an anchored query that ends once caught up.
    case anchoredQuery = 4
    /// Opened a live anchored query.
    case liveFeed = 5
    /// Observed the type's changes.
    case observer = 6
    /// Read the type's sources.
    case sourceQuery = 7
    /// Read a statistic or a statistics collection.
    case statistics = 8

    package static func < (lhs: AccessKind, rhs: AccessKind) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One row of the access log: what one app did to one type in one way, within one hour.
package struct AccessLogEntry: Sendable, Hashable {
    /// The app.
    package var appID: String
    /// The type identifier.
    package var type: String
    /// How.
    package var kind: AccessKind
    /// The hour counted (its start), in microseconds since 1970.
    package var hour: Int64
    /// The first and last access within the hour, in microseconds since 1970.
    package var first: Int64
    package var last: Int64
    /// How many accesses (calls, not samples).
    package var count: Int64
}

/// The access log (docs/authorization.md, "The access log"): per hour, app, type and kind of
/// access, the first and last time and a count, kept in `access-log.sqlite` in the data folder
/// for a retention the owner sets (30 days by default) and purged after it.
///
/// **Recording takes one mutex and a dictionary update, never I/O.** The save and query paths
/// call ``record(_:types:kind:)``, which counts into memory; a timer on the log's own queue
/// writes what was counted every ``flushInterval`` in one transaction, as do a read of the log
/// and ``close()``. Why: a write to SQLite per call would put the log's fsync on every save.
/// What a crash loses is the last interval's counts, never the store's data.
///
/// **Never a value.** An entry names an app, a type, a kind of access and times: what the
/// person needs to judge an app, and nothing that repeats their data in a second file.
///
/// **Its own file, its own schema** (`PRAGMA user_version` 1), apart from the store's: it is the
/// owner's record of the apps, not health data, and it is read only on the admin socket.
package final class AccessLog: @unchecked Sendable {
    /// The file's name in the data folder.
    package static let fileName = "access-log.sqlite"
    /// The retention when the owner set none: 30 days.
    package static let defaultRetentionSeconds: Int64 = 30 * 86_400
    /// The retentions accepted: an hour to ten years, or 0 (``isRecording``: off).
    package static let retentionRange: ClosedRange<Int64> = 3_600...(10 * 366 * 86_400)
    /// The schema this code writes.
    static let schemaVersion: Int64 = 1
    /// Keys counted in memory at most between two writes; beyond, new keys are dropped (and
    /// logged once per write): a write failing for long must not grow memory without bound.
    static let pendingLimit = 100_000
    static let hourMicroseconds: Int64 = 3_600_000_000

    struct Key: Hashable {
        var hour: Int64
        var appID: String
        var type: String
        var kind: AccessKind
    }

    struct Counts {
        var first: Int64
        var last: Int64
        var count: Int64

        mutating func merge(_ other: Counts) {
            first = min(first, other.first)
            last = max(last, other.last)
            count += other.count
        }
    }

    struct State {
        var pending: [Key: Counts] = [:]
        var dropped = 0
        var clock: @Sendable () -> Date
    }

    /// The file.
    package let path: String
    /// How often the counts are written.
    package let flushInterval: Duration
    private let state: Mutex<State>
    private let retention: Atomic<Int64>
    private let queue = DispatchQueue(label: "salus.access-log")
    // Used only on `queue`; nil once closed.
    private var database: Database?
    private var timer: (any DispatchSourceTimer)?
    private let logger: Logger

    /// Opens (creating) the log at `path`, purges what is older than its retention, and starts
    /// writing counts every `flushInterval`. Throws ``DaemonError`` naming the file when it cannot
    /// be opened or was written by a newer schema.
    package init(
        path: String, logger: Logger, flushInterval: Duration = .seconds(60),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.path = path
        self.logger = logger
        self.flushInterval = flushInterval
        state = Mutex(State(clock: clock))
        let database: Database
        var retention = Self.defaultRetentionSeconds
        do {
            database = try Database(path: path)
            let version = try database.scalarInt("PRAGMA user_version") ?? 0
            guard version <= Self.schemaVersion else {
                throw DaemonError(
                    "\(path) was written by a newer Salus (access log schema \(version); this one knows \(Self.schemaVersion))")
            }
            if version < Self.schemaVersion {
                try database.execute(
                    """
                    BEGIN IMMEDIATE;
                    CREATE TABLE IF NOT EXISTS accesses (
                        hour_us INTEGER NOT NULL, app_id TEXT NOT NULL, type TEXT NOT NULL, kind INTEGER NOT NULL,
                        first_us INTEGER NOT NULL, last_us INTEGER NOT NULL, count INTEGER NOT NULL,
                        PRIMARY KEY (hour_us, app_id, type, kind)) WITHOUT ROWID;
                    CREATE INDEX IF NOT EXISTS accesses_last ON accesses(last_us);
                    CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
                    PRAGMA user_version = \(Self.schemaVersion);
                    COMMIT;
                    """)
            }
            retention =
                try database.scalarInt("SELECT value FROM settings WHERE key = 'retention_seconds'") ?? retention
        } catch let error as DaemonError {
            throw error
        } catch {
            throw DaemonError(
                "cannot open the access log at \(path): \(error); it holds only the record of what apps did, "
                    + "so moving it away starts an empty log")
        }
        self.retention = Atomic(retention)
        self.database = database
        queue.sync { flushOnQueue() }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = flushInterval.components
        let nanoseconds = Int(interval.seconds) * 1_000_000_000 + Int(interval.attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(max(nanoseconds, 1_000_000)))
        timer.setEventHandler { [weak self] in self?.flushOnQueue() }
        timer.resume()
        self.timer = timer
    }

    /// Counts one access by `appID` to each of `types`, now. Cheap: one lock, one dictionary
    /// update per type; no I/O.
    package func record(_ appID: String, types: some Sequence<String>, kind: AccessKind) {
        guard isRecording else { return }
        state.withLock { state in
            let now = Self.microseconds(state.clock())
            let hour = now - ((now % Self.hourMicroseconds) + Self.hourMicroseconds) % Self.hourMicroseconds
            for type in types {
                let key = Key(hour: hour, appID: appID, type: type, kind: kind)
                if state.pending[key] != nil {
                    state.pending[key]!.merge(Counts(first: now, last: now, count: 1))
                } else if state.pending.count < Self.pendingLimit {
                    state.pending[key] = Counts(first: now, last: now, count: 1)
                } else {
                    state.dropped += 1
                }
            }
        }
    }

    /// Counts one access by `appID` to `type`.
    package func record(_ appID: String, type: String, kind: AccessKind) {
        record(appID, types: CollectionOfOne(type), kind: kind)
    }

    /// Replaces the clock (tests move time instead of waiting for it).
    package func setClock(_ clock: @escaping @Sendable () -> Date) {
        state.withLock { $0.clock = clock }
    }

    /// How long entries are kept, in seconds.
    package var retentionSeconds: Int64 { retention.load(ordering: .relaxed) }

    /// False when the owner set a retention of 0: keep nothing, so record nothing (what an app
    /// does is then not even counted in memory).
    package var isRecording: Bool { retentionSeconds > 0 }

    /// Sets how long entries are kept and purges what is older at once; 0 turns the log off,
    /// deleting every entry and what was counted. Refuses, naming `retention_seconds`, a
    /// retention neither 0 nor in ``retentionRange``.
    package func setRetention(seconds: Int64) async throws {
        guard seconds == 0 || Self.retentionRange.contains(seconds) else {
            throw AccessLogError.retention(seconds)
        }
        try await onQueue { database in
            _ = try database.run(
                "INSERT OR REPLACE INTO settings (key, value) VALUES ('retention_seconds', ?)", [.integer(seconds)])
            self.retention.store(seconds, ordering: .relaxed)
            if seconds == 0 { self.state.withLock { $0.pending = [:] } }
            try self.writePending(database)
        }
    }

    /// The entries kept (with what was counted since the last write), newest last access first;
    /// only `appID`'s when given, only those last used at or after `since` when given.
    package func entries(appID: String? = nil, since: Int64? = nil) async throws -> [AccessLogEntry] {
        try await onQueue { database in
            try self.writePending(database)
            var sql = "SELECT app_id, type, kind, hour_us, first_us, last_us, count FROM accesses WHERE 1"
            var arguments: [SQLValue] = []
            if let appID {
                sql += " AND app_id = ?"
                arguments.append(.text(appID))
            }
            if let since {
                sql += " AND last_us >= ?"
                arguments.append(.integer(since))
            }
            let statement = try database.prepare(sql + " ORDER BY last_us DESC, app_id, type, kind", cached: false)
            try statement.bind(arguments)
            var entries: [AccessLogEntry] = []
            while try statement.step() {
                guard let kind = AccessKind(rawValue: Int(statement.int64(2))) else { continue }
                entries.append(
                    AccessLogEntry(
                        appID: statement.text(0) ?? "", type: statement.text(1) ?? "", kind: kind,
                        hour: statement.int64(3), first: statement.int64(4), last: statement.int64(5),
                        count: statement.int64(6)))
            }
            return entries
        }
    }

    /// Writes what was counted and closes the file; later records are dropped.
    package func close() {
        queue.sync {
            timer?.cancel()
            timer = nil
            guard let database else { return }
            do {
                try writePending(database)
            } catch {
                logger.error("cannot write the access log", metadata: ["path": "\(path)", "error": "\(error)"])
            }
            database.close()
            self.database = nil
        }
    }

    /// Writes what was counted now, on the caller's thread (tests, and the daemon's stop).
    package func flush() {
        queue.sync { flushOnQueue() }
    }

    // MARK: On the queue

    private func flushOnQueue() {
        guard let database else { return }
        do {
            try writePending(database)
        } catch {
            logger.error("cannot write the access log", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    /// Takes the counts out of memory and adds them to the file in one transaction, purging
    /// entries last used before the retention; on failure the counts go back to memory.
    private func writePending(_ database: Database) throws {
        let (pending, dropped, now) = state.withLock { state in
            defer {
                state.pending = [:]
                state.dropped = 0
            }
            return (state.pending, state.dropped, Self.microseconds(state.clock()))
        }
        if dropped > 0 {
            logger.warning(
                "the access log dropped accesses: too many counted before a write",
                metadata: ["dropped": "\(dropped)", "path": "\(path)"])
        }
        let cutoff = now - retentionSeconds * 1_000_000
        do {
            try database.transaction(immediate: true) {
                let upsert = try database.prepare(
                    """
                    INSERT INTO accesses (hour_us, app_id, type, kind, first_us, last_us, count) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (hour_us, app_id, type, kind) DO UPDATE SET
                    first_us = min(first_us, excluded.first_us), last_us = max(last_us, excluded.last_us),
                    count = count + excluded.count
                    """)
                for (key, counts) in pending {
                    try upsert.bind([
                        .integer(key.hour), .text(key.appID), .text(key.type), .integer(Int64(key.kind.rawValue)),
                        .integer(counts.first), .integer(counts.last), .integer(counts.count),
                    ])
                    _ = try upsert.step()
                    upsert.reset()
                }
                _ = try database.run("DELETE FROM accesses WHERE last_us < ?", [.integer(cutoff)])
            }
        } catch {
            state.withLock { state in
                for (key, counts) in pending {
                    if state.pending[key] != nil {
                        state.pending[key]!.merge(counts)
                    } else {
                        state.pending[key] = counts
                    }
                }
            }
            throw error
        }
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                guard let database = self.database else {
                    continuation.resume(throwing: AccessLogError.closed)
                    return
                }
                continuation.resume(with: Result { try body(database) })
            }
        }
    }

    static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
    }
}

/// What the access log refuses.
package enum AccessLogError: Error, Sendable {
    /// A retention outside `AccessLog.retentionRange`, in seconds.
    case retention(Int64)
    /// The log is closed (the daemon is stopping).
    case closed
}
