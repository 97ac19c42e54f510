import Foundation
import SalusModel
@testable import SalusStore
import SalusTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Schema 13 as released: what a store made by the code before store v2 holds, rebuilt from a
/// store of the current schema. Its metadata rows are written as that code wrote them
/// (`StoreWriter.bindMetadata` before migration 14, kept here verbatim), so the migration is
/// tested on the rows the field has.
enum SchemaThirteen {
    /// The metadata table and its indexes, verbatim from migration 1.
    static let metadataTable = """
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
        """

    /// The store at `path` (closed) turned back into a schema-13 store.
    static func downgrade(_ path: String) throws {
        try SchemaFourteen.downgrade(path)
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute("BEGIN IMMEDIATE")
        try database.execute(metadataTable)
        let read = try database.prepare("SELECT id, metadata FROM samples WHERE metadata IS NOT NULL", cached: false)
        let insert = try database.prepare(
            "INSERT INTO metadata (sample_id, key, value_type, text_value, number_value, quantity_value, dimension) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?)", cached: false)
        while try read.step() {
            for (key, value) in try MetadataBlob.decode(read.blob(1) ?? []) {
                // value_type, text_value, number_value, quantity_value, dimension (migration 1).
                let columns: (Int64, String?, Double?, Double?, String?)
                switch value {
                case .string(let text): columns = (0, text, nil, nil, nil)
                case .number(let number): columns = (1, nil, number, nil, nil)
                case .bool(let flag): columns = (2, nil, flag ? 1 : 0, nil, nil)
                case .date(let date): columns = (3, nil, date.timeIntervalSince1970, nil, nil)
                case .quantity(let quantity):
                    columns = (
                        4, quantity.unit.description, BaseUnit.normalize(quantity)?.value, quantity.value,
                        quantity.unit.dimension.description
                    )
                }
                try insert.bind(integer: read.int64(0), at: 1)
                try insert.bind(text: key, at: 2)
                try insert.bind(integer: columns.0, at: 3)
                try insert.bind(text: columns.1, at: 4)
                try insert.bind(real: columns.2, at: 5)
                try insert.bind(real: columns.3, at: 6)
                try insert.bind(text: columns.4, at: 7)
                while try insert.step() {}
                insert.reset()
            }
        }
        read.reset()
        try database.execute("ALTER TABLE samples DROP COLUMN metadata; PRAGMA user_version = 13; COMMIT;")
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Copies the database at `source` (and its WAL, if any) to `target`.
    static func copy(_ source: String, to target: String) throws {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: source + suffix) {
            try? FileManager.default.removeItem(atPath: target + suffix)
            try FileManager.default.copyItem(atPath: source + suffix, toPath: target + suffix)
        }
    }
}

/// Schema 15 as released: `samples` with `end_us` stored, each quantity's unit and value as given
/// in its row, a unique index on the whole UUID and the (app, type) index; `types` without `unit`.
enum SchemaFifteen {
    /// The store at `path` (closed, at the current schema) turned back into a schema-15 store.
    static func downgrade(_ path: String) throws {
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute("PRAGMA foreign_keys=OFF; BEGIN IMMEDIATE;")
        try database.execute(Schema.migration15.sql.replacingOccurrences(of: "samples_v15", with: "samples_old"))
        try database.execute(
            """
            INSERT INTO samples_old (id, uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit, category,
                activity_type, payload, app_ref, source_id, device_id, creation_us, sync_identifier, sync_version,
                replica, metadata)
            SELECT r.id, r.uuid, r.type_id, r.kind, r.start_us, r.end_us, r.value,
                CASE WHEN r.kind = 0 THEN coalesce(r.value_in_unit, r.value) END,
                CASE WHEN r.kind = 0 THEN coalesce(r.unit, t.unit) END, r.category, r.activity_type, r.payload, r.app_ref,
                r.source_id, r.device_id, r.creation_us, r.sync_identifier, r.sync_version, r.replica, r.metadata
            FROM samples r JOIN types t ON t.id = r.type_id ORDER BY r.id;
            DROP TABLE samples;
            ALTER TABLE samples_old RENAME TO samples;
            ALTER TABLE types DROP COLUMN unit;
            CREATE INDEX samples_type_start ON samples(type_id, start_us);
            CREATE UNIQUE INDEX samples_uuid ON samples(uuid);
            CREATE UNIQUE INDEX samples_sync ON samples(app_ref, type_id, sync_identifier)
                WHERE sync_identifier IS NOT NULL;
            CREATE INDEX samples_app_type ON samples(app_ref, type_id);
            PRAGMA user_version = 15;
            COMMIT;
            PRAGMA foreign_keys=ON;
            """)
        #expect(try database.scalarInt("SELECT count(*) FROM pragma_foreign_key_check") == 0)
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}

/// Schema 14 as released: `samples` with its own `seq` column and unique index beside the row
/// id, and the (type, end) index. Row ids are given again from 1 in row order, as the writer
/// before schema 15 gave them (one past the largest), so they differ from the positions wherever
/// a deletion took one, and every table that refers to a sample is rewritten to them: the
/// migration's renumbering is tested on the layout the field has.
enum SchemaFourteen {
    /// `samples` as migrations 1, 13 and 14 left it.
    static let samplesTable = """
        CREATE TABLE samples_old (
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
            replica INTEGER, metadata BLOB,
            CHECK (start_us <= end_us)
        );
        """

