import Foundation
import Synchronization
import Logging
import PostgresNIO
import SalusModel

/// Where one feed stands on the server: the anchor its last committed batch reached.
package struct FeedState: Hashable, Sendable {
    /// The store's change-sequence position after the last committed batch (0: nothing yet).
    package var anchor: UInt64
    /// Bumped by each full resync; rows of this origin with a lower one are stale at its end.
    package var generation: Int64
    /// A full resync is under way (it resumes from ``anchor`` after a restart).
    package var resyncing: Bool
    /// When the last batch was committed.
    package var committedAt: Date?
    /// Changes committed so far (added plus deleted), over the feed's life.
    package var changesCommitted: Int64
    /// The last error recorded on the server, and when.
    package var lastError: String?
    /// When ``lastError`` happened.
    package var lastErrorAt: Date?
}

/// What a feed row keeps of the app's access and of the types it follows
/// (`salus.feeds.access`), by type identifier: the anchor each type was last seen allowed at,
/// the anchor after which a withdrawn type's changes may be missing, the anchor a backfill still
/// owes from (0: the start of the type's history), the types followed, and the types once
/// followed and since left out of `--types`.
package struct AccessRecord: Codable, Hashable, Sendable {
    package var granted: [String: UInt64] = [:]
    package var withdrawn: [String: UInt64] = [:]
    package var backfill: [String: UInt64] = [:]
    /// The types the feed follows (`--types`), each with the feed's anchor when the record was
    /// written: their changes up to it are on the server, save what `withdrawn` and `backfill`
    /// say. Nil in a record written before the followed types were kept.
    package var followed: [String: UInt64]? = nil
    /// Types followed once and since left out of `--types`, each with the anchor after which
    /// their changes are not on the server: added back, they are sent from it.
    package var unfollowed: [String: UInt64] = [:]

    package init() {}

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        granted = try container.decodeIfPresent([String: UInt64].self, forKey: .granted) ?? [:]
        withdrawn = try container.decodeIfPresent([String: UInt64].self, forKey: .withdrawn) ?? [:]
        backfill = try container.decodeIfPresent([String: UInt64].self, forKey: .backfill) ?? [:]
        followed = try container.decodeIfPresent([String: UInt64].self, forKey: .followed)
        unfollowed = try container.decodeIfPresent([String: UInt64].self, forKey: .unfollowed) ?? [:]
    }
}

