import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// One numbered schema change.
///
/// **Rule: a released migration never changes; a schema change is a new migration.** Databases
/// in the field were made by the old text, and the version number in `PRAGMA user_version` says
/// which migrations already ran; editing one would leave those databases and new ones different
/// under the same number.
package struct Migration: Sendable {
    /// The `user_version` the database has after this migration.
    package var version: Int
    /// What it changes, for the log.
    package var summary: String
    /// The SQL, run in the same transaction as the version bump.
    package var sql: String
    /// Work after `sql` in the same transaction, for a change SQL alone cannot make or that
    /// reports its progress: it rewrites rows in chunks, calling the step's `MigrationProgress`.
    var rewrite: (@Sendable (Database, inout MigrationProgress) throws -> Void)?
    /// How many bytes of free disk the migration may need beyond the database, as a multiple of
    /// the database's size (its rewritten pages go through the WAL before the checkpoint):
    /// checked before it runs. 0 for a change of the schema alone.
    var spaceFactor: Double = 0
    /// Runs with foreign keys off (`PRAGMA foreign_keys` cannot change inside a transaction),
    /// for a migration that rebuilds a table others refer to: dropping the old table would
    /// otherwise delete, in cascade, every row that refers to it.
    var foreignKeysOff = false

    package init(version: Int, summary: String, sql: String) {
        self.version = version
        self.summary = summary
        self.sql = sql
    }

    init(
        version: Int, summary: String, sql: String, spaceFactor: Double, foreignKeysOff: Bool = false,
        rewrite: @escaping @Sendable (Database, inout MigrationProgress) throws -> Void
    ) {
        self.init(version: version, summary: summary, sql: sql)
        self.spaceFactor = spaceFactor
        self.foreignKeysOff = foreignKeysOff
        self.rewrite = rewrite
    }
}

/// What a running migration reports: a line with rows done and rows per second, at most once a
/// second and at the end of each step, and each named point to `observe` (the crash tests stop
/// there).
package struct MigrationProgress {
    let logger: Logger
    var version: Int
    let observe: (@Sendable (String) -> Void)?
    /// The versions still to run after this one, in the same transaction.
    var pending: [Int] = []
    /// Where each progress line goes besides the log (`salusctl migrate`'s terminal).
    var show: ((String) -> Void)?
    var step = ""
    var total = 0
    var done = 0
    var started = ContinuousClock.now
    var lastLine = ContinuousClock.now

    /// Starts step `name` of `total` rows.
    mutating func begin(_ name: String, total: Int) {
        step = name
        self.total = total
        done = 0
        started = .now
        lastLine = started
        observe?("\(version) \(name) begin")
    }

    /// `count` more rows done; `point` names the moment for `observe`.
    mutating func advance(_ count: Int, point: String) {
        done += count
        let now = ContinuousClock.now
        if now - lastLine >= .seconds(1) || done >= total {
            lastLine = now
            logger.info("\(line)")
            show?(line)
        }
        observe?("\(version) \(step) \(point)")
    }

    /// "migrating the store to schema 14: metadata 120000 of 480000 rows, 250000 rows/s".
    var line: String {
        let seconds = Double((ContinuousClock.now - started).components.attoseconds) / 1e18
            + Double((ContinuousClock.now - started).components.seconds)
        let rate = seconds > 0 ? Int(Double(done) / seconds) : done
        return "migrating the store to schema \(version): \(step) \(done) of \(total) rows, \(rate) rows/s"
    }

    /// A named point of the migration outside any step.
    func reach(_ point: String) { observe?("\(version) \(point)") }
}