    /// The store at `path` (closed, at the current schema) turned back into a schema-14 store.
    static func downgrade(_ path: String) throws {
        try SchemaFifteen.downgrade(path)
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute("PRAGMA foreign_keys=OFF; BEGIN IMMEDIATE;")
        try database.execute(samplesTable)
        try database.execute(
            """
            INSERT INTO samples_old (id, uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit, category,
                activity_type, payload, app_ref, source_id, device_id, creation_us, seq, sync_identifier, sync_version,
                replica, metadata)
            SELECT row_number() OVER (ORDER BY id), uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit,
                category, activity_type, payload, app_ref, source_id, device_id, creation_us, id, sync_identifier,
                sync_version, replica, metadata FROM samples ORDER BY id;
            """)
        for (table, columns) in Schema.sampleReferences {
            try database.execute(
                "UPDATE \(table) SET "
                    + columns.map { "\($0) = -(SELECT id FROM samples_old WHERE seq = \(table).\($0))" }.joined(separator: ", "))
            try database.execute("UPDATE \(table) SET " + columns.map { "\($0) = -\($0)" }.joined(separator: ", "))
        }
        try database.execute(
            """
            DROP TABLE samples;
            ALTER TABLE samples_old RENAME TO samples;
            CREATE INDEX samples_type_start ON samples(type_id, start_us);
            CREATE INDEX samples_type_end ON samples(type_id, end_us);
            CREATE UNIQUE INDEX samples_sync ON samples(app_ref, type_id, sync_identifier)
                WHERE sync_identifier IS NOT NULL;
            CREATE INDEX samples_app_type ON samples(app_ref, type_id);
            PRAGMA user_version = 14;
            COMMIT;
            PRAGMA foreign_keys=ON;
            """)
        #expect(try database.scalarInt("SELECT count(*) FROM pragma_foreign_key_check") == 0)
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }
}

@Suite("Store v2 migration")
struct StoreV2MigrationTests {
    static let route: TypeIdentifier = "HKWorkoutRouteTypeIdentifier"
    static let types: [TypeIdentifier] = [
        Fixtures.steps, Fixtures.sleep, Fixtures.bloodPressure, Fixtures.systolic, Fixtures.diastolic, Fixtures.workout,
        route,
    ]

    /// What a store answers, for comparing a store before and after its migration.
    struct Answers: Equatable {
        var samples: [TypeIdentifier: [Sample]] = [:]
        var predicates: [[UUID]] = []
        var changes: [UUID] = []
        var deleted: [UUID] = []
        var anchor: Anchor?
        var attachments: [SalusModel.Attachment] = []
        var locations: [RouteLocation] = []
    }

    /// Metadata predicates on the steps of `populate`.
    static let predicates: [SamplePredicate] = [
        .metadata(key: "note", test: .exists),
        .not(.metadata(key: "note", test: .exists)),
        .metadata(key: "note", test: .comparison(.greaterThan, .string("b"))),
        .metadata(key: "level", test: .comparison(.lessThanOrEqual, .number(3))),
        .metadata(key: "flag", test: .comparison(.equal, .bool(true))),
        .metadata(key: "when", test: .comparison(.greaterThan, .date(Fixtures.at(150)))),
        .metadata(key: "elevation", test: .comparison(.equal, .quantity(Quantity(value: 53.48, unit: .meter)))),
        .metadata(key: MetadataKey.syncIdentifier, test: .comparison(.equal, .string("s-1"))),
        .or([.metadata(key: "note", test: .allowedValues([.string("alpha"), .number(4)])), .metadata(key: "flag", test: .absent)]),
    ]

    /// Saves metadata of every value type, a sleep sample, blood pressure with member metadata, a
    /// workout with its route, an attachment, deletions and a sync replacement; returns the
    /// anchor an app kept midway and the UUIDs of the attached sample and of the route.
    static func populate(_ store: SampleStore) async throws -> (anchor: Anchor, attached: UUID, route: UUID) {
        var steps: [Sample] = []
        for index in 0..<12 {
            var metadata: [String: MetadataValue] = [:]
            if index % 2 == 0 { metadata["note"] = .string(["alpha", "beta", "gamma"][index % 3]) }
            if index % 3 == 0 { metadata["level"] = .number(Double(index)) }
            if index % 4 == 1 { metadata["flag"] = .bool(index % 8 == 1) }
            if index % 5 == 2 { metadata["when"] = .date(Fixtures.at(Double(index * 30))) }
            if index % 6 == 3 {
                metadata["elevation"] = .quantity(index == 3 ? Quantity(value: 5348, unit: .centimeter) : Quantity(value: 20, unit: .meter))
            }
            steps.append(Fixtures.quantity(Double(index), start: Double(index * 60), metadata: metadata))
        }
        let saved = try await store.save(steps, source: Fixtures.app).results.map(\.uuid)
        _ = try await store.save(
            [Fixtures.category(1, start: 0, end: 3600, metadata: [MetadataKey.timeZone: .string("Europe/Paris")])],
            source: Fixtures.app)
        _ = try await store.save(
            [Fixtures.bloodPressure(120, 80, start: 10, metadata: ["org.example.arm": .string("left")],
                                    memberMetadata: ["HKWasUserEntered": .bool(true)])],
            source: Fixtures.app)
        let workout = Sample(
            type: Fixtures.workout, startDate: Fixtures.at(0), endDate: Fixtures.at(600),
            value: .workout(Workout(activityType: 37).withDefaultActivity(start: Fixtures.at(0), end: Fixtures.at(600))),
            sourceRevision: Fixtures.app, metadata: ["HKIndoorWorkout": .bool(false)])
        let workoutUUID = try await store.save([workout], source: Fixtures.app).results[0].uuid
        let anchor = try await store.currentAnchor()
        let locations = (0..<50).map { RouteLocation(timestamp: Fixtures.at(Double($0) * 10), latitude: 1, longitude: 2) }
        let routeUUID = try await store.save(
            [Sample(
                type: route, startDate: Fixtures.at(0), endDate: Fixtures.at(490),
                value: .workoutRoute(WorkoutRouteValue(workoutUUID: workoutUUID, locations: locations)),
                sourceRevision: Fixtures.app)],
            source: Fixtures.app
        ).results[0].uuid
        let upload = try store.beginAttachment(maximumSize: 1 << 20)
        try upload.append(Array("a scanned note".utf8))
        _ = try await store.commitAttachment(
            upload, objectUUID: saved[1], name: "note.txt", contentType: "text/plain", appID: Fixtures.app.appID,
            metadata: ["page": "1"])
        _ = try await store.delete([saved[0], saved[5]], requester: .owner)
        _ = try await store.save([Fixtures.synced("s-1", version: 1, value: 3)], source: Fixtures.app)
        _ = try await store.save([Fixtures.synced("s-1", version: 2, value: 4)], source: Fixtures.app)
        return (anchor, saved[1], routeUUID)
    }

