import Foundation
import SalusModel
import SalusStore
import Testing

@Suite("Migrations")
struct MigrationTests {
    /// Migration 1's SQL as released, kept here verbatim so this test keeps checking the upgrade
    /// from a first-schema database whatever later migrations do.
    static let firstSchema = """
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
        """

    static let kept = UUID(uuidString: "0190C2A0-0000-7000-8000-000000000001")!
    static let deleted = UUID(uuidString: "0190C2A0-0000-7000-8000-000000000002")!

    static func hex(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { $0.map { String(format: "%02X", $0) }.joined() }
    }

    /// A database as the first schema made it: one live step sample with metadata, one
    /// tombstone, the change counter at 2.
    static func makeFirstSchemaDatabase(at path: String) throws {
        let database = try Database(path: path)
        try database.execute("BEGIN")
        try database.execute(firstSchema)
        try database.execute(
            """
            INSERT INTO types (id, identifier) VALUES (1, 'HKQuantityTypeIdentifierStepCount');
            INSERT INTO apps (id, app_id) VALUES (1, 'org.example.diary');
            INSERT INTO sources (id, app_ref, app_id, name, version, product_type, os_version, key)
                VALUES (1, 1, 'org.example.diary', 'Diary', '1.0', NULL, NULL,
                        '["org.example.diary","Diary","1.0",null,null]');
            INSERT INTO samples (id, uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit, app_ref,
                                 source_id, creation_us, seq)
                VALUES (1, x'\(hex(kept))', 1, 0, 1700000000000000, 1700000060000000, 42, 42, 'count', 1, 1,
                        1700000100000000, 1);
            INSERT INTO metadata (sample_id, key, value_type, text_value) VALUES (1, 'HKTimeZone', 0, 'UTC');
            INSERT INTO tombstones (seq, uuid, type_id, kind, app_ref, source_id, start_us, end_us, value,
                                    deleted_us)
                VALUES (2, x'\(hex(deleted))', 1, 0, 1, 1, 1700000000000000, 1700000000000000, 7, 1700000200000000);
            UPDATE store_info SET value = 2 WHERE key = 'last_sequence';
            PRAGMA user_version = 1;
            """)
        try database.execute("COMMIT")
        database.close()
    }

    @Test("a first-schema database upgrades to the current schema and keeps its data and anchors")
    func upgradeFromFirstSchema() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("old.sqlite").path
        try Self.makeFirstSchemaDatabase(at: path)

        let store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        let samples = try await store.all(Fixtures.steps)
        #expect(samples.map(\.uuid) == [Self.kept])
        #expect(samples.first?.metadata == [MetadataKey.timeZone: .string("UTC")])
        #expect(samples.first?.sourceRevision == SourceRevision(appID: "org.example.diary", name: "Diary", version: "1.0"))
        #expect(try await store.currentAnchor() == Anchor(2))
        let changes = try await store.anchoredQuery([QueryDescriptor(type: Fixtures.steps)], anchor: Anchor(1))
        #expect(changes.deleted.map(\.uuid) == [Self.deleted])
        // Migration 3 took the longest span from the existing rows: a window inside the 60 s
        // sample finds it.
        let inside = SamplePredicate.dateWindow(
            DateWindow(start: Date(timeIntervalSince1970: 1_700_000_030), end: Date(timeIntervalSince1970: 1_700_000_031)))
        #expect(try await store.count(Fixtures.steps, inside) == 1)
        let saved = try await store.save([Fixtures.quantity(1)], source: Fixtures.app)
        #expect(saved.anchor == Anchor(3))
        #expect(try await store.integrityCheck() == "ok")
        await store.close()

        let database = try Database(path: path)
        #expect(try database.scalarText("PRAGMA user_version") == "\(Schema.currentVersion)")
        #expect(Schema.currentVersion >= 2)
        let indexes = try database.scalarText(
            "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master WHERE type = 'index' "
                + "AND name IN ('tombstones_deleted', 'samples_app_type') ORDER BY name)")
        // Migration 2's (app, type) index is gone since migration 16 (docs/storage.md, "Bytes per sample").
        #expect(indexes == "tombstones_deleted")
        // Migration 6: the electrocardiogram voltages' table.
        #expect(
            try database.scalarInt(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'electrocardiogram_voltages'") == 1)
        database.close()
    }

    @Test("migration 9 fills in the activities of workouts saved before it, from their payloads")
    func workoutActivitiesBackfill() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("workouts.sqlite").path
        var store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        let workout = Sample(
            type: Fixtures.workout, startDate: Fixtures.at(0), endDate: Fixtures.at(600),
            value: .workout(Workout(activityType: 82, activities: [
                WorkoutActivity(activityType: 46, startDate: Fixtures.at(0), endDate: Fixtures.at(240.5)),
                WorkoutActivity(activityType: 37, startDate: Fixtures.at(300), endDate: Fixtures.at(600)),
            ])),
            sourceRevision: Fixtures.app)
        let saved = try await store.save([workout], source: Fixtures.app)
        await store.close()

        // The database as the migration before 9 left it: no activity rows, nor the tables of
        // the migrations after 9.
        let before = Schema.migrations[Schema.migrations.firstIndex { $0.version == 9 }! - 1].version
        // Every table a migration from 9 on creates, read from its SQL, dropped children first.
        let later = Schema.migrations.filter { $0.version >= 9 }.flatMap { migration in
            migration.sql.components(separatedBy: "CREATE TABLE ").dropFirst().compactMap { text in
                text.replacingOccurrences(of: "IF NOT EXISTS ", with: "").split(separator: " ").first.map(String.init)
            }
        }
        // And every column a migration from 9 on adds.
        let addedColumns = Schema.migrations.filter { $0.version >= 9 }.flatMap { migration in
            migration.sql.components(separatedBy: "ALTER TABLE ").dropFirst().compactMap { text -> String? in
                let words = text.split(whereSeparator: \.isWhitespace)
                guard words.count >= 5, words[1] == "ADD", words[2] == "COLUMN" else { return nil }
                return "ALTER TABLE \(words[0]) DROP COLUMN \(words[3]);"
            }
        }
        var database = try Database(path: path)
        try database.execute(
            addedColumns.joined(separator: " ") + later.reversed().map { " DROP TABLE IF EXISTS \($0);" }.joined()
                + " PRAGMA user_version = \(before);")
        database.close()

        store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        #expect(try await store.all(Fixtures.workout, .workoutActivity(46)).map(\.uuid) == [saved.results[0].uuid])
        await store.close()
        database = try Database(path: path)
        let rows = try database.scalarText(
            "SELECT group_concat(position || ':' || activity_type || ':' || (start_us - 1700000000000000) || '-' "
                + "|| (end_us - 1700000000000000), ' ') FROM (SELECT * FROM workout_activities ORDER BY position)")
        #expect(rows == "0:46:0-240500000 1:37:300000000-600000000")
        database.close()
    }

    @Test("the released migration 1 is unchanged")
    func migrationOneUnchanged() {
        #expect(Schema.migration1.sql == Self.firstSchema)
        let versions = Schema.migrations.map(\.version)
        #expect(versions.first == 1)
        #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 }, "versions increase: \(versions)")
    }

    @Test("a database from a newer schema is refused")
    func newerSchema() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("new.sqlite").path
        let database = try Database(path: path)
        try database.execute("PRAGMA user_version = 99")
        database.close()
        let error = try #require(
            await #expect(throws: StoreError.self) {
                _ = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
            })
        #expect(error.message.contains("schema version 99"))
    }
}