/// The store's schema: its numbered migrations, applied in order on open.
///
/// Tables (migration 1):
/// - `store_info(key, value)`: `last_sequence` (the latest change-sequence position) and
///   `tombstone_horizon` (the highest position purged; anchors below it are expired);
/// - `types`, `apps`, `sources` (source revisions), `devices`: deduplicated values that samples
///   refer to by integer id; sources and devices are unique on `key`, a canonical encoding of
///   every field (nil included), since SQL's UNIQUE treats NULLs as distinct;
/// - `samples`: one row per live sample; UUID as a 16-byte blob; dates in integer microseconds;
///   `value` in the type's canonical unit beside `value_in_unit` and `unit` as the app gave it;
///   `category`; workout `activity_type`; other kinds' `payload` as JSON; the app, source
///   revision and device ids; creation time; `seq`, its change-sequence position; and the
///   sync keys, unique per (app, type, sync identifier);
/// - `metadata(sample_id, key, value_type, text_value, number_value, quantity_value, dimension)`:
///   typed values (0 string, 1 number, 2 bool, 3 date as Unix seconds, 4 quantity with
///   `number_value` in the dimension's base unit, `quantity_value` and `text_value` (the unit)
///   as given), indexed by (key, text) and (key, number) for predicates;
/// - `workout_statistics(sample_id, quantity_type_id, statistic, value)`: the totals a save gave;
///   `workout_activities` (migration 9): each activity's type and interval; `workout_routes` and
///   `route_locations` (migration 10): each route's workout and its locations in blocks;
/// - `workout_builders`, `workout_builder_samples` (migration 11) and `workout_sessions`
///   (migration 12): workouts being recorded, as bytes the server encodes;
/// - `tombstones`: one row per deletion at its own `seq`, keeping what predicates need to filter
///   deletions (type, app, source, device, dates, value, category, activity type) and the two
///   sync keys, with the deletion time.
package enum Schema {
    /// Migration 1: the first schema.
    package static let migration1 = Migration(
        version: 1, summary: "the first schema",
        sql: """
            CREATE TABLE store_info (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
            INSERT INTO store_info (key, value) VALUES ('last_sequence', 0), ('tombstone_horizon', 0);
            CREATE TABLE types (id INTEGER PRIMARY KEY, identifier TEXT NOT NULL UNIQUE);
            CREATE TABLE apps (id INTEGER PRIMARY KEY, app_id TEXT NOT NULL UNIQUE);
            CREATE TABLE sources (
                id INTEGER PRIMARY KEY,
                app_ref INTEGER NOT NULL REFERENCES apps(id),
                app_id TEXT NOT NULL,
                name TEXT NOT NULL,
                version TEXT,
                product_type TEXT,
                os_version TEXT,
                key TEXT NOT NULL UNIQUE
            );
            CREATE INDEX sources_app ON sources(app_id);
            CREATE TABLE devices (
                id INTEGER PRIMARY KEY,
                name TEXT,
                manufacturer TEXT,
                model TEXT,
                hardware_version TEXT,
                firmware_version TEXT,
                software_version TEXT,
                local_identifier TEXT,
                udi_device_identifier TEXT,
                key TEXT NOT NULL UNIQUE
            );
            CREATE TABLE samples (
                id INTEGER PRIMARY KEY,
                uuid BLOB NOT NULL UNIQUE,
                type_id INTEGER NOT NULL REFERENCES types(id),
                kind INTEGER NOT NULL,
                start_us INTEGER NOT NULL,
                end_us INTEGER NOT NULL,
                value REAL,
                value_in_unit REAL,
                unit TEXT,
                category INTEGER,
                activity_type INTEGER,
                payload BLOB,
                app_ref INTEGER NOT NULL REFERENCES apps(id),
                source_id INTEGER NOT NULL REFERENCES sources(id),
                device_id INTEGER REFERENCES devices(id),
                creation_us INTEGER NOT NULL,
                seq INTEGER NOT NULL UNIQUE,
                sync_identifier TEXT,
                sync_version REAL,
                CHECK (start_us <= end_us)
            );
            CREATE INDEX samples_type_start ON samples(type_id, start_us);
            CREATE INDEX samples_type_end ON samples(type_id, end_us);
            CREATE UNIQUE INDEX samples_sync ON samples(app_ref, type_id, sync_identifier)
                WHERE sync_identifier IS NOT NULL;
            CREATE TABLE metadata (
                sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
                key TEXT NOT NULL,
                value_type INTEGER NOT NULL,
                text_value TEXT,
                number_value REAL,
                quantity_value REAL,
                dimension TEXT,
                PRIMARY KEY (sample_id, key)
            ) WITHOUT ROWID;
            CREATE INDEX metadata_text ON metadata(key, text_value);
            CREATE INDEX metadata_number ON metadata(key, number_value);
            CREATE TABLE workout_statistics (
                sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
                quantity_type_id INTEGER NOT NULL REFERENCES types(id),
                statistic INTEGER NOT NULL,
                value REAL NOT NULL,
                PRIMARY KEY (sample_id, quantity_type_id, statistic)
            ) WITHOUT ROWID;
            CREATE TABLE tombstones (
                seq INTEGER PRIMARY KEY,
                uuid BLOB NOT NULL,
                type_id INTEGER NOT NULL REFERENCES types(id),
                kind INTEGER NOT NULL,
                app_ref INTEGER NOT NULL REFERENCES apps(id),
                source_id INTEGER NOT NULL REFERENCES sources(id),
                device_id INTEGER REFERENCES devices(id),
                start_us INTEGER NOT NULL,
                end_us INTEGER NOT NULL,
                value REAL,
                category INTEGER,
                activity_type INTEGER,
                sync_identifier TEXT,
                sync_version REAL,
                deleted_us INTEGER NOT NULL
            );
            CREATE INDEX tombstones_uuid ON tombstones(uuid);
            """)

    /// Migration 2: indexes that migration 1 lacked — tombstones by deletion time (purging by
    /// retention scanned the whole table) and samples by (app, type) (deleting an app's samples
    /// of a type and source queries scanned every sample of the type).
    package static let migration2 = Migration(
        version: 2, summary: "indexes for purging tombstones and per-app deletes",
        sql: """
            CREATE INDEX tombstones_deleted ON tombstones(deleted_us);
            CREATE INDEX samples_app_type ON samples(app_ref, type_id);
            """)

    /// Migration 3: `type_spans(type_id, max_span_us)`, the longest `end_us - start_us` ever
    /// saved for each type (it never shrinks, so it stays an upper bound after deletions). A
    /// date-window predicate ("overlaps [a, b)") becomes `end_us >= a AND start_us < b AND
    /// start_us >= a - max_span_us`, a bounded range on the (type, start) index instead of every
    /// sample of the type before `b`. The writer raises it in the transaction that saves a
    /// longer sample.
    package static let migration3 = Migration(
        version: 3, summary: "the longest sample span of each type, for bounded date-window scans",
        sql: """
            CREATE TABLE type_spans (
                type_id INTEGER PRIMARY KEY REFERENCES types(id),
                max_span_us INTEGER NOT NULL
            );
            INSERT INTO type_spans (type_id, max_span_us)
                SELECT type_id, max(end_us - start_us) FROM samples GROUP BY type_id;
            INSERT OR REPLACE INTO type_spans (type_id, max_span_us)
                SELECT type_id, max(coalesce((SELECT max_span_us FROM type_spans s WHERE s.type_id = t.type_id), 0),
                                    max(end_us - start_us))
                FROM tombstones t GROUP BY type_id;
            """)

    /// Migration 4: `correlation_members(correlation_id, member_id)`, which samples a correlation
    /// groups (blood pressure, food). The correlation and its members are ordinary `samples`
    /// rows; a row here links them and goes with either (ON DELETE CASCADE): deleting a member
    /// alone removes it from its correlations, and the writer deletes a correlation's members with
    /// it. Keyed by correlation, so a page of correlations reads its members in one indexed
    /// query; indexed by member, so a sample that replaces a member by sync identifier finds the
    /// correlations it joins. A sample may belong to several correlations (a replacement joins every
    /// correlation that held the sample it replaced, as HealthKit's).
    package static let migration4 = Migration(
        version: 4, summary: "correlations: which samples each correlation groups",
        sql: """
            CREATE TABLE correlation_members (
                correlation_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
                member_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
                PRIMARY KEY (correlation_id, member_id)
            ) WITHOUT ROWID;
            CREATE INDEX correlation_members_member ON correlation_members(member_id);
            """)

    /// Migration 6: `electrocardiogram_voltages(sample_id, block, measurements)`, an
    /// electrocardiogram's voltages in blocks of `VoltageBlocks.size` (the last one shorter),
    /// numbered from 0 in recording order; `measurements` packs each voltage as 20 little-endian
    /// bytes (time since the sample's start, float64 seconds; microvolts, float64; HealthKit's
    /// lead raw value, int32). Rows go with their sample (`ON DELETE CASCADE`), so a deletion or
    /// a sync-identifier replacement removes them in the same transaction. Blocks, not one row
    /// per voltage: 15,000 voltages are 15 rows of 20 KB instead of 15,000 rows, and a streamed
    /// read takes one block per chunk.
    package static let migration6 = Migration(
        version: 6, summary: "electrocardiogram voltages, in blocks, deleted with their sample",
        sql: """
            CREATE TABLE electrocardiogram_voltages (
                sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
                block INTEGER NOT NULL,
                measurements BLOB NOT NULL,
                PRIMARY KEY (sample_id, block)
            );
            """)

    /// Migration 7: attachments (HealthKit's `HKAttachment`), one row per attachment naming its
    /// sample, the app that added it and the content's file under the data folder's
    /// `attachments/` (named by the attachment's UUID). Rows go with their sample
    /// (`ON DELETE CASCADE`); the file is written and synced before the row is committed, so a
    /// row always names a complete file, and a file without a row is never visible (and is
    /// removed by `AttachmentFiles.sweep`).
    package static let migration7 = Migration(
        version: 7, summary: "attachments, deleted with their sample",
        sql: """
            CREATE TABLE attachments (
                id INTEGER PRIMARY KEY,
                uuid BLOB NOT NULL UNIQUE,
                sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                content_type TEXT NOT NULL,
                size INTEGER NOT NULL,
                created_us INTEGER NOT NULL,
                app_id TEXT,
                metadata TEXT NOT NULL
            );
            CREATE INDEX attachments_by_sample ON attachments(sample_id);
            """)

    /// Migration 9: `workout_activities(sample_id, position, activity_type, start_us, end_us)`, a
    /// workout's activities as rows (the payload keeps the whole value), so predicates on
    /// activities — their type, duration and statistics over their interval — compile to SQL
    /// with an index instead of decoding every workout. Rows go with their workout (`ON DELETE
    /// CASCADE`); existing workouts are filled in from their payloads (dates there are seconds
    /// since 2001; an open activity ends with its workout).
    package static let migration9 = Migration(
        version: 9, summary: "workout activities as rows, for activity predicates",
        sql: """
            CREATE TABLE workout_activities (
                sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                activity_type INTEGER NOT NULL,
                start_us INTEGER NOT NULL,
                end_us INTEGER NOT NULL,
                PRIMARY KEY (sample_id, position)
            ) WITHOUT ROWID;
            CREATE INDEX workout_activities_type ON workout_activities(activity_type);
            INSERT INTO workout_activities (sample_id, position, activity_type, start_us, end_us)
                SELECT s.id, a.key, json_extract(a.value, '$.activityType'),
                    CAST(round((json_extract(a.value, '$.startDate') + 978307200) * 1000000) AS INTEGER),
                    coalesce(CAST(round((json_extract(a.value, '$.endDate') + 978307200) * 1000000) AS INTEGER), s.end_us)
                FROM samples s, json_each(CAST(s.payload AS TEXT), '$.activities') a
                WHERE s.kind = 2 AND s.payload IS NOT NULL;
            """)

    /// Migration 10: workout routes. `workout_routes(route_id, workout_id)` links each route
    /// sample to its workout, indexed by workout so deleting a workout finds its routes;
    /// `route_locations(route_id, block, first_us, last_us, locations)` holds a route's locations
    /// in blocks of `RouteBlocks.size` (the last one shorter), numbered from 0 in time order, each
    /// with its first and last timestamp; `locations` packs each location as 64 little-endian
    /// bytes (`RouteBlocks`). The index on (route, last_us) makes a time-range read start at the
    /// first block that reaches the range, instead of reading the route from its start. Rows go
    /// with their route sample (`ON DELETE CASCADE`); the writer deletes a workout's routes, with
    /// their tombstones, when it deletes the workout.
    package static let migration10 = Migration(
        version: 10, summary: "workout routes: the workout of each route and its locations, in blocks",
        sql: """
            CREATE TABLE workout_routes (
                route_id INTEGER PRIMARY KEY REFERENCES samples(id) ON DELETE CASCADE,
                workout_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE
            );
            CREATE INDEX workout_routes_workout ON workout_routes(workout_id);
            CREATE TABLE route_locations (
                route_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,
                block INTEGER NOT NULL,
                first_us INTEGER NOT NULL,
                last_us INTEGER NOT NULL,
                locations BLOB NOT NULL,
                PRIMARY KEY (route_id, block)
            ) WITHOUT ROWID;
            CREATE INDEX route_locations_time ON route_locations(route_id, last_us);
            """)

    /// Migration 11: `workout_builders(id, app_id, state, updated_us)` and
    /// `workout_builder_samples(builder_id, position, sample)`, the workouts being recorded
    /// (docs/workouts.md, "The builder"). A builder's state and the samples added to it are bytes
    /// the server encodes (the store does not read them); they live in the database so that a
    /// daemon restarted mid-workout loses nothing, and finishing deletes them in the transaction
    /// that saves the workout. Samples go with their builder (`ON DELETE CASCADE`). `IF NOT
    /// EXISTS`: a database rolled back to an earlier version (the migration tests do) keeps
    /// these tables, and running this again must not fail.
    package static let migration11 = Migration(
        version: 11, summary: "workout builders and the samples added to them",
        sql: """
            CREATE TABLE IF NOT EXISTS workout_builders (
                id BLOB PRIMARY KEY,
                app_id TEXT NOT NULL,
                state BLOB NOT NULL,
                updated_us INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX IF NOT EXISTS workout_builders_app ON workout_builders(app_id);
            CREATE TABLE IF NOT EXISTS workout_builder_samples (
                builder_id BLOB NOT NULL REFERENCES workout_builders(id) ON DELETE CASCADE,
                position INTEGER NOT NULL,
                sample BLOB NOT NULL,
                PRIMARY KEY (builder_id, position)
            ) WITHOUT ROWID;
            """)

    /// Migration 12: `workout_sessions(id, app_id, state, updated_us)`, the person's workout
    /// sessions (docs/workouts.md, "The session"); `state` is bytes the server encodes, kept so
    /// that a session survives a restart of the daemon.
    package static let migration12 = Migration(
        version: 12, summary: "workout sessions",
        sql: """
            CREATE TABLE IF NOT EXISTS workout_sessions (
                id BLOB PRIMARY KEY,
                app_id TEXT NOT NULL,
                state BLOB NOT NULL,
                updated_us INTEGER NOT NULL
            ) WITHOUT ROWID;
            """)

    /// Migration 13: `replica` on `samples` and `tombstones`: 1 for a change that arrived from
    /// the person's other stores (`SampleStore.saveReplicas`, `deleteReplicas`), NULL for this
    /// store's own. An anchored query asked for local changes only leaves replicas out, so a
    /// sync agent never sends back what it brought (docs/sync.md).
    package static let migration13 = Migration(
        version: 13, summary: "replica marks on samples and tombstones",
        sql: """
            ALTER TABLE samples ADD COLUMN replica INTEGER;
            ALTER TABLE tombstones ADD COLUMN replica INTEGER;
            """)

    /// Migration 14, the first change of store v2: a sample's metadata is one column of its row,
    /// `samples.metadata`, the wire bytes of its metadata map (`MetadataBlob`), and the
    /// `metadata` table with its two indexes is gone. A save wrote one row and two index entries
    /// per key (a Watch sample carries 2.25 keys: seven B-tree inserts besides its own row); a
    /// query read them with a second statement per page; now both are the row. Metadata
    /// predicates decode the column on the rows the rest of the filter keeps
    /// (`salus_metadata`); the sync identifier and version keep their own columns and index.
    ///
    /// Existing metadata is folded into the column in chunks of row ids, in this migration's one
    /// transaction (a kill leaves the old store whole and the next start does it again), with a
    /// progress line.
    static let migration14 = Migration(
        version: 14, summary: "store v2: metadata as one encoded value in the sample's row",
        sql: "ALTER TABLE samples ADD COLUMN metadata BLOB;", spaceFactor: 1.0
    ) { database, progress in
        // A database some tests roll back to an earlier version keeps no `metadata` table.
        guard try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'metadata'") == 1
        else { return }
        // Migration 15, in the same transaction, copies every row into a new table and folds
        // the metadata as it copies: folding it here first would write every row twice, and
        // longer rows in place split pages (126,000 rows/s for this step alone).
        if progress.pending.contains(15) {
            progress.reach("fold deferred")
            return
        }
        let total = Int(try database.scalarInt("SELECT count(DISTINCT sample_id) FROM metadata") ?? 0)
        let last = try database.scalarInt("SELECT max(sample_id) FROM metadata") ?? -1
        progress.begin("metadata", total: total)
        let chunk: Int64 = 50_000
        var low: Int64 = 0
        while low <= last {
            let high = low + chunk
            let changed = try database.run(
                """
                UPDATE samples SET metadata = (SELECT salus_metadata_rows(m.key, m.value_type, m.text_value, \
                m.number_value, m.quantity_value) FROM metadata m WHERE m.sample_id = samples.id) \
                WHERE id IN (SELECT DISTINCT sample_id FROM metadata WHERE sample_id >= ? AND sample_id < ?)
                """, [.integer(low), .integer(high)])
            progress.advance(changed, point: "chunk \(low / chunk)")
            low = high
        }
        try database.execute("DROP TABLE metadata;")
        progress.reach("dropped")
    }

    /// The tables whose columns hold a `samples` row id, and those columns: migration 15 gives
    /// every row a new id and rewrites these.
    static let sampleReferences: [(table: String, columns: [String])] = [
        ("workout_statistics", ["sample_id"]),
        ("correlation_members", ["correlation_id", "member_id"]),
        ("electrocardiogram_voltages", ["sample_id"]),
        ("attachments", ["sample_id"]),
        ("workout_activities", ["sample_id"]),
        ("workout_routes", ["route_id", "workout_id"]),
        ("route_locations", ["route_id"]),
    ]

    /// Migration 15, store v2's narrower rows and indexes (docs/storage.md, "Bytes per sample"):
    ///
    /// - **The change sequence is the row id.** A sample's `id` is its change-sequence position
    ///   (the `seq` it had): the `seq` column and its unique index are gone. The writer already
    ///   gave rows ids in change order; now they are one number, so an anchored read walks the
    ///   table from the anchor's row on with no second index at all. Tables that refer to
    ///   samples by row id (`sampleReferences`) are rewritten with the new ids; anchors kept by
    ///   apps are positions and stay valid.
    /// - **No (type, end) index.** End-date order and end-date windows are served by the
    ///   (type, start) index with the type's longest span (`type_spans`): a sample ending at or
    ///   after `t` starts at or after `t - longest`.
    ///
    /// The samples table is rebuilt: a new table filled in row-id order (so its pages fill as
    /// they are appended, where migration 14's longer rows split pages in place), the indexes
    /// built after it, the old table dropped and the new one renamed, in one transaction with
    /// foreign keys off (`PRAGMA foreign_key_check` then finds none broken before the commit).
    static let migration15 = Migration(
        version: 15, summary: "store v2: the change sequence as the row id, no (type, end) index",
        sql: """
            CREATE TABLE samples_v15 (
                id INTEGER PRIMARY KEY,
                uuid BLOB NOT NULL,
                type_id INTEGER NOT NULL REFERENCES types(id),
                kind INTEGER NOT NULL,
                start_us INTEGER NOT NULL,
                end_us INTEGER NOT NULL,
                value REAL,
                value_in_unit REAL,
                unit TEXT,
                category INTEGER,
                activity_type INTEGER,
                payload BLOB,
                app_ref INTEGER NOT NULL REFERENCES apps(id),
                source_id INTEGER NOT NULL REFERENCES sources(id),
                device_id INTEGER REFERENCES devices(id),
                creation_us INTEGER NOT NULL,
                sync_identifier TEXT,
                sync_version REAL,
                replica INTEGER,
                metadata BLOB,
                CHECK (start_us <= end_us)
            );
            """,
        spaceFactor: 2.0, foreignKeysOff: true
    ) { database, progress in
        // Migration 16, in the same transaction, copies every row again into its own layout: it
        // copies straight from this one's source (each row's position as its id, the metadata
        // folded), so each row is written once. Only the references take their new ids here,
        // while the old table still maps ids to positions.
        if progress.pending.contains(16) {
            try database.execute("DROP TABLE samples_v15;")
            progress.reach("copy deferred")
            // A database some tests roll back to an earlier version has its ids at schema 15's.
            if try database.scalarInt("SELECT count(*) FROM pragma_table_info('samples') WHERE name = 'seq'") == 1 {
                try renumberReferences(database)
            }
            progress.reach("references")
            return
        }
        let total = Int(try database.scalarInt("SELECT count(*) FROM samples") ?? 0)
        let last = try database.scalarInt("SELECT max(id) FROM samples") ?? -1
        progress.begin("samples", total: total)
        // Migration 14 left its fold to this copy when it ran in this transaction: the metadata
        // of each row from the `metadata` table, as 14 folds it.
        let folding = try database.scalarInt(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'metadata'") == 1
        let metadata = folding
            ? "coalesce(metadata, (SELECT salus_metadata_rows(m.key, m.value_type, m.text_value, m.number_value, "
                + "m.quantity_value) FROM metadata m WHERE m.sample_id = samples.id))"
            : "metadata"
        // A database some tests roll back to an earlier version has its rows at schema 15 already:
        // their ids are their positions.
        let position = try database.scalarInt("SELECT count(*) FROM pragma_table_info('samples') WHERE name = 'seq'") == 1
            ? "seq" : "id"
        let copy = """
            INSERT INTO samples_v15 (id, uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit, category, \
            activity_type, payload, app_ref, source_id, device_id, creation_us, sync_identifier, sync_version, replica, \
            metadata) SELECT \(position), uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit, category, \
            activity_type, payload, app_ref, source_id, device_id, creation_us, sync_identifier, sync_version, replica, \
            \(metadata) FROM samples WHERE id >= ? AND id < ? ORDER BY id
            """
        let chunk: Int64 = 100_000
        var low: Int64 = 0
        while low <= last {
            let copied = try database.run(copy, [.integer(low), .integer(low + chunk)])
            progress.advance(copied, point: "chunk \(low / chunk)")
            low += chunk
        }
        if position == "seq" { try renumberReferences(database) }
        progress.reach("references")
        if folding { try database.execute("DROP TABLE metadata;") }
        try database.execute("DROP TABLE samples; ALTER TABLE samples_v15 RENAME TO samples;")
        progress.reach("renamed")
        try database.execute(
            """
            CREATE INDEX samples_type_start ON samples(type_id, start_us);
            CREATE UNIQUE INDEX samples_uuid ON samples(uuid);
            CREATE UNIQUE INDEX samples_sync ON samples(app_ref, type_id, sync_identifier)
                WHERE sync_identifier IS NOT NULL;
            CREATE INDEX samples_app_type ON samples(app_ref, type_id);
            """)
        progress.reach("indexed")
        try checkForeignKeys(database, migrating: database.path, to: 15)
    }

    /// Rows that refer to samples take their samples' positions (`seq`) as ids, as migration 15
    /// gives them. Through negative values, so that no rewritten key meets one not yet rewritten
    /// (ids and positions are both positive); rows referring to no sample are deleted.
    static func renumberReferences(_ database: Database) throws {
        for (table, columns) in sampleReferences {
            try database.execute(
                "DELETE FROM \(table) WHERE "
                    + columns.map { "\($0) NOT IN (SELECT id FROM samples)" }.joined(separator: " OR "))
            try database.execute(
                "UPDATE \(table) SET "
                    + columns.map { "\($0) = -(SELECT seq FROM samples WHERE id = \(table).\($0))" }.joined(separator: ", "))
            try database.execute(
                "UPDATE \(table) SET " + columns.map { "\($0) = -\($0)" }.joined(separator: ", "))
        }
    }

    /// Migration 16, store v2's lean row (docs/storage.md, "Bytes per sample"):
    ///
    /// - **The span, not the end.** A row stores `span_us`, its end minus its start (0 for an
    ///   instant: no bytes at all in SQLite's record), and `end_us` is a virtual column computed
    ///   from it, so every read and predicate keeps its name. A span past what an int64 holds (a
    ///   sample from near the first representable microsecond to near the last) is stored as the
    ///   end's decimal text instead, which `end_us` reads back exactly.
    /// - **The unit once per type.** `types.unit` is the unit text a type's quantities leave
    ///   out: a quantity saved in it, with its value as given equal to its canonical value, stores
    ///   neither (`value_in_unit` and `unit` NULL), and reads take them from the type and
    ///   `value`. The writer sets a type's unit to the catalogue's canonical unit the first time
    ///   it saves a quantity of it; this migration takes the unit of the type's earliest quantity
    ///   stored in it. Once set it never changes.
    /// - **UUIDs found by their row.** The UUID index holds only rows whose UUID does not carry
    ///   their row id (`SampleUUIDs`), on its first eight bytes; it is no longer unique (the
    ///   writer checks kept and replica UUIDs, as it did).
    /// - **No (app, type) index.** Deleting an app's samples and counting what an app wrote (the
    ///   owner's `salusctl apps`) read the whole table instead (docs/storage.md says what it costs).
    ///
    /// The samples table is rebuilt as migration 15 rebuilds it: a new table filled in row-id order,
    /// the old one dropped and the new one renamed, the indexes built after, in one transaction.
    /// Row ids do not change, so nothing refers to a row anew and kept anchors stay valid.
    static let migration16 = Migration(
        version: 16, summary: "store v2: spans, units once per type, UUIDs found by their row, no (app, type) index",
        sql: "ALTER TABLE types ADD COLUMN unit TEXT;\n" + samplesSixteen,
        spaceFactor: 2.0, foreignKeysOff: true
    ) { database, progress in
        try database.execute(sixteenUnits(source: "main"))
        let total = Int(try database.scalarInt("SELECT count(*) FROM samples") ?? 0)
        let last = try database.scalarInt("SELECT max(id) FROM samples") ?? -1
        progress.begin("samples", total: total)
        let copy = try sixteenCopy(database, into: "samples_v16", from: "main")
        let chunk: Int64 = 100_000
        var low: Int64 = 0
        while low <= last {
            let copied = try database.run(copy, [.integer(low), .integer(low + chunk)])
            progress.advance(copied, point: "chunk \(low / chunk)")
            low += chunk
        }
        if try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'metadata'") == 1 {
            try database.execute("DROP TABLE metadata;")
        }
        try database.execute("DROP TABLE samples; ALTER TABLE samples_v16 RENAME TO samples;")
        progress.reach("renamed")
        try database.execute(sixteenIndexes)
        progress.reach("indexed")
        try checkForeignKeys(database, migrating: database.path, to: 16)
    }

    /// Schema 16's `samples` table, as migration 16 creates it (named `samples_v16` until the old
    /// table is gone).
    static let samplesSixteen = """
            CREATE TABLE samples_v16 (
                id INTEGER PRIMARY KEY,
                uuid BLOB NOT NULL,
                type_id INTEGER NOT NULL REFERENCES types(id),
                kind INTEGER NOT NULL,
                start_us INTEGER NOT NULL,
                span_us NOT NULL,
                end_us INTEGER GENERATED ALWAYS AS (
                    CASE WHEN typeof(span_us) = 'integer' THEN start_us + span_us ELSE CAST(span_us AS INTEGER) END
                ) VIRTUAL,
                value REAL,
                value_in_unit REAL,
                unit TEXT,
                category INTEGER,
                activity_type INTEGER,
                payload BLOB,
                app_ref INTEGER NOT NULL REFERENCES apps(id),
                source_id INTEGER NOT NULL REFERENCES sources(id),
                device_id INTEGER REFERENCES devices(id),
                creation_us INTEGER NOT NULL,
                sync_identifier TEXT,
                sync_version REAL,
                replica INTEGER,
                metadata BLOB,
                uuid_own INTEGER,
                CHECK (span_us >= 0)
            );
            """

    /// Sets each type's unit (`types.unit`, migration 16): that of its earliest quantity stored in
    /// it (the first row of the type's index in `source`'s `samples` that qualifies; a type none
    /// qualifies for keeps every row's unit).
    static func sixteenUnits(source: String) -> String {
        """
        UPDATE types SET unit = (SELECT s.unit FROM \(source).samples s WHERE s.type_id = types.id AND s.kind = 0 \
        AND s.unit IS NOT NULL AND s.value_in_unit = s.value ORDER BY s.start_us LIMIT 1) WHERE unit IS NULL;
        """
    }

    /// Migration 16's copy of the rows of `source`'s `samples` with ids in [?1, ?2) into `table`
    /// (schema 16's layout), in row-id order: each row with its span and, where it is in its
    /// type's unit, without its unit and value as given. From a store older than 15, this copy
    /// does 15's too: each row's position (`seq`) is its id, and its metadata is folded from the
    /// `metadata` table as 14 folds it (14 and 15 leave their copy and fold to it).
    /// `fold`, when given, is the SQL of a row's folded metadata (`MetadataFold`'s function)
    /// in place of the aggregate's correlated subquery.
    /// A row's span is its end minus its start, or the end as text where that would pass an
    /// int64 (`samplesSixteen`); the subtraction cannot overflow when the start is not negative
    /// or the end is negative (every old schema has start <= end), so those rows, nearly all,
    /// skip the `typeof` test (0.18 s of CPU per million rows).
    static func sixteenCopy(_ database: Database, into table: String, from source: String, fold walk: String? = nil) throws -> String {
        func has(_ column: String) throws -> Bool {
            try database.scalarInt(
                "SELECT count(*) FROM pragma_table_info('samples', '\(source)') WHERE name = '\(column)'") == 1
        }
        // A quantity in its type's unit, its value as given its canonical value: neither stored.
        let plain = "s.kind = 0 AND s.unit IS t.unit AND s.value_in_unit IS s.value"
        let position = try has("seq") ? "s.seq" : "s.id"
        let folding = try database.scalarInt(
            "SELECT count(*) FROM \(source).sqlite_master WHERE type = 'table' AND name = 'metadata'") == 1
        let fold = walk ?? "(SELECT salus_metadata_rows(m.key, m.value_type, m.text_value, m.number_value, m.quantity_value) "
            + "FROM \(source).metadata m WHERE m.sample_id = s.id)"
        let metadata: String
        switch (try has("metadata"), folding) {
        case (true, true): metadata = "coalesce(s.metadata, \(fold))"
        case (true, false): metadata = "s.metadata"
        case (false, true): metadata = fold
        case (false, false): metadata = "NULL"
        }
        return """
            INSERT INTO \(table) (id, uuid, type_id, kind, start_us, span_us, value, value_in_unit, unit, category, \
            activity_type, payload, app_ref, source_id, device_id, creation_us, sync_identifier, sync_version, replica, \
            metadata, uuid_own) SELECT \(position), s.uuid, s.type_id, s.kind, s.start_us, \
            CASE WHEN s.start_us >= 0 OR s.end_us < 0 THEN s.end_us - s.start_us \
            WHEN typeof(s.end_us - s.start_us) = 'integer' THEN s.end_us - s.start_us ELSE CAST(s.end_us AS TEXT) END, \
            s.value, CASE WHEN \(plain) THEN NULL ELSE s.value_in_unit END, \
            CASE WHEN \(plain) THEN NULL ELSE s.unit END, s.category, s.activity_type, s.payload, s.app_ref, s.source_id, \
            s.device_id, s.creation_us, s.sync_identifier, s.sync_version, s.replica, \(metadata), \
            CASE WHEN hex(substr(s.uuid, 11, 6)) <> printf('%012X', \(position)) THEN 1 END \
            FROM \(source).samples s CROSS JOIN main.types t WHERE t.id = s.type_id AND s.id >= ? AND s.id < ? ORDER BY s.id
            """
    }

    /// Migration 17 changes no table and rewrites no row: from schema 17 a row keeps its sync
    /// identifier and version in its columns only, not again in its metadata blob
    /// (`MetadataBlob.encodeRow`), and every read puts them back from the columns. A build that
    /// knows schema 16 at most would read such rows without their sync keys (an app, the export
    /// and the sync agent would lose them), so the version tells it to refuse the store, as for
    /// any newer schema. Rows written before keep the keys in their blob and read each key once.
    static let migration17 = Migration(
        version: 17, summary: "sync identifier and version kept in their columns only, not again in the metadata blob",
        sql: "")

    /// Migration 18: a row says whether its UUID carries its id (`uuid_own`, NULL when it does),
    /// and the partial UUID index tests that column instead of formatting the UUID's last six
    /// bytes and the id as hex text on every insert (`SampleUUIDs.indexedSixteen`), which was
    /// about a third of SQLite's time inserting a plain row. The rows whose UUID does not carry
    /// their id are those schema 17's index holds: only they are marked, found through it, and
    /// the index is built again on the column. A row that carries its id stores a NULL: one
    /// byte of its record's header.
    /// The column is added only where it is missing: a store whose version was set back (a
    /// test's) may have it. Migration 16, copying every row, marks them and builds this index
    /// itself (schema 16 from this build on has the column): a store coming from before 16 is
    /// not rewritten twice.
    static let migration18 = Migration(
        version: 18, summary: "the partial UUID index tests a column the writer sets, not the UUID formatted as hex",
        sql: "", spaceFactor: 0
    ) { database, _ in
        // Migration 16 run by this build made the column and the index already, as it copied
        // the rows.
        if try database.scalarText("SELECT sql FROM sqlite_master WHERE name = 'samples_uuid'")?.contains("uuid_own") == true {
            return
        }
        if try database.scalarInt("SELECT count(*) FROM pragma_table_info('samples') WHERE name = 'uuid_own'") == 0 {
            try database.execute("ALTER TABLE samples ADD COLUMN uuid_own INTEGER")
        }
        try database.execute(
            """
            UPDATE samples SET uuid_own = 1 WHERE substr(uuid, 1, 8) IS NOT NULL AND \(SampleUUIDs.indexedSixteen);
            DROP INDEX IF EXISTS samples_uuid;
            \(SampleUUIDs.index)
            """)
    }

    /// Schema 16's indexes on `samples`, each built in one sorted pass after the rows.
    static let sixteenIndexes = """
        CREATE INDEX samples_type_start ON samples(type_id, start_us);
        \(SampleUUIDs.index)
        CREATE UNIQUE INDEX samples_sync ON samples(app_ref, type_id, sync_identifier)
            WHERE sync_identifier IS NOT NULL;
        """

    /// Every migration, in order of version; the last one's version is the current schema
    /// version. Versions increase but need not be contiguous: `migrate` runs, in this order,
    /// every migration above the database's version — so a new migration takes a version above
    /// every released one (a lower one would never run on a database already past it).
    package static let migrations: [Migration] = [
        migration1, migration2, migration3, migration4, migration6, migration7, migration9, migration10, migration11,
        migration12, migration13, migration14, migration15, migration16, migration17, migration18,
    ]

    /// The schema version a database has after `migrate`.
    package static var currentVersion: Int { migrations.last!.version }

    /// Brings `database` to `currentVersion`, each migration in its own transaction with its
    /// `PRAGMA user_version` bump; returns the version found before.
    ///
    /// Throws when the database was made by a newer schema than this code knows.
    ///
    /// A migration that rewrites rows first checks the disk (`checkSpace`; `freeBytes` tells the
    /// free bytes of a folder, the file system's by default).
    @discardableResult
    package static func migrate(
        _ database: Database, logger: Logger = Logger(label: "salus.store", factory: { _ in SwiftLogNoOpLogHandler() }),
        observe: (@Sendable (String) -> Void)? = nil, freeBytes: (String) -> Int64? = Schema.freeBytes,
        show: ((String) -> Void)? = nil
    ) throws -> Int {
        let found = Int(try database.scalarText("PRAGMA user_version") ?? "0") ?? 0
        guard found <= currentVersion else {
            throw StoreError(
                code: .database,
                message: "\(database.path) has schema version \(found); this build knows versions up to "
                    + "\(currentVersion); open it with a newer salusd")
        }
        var pending = migrations.filter { $0.version > found }
        // From schema 13, 14 or 15, migrations 14 to 16 write a new file (`rebuild`); the others
        // rewrite pages through the WAL.
        let rebuilding = (13..<16).contains(found) && canRebuild(database)
        let inPlace = pending.filter { !rebuilding || $0.version > 16 }
        // A new store (version 0) has nothing to rewrite.
        if found > 0, rebuilding || (inPlace.map(\.spaceFactor).max() ?? 0) > 0 {
            try checkSpace(
                database, rebuild: rebuilding, factor: inPlace.map(\.spaceFactor).max() ?? 0, freeBytes: freeBytes)
        }
        guard let last = pending.last else { return found }
        var progress = MigrationProgress(logger: logger, version: last.version, observe: observe)
        progress.show = show
        // From schema 13, 14 or 15, migrations 14 to 16 write the store anew in a file of its
        // own, renamed over the old one.
        if (13..<16).contains(found), canRebuild(database) {
            progress.version = 16
            progress.pending = pending.map(\.version).filter { $0 > 16 }
            guard try rebuild(database, found: found, progress: &progress) else {
                // Another process migrated the store first: this connection now reads its file.
                return try migrate(database, logger: logger, observe: observe, freeBytes: freeBytes, show: show)
            }
            pending = pending.filter { $0.version > 16 }
            if pending.isEmpty {
                logger.info("store schema", metadata: ["from": "\(found)", "to": "16", "migrations": "3"])
                return found
            }
        }
        // Every pending migration in one transaction: a kill leaves the store as it was found or
        // at the current schema, and a rewrite may leave work to a later one in the same
        // transaction (migration 14's metadata fold, done by 15's copy of the table).
        let foreignKeysOff = pending.contains(where: \.foreignKeysOff)
        if foreignKeysOff { try database.execute("PRAGMA foreign_keys=OFF") }
        defer { if foreignKeysOff { try? database.execute("PRAGMA foreign_keys=ON") } }
        try database.transaction(immediate: true) {
            for migration in pending {
                progress.version = migration.version
                progress.pending = pending.map(\.version).filter { $0 > migration.version }
                try database.execute(migration.sql)
                // On a new store too: migration 1 made the tables a rewrite replaces.
                if let rewrite = migration.rewrite { try rewrite(database, &progress) }
                try database.execute("PRAGMA user_version = \(migration.version)")
                logger.debug(
                    "migrated the store", metadata: ["version": "\(migration.version)", "change": "\(migration.summary)"])
            }
            progress.reach("before commit")
        }
        progress.reach("committed")
        if found > 0, pending.contains(where: { $0.rewrite != nil }) {
            // The rewritten pages are in the WAL: back into the file, and the WAL emptied.
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        // One line on a normal start: a new store, or an upgrade, is worth knowing; each step is
        // at debug level.
        logger.info("store schema", metadata: ["from": "\(found)", "to": "\(last.version)", "migrations": "\(pending.count)"])
        return found
    }

    /// The name, beside the store's, of the file a migration from schema 13, 14 or 15 writes
    /// (`rebuild`); one found there is what a killed migration left, and is removed.
    package static let rebuildSuffix = "-migrating"

    /// Whether `database` is a file that `rebuild` can write anew beside (not in memory).
    static func canRebuild(_ database: Database) -> Bool {
        !database.path.isEmpty && database.path != ":memory:" && !database.path.hasPrefix("file:")
    }

    /// Removes the file a migration writes anew (`rebuild`) and any journal of it.
    static func removeRebuilt(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// Migrations 14, 15 and 16 from a schema-13, 14 or 15 store, written into a new file
    /// (`rebuildSuffix` beside the store) that is then renamed over the old one. Returns false,
    /// having reopened `database` on the store's file, when another process migrated the store
    /// first.
    ///
    /// Why a new file: the rows are written once, straight into the file, with no journal (the
    /// file is not the store until its rename, so a kill leaves a file the next start removes),
    /// and the old tables' pages go with the old file. Rewriting in place wrote every new page
    /// to the WAL and again into the file, and dropping the old tables wrote every one of their
    /// pages again: the system SQLite zeroes freed pages (`secure_delete`), which keeps deleted
    /// samples out of the file's free pages; here the old file holds them and is unlinked whole.
    ///
    /// Steps: the old store is locked for writing (`BEGIN IMMEDIATE`, held until its connection
    /// closes), so no change lands in it meanwhile and a second migrating process waits; the new
    /// file (mode 0600) gets every table but `samples` and `metadata` as it is, with its rows
    /// (those referring to samples by row id taking their samples' positions from a schema-13 or
    /// 14 store, as migration 15 gives them), then `samples` in schema 16's layout by
    /// migration 16's copy (which folds 14's metadata and gives 15's ids), then the indexes; it
    /// is switched to WAL, closed and synced; the old connection closes (the last one: its WAL
    /// goes into the old file and is removed, or the migration is refused while another
    /// process has the store open); the new file is renamed over the old one and the folder
    /// synced; `database` reopens the store. A kill before the rename leaves the old store,
    /// after it the new one.
    static func rebuild(_ database: Database, found: Int, progress: inout MigrationProgress) throws -> Bool {
        let path = database.path
        let target = path + rebuildSuffix
        try database.execute("BEGIN IMMEDIATE")
        var locked = true
        defer { if locked { try? database.execute("ROLLBACK") } }
        // A file left by a migration killed before its rename: never the store. Removed under
        // the lock, so never the file of a migration still running.
        removeRebuilt(target)
        do {
            let descriptor = try PrivateFiles.createFile(target)
            close(descriptor)
        } catch {
            throw StoreError(code: .database, message: "migrating \(path): \(error)")
        }
        var written = false
        defer { if !written { removeRebuilt(target) } }
        let fresh = try Database(path: target)
        defer { fresh.close() }
        // Nothing of the new file matters until its rename: no journal, no syncs before the end.
        try fresh.execute("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA foreign_keys=OFF;")
        try fresh.run("ATTACH DATABASE ? AS old", [.text(path)])
        // The store this connection found, not one another process renamed there since.
        guard try fresh.scalarInt("PRAGMA old.user_version") == Int64(found) else {
            fresh.close()
            locked = false
            database.close()
            try database.reopen()
            return false
        }
        progress.reach("begun")
        try fresh.execute("BEGIN")
        let positions = try fresh.scalarInt(
            "SELECT count(*) FROM pragma_table_info('samples', 'old') WHERE name = 'seq'") == 1
        var objects: [(type: String, name: String, sql: String)] = []
        let listing = try fresh.prepare(
            "SELECT type, name, sql FROM old.sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
                + "AND tbl_name NOT IN ('samples', 'metadata') ORDER BY rowid", cached: false)
        while try listing.step() {
            objects.append((listing.text(0) ?? "", listing.text(1) ?? "", listing.text(2) ?? ""))
        }
        listing.reset()
        for object in objects where object.type == "table" {
            try fresh.execute(object.sql)
            var columns: [String] = []
            let info = try fresh.prepare("SELECT name FROM pragma_table_info(?, 'main') ORDER BY cid", cached: false)
            try info.bind([.text(object.name)])
            while try info.step() { columns.append("\"" + (info.text(0) ?? "") + "\"") }
            info.reset()
            var values = columns
            var keep = "1"
            if positions, let references = sampleReferences.first(where: { $0.table == object.name })?.columns {
                for column in references {
                    values[columns.firstIndex(of: "\"\(column)\"")!] =
                        "(SELECT seq FROM old.samples WHERE id = o.\(column))"
                    keep += " AND o.\(column) IN (SELECT id FROM old.samples)"
                }
            }
            try fresh.execute(
                "INSERT INTO main.\"\(object.name)\" (\(columns.joined(separator: ", "))) SELECT "
                    + values.map { $0.hasPrefix("(") ? $0 : "o." + $0 }.joined(separator: ", ")
                    + " FROM old.\"\(object.name)\" o WHERE \(keep)")
        }
        if try fresh.scalarInt("SELECT count(*) FROM pragma_table_info('types', 'main') WHERE name = 'unit'") == 0 {
            try fresh.execute("ALTER TABLE types ADD COLUMN unit TEXT;")
        }
        try fresh.execute(sixteenUnits(source: "old"))
        progress.reach("tables copied")
        try fresh.execute(samplesSixteen.replacingOccurrences(of: "samples_v16", with: "samples"))
        let total = Int(try fresh.scalarInt("SELECT count(*) FROM old.samples") ?? 0)
        let last = try fresh.scalarInt("SELECT max(id) FROM old.samples") ?? -1
        progress.begin("samples", total: total)
        // A schema-13 store's metadata rows are folded by one walk beside the copy's, run ahead
        // on a thread of its own reading the store's file.
        var fold: MetadataFold?
        if try fresh.scalarInt("SELECT count(*) FROM old.sqlite_master WHERE type = 'table' AND name = 'metadata'") == 1 {
            let walk = try MetadataFold(fresh, schema: "old", ahead: path)
            try MetadataFold.register(walk, on: fresh)
            fold = walk
        }
        defer { fold?.finish() }
        let copy = try sixteenCopy(
            fresh, into: "main.samples", from: "old", fold: fold.map { _ in "salus_metadata_fold(s.id)" })
        let chunk: Int64 = 100_000
        var low: Int64 = 0
        while low <= last {
            let copied = try fresh.run(copy, [.integer(low), .integer(low + chunk)])
            progress.advance(copied, point: "chunk \(low / chunk)")
            low += chunk
        }
        fold?.finish()
        try fresh.execute(sixteenIndexes)
        for object in objects where object.type != "table" { try fresh.execute(object.sql) }
        progress.reach("indexed")
        try checkForeignKeys(fresh, migrating: path, to: 16)
        try fresh.execute("PRAGMA main.user_version = 16; COMMIT; DETACH DATABASE old; PRAGMA journal_mode=WAL;")
        fresh.close()
        try sync(target, what: "the migrated store")
        progress.reach("written")
        // Closing the last connection to the old store moves its WAL into it and removes it;
        // a WAL still there means another process has the store open, and its changes would
        // be lost with the old file.
        locked = false
        database.close()
        if FileManager.default.fileExists(atPath: path + "-wal") || FileManager.default.fileExists(atPath: path + "-shm") {
            try database.reopen()
            throw StoreError(
                code: .database,
                message: "migrating \(path): another process has the store open; stop it and start again: nothing was changed")
        }
        progress.reach("closed")
        guard rename(target, path) == 0 else {
            let error = String(cString: strerror(errno))
            try database.reopen()
            throw StoreError(code: .database, message: "migrating \(path): renaming \(target) over it: \(error); nothing was changed")
        }
        written = true
        try sync(URL(fileURLWithPath: path).deletingLastPathComponent().path, what: "the store's folder")
        progress.reach("renamed")
        try database.reopen()
        progress.reach("committed")
        return true
    }

    /// Throws unless `PRAGMA foreign_key_check` finds every row of `database`'s main schema
    /// referring to an existing row: the end of a migration that rebuilt tables with foreign keys
    /// off, before its commit or rename. `path` is the store's (the file a rebuild writes is
    /// another).
    static func checkForeignKeys(_ database: Database, migrating path: String, to version: Int) throws {
        let broken = try database.scalarInt("SELECT count(*) FROM pragma_foreign_key_check(NULL, 'main')") ?? 0
        guard broken == 0 else {
            throw StoreError(
                code: .database,
                message: "migrating \(path) to schema \(version) left \(broken) rows referring to no row; nothing was changed")
        }
    }

    /// `fsync` of the file or folder at `path`.
    static func sync(_ path: String, what: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            let error = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            throw StoreError(code: .database, message: "migrating the store: syncing \(what) (\(path)): \(error)")
        }
        close(descriptor)
    }

    /// Refuses to start a migration that rewrites rows unless the database's folder has room for
    /// it, plus 64 MiB: with `rebuild` (`Schema.rebuild`), a new file of at most the store's size
    /// (schema 16's rows and indexes are smaller than 13–15's; it has no free pages) and the
    /// growth of the old file when its WAL moves into it as its connection closes (the pages
    /// past the file's end); for migrations run in place, `factor` times the store's size, since
    /// their rewritten pages go to the WAL first. A disk that fills mid-way would only fail the
    /// migration at the end.
    ///
    /// And room for the sorts of the indexes it builds: every migration that rewrites rows
    /// builds the indexes of `samples` after the rows (`sixteenIndexes` in the rebuild, and
    /// migrations 15 and 16 in place), and `CREATE INDEX` on a table larger than SQLite's cache
    /// sorts its entries through temporary files in SQLite's temporary folder
    /// (`sqliteTemporaryFolder`), not the store's. The indexes are built one after the other and
    /// each sort's files are removed when its index is written; one index's entries are some of
    /// the columns of the rows the store holds, with their row ids, so a sort writes at most
    /// about the store's size (a merge of more than 16 sorted runs adds only buffers of half a
    /// run). So the store's size is needed there too: added to the store folder's need when the
    /// two folders are on one file system, checked there on its own otherwise.
    static func checkSpace(_ database: Database, rebuild: Bool, factor: Double, freeBytes: (String) -> Int64?) throws {
        let pageSize = try database.scalarInt("PRAGMA page_size") ?? 4096
        let pages = try database.scalarInt("PRAGMA page_count") ?? 0
        let size = pageSize * pages
        var needed = Int64(Double(size) * factor) + 64 << 20
        var what = factor > 0 ? "its rewritten pages through the WAL" : ""
        if rebuild {
            let attributes = try? FileManager.default.attributesOfItem(atPath: database.path)
            let onDisk = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            needed += size + max(0, size - onDisk)
            what = "a new file of at most its size and its WAL moved into it" + (what.isEmpty ? "" : ", " + what)
        }
        let folder = URL(fileURLWithPath: database.path).deletingLastPathComponent().path
        let sorts = Int64(size)
        let temporary = sqliteTemporaryFolder()
        let apart = temporary.map { !onOneFileSystem($0, folder) } ?? false
        if !apart {
            needed += sorts
            what += ", the temporary files of its index sorts (\(sorts) bytes\(temporary.map { ", in \($0)" } ?? ""))"
        }
        let free = freeBytes(folder) ?? .max
        guard free >= needed else {
            throw StoreError(
                code: .resourceExhausted, field: "disk", value: "\(free) bytes free in \(folder)",
                expected: "at least \(needed) bytes free to migrate \(database.path) (\(size) bytes) "
                    + "to schema \(currentVersion) (\(what), and 64 MiB); free some space and start again: nothing was changed")
        }
        if apart, let temporary {
            let freeThere = freeBytes(temporary) ?? .max
            guard freeThere >= sorts else {
                throw StoreError(
                    code: .resourceExhausted, field: "disk", value: "\(freeThere) bytes free in \(temporary)",
                    expected: "at least \(sorts) bytes free in SQLite's temporary folder \(temporary) for the temporary files "
                        + "of the index sorts of the migration of \(database.path) (\(size) bytes) to schema \(currentVersion) "
                        + "(SQLITE_TMPDIR or TMPDIR chooses another); free some space and start again: nothing was changed")
            }
        }
    }

    /// The folder SQLite's unix VFS writes its temporary files in (sorts, temporary tables), as
    /// it chooses it (`unixTempFileDir`): `$SQLITE_TMPDIR`, `$TMPDIR`, `/var/tmp`, `/usr/tmp`,
    /// `/tmp`, then `.`, the first that is a folder this process may write in; nil when none is.
    /// (The store never sets `sqlite3_temp_directory`, which would come first.)
    package static func sqliteTemporaryFolder() -> String? {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [environment["SQLITE_TMPDIR"], environment["TMPDIR"], "/var/tmp", "/usr/tmp", "/tmp", "."]
        for case let folder? in candidates where !folder.isEmpty {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
                access(folder, W_OK | X_OK) == 0
            {
                return folder
            }
        }
        return nil
    }

    /// Whether the two paths are on one file system (the same device); true when either cannot
    /// be read, so that the room they need is counted together.
    package static func onOneFileSystem(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return true }
        return a.st_dev == b.st_dev
    }

    /// The process id of another process that has the WAL database at `path` open, or nil when
    /// none has (or the file is not in WAL mode). Every SQLite connection to a WAL database
    /// holds a shared lock on byte 128 of its `-shm` file (the "DMS" byte of SQLite's unix VFS)
    /// while open; `F_GETLK` names a process holding a lock that conflicts with an exclusive
    /// one there. So `salusctl migrate` can refuse a store that salusd serves, whatever
    /// socket the daemon listens on.
    package static func otherOpener(of path: String) -> Int32? {
        let descriptor = open(path + "-shm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 128
        lock.l_len = 1
        guard fcntl(descriptor, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK) else { return nil }
        return lock.l_pid
    }

    /// Free bytes on the file system holding `folder` (nil when unknown).
    package static func freeBytes(_ folder: String) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfFileSystem(forPath: folder),
            let free = attributes[.systemFreeSize] as? NSNumber
        else { return nil }
        return free.int64Value
    }
}