    static func answers(_ store: SampleStore, anchor: Anchor, attached: UUID, route: UUID) async throws -> Answers {
        var answers = Answers()
        for type in types { answers.samples[type] = try await store.all(type) }
        for predicate in predicates { answers.predicates.append(try await store.all(Fixtures.steps, predicate).map(\.uuid)) }
        let changes = try await store.anchoredQuery(types.map { QueryDescriptor(type: $0) }, anchor: anchor)
        answers.changes = changes.added.map(\.uuid)
        answers.deleted = changes.deleted.map(\.uuid)
        answers.anchor = changes.anchor
        answers.attachments = try await store.attachments(of: attached)
        answers.locations = try await store.routeLocations(of: route).collect()
        return answers
    }

    /// A schema-13 store of `populate` at `path`, with what it answered before it was turned back.
    static func makeThirteen(at path: String) async throws -> (Answers, Anchor, UUID, UUID) {
        let store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        let (anchor, attached, route) = try await populate(store)
        let expected = try await answers(store, anchor: anchor, attached: attached, route: route)
        await store.close()
        try SchemaThirteen.downgrade(path)
        return (expected, anchor, attached, route)
    }

    @Test("a schema-13 store with metadata, workouts, routes, correlations, attachments and tombstones migrates: same answers, kept anchors still work")
    func migratesWithSameAnswers() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("salus.sqlite").path
        let (expected, anchor, attached, route) = try await Self.makeThirteen(at: path)
        var database = try Database(path: path)
        #expect(try database.scalarInt("SELECT count(*) FROM metadata") ?? 0 >= 12)
        database.close()

        let store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        let migrated = try await Self.answers(store, anchor: anchor, attached: attached, route: route)
        #expect(migrated == expected)
        #expect(migrated.samples[Fixtures.steps]?.contains { $0.metadata["when"] != nil } == true)
        #expect(migrated.predicates.allSatisfy { !$0.isEmpty })
        #expect(try await store.integrityCheck() == "ok")
        await store.close()
        database = try Database(path: path)
        #expect(try database.scalarText("PRAGMA user_version") == "\(Schema.currentVersion)")
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name LIKE 'metadata%'") == 0)
        database.close()
    }

    @Test("a schema-14 store (metadata folded, change positions apart from row ids) migrates to the same answers")
    func fourteenMigrates() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("salus.sqlite").path
        var store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        let (anchor, attached, route) = try await Self.populate(store)
        let expected = try await Self.answers(store, anchor: anchor, attached: attached, route: route)
        await store.close()
        try SchemaFourteen.downgrade(path)
        var database = try Database(path: path)
        // Deletions took positions, so ids and positions differ before the migration.
        #expect(try database.scalarInt("SELECT count(*) FROM samples WHERE id <> seq") ?? 0 > 0)
        database.close()

