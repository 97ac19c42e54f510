import Logging

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

    /// Every migration, in order of version; the last one's version is the current schema
    /// version. Versions increase but need not be contiguous: `migrate` runs, in this order,
    /// every migration above the database's version — so a new migration takes a version above
    /// every released one (a lower one would never run on a database already past it).
    package static let migrations: [Migration] = [
        migration1, migration2, migration3, migration4, migration6, migration7, migration9, migration10, migration11,
        migration12, migration13,
    ]

    /// The schema version a database has after `migrate`.
    package static var currentVersion: Int { migrations.last!.version }

    /// Brings `database` to `currentVersion`, each migration in its own transaction with its
    /// `PRAGMA user_version` bump; returns the version found before.
    ///
    /// Throws when the database was made by a newer schema than this code knows.
    @discardableResult
    static func migrate(_ database: Database, logger: Logger) throws -> Int {
        let found = Int(try database.scalarText("PRAGMA user_version") ?? "0") ?? 0
        guard found <= currentVersion else {
            throw StoreError(
                code: .database,
                message: "\(database.path) has schema version \(found); this build knows versions up to "
                    + "\(currentVersion); open it with a newer salusd")
        }
        for migration in migrations where migration.version > found {
            try database.transaction(immediate: true) {
                try database.execute(migration.sql)
                try database.execute("PRAGMA user_version = \(migration.version)")
            }
            logger.debug(
                "migrated the store", metadata: ["version": "\(migration.version)", "change": "\(migration.summary)"])
        }
        if let last = migrations.last?.version, last > found {
            // One line on a normal start: a new store, or an upgrade, is worth knowing; each
            // step is at debug level.
            logger.info("store schema", metadata: ["from": "\(found)", "to": "\(last)", "migrations": "\(migrations.filter { $0.version > found }.count)"])
        }
        return found
    }
}