/// The server side of one feed: the person's rows on one PostgreSQL connection.
///
/// **Rule: a batch and the anchor after it commit in one transaction.** Why: the anchor says
/// which changes the server has. Committed together, a crash at any point leaves the server
/// either before the batch (it is read again from the store) or after it (it is not); upserts on
/// the UUID primary key make the first case harmless even when part of a batch had been sent.
/// What breaks otherwise: an anchor saved after the rows repeats them, one saved before loses them.
///
/// **Rule: the anchor moves only from the value this process read.** The update is
/// `WHERE anchor = <expected>`; when another process moved it (a second `salus-sync` for the
/// same store), the batch rolls back and the feed starts again from the server's anchor.
package struct PostgresMirror: Sendable {
    /// The channel on which each commit of a person's rows is announced (`NOTIFY`, payload: the
    /// person), so that the person's other machines pull at once instead of at their next poll.
    package static let channel = "salus_sync"

    /// The connection (one per mirror; a transaction needs the connection to itself).
    package let connection: PostgresConnection
    /// The person whose rows these are.
    package let person: String
    /// The store the feed reads (a machine's name).
    package let origin: String
    let logger: Logger

    /// Connects to the server; errors are ``SyncError/Code/server``.
    package static func connect(_ settings: DatabaseSettings, person: String, origin: String, logger: Logger) async throws -> PostgresMirror {
        let configuration = try settings.postgresConfiguration()
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
            return PostgresMirror(connection: connection, person: person, origin: origin, logger: logger)
        } catch {
            if let refusal = refusal(error, settings: settings) { throw refusal }
            throw SyncError(.server, "cannot connect to PostgreSQL (\(settings.redacted)): \(Self.describe(error))")
        }
    }

    /// The SQLSTATEs that say the connection string cannot work, whatever the wait: class 28
    /// (authentication: a wrong password, a role that does not exist or may not log in),
    /// `3D000` (the database does not exist) and `42501` (permission denied: for the database,
    /// for schema `salus`, for a table).
    static let refusingStates: Set<String> = ["28000", "28P01", "3D000", "42501"]

    /// A ``SyncError/Code/configuration`` error when `error` says that the server refuses what
    /// the connection string asks (``refusingStates``, or a password the server asks for and
    /// the string lacks, an authentication method PostgresNIO cannot do, TLS the server does
    /// not offer); nil for anything that may pass (the server down, restarting, too busy).
    ///
    /// **Rule: a configuration that cannot work stops, with its reason.** Why: retried, a wrong
    /// password fails for ever, with the reason only in a log and the status, while the person
    /// believes the mirror kept. The message names the setting to change, not a value of the
    /// string (the password stays out of it), and is one line. `settings` (nil for a failure
    /// after connecting) adds where the connection went.
    static func refusal(_ error: any Error, settings: DatabaseSettings?) -> SyncError? {
        guard let error = error as? PSQLError else { return nil }
        let whence = settings.map { " (\($0.redacted))" } ?? ""
        let state = error.serverInfo?[.sqlState]
        let reason = describe(error).replacingOccurrences(of: "\n", with: " ")
        switch (error.code, state) {
        case (.server, "28P01"?), (.server, "28000"?):
            return SyncError(
                .configuration, "PostgreSQL refuses the connection string\(whence): \(reason)", field: "user",
                value: settings?.user, expected: "a role that exists and that the server lets in as the string asks (createuser NAME, pg_hba.conf, ALTER ROLE NAME PASSWORD ...)")
        case (.server, "3D000"?):
            return SyncError(
                .configuration, "PostgreSQL refuses the connection string\(whence): \(reason)", field: "dbname",
                value: settings?.database ?? settings?.user, expected: "an existing database (createdb NAME, or dbname= another)")
        case (.server, "42501"?):
            return SyncError(
                .configuration, "PostgreSQL refuses the connection string\(whence): \(reason)", field: "user", value: settings?.user,
                expected: "a role that owns schema salus and its tables, or may create them (GRANT CREATE ON DATABASE db TO role)")
        case (.authMechanismRequiresPassword, _):
            return SyncError(
                .configuration, "PostgreSQL asks for a password and the connection string has none\(whence)", field: "password",
                value: "", expected: "password= in the connection string, or a pg_hba.conf rule that needs none (peer)")
        case (.unsupportedAuthMechanism, _):
            return SyncError(
                .configuration, "PostgreSQL asks for an authentication method salus-sync cannot do\(whence): \(reason)",
                field: "pg_hba.conf", expected: "scram-sha-256, md5, password or trust for this role")
        case (.sslUnsupported, _):
            return SyncError(
                .configuration, "PostgreSQL does not offer TLS\(whence)", field: "sslmode", value: settings?.tlsMode.rawValue,
                expected: "a server with ssl=on, or sslmode=prefer or disable")
        default:
            return nil
        }
    }

    /// Closes the connection.
    package func close() async {
        try? await connection.close()
    }

    /// A PostgresNIO error as people read it: the server's message when there is one.
    package static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] {
                return "\(message) (SQLSTATE \(error.serverInfo?[.sqlState] ?? "?"))"
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        if let error = error as? SyncError { return error.description }
        return "\(error)"
    }

    private func run(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> [PostgresRow] {
        try Self.checkOpen(connection)
        return try await connection.query(query, logger: logger).collect()
    }

    /// Runs `body` between BEGIN and COMMIT on `connection`, and rolls back when it throws (when
    /// the connection is still open: see ``checkOpen(_:)``, which is also why this is not
    /// PostgresNIO's `withTransaction`, whose ROLLBACK would wait forever on a closed one).
    static func transaction<T>(
        _ connection: PostgresConnection, logger: Logger, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try checkOpen(connection)
        try await connection.query("BEGIN", logger: logger)
        do {
            let value = try await body(connection)
            try checkOpen(connection)
            try await connection.query("COMMIT", logger: logger)
            return value
        } catch {
            if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: logger) }
            throw error
        }
    }

    /// Runs `operation`; when it has not finished after `timeout`, closes the connection and
    /// fails with a server error, so that the engine reconnects.
    ///
    /// **Rule: no statement waits for ever.** Why: PostgresNIO (1.33) can drop a statement
    /// written just as the server closes the connection, without failing it (``checkOpen(_:)``
    /// narrows the window but cannot close it); the engine would then wait for ever instead of
    /// reconnecting, and report itself live.
    package func answered<T: Sendable>(
        within timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await Self.answered(on: connection, within: timeout, operation)
    }

    /// ``answered(within:_:)`` for statements on `connection`, which is closed on a timeout.
    static func answered<T: Sendable>(
        on connection: PostgresConnection, within timeout: Duration, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let settled = Settled()
        return try await withCheckedThrowingContinuation { continuation in
            let timer = Task {
                try? await Task.sleep(for: timeout)
                guard !Task.isCancelled, settled.claim() else { return }
                try? await connection.close()
                continuation.resume(throwing: SyncError(
                    .server, "the PostgreSQL server did not answer within \(timeout); the connection is closed and opened again"))
            }
            Task {
                do {
                    let value = try await operation()
                    timer.cancel()
                    if settled.claim() { continuation.resume(returning: value) }
                } catch {
                    timer.cancel()
                    if settled.claim() { continuation.resume(throwing: error) }
                }
            }
        }
    }

    /// Whether one of two racing tasks has already finished the wait.
    private final class Settled: Sendable {
        private let done = Atomic<Bool>(false)
        /// True for the first caller only.
        func claim() -> Bool { done.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged }
    }

    /// Throws when the server has closed `connection`.
    ///
    /// **Rule: never send a statement on a closed connection.** Why: PostgresNIO (1.33) drops a
    /// statement written to a closed channel without failing it, so the caller would wait
    /// forever instead of reconnecting; the server closes idle connections when it shuts down.
    static func checkOpen(_ connection: PostgresConnection) throws {
        if connection.isClosed {
            throw SyncError(.server, "the PostgreSQL server closed the connection")
        }
    }

    /// Statements as one string each (PostgreSQL prepares one statement at a time).
    static func statements(_ script: String) -> [String] {
        script.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty && !$0.split(separator: "\n").allSatisfy { $0.trimmingCharacters(in: .whitespaces).hasPrefix("--") } }
    }

    // MARK: Schema and feed

    /// Applies the migrations this server lacks, then makes sure the person and the feed rows
    /// exist, and returns where the feed stands.
    package func open() async throws -> FeedState {
        try await migrate()
        try await Self.transaction(connection, logger: logger) { connection in
            _ = try await run("INSERT INTO salus.person (person_id) VALUES (\(person)) ON CONFLICT DO NOTHING", on: connection)
            _ = try await run(
                "INSERT INTO salus.feeds (person_id, origin) VALUES (\(person), \(origin)) ON CONFLICT DO NOTHING", on: connection)
        }
        return try await state()
    }

    /// The migrations, each once, under an advisory lock.
    package func migrate() async throws {
        try await Self.transaction(connection, logger: logger) { connection in
            _ = try await run("SELECT pg_advisory_xact_lock(7461626)", on: connection)
            _ = try await run("CREATE SCHEMA IF NOT EXISTS salus", on: connection)
            _ = try await run(
                "CREATE TABLE IF NOT EXISTS salus.schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                on: connection)
            let rows = try await run("SELECT coalesce(max(version), 0)::bigint FROM salus.schema_version", on: connection)
            let current = try rows.first?.decode(Int64.self) ?? 0
            for (index, script) in SyncSchema.migrations.enumerated() where index + 1 > current {
                for statement in Self.statements(script) {
                    _ = try await run(PostgresQuery(unsafeSQL: statement), on: connection)
                }
                _ = try await run("INSERT INTO salus.schema_version (version) VALUES (\(index + 1))", on: connection)
            }
        }
    }

    /// Where the feed stands now.
    package func state() async throws -> FeedState {
        let rows = try await run(
            """
            SELECT anchor, generation, resyncing, committed_at, changes_committed, last_error, last_error_at
            FROM salus.feeds WHERE person_id = \(person) AND origin = \(origin)
            """, on: connection)
        guard let row = rows.first else {
            throw SyncError(.server, "the feed row is missing", field: "salus.feeds", value: "\(person)/\(origin)", expected: "a row made by open()")
        }
        let (anchor, generation, resyncing, committedAt, changes, lastError, lastErrorAt) = try row.decode(
            (Int64, Int64, Bool, Date?, Int64, String?, Date?).self)
        return FeedState(
            anchor: UInt64(max(0, anchor)), generation: generation, resyncing: resyncing, committedAt: committedAt,
            changesCommitted: changes, lastError: lastError, lastErrorAt: lastErrorAt)
    }

    /// What the feed row keeps of the app's access.
    package func access() async throws -> AccessRecord {
        let rows = try await run(
            "SELECT access::text FROM salus.feeds WHERE person_id = \(person) AND origin = \(origin)", on: connection)
        guard let text = try rows.first?.decode(String.self) else { return AccessRecord() }
        do {
            return try JSONDecoder().decode(AccessRecord.self, from: Data(text.utf8))
        } catch {
            throw SyncError(
                .server, "the feed's access record cannot be read: \(error)", field: "salus.feeds.access", value: text,
                expected: "{\"granted\"|\"withdrawn\"|\"backfill\"|\"followed\"|\"unfollowed\": {type identifier: anchor}}")
        }
    }

    /// Replaces what the feed row keeps of the app's access.
    package func saveAccess(_ record: AccessRecord) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(record), as: UTF8.self)
        _ = try await run(
            "UPDATE salus.feeds SET access = \(json)::jsonb WHERE person_id = \(person) AND origin = \(origin)", on: connection)
    }

    // MARK: Batches

    /// The JSONB of a tombstone's metadata from a sample row's `metadata` column: the two sync
    /// keys only, as the store keeps them.
    static func syncKeys(of column: String) -> String {
        """
        coalesce((SELECT jsonb_object_agg(key, value) FROM jsonb_each(\(column)) \
        WHERE key IN ('HKMetadataKeySyncIdentifier', 'HKMetadataKeySyncVersion')), '{}')
        """
    }

    /// Locks the person's row until the transaction ends and returns the last `seq` given.
    ///
    /// **Rule: a person's rows are numbered in commit order.** Every transaction that writes
    /// samples or tombstones takes the person's row first and numbers its rows after
    /// `last_seq`, so a store that pulls "after seq N" (the other machines' rows) never misses a
    /// row committed later with a lower number.
    private func lockSequence(on connection: PostgresConnection) async throws -> Int64 {
        let rows = try await run(
            "SELECT last_seq FROM salus.person WHERE person_id = \(person) FOR UPDATE", on: connection)
        guard let row = rows.first else {
            throw SyncError(.server, "the person's row is missing", field: "salus.person", value: person, expected: "a row made by open()")
        }
        return try row.decode(Int64.self)
    }

    private func setSequence(_ last: Int64, on connection: PostgresConnection) async throws {
        _ = try await run("UPDATE salus.person SET last_seq = \(last) WHERE person_id = \(person)", on: connection)
    }

    /// Upserts `added`, removes `deleted` (leaving tombstones) and moves the anchor from
    /// `state.anchor` to `newAnchor`, in one transaction; returns the new state.
    ///
    /// **Rule: on one sync identifier, the higher version wins; on equal versions, the sample the
    /// server saw first.** A sample with a sync identifier (per source app and type, as in the
    /// store) that meets a row of the same identifier with a higher or equal version is not
    /// written: it gets a `superseded` tombstone, which every store applies (the one that sent it
    /// too). One that meets a lower version replaces that row, which gets a `superseded`
    /// tombstone. Why: two machines that edit the same entry while apart must end with the same
    /// one, and "first seen by the server" is the one order both can agree on. A UUID with a
    /// tombstone is never written again: deletions win.
    package func apply(added: [Sample], deleted: [DeletedObject], newAnchor: UInt64, state: FeedState) async throws -> FeedState {
        var sampleRows = try added.map(SampleRow.init)
        let anchor = Int64(newAnchor)
        let changes = Int64(added.count + deleted.count)
        try await Self.transaction(connection, logger: logger) { connection in
            let moved = try await run(
                """
                UPDATE salus.feeds SET anchor = \(anchor), committed_at = now(), changes_committed = changes_committed + \(changes),
                    last_error = NULL, last_error_at = NULL
                WHERE person_id = \(person) AND origin = \(origin) AND anchor = \(Int64(state.anchor)) AND generation = \(state.generation)
                RETURNING anchor
                """, on: connection)
            guard !moved.isEmpty else {
                throw SyncError(.server, "the feed's anchor moved under this process (another salus-sync for the same store?)",
                                field: "salus.feeds.anchor", value: "\(state.anchor)", expected: "the anchor this process read")
            }
            var seq = try await lockSequence(on: connection)
            // Removes the rows of these tombstones and records them, numbered after `seq`.
            func bury(_ rows: [TombstoneRow]) async throws {
                guard !rows.isEmpty else { return }
                var rows = rows
                for index in rows.indices {
                    seq += 1
                    rows[index].seq = seq
                }
                _ = try await run(
                    """
                    WITH gone AS (
                        SELECT r.uuid, r.type, coalesce(r.metadata, '{}') AS metadata, r.reason, r.seq
                        FROM jsonb_to_recordset(\(try rows.jsonText())::jsonb)
                            AS r(uuid uuid, type text, metadata jsonb, reason text, seq bigint)
                    ), removed AS (
                        DELETE FROM salus.samples s USING gone
                        WHERE s.person_id = \(person) AND s.uuid = gone.uuid
                    )
                    INSERT INTO salus.tombstones (person_id, uuid, origin, type, metadata, anchor, seq, reason)
                    SELECT \(person), uuid, \(origin), type, metadata, \(anchor), seq, reason FROM gone
                    ON CONFLICT (person_id, uuid) DO NOTHING
                    """, on: connection)
            }
            // This batch's deletions first: a sample deleted and saved again under the same sync
            // identifier in one batch must not lose to the row it replaces.
            try await bury(deleted.map(TombstoneRow.init))

            // Samples that lose to a row of the same sync identifier already on the server.
            let contested = sampleRows.filter { $0.sync_identifier != nil && $0.sync_version != nil }
            var losers = Set<UUID>()
            if !contested.isEmpty {
                let rows = try await run(
                    """
                    SELECT r.uuid FROM jsonb_to_recordset(\(try contested.jsonText())::jsonb) AS r(
                        uuid uuid, type text, source_app_id text, sync_identifier text, sync_version double precision)
                    WHERE EXISTS (
                        SELECT 1 FROM salus.samples s
                        WHERE s.person_id = \(person) AND s.source_app_id = r.source_app_id AND s.type = r.type
                            AND s.sync_identifier = r.sync_identifier AND s.uuid <> r.uuid AND s.sync_version >= r.sync_version)
                    """, on: connection)
                for row in rows { losers.insert(try row.decode(UUID.self)) }
            }
            try await bury(added.filter { losers.contains($0.uuid) }.map { TombstoneRow(superseded: $0) })
            sampleRows.removeAll { losers.contains($0.uuid) }
            // Rows of the same sync identifier with a lower version than a sample written now.
            let winners = sampleRows.filter { $0.sync_identifier != nil && $0.sync_version != nil }
            if !winners.isEmpty {
                let rows = try await run(
                    """
                    WITH r AS (
                        SELECT * FROM jsonb_to_recordset(\(try winners.jsonText())::jsonb) AS x(
                            uuid uuid, type text, source_app_id text, sync_identifier text, sync_version double precision)
                    ), beaten AS (
                        DELETE FROM salus.samples s USING r
                        WHERE s.person_id = \(person) AND s.source_app_id = r.source_app_id AND s.type = r.type
                            AND s.sync_identifier = r.sync_identifier AND s.uuid <> r.uuid AND s.sync_version < r.sync_version
                        RETURNING s.uuid, s.type, s.metadata
                    ), made AS (
                        INSERT INTO salus.tombstones (person_id, uuid, origin, type, metadata, anchor, seq, reason)
                        SELECT \(person), b.uuid, \(origin), b.type, \(unescaped: Self.syncKeys(of: "b.metadata")), \(anchor),
                            \(seq) + row_number() OVER (), 'superseded'
                        FROM beaten b
                        ON CONFLICT (person_id, uuid) DO NOTHING
                    )
                    SELECT count(*)::bigint FROM beaten
                    """, on: connection)
                seq += try rows.first?.decode(Int64.self) ?? 0
            }
            for index in sampleRows.indices {
                seq += 1
                sampleRows[index].seq = seq
            }
            if !sampleRows.isEmpty {
                _ = try await run(
                    """
                    INSERT INTO salus.samples (
                        person_id, uuid, origin, generation, type, kind, start_date, end_date, quantity_value, quantity_unit,
                        category_value, source_app_id, source_name, source_version, source_product_type, source_os_version,
                        device_name, device_manufacturer, device_model, device_hardware_version, device_firmware_version,
                        device_software_version, device_local_identifier, device_udi, metadata, sync_identifier, sync_version,
                        creation_date, payload, anchor, seq)
                    SELECT \(person), r.uuid, \(origin), \(state.generation), r.type, r.kind,
                        to_timestamp(r.start_us / 1000000.0), to_timestamp(r.end_us / 1000000.0), r.quantity_value, r.quantity_unit,
                        r.category_value, r.source_app_id, r.source_name, r.source_version, r.source_product_type, r.source_os_version,
                        r.device_name, r.device_manufacturer, r.device_model, r.device_hardware_version, r.device_firmware_version,
                        r.device_software_version, r.device_local_identifier, r.device_udi, coalesce(r.metadata, '{}'), r.sync_identifier,
                        r.sync_version, to_timestamp(r.creation_us / 1000000.0), decode(r.payload, 'base64'), \(anchor), r.seq
                    FROM jsonb_to_recordset(\(try sampleRows.jsonText())::jsonb) AS r(
                        uuid uuid, type text, kind text, start_us bigint, end_us bigint, quantity_value double precision,
                        quantity_unit text, category_value integer, source_app_id text, source_name text, source_version text,
                        source_product_type text, source_os_version text, device_name text, device_manufacturer text,
                        device_model text, device_hardware_version text, device_firmware_version text, device_software_version text,
                        device_local_identifier text, device_udi text, metadata jsonb, sync_identifier text,
                        sync_version double precision, creation_us bigint, payload text, seq bigint)
                    WHERE NOT EXISTS (SELECT 1 FROM salus.tombstones t WHERE t.person_id = \(person) AND t.uuid = r.uuid)
                    ON CONFLICT (person_id, uuid) DO UPDATE SET
                        origin = EXCLUDED.origin, generation = EXCLUDED.generation, type = EXCLUDED.type, kind = EXCLUDED.kind,
                        start_date = EXCLUDED.start_date, end_date = EXCLUDED.end_date, quantity_value = EXCLUDED.quantity_value,
                        quantity_unit = EXCLUDED.quantity_unit, category_value = EXCLUDED.category_value,
                        source_app_id = EXCLUDED.source_app_id, source_name = EXCLUDED.source_name,
                        source_version = EXCLUDED.source_version, source_product_type = EXCLUDED.source_product_type,
                        source_os_version = EXCLUDED.source_os_version, device_name = EXCLUDED.device_name,
                        device_manufacturer = EXCLUDED.device_manufacturer, device_model = EXCLUDED.device_model,
                        device_hardware_version = EXCLUDED.device_hardware_version,
                        device_firmware_version = EXCLUDED.device_firmware_version,
                        device_software_version = EXCLUDED.device_software_version,
                        device_local_identifier = EXCLUDED.device_local_identifier, device_udi = EXCLUDED.device_udi,
                        metadata = EXCLUDED.metadata, sync_identifier = EXCLUDED.sync_identifier,
                        sync_version = EXCLUDED.sync_version, creation_date = EXCLUDED.creation_date,
                        payload = EXCLUDED.payload, anchor = EXCLUDED.anchor, seq = EXCLUDED.seq, synced_at = now()
                    """, on: connection)
            }
            try await setSequence(seq, on: connection)
            // Delivered at the commit, to the other machines' pulls.
            _ = try await run("SELECT pg_notify(\(Self.channel), \(person))", on: connection)
        }
        var next = state
        next.anchor = newAnchor
        next.committedAt = Date()
        next.changesCommitted += changes
        next.lastError = nil
        next.lastErrorAt = nil
        return next
    }

    // MARK: Between machines

    /// One change another store sent, as this store pulls it.
    package enum PulledChange: Sendable {
        /// A sample, as `salus.v1.Sample` bytes (the row's `payload`).
        case sample(UUID, [UInt8])
        /// A deletion, or a sample that lost to another of its sync identifier.
        case deletion(UUID)
    }

    /// The changes after `seq` that this store lacks: the samples and tombstones of the other
    /// stores (and `superseded` tombstones of every store, its own included), of `types`, in
    /// seq order, at most `limit`; and how far they cover, `upTo`: the person's `last_seq` when
    /// fewer than `limit` came (every row up to it was looked at, in the same snapshot), else the
    /// last change's seq. Why `upTo`: a store's own rows never come back to it, and a position
    /// that stayed behind them would make every pull scan them again.
    package func pull(after seq: Int64, types: [String], limit: Int) async throws
        -> (changes: [(seq: Int64, change: PulledChange)], upTo: Int64)
    {
        let rows = try await run(
            """
            WITH top AS (SELECT last_seq FROM salus.person WHERE person_id = \(person)),
            changes AS (
                SELECT seq, uuid, payload FROM salus.samples
                WHERE person_id = \(person) AND seq > \(seq) AND seq <= (SELECT last_seq FROM top)
                    AND origin <> \(origin) AND type = ANY(\(types))
                UNION ALL
                SELECT seq, uuid, NULL::bytea FROM salus.tombstones
                WHERE person_id = \(person) AND seq > \(seq) AND seq <= (SELECT last_seq FROM top)
                    AND (origin <> \(origin) OR reason = 'superseded') AND type = ANY(\(types))
                ORDER BY seq LIMIT \(Int64(limit))
            )
            SELECT (SELECT last_seq FROM top), c.seq, c.uuid, c.payload
            FROM (SELECT 1) AS one LEFT JOIN changes c ON true ORDER BY c.seq
            """, on: connection)
        var top = seq
        var changes: [(seq: Int64, change: PulledChange)] = []
        for row in rows {
            let (last, changeSeq, uuid, payload) = try row.decode((Int64?, Int64?, UUID?, ByteBuffer?).self)
            top = max(top, last ?? seq)
            guard let changeSeq, let uuid else { continue }
            changes.append((changeSeq, payload.map { .sample(uuid, Array($0.readableBytesView)) } ?? .deletion(uuid)))
        }
        let upTo = changes.count >= limit ? changes[changes.count - 1].seq : max(top, changes.last?.seq ?? seq)
        return (changes, upTo)
    }

    /// Where this store's pull stands: the last seq applied (-1: nothing yet).
    package func pulledSequence() async throws -> Int64 {
        let rows = try await run(
            "SELECT pulled_seq FROM salus.feeds WHERE person_id = \(person) AND origin = \(origin)", on: connection)
        return try rows.first?.decode(Int64.self) ?? -1
    }

    /// Moves this store's pull from `old` to `new`; fails when another process moved it.
    package func recordPulled(from old: Int64, to new: Int64) async throws {
        let rows = try await run(
            """
            UPDATE salus.feeds SET pulled_seq = \(new)
            WHERE person_id = \(person) AND origin = \(origin) AND pulled_seq = \(old) RETURNING pulled_seq
            """, on: connection)
        guard !rows.isEmpty else {
            throw SyncError(.server, "the feed's pull position moved under this process (another salus-sync for the same store?)",
                            field: "salus.feeds.pulled_seq", value: "\(old)", expected: "the position this process read")
        }
    }

    // MARK: Full resync

    /// Starts a full resync (the store said the anchor expired): a new generation, from anchor 0.
    package func beginResync(state: FeedState) async throws -> FeedState {
        let rows = try await run(
            """
            UPDATE salus.feeds SET generation = generation + 1, anchor = 0, resyncing = true
            WHERE person_id = \(person) AND origin = \(origin) AND generation = \(state.generation)
            RETURNING generation
            """, on: connection)
        guard rows.count == 1 else {
            throw SyncError(.server, "the feed's generation moved under this process", field: "salus.feeds.generation", value: "\(state.generation)", expected: "the generation this process read")
        }
        var next = state
        next.generation = try rows[0].decode(Int64.self)
        next.anchor = 0
        next.resyncing = true
        return next
    }

    /// Ends a full resync: every row of this origin and of one of `types` that the resync did
    /// not write again is gone from the store; it is removed and leaves a tombstone. One
    /// transaction with the flag.
    ///
    /// `types` are the types the resync could read. A row of another type is kept: the store
    /// did not show it to the resync, which cannot tell it gone (a tombstone would delete it on
    /// every other machine).
    package func finishResync(state: FeedState, types: [String]) async throws -> (FeedState, removed: Int) {
        let removed = try await Self.transaction(connection, logger: logger) { connection in
            let seq = try await lockSequence(on: connection)
            let rows = try await run(
                """
                WITH stale AS (
                    DELETE FROM salus.samples
                    WHERE person_id = \(person) AND origin = \(origin) AND generation < \(state.generation)
                        AND type = ANY(\(types))
                    RETURNING uuid, type, metadata
                ), kept AS (
                    INSERT INTO salus.tombstones (person_id, uuid, origin, type, metadata, anchor, seq)
                    SELECT \(person), uuid, \(origin), type, \(unescaped: Self.syncKeys(of: "metadata")),
                        \(Int64(state.anchor)), \(seq) + row_number() OVER ()
                    FROM stale
                    ON CONFLICT (person_id, uuid) DO NOTHING
                )
                SELECT count(*)::bigint FROM stale
                """, on: connection)
            try await setSequence(seq + (try rows.first?.decode(Int64.self) ?? 0), on: connection)
            _ = try await run("SELECT pg_notify(\(Self.channel), \(person))", on: connection)
            let updated = try await run(
                """
                UPDATE salus.feeds SET resyncing = false
                WHERE person_id = \(person) AND origin = \(origin) AND generation = \(state.generation) RETURNING generation
                """, on: connection)
            guard !updated.isEmpty else {
                throw SyncError(.server, "the feed's generation moved under this process", field: "salus.feeds.generation", value: "\(state.generation)", expected: "the generation this process read")
            }
            return Int(try rows.first?.decode(Int64.self) ?? 0)
        }
        var next = state
        next.resyncing = false
        return (next, removed)
    }

    // MARK: Errors

    /// Records the last error on the feed row (best effort: the server may be the failure).
    /// Gives up after `timeout`: a session ending because the server stopped answering must
    /// not wait on it here.
    package func recordError(_ message: String, within timeout: Duration) async {
        _ = try? await answered(within: timeout) { [self] in
            try await run(
                "UPDATE salus.feeds SET last_error = \(message), last_error_at = now() WHERE person_id = \(person) AND origin = \(origin)",
                on: connection)
        }
    }
}