        store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        #expect(try await Self.answers(store, anchor: anchor, attached: attached, route: route) == expected)
        #expect(try await store.integrityCheck() == "ok")
        await store.close()
        database = try Database(path: path)
        defer { database.close() }
        #expect(try database.scalarText("PRAGMA user_version") == "\(Schema.currentVersion)")
        #expect(try database.scalarInt("SELECT count(*) FROM pragma_table_info('samples') WHERE name = 'seq'") == 0)
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'samples_type_end'") == 0)
    }

    @Test("a schema-15 store migrates to 16: the same answers and kept anchors, spans, units once per type, UUIDs found by their row")
    func fifteenMigrates() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("salus.sqlite").path
        var store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        let (anchor, attached, route) = try await Self.populate(store)
        // A quantity in a unit other than its type's keeps its unit and value as given.
        let calories = try await store.save(
            [Fixtures.quantity(Fixtures.dietaryEnergy, 8.368, "kJ", start: 5)], source: Fixtures.app
        ).results[0].uuid
        let expected = try await Self.answers(store, anchor: anchor, attached: attached, route: route)
        let energy = try await store.all(Fixtures.dietaryEnergy)
        await store.close()
        try SchemaFifteen.downgrade(path)
        var database = try Database(path: path)
        #expect(try database.scalarInt("SELECT count(*) FROM samples WHERE kind = 0 AND unit IS NULL") == 0)
        database.close()

        store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        #expect(try await Self.answers(store, anchor: anchor, attached: attached, route: route) == expected)
        #expect(try await store.all(Fixtures.dietaryEnergy) == energy)
        #expect(try await store.sample(uuid: calories) == energy.first)
        #expect(try await store.integrityCheck() == "ok")
        await store.close()
        database = try Database(path: path)
        defer { database.close() }
        #expect(try database.scalarText("PRAGMA user_version") == "\(Schema.currentVersion)")
        #expect(try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'samples_app_type'") == 0)
        // Steps in count are stored without their unit; the kilojoules keep theirs.
        #expect(try database.scalarText("SELECT unit FROM types WHERE identifier = '\(Fixtures.steps.rawValue)'") == "count")
        #expect(try database.scalarInt("SELECT count(*) FROM samples WHERE kind = 0 AND unit IS NOT NULL") == 1)
        // Instants store a span of 0; the sleep sample its hour.
        #expect(try database.scalarInt("SELECT max(span_us) FROM samples") ?? 0 >= 3_600_000_000)
        // Every UUID made before the migration carries its row id (the store assigned them with it).
        #expect(try database.scalarInt("SELECT count(*) FROM samples WHERE \(SampleUUIDs.indexed)") == 0)
        // The rows copied say so themselves (schema 18's mark), each as its UUID does.
        #expect(try database.scalarInt(
            "SELECT count(*) FROM samples WHERE (\(SampleUUIDs.indexed)) <> (\(SampleUUIDs.indexedSixteen))") == 0)
        #expect(try database.scalarText("SELECT sql FROM sqlite_master WHERE name = 'samples_uuid'")?.contains("uuid_own") == true)
    }

    @Test("a backup of a schema-13 store restores, and the restored store migrates to the same answers")
    func oldBackupRestores() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let old = directory.appendingPathComponent("old")
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        let (expected, anchor, attached, route) = try await Self.makeThirteen(
            at: old.appendingPathComponent(BackupArchive.storeName).path)
        let archive = directory.appendingPathComponent("backup.zip").path
        let made = try BackupArchive.create(
            dataDirectory: old.path, databases: [BackupArchive.storeName], files: [], archivePath: archive)
        #expect(made.schemaVersion == 13)

        let fresh = directory.appendingPathComponent("fresh").path
        let restored = try BackupArchive.restore(archivePath: archive, dataDirectory: fresh, force: false)
        #expect(restored.schemaVersion == 13 && restored.lastSequence == made.lastSequence)
        let path = fresh + "/" + BackupArchive.storeName
        #expect(try BackupArchive.storeSummary(path).schemaVersion == 13)
        let store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        #expect(try await Self.answers(store, anchor: anchor, attached: attached, route: route) == expected)
        await store.close()
        #expect(try BackupArchive.storeSummary(path).schemaVersion == Schema.currentVersion)
        #expect(try BackupArchive.storeSummary(path).samplesPerType == made.samplesPerType)
    }

    @Test("a migration is refused when the disk lacks the room it needs, naming the bytes, and changes nothing")
    func refusedWithoutSpace() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("salus.sqlite").path
        _ = try await Self.makeThirteen(at: path)
        let database = try Database(path: path)
        defer { database.close() }
        let error = try #require(throws: StoreError.self) {
            try Schema.migrate(database, logger: Fixtures.quietLogger, freeBytes: { _ in 1_000 })
        }
        #expect(error.code == .resourceExhausted)
        #expect(error.field == "disk")
        #expect(error.value == "1000 bytes free in \(directory.path)")
        #expect(error.expected?.hasPrefix("at least ") == true && error.expected?.contains("bytes free to migrate") == true)
        #expect(try database.scalarText("PRAGMA user_version") == "13")
        #expect(try database.scalarInt("SELECT count(*) FROM metadata") ?? 0 >= 12)
    }

    @Test("a migration from schema 13 asks for the room of its new file (the store's size, its WAL's growth, 64 MiB) and, on its file system, its index sorts; not twice the store")
    func spaceOfTheNewFile() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("salus.sqlite").path
        _ = try await Self.makeThirteen(at: path)
        let database = try Database(path: path)
        defer { database.close() }
        let size = (try database.scalarInt("PRAGMA page_size") ?? 0) * (try database.scalarInt("PRAGMA page_count") ?? 0)
        let onDisk = Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0)
        // The index sorts' temporary files count here when SQLite's temporary folder is on the
        // store's file system (`spaceOfTheIndexSorts`).
        let together = Schema.sqliteTemporaryFolder().map { Schema.onOneFileSystem($0, directory.path) } ?? true
        let needed = size + max(0, size - onDisk) + 64 << 20 + (together ? size : 0)
        let error = try #require(throws: StoreError.self) {
            try Schema.migrate(database, logger: Fixtures.quietLogger, freeBytes: { _ in needed - 1 })
        }
        #expect(error.code == .resourceExhausted && error.field == "disk")
        #expect(error.expected?.hasPrefix("at least \(needed) bytes free to migrate \(path) (\(size) bytes)") == true, "\(error)")
        #expect(try database.scalarText("PRAGMA user_version") == "13")
        try Schema.migrate(database, logger: Fixtures.quietLogger, freeBytes: { _ in needed })
        #expect(try database.scalarText("PRAGMA user_version") == "\(Schema.currentVersion)")
    }

    @Test("a migration asks for the room its index sorts write in SQLite's temporary folder (the store's size), beside the new file; short of it, refused naming the bytes, and nothing changed")
    func spaceOfTheIndexSorts() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("salus.sqlite").path
        _ = try await Self.makeThirteen(at: path)
        let database = try Database(path: path)
        defer { database.close() }
        let size = (try database.scalarInt("PRAGMA page_size") ?? 0) * (try database.scalarInt("PRAGMA page_count") ?? 0)
        let onDisk = Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0)
        let newFile = size + max(0, size - onDisk) + 64 << 20
        // The store's folder has room for the new file alone; any other folder (SQLite's
        // temporary one, when it is on another file system) a byte less than the sorts need.
        let error = try #require(throws: StoreError.self) {
            try Schema.migrate(
                database, logger: Fixtures.quietLogger, freeBytes: { $0 == directory.path ? newFile : size - 1 })
        }
        #expect(error.code == .resourceExhausted && error.field == "disk", "\(error)")
        // Needed: the new file and the sorts together on one file system, or the sorts alone in the temporary folder.
        let expected = error.expected ?? ""
        #expect(expected.contains("sort"), "\(error)")
        #expect(
            expected.hasPrefix("at least \(newFile + size) bytes free") || expected.hasPrefix("at least \(size) bytes free"), "\(error)")
        #expect(try database.scalarText("PRAGMA user_version") == "13")
        try Schema.migrate(
            database, logger: Fixtures.quietLogger, freeBytes: { $0 == directory.path ? newFile + size : size })
        #expect(try database.scalarText("PRAGMA user_version") == "\(Schema.currentVersion)")
    }

    @Test("a migration is refused while another connection has the store open, and changes nothing")
    func refusedWhileOpenElsewhere() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("salus.sqlite").path
        _ = try await Self.makeThirteen(at: path)
        // Its changes would be lost with the old file if the new one were renamed over it.
        let other = try Database(path: path, create: false, readOnly: true)
        defer { other.close() }
        #expect(try other.scalarInt("SELECT count(*) FROM metadata") ?? 0 >= 12)
        let database = try Database(path: path)
        defer { database.close() }
        let error = try #require(throws: StoreError.self) { try Schema.migrate(database, logger: Fixtures.quietLogger) }
        #expect(error.message.contains("another process has the store open"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: path + Schema.rebuildSuffix))
        // The caller's connection reads the store again, as it was.
        #expect(try database.scalarText("PRAGMA user_version") == "13")
        #expect(try database.scalarInt("SELECT count(*) FROM metadata") ?? 0 >= 12)
        #expect(try other.scalarInt("SELECT count(*) FROM metadata") ?? 0 >= 12)
    }

    @Test("SIGKILL at nine points of the migration leaves the old store or the new one, and the next start finishes it")
    func killedMidway() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let template = directory.appendingPathComponent("template.sqlite").path
        let (expected, anchor, attached, route) = try await Self.makeThirteen(at: template)
        // Migrations 14, 15 and 16 write the store anew in a file beside it (16's copy is 15's
        // too and folds the metadata), renamed over the old one.
        let points = [
            "16 begun", "16 tables copied", "16 samples begin", "16 samples chunk 0", "16 indexed", "16 written",
            "16 closed", "16 renamed", "16 committed",
        ]
        for point in points {
            let folder = directory.appendingPathComponent("kill-\(points.firstIndex(of: point)!)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let path = folder.appendingPathComponent("salus.sqlite").path
            try SchemaThirteen.copy(template, to: path)
            try FileManager.default.copyItem(
                atPath: directory.appendingPathComponent("attachments").path, toPath: folder.appendingPathComponent("attachments").path)

            let process = Process()
            process.executableURL = try CrashSafetyTests.executable()
            process.arguments = ["migrate", path]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            var seen: [String] = []
            var buffer = Data()
            reading: while true {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    seen.append(line)
                    if line == "point \(point)" {
                        kill(process.processIdentifier, SIGKILL)
                        break reading
                    }
                    input.fileHandleForWriting.write(Data("go\n".utf8))
                }
            }
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "\(point): \(seen)")
            #expect(seen.last == "point \(point)", "\(seen)")

            // The old store whole, or the new one.
            let database = try Database(path: path, create: false, readOnly: true)
            #expect(try database.scalarText("PRAGMA integrity_check") == "ok")
            let version = try database.scalarText("PRAGMA user_version")
            let metadataTables = try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'metadata'")
            let sequenceColumns = try database.scalarInt("SELECT count(*) FROM pragma_table_info('samples') WHERE name = 'seq'")
            let tables = try database.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'samples%'")
            #expect(tables == 1, "\(point)")
            if point == "16 renamed" || point == "16 committed" {
                #expect(version == "16" && metadataTables == 0 && sequenceColumns == 0, "\(point)")
                #expect(try database.scalarInt("SELECT count(*) FROM pragma_table_xinfo('samples') WHERE name = 'span_us'") == 1)
            } else {
                #expect(sequenceColumns == 1, "\(point)")
                #expect(version == "13" && metadataTables == 1, "\(point)")
                #expect(try database.scalarInt("SELECT count(*) FROM metadata") ?? 0 >= 12)
            }
            database.close()

            // The next start finishes the job, and removes what the killed one left.
            let store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
            #expect(try await Self.answers(store, anchor: anchor, attached: attached, route: route) == expected, "\(point)")
            await store.close()
            #expect(!FileManager.default.fileExists(atPath: path + Schema.rebuildSuffix), "\(point)")
        }
    }
}

/// Random saves, deletions and sync replacements on a schema-13 store, migrated, then more of
/// them; a store that saw the same changes on the current schema throughout, and a model of the
/// live samples, answer the same random metadata predicates.
@Suite("Store v2 migration: random changes and predicates")
struct StoreV2MigrationPropertyTests {
    struct Generator {
        var source: SeededGenerator
        init(state: UInt64) { source = SeededGenerator(state: state) }
        mutating func next() -> UInt64 { source.next() }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func flag() -> Bool { below(2) == 0 }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
        mutating func uuid() -> UUID {
            let (a, b) = (next(), next())
            return withUnsafeBytes(of: (a, b)) { raw in
                var bytes = Array(raw)
                bytes[6] = (bytes[6] & 0x0F) | 0x70
                bytes[8] = (bytes[8] & 0x3F) | 0x80
                return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                                   bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
            }
        }
    }

    enum Change {
        case save([Sample])
        case delete([UUID])
    }

    static let strings = ["", "x", "y", "yz", "Z", "é"]
    static let numbers: [Double] = [-1, 0, 0.5, 1, 2, 1e300]
    static let quantities = [
        Quantity(value: 5348, unit: .centimeter), Quantity(value: 53.48, unit: .meter), Quantity(value: 1, unit: .kilometer),
        Quantity(value: 2, unit: .second), Quantity(value: 0, unit: .meter),
    ]

    static func value(_ random: inout Generator) -> MetadataValue {
        switch random.below(5) {
        case 0: .string(random.pick(strings))
        case 1: .number(random.pick(numbers))
        case 2: .bool(random.flag())
        case 3: .date(Fixtures.at(Double(random.below(6) * 10)))
        default: .quantity(random.pick(quantities))
        }
    }

    /// `count` changes, and the live samples after them (by UUID), starting from `live`.
    static func changes(_ count: Int, _ random: inout Generator, live: inout [UUID: Sample], version: inout Double) -> [Change] {
        var result: [Change] = []
        for _ in 0..<count {
            switch random.below(6) {
            case 0 where !live.isEmpty:
                let targets = Array(Set((0..<(1 + random.below(3))).map { _ in live.keys.sorted { $0.uuidString < $1.uuidString }[random.below(live.count)] }))
                for uuid in targets { live[uuid] = nil }
                result.append(.delete(targets))
            case 1:
                // A sync replacement: a higher version of one of three identifiers.
                version += 1
                let identifier = "sync-\(random.below(3))"
                var sample = Fixtures.quantity(
                    Double(random.below(100)), start: Double(random.below(600)),
                    metadata: [MetadataKey.syncIdentifier: .string(identifier), MetadataKey.syncVersion: .number(version)])
                if random.flag() { sample.metadata["a"] = value(&random) }
                sample.uuid = random.uuid()
                for (uuid, old) in live where old.syncIdentifier == identifier { live[uuid] = nil }
                live[sample.uuid] = sample
                result.append(.save([sample]))
            default:
                var batch: [Sample] = []
                for _ in 0..<(1 + random.below(4)) {
                    var metadata: [String: MetadataValue] = [:]
                    for key in ["a", "b", "c", "d"] where random.below(3) == 0 { metadata[key] = value(&random) }
                    var sample = Fixtures.quantity(Double(random.below(100)), start: Double(random.below(600)), metadata: metadata)
                    sample.uuid = random.uuid()
                    live[sample.uuid] = sample
                    batch.append(sample)
                }
                result.append(.save(batch))
            }
        }
        return result
    }

    static func apply(_ changes: [Change], to store: SampleStore) async throws {
        for change in changes {
            switch change {
            case .save(let samples): _ = try await store.save(samples, source: Fixtures.app, options: SaveOptions(uuidPolicy: .keep))
            case .delete(let uuids): _ = try await store.delete(uuids, requester: .owner)
            }
        }
    }

    static func predicate(_ random: inout Generator, depth: Int = 0) -> SamplePredicate {
        if depth < 2, random.below(4) == 0 {
            let children = (0..<(1 + random.below(3))).map { _ in predicate(&random, depth: depth + 1) }
            switch random.below(3) {
            case 0: return .and(children)
            case 1: return .or(children)
            default: return .not(children[0])
            }
        }
        let key = random.pick(["a", "b", "c", "d", "missing", MetadataKey.syncIdentifier])
        switch random.below(5) {
        case 0: return .metadata(key: key, test: .exists)
        case 1: return .metadata(key: key, test: .absent)
        case 2: return .metadata(key: key, test: .allowedValues((0..<random.below(3)).map { _ in value(&random) }))
        default:
            let comparison = random.pick(ComparisonOperator.allCases)
            var compared = value(&random)
            if case .bool = compared, comparison != .equal, comparison != .notEqual { compared = .number(1) }
            if key == MetadataKey.syncIdentifier { compared = .string(random.pick(["sync-0", "sync-1", "sync-2", "s"])) }
            return .metadata(key: key, test: .comparison(comparison, compared))
        }
    }

    /// What the predicate keeps of a sample's metadata, by the rules of `MetadataTest`.
    static func matches(_ predicate: SamplePredicate, _ metadata: [String: MetadataValue]) -> Bool {
        switch predicate {
        case .and(let list): return list.allSatisfy { matches($0, metadata) }
        case .or(let list): return list.contains { matches($0, metadata) }
        case .not(let child): return !matches(child, metadata)
        case .metadata(let key, .exists): return metadata[key] != nil
        case .metadata(let key, .absent): return metadata[key] == nil
        case .metadata(let key, .allowedValues(let values)):
            return values.contains { compare(metadata[key], .equal, $0) }
        case .metadata(let key, .comparison(let comparison, let value)):
            return compare(metadata[key], comparison, value)
        default: return false
        }
    }

    static func compare(_ stored: MetadataValue?, _ comparison: ComparisonOperator, _ value: MetadataValue) -> Bool {
        func holds<T: Comparable>(_ left: T, _ right: T) -> Bool {
            switch comparison {
            case .lessThan: left < right
            case .lessThanOrEqual: left <= right
            case .equal: left == right
            case .greaterThanOrEqual: left >= right
            case .greaterThan: left > right
            case .notEqual: left != right
            }
        }
        func number(_ value: MetadataValue?) -> Double? {
            switch value {
            case .number(let number)?: number
            case .bool(let flag)?: flag ? 1 : 0
            default: nil
            }
        }
        switch (stored, value) {
        case (.string(let left)?, .string(let right)):
            let order = left.utf8.lexicographicallyPrecedes(right.utf8) ? -1 : left.utf8.elementsEqual(right.utf8) ? 0 : 1
            return holds(order, 0)
        case (.date(let left)?, .date(let right)):
            return holds(StoredTime.microseconds(left), StoredTime.microseconds(right))
        case (.quantity(let left)?, .quantity(let right)):
            guard let l = BaseUnit.normalize(left), let r = BaseUnit.normalize(right), l.dimension == r.dimension else { return false }
            return holds(l.value, r.value)
        default:
            guard let left = number(stored), let right = number(value) else { return false }
            return holds(left, right)
        }
    }

    @Test("random changes before and after the migration: both stores and the model answer 200 random predicates alike")
    func randomChangesAndPredicates() async throws {
        var random = Generator(state: 0x5A1D_2026)
        var live: [UUID: Sample] = [:]
        var version = 0.0
        let before = Self.changes(40, &random, live: &live, version: &version)
        let after = Self.changes(40, &random, live: &live, version: &version)

        let direct = try await TemporaryStore.make()
        try await Self.apply(before + after, to: direct.store)

        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("salus.sqlite").path
        var migrated = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        try await Self.apply(before, to: migrated)
        await migrated.close()
        try SchemaThirteen.downgrade(path)
        migrated = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        try await Self.apply(after, to: migrated)

        #expect(Set(try await direct.store.all(Fixtures.steps).map(\.uuid)) == Set(live.keys))
        let (mine, theirs) = (try await migrated.all(Fixtures.steps), try await direct.store.all(Fixtures.steps))
        #expect(mine.map(\.uuid) == theirs.map(\.uuid))
        #expect(mine.map(\.metadata) == theirs.map(\.metadata))
        #expect(mine.map(\.value) == theirs.map(\.value))
        /// The UUIDs found, or the error's text.
        func answer(_ store: SampleStore, _ predicate: SamplePredicate) async -> (found: Set<UUID>?, error: String?) {
            do {
                return (Set(try await store.all(Fixtures.steps, predicate).map(\.uuid)), nil)
            } catch {
                return (nil, "\(error)")
            }
        }
        var (split, refused) = (0, 0)
        for index in 0..<200 {
            let predicate = Self.predicate(&random)
            let fromDirect = await answer(direct.store, predicate)
            let fromMigrated = await answer(migrated, predicate)
            #expect(fromMigrated.found == fromDirect.found && fromMigrated.error == fromDirect.error, "predicate \(index): \(predicate)")
            if let found = fromDirect.found {
                // A predicate the store takes keeps what the model of the samples says.
                let expected = Set(live.values.filter { Self.matches(predicate, $0.metadata) }.map(\.uuid))
                #expect(found == expected, "predicate \(index): \(predicate)")
                if !expected.isEmpty && expected.count < live.count { split += 1 }
            } else {
                // A value of another type than a declared key's (the sync identifier's) is refused.
                refused += 1
            }
        }
        // Most predicates split the samples, so the comparison says something.
        #expect(split >= 80 && refused < 40, "\(split) split the samples, \(refused) refused")
        await migrated.close()
    }
}

/// The same around migrations 14 and 15 for what the schema-15 rows and indexes serve: random
/// saves of samples with spans, deletions and sync replacements on a schema-13 store, migrated,
/// then more; 200 random queries (date windows of every mode, quantity comparisons, UUID sets,
/// metadata, combined; sorted by start or end date either way, some with a limit, read in
/// pages of 3) and anchored queries from every anchor kept along the way answer the same on it
/// and on a store that had the current schema throughout, and the filters keep what a model of
/// the samples says.
@Suite("Store v2 migration: random changes and queries")
struct StoreV2MigrationQueryPropertyTests {
    typealias Generator = StoreV2MigrationPropertyTests.Generator

    static func changes(
        _ count: Int, _ random: inout Generator, live: inout [UUID: Sample], version: inout Double
    ) -> [StoreV2MigrationPropertyTests.Change] {
        var result: [StoreV2MigrationPropertyTests.Change] = []
        func sample(_ random: inout Generator, metadata: [String: MetadataValue] = [:]) -> Sample {
            let start = Double(random.below(600))
            var sample = Fixtures.quantity(
                Double(random.below(100)), start: start, end: start + random.pick([0, 0, 1, 30, 90, 600]), metadata: metadata)
            sample.uuid = random.uuid()
            return sample
        }
        for _ in 0..<count {
            switch random.below(6) {
            case 0 where !live.isEmpty:
                let keys = live.keys.sorted { $0.uuidString < $1.uuidString }
                let targets = Array(Set((0..<(1 + random.below(3))).map { _ in keys[random.below(keys.count)] }))
                for uuid in targets { live[uuid] = nil }
                result.append(.delete(targets))
            case 1:
                version += 1
                let identifier = "sync-\(random.below(3))"
                let replacing = sample(
                    &random,
                    metadata: [MetadataKey.syncIdentifier: .string(identifier), MetadataKey.syncVersion: .number(version)])
                for (uuid, old) in live where old.syncIdentifier == identifier { live[uuid] = nil }
                live[replacing.uuid] = replacing
                result.append(.save([replacing]))
            default:
                var batch: [Sample] = []
                for _ in 0..<(1 + random.below(5)) {
                    var metadata: [String: MetadataValue] = [:]
                    if random.below(3) == 0 { metadata["a"] = StoreV2MigrationPropertyTests.value(&random) }
                    let saved = sample(&random, metadata: metadata)
                    live[saved.uuid] = saved
                    batch.append(saved)
                }
                result.append(.save(batch))
            }
        }
        return result
    }

    /// A random filter and whether it keeps `sample` (nil: the model does not decide it).
    static func predicate(_ random: inout Generator, uuids: [UUID], depth: Int = 0) -> SamplePredicate {
        if depth < 2, random.below(4) == 0 {
            let children = (0..<(1 + random.below(3))).map { _ in predicate(&random, uuids: uuids, depth: depth + 1) }
            switch random.below(3) {
            case 0: return .and(children)
            case 1: return .or(children)
            default: return .not(children[0])
            }
        }
        switch random.below(4) {
        case 0, 1:
            let start = random.below(5) == 0 ? nil : Fixtures.at(Double(random.below(700)) - 50)
            let end = random.below(5) == 0 ? nil : Fixtures.at(Double(random.below(700)) - 50)
            let (first, last) = (start.flatMap { s in end.map { Swift.min(s, $0) } } ?? start, start.flatMap { s in end.map { Swift.max(s, $0) } } ?? end)
            return .dateWindow(DateWindow(start: first, end: last, strictStartDate: random.flag(), strictEndDate: random.flag()))
        case 2:
            return .quantity(random.pick(ComparisonOperator.allCases), Quantity(value: Double(random.below(100)), unit: .count))
        default:
            if uuids.isEmpty || random.flag() {
                return .metadata(key: "a", test: random.flag() ? .exists : .absent)
            }
            return .uuids(Set((0..<(1 + random.below(4))).map { _ in uuids[random.below(uuids.count)] }))
        }
    }

    static func matches(_ predicate: SamplePredicate, _ sample: Sample) -> Bool {
        switch predicate {
        case .and(let list): return list.allSatisfy { matches($0, sample) }
        case .or(let list): return list.contains { matches($0, sample) }
        case .not(let child): return !matches(child, sample)
        case .dateWindow(let window):
            let (start, end) = (StoredTime.microseconds(sample.startDate), StoredTime.microseconds(sample.endDate))
            let (a, b) = (window.start.map(StoredTime.microseconds), window.end.map(StoredTime.microseconds))
            var keep = true
            if !window.strictStartDate && !window.strictEndDate {
                if let a { keep = keep && end >= a }
                if let b { keep = keep && start < b }
            }
            if window.strictStartDate {
                if let a { keep = keep && start >= a }
                if let b { keep = keep && start < b }
            }
            if window.strictEndDate {
                if let a { keep = keep && end >= a }
                if let b { keep = keep && end < b }
            }
            return keep
        case .quantity(let comparison, let quantity):
            guard case .quantity(let stored) = sample.value else { return false }
            return StoreV2MigrationPropertyTests.compare(.number(stored.value), comparison, .number(quantity.value))
        case .uuids(let set): return set.contains(sample.uuid)
        case .metadata(let key, .exists): return sample.metadata[key] != nil
        case .metadata(let key, .absent): return sample.metadata[key] == nil
        default: return false
        }
    }

    @Test("random changes before and after migrations 14 and 15: 200 random queries and every kept anchor answer alike")
    func randomChangesAndQueries() async throws {
        try await Self.randomChangesAndQueries(seed: 0x5A1D_2015, downgrade: SchemaThirteen.downgrade)
    }

    @Test("random changes before and after migration 16: 200 random queries and every kept anchor answer alike")
    func randomChangesAndQueriesFromFifteen() async throws {
        try await Self.randomChangesAndQueries(seed: 0x5A1D_2016, downgrade: SchemaFifteen.downgrade)
    }

    /// Random changes on a store turned back by `downgrade`, migrated, then more: queries and
    /// kept anchors against a store always current and the model.
    static func randomChangesAndQueries(seed: UInt64, downgrade: (String) throws -> Void) async throws {
        var random = Generator(state: seed)
        var live: [UUID: Sample] = [:]
        var version = 0.0
        let before = Self.changes(40, &random, live: &live, version: &version)
        let after = Self.changes(40, &random, live: &live, version: &version)
        let steps = [QueryDescriptor(type: Fixtures.steps)]

        // Anchors kept after each change, by an app following the direct store.
        let direct = try await TemporaryStore.make()
        var anchors: [Anchor] = []
        for change in before + after {
            try await StoreV2MigrationPropertyTests.apply([change], to: direct.store)
            anchors.append(try await direct.store.currentAnchor())
        }

        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("salus.sqlite").path
        var migrated = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        try await StoreV2MigrationPropertyTests.apply(before, to: migrated)
        await migrated.close()
        try downgrade(path)
        migrated = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        try await StoreV2MigrationPropertyTests.apply(after, to: migrated)
        #expect(try await migrated.currentAnchor() == anchors.last)

        for anchor in [nil] + anchors.map(Optional.some) {
            let (mine, theirs) = (
                try await migrated.anchoredQuery(steps, anchor: anchor, limit: 7),
                try await direct.store.anchoredQuery(steps, anchor: anchor, limit: 7)
            )
            #expect(mine.added.map(\.uuid) == theirs.added.map(\.uuid) && mine.deleted.map(\.uuid) == theirs.deleted.map(\.uuid))
            #expect(mine.anchor == theirs.anchor && mine.hasMore == theirs.hasMore, "from \(String(describing: anchor))")
        }

        let uuids = live.keys.sorted { $0.uuidString < $1.uuidString }
        var split = 0
        for index in 0..<200 {
            let predicate = Self.predicate(&random, uuids: uuids)
            let sort = [SampleSortDescriptor(random.flag() ? .startDate : .endDate, ascending: random.flag())]
            let limit = random.below(3) == 0 ? 1 + random.below(10) : nil
            let query = SampleQuery(type: Fixtures.steps, predicate: predicate, sort: sort, limit: limit)
            let mine = try await migrated.samples(query, pageSize: 3).collect()
            let theirs = try await direct.store.samples(query, pageSize: 3).collect()
            #expect(mine.map(\.uuid) == theirs.map(\.uuid), "query \(index): \(predicate) \(sort) \(String(describing: limit))")
            // The filter keeps what the model says, in the order asked.
            let expected = live.values.filter { Self.matches(predicate, $0) }
            if let limit {
                #expect(mine.count == Swift.min(limit, expected.count), "query \(index)")
            } else {
                #expect(Set(mine.map(\.uuid)) == Set(expected.map(\.uuid)), "query \(index): \(predicate)")
                if !expected.isEmpty && expected.count < live.count { split += 1 }
            }
            let keys = mine.map { sort[0].key == .startDate ? $0.startDate : $0.endDate }
            #expect(zip(keys, keys.dropFirst()).allSatisfy { sort[0].ascending ? $0 <= $1 : $0 >= $1 }, "query \(index)")
        }
        #expect(split >= 60, "\(split) queries split the samples")
        await migrated.close()
    }
}
