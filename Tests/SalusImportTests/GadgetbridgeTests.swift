import CSQLite
import Foundation
import SalusImport
import SalusModel
import Testing

/// Gadgetbridge's exported database (shared/data/gadgetbridge, a real Fossil Hybrid HR export)
/// read by `GadgetbridgeImport`, checked against the same database read here by plain SQL; and
/// databases made here for what the real one does not hold (a Garmin watch's sleep, a newer
/// schema, damaged bytes).
@Suite("Gadgetbridge databases")
struct GadgetbridgeTests {
    static let catalog = ExportReaderTests.catalog

    static let database: URL = {
        let base: URL
        if let shared = ProcessInfo.processInfo.environment["SALUS_SHARED_DATA"] {
            base = URL(fileURLWithPath: shared)
        } else {
            base = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("../shared/data").standardizedFileURL
        }
        return base.appendingPathComponent("gadgetbridge/diamondburned-telegraf-plugin-gadgetbridge/gadgetbridge.db")
    }()

    /// Rows of `sql` on the database at `path`, opened read-only, each column as text (nil for NULL).
    static func query(_ path: String, _ sql: String) throws -> [[String?]] {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            sqlite3_close(handle)
            throw CancellationError()
        }
        defer { sqlite3_close(handle) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw CancellationError() }
        defer { sqlite3_finalize(statement) }
        var rows: [[String?]] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                sqlite3_column_text(statement, column).map { String(cString: $0) }
            })
        }
        return rows
    }

    /// Runs `sql` (several statements) on a new database file and returns its bytes.
    static func made(_ sql: String) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gadgetbridge-\(UUID()).db").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK else { throw CancellationError() }
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        sqlite3_close(handle)
        guard status == SQLITE_OK else { throw CancellationError() }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func quantity(_ sample: Sample, _ unit: SalusUnit) -> Double? {
        guard case .quantity(let quantity) = sample.value else { return nil }
        return try? quantity.converted(to: unit).value
    }

    static func identifier(_ sample: Sample) -> String? {
        if case .string(let text)? = sample.metadata[MetadataKey.syncIdentifier] { return text }
        return nil
    }

    @Test("the real export: the device, heart rates and steps equal what plain SQL reads; sentinels left out")
    func realExport() throws {
        let path = Self.database.path
        let bytes = Array(try Data(contentsOf: Self.database))
        let read = try GadgetbridgeImport.read(bytes, catalog: Self.catalog)

        // The device and its firmware.
        let device = try #require(try Self.query(path, "SELECT _id, NAME, MANUFACTURER, MODEL, IDENTIFIER FROM DEVICE").first)
        let firmware = try #require(try Self.query(path, "SELECT FIRMWARE_VERSION1, FIRMWARE_VERSION2 FROM DEVICE_ATTRIBUTES").first)
        try #require(read.devices.count == 1)
        let found = read.devices[0].device
        #expect(read.devices[0].id == Int64(device[0]!))
        #expect(found.name == device[1] && found.manufacturer == device[2] && found.model == device[3])
        #expect(found.localIdentifier == device[4])
        #expect(found.firmwareVersion == firmware[0] && found.softwareVersion == firmware[1])
        #expect(read.devices[0].typeName == "FOSSILQHYBRID")

        // Heart rates: every row with a reading, at its second.
        let rates = try Self.query(
            path, "SELECT TIMESTAMP, HEART_RATE FROM HYBRID_HRACTIVITY_SAMPLE WHERE HEART_RATE > 0 AND HEART_RATE < 255 ORDER BY TIMESTAMP")
        let heart = read.samples.filter { $0.type.rawValue == "HKQuantityTypeIdentifierHeartRate" }
        #expect(rates.count == 10 && heart.count == rates.count)
        #expect(heart.map { $0.startDate.timeIntervalSince1970 } == rates.map { Double($0[0]!)! })
        #expect(heart.map { Self.quantity($0, .countPerMinute) } == rates.map { Double($0[1]!) })
        #expect(heart.allSatisfy { $0.device == found && $0.startDate == $0.endDate })

        // Steps: the rows with steps, each over its minute.
        let stepRows = try Self.query(path, "SELECT TIMESTAMP, STEPS FROM HYBRID_HRACTIVITY_SAMPLE WHERE STEPS > 0 ORDER BY TIMESTAMP")
        let steps = read.samples.filter { $0.type.rawValue == "HKQuantityTypeIdentifierStepCount" }
        #expect(steps.count == stepRows.count && steps.count == 1)
        #expect(steps.map { $0.startDate.timeIntervalSince1970 } == stepRows.map { Double($0[0]!)! })
        #expect(steps.map { Self.quantity($0, .count) } == stepRows.map { Double($0[1]!) })
        #expect(steps.first.map { $0.endDate.timeIntervalSince($0.startDate) } == 60)
        let total = try Self.query(path, "SELECT sum(STEPS) FROM HYBRID_HRACTIVITY_SAMPLE")[0][0]
        #expect(steps.compactMap { Self.quantity($0, .count) }.reduce(0, +) == Double(total!))

        // Only heart rate and steps come from this database.
        #expect(read.samples.count == heart.count + steps.count)

        // The schema: version not recorded (a .dump copy), `notifications` unknown, battery
        // levels known but not imported.
        #expect(read.schemaVersion == 0)
        #expect(read.unknownTables == ["notifications"])
        #expect(read.problems.contains { $0.field == "table notifications" })
        #expect(read.problems.contains { $0.field == "user_version" && $0.value == "0" })
        let battery = try Self.query(path, "SELECT count(*) FROM BATTERY_LEVEL")[0][0]
        #expect(read.problems.contains { $0.field == "table BATTERY_LEVEL" && $0.value == "\(battery!) rows" })

        // Every sample passes the save's rules, under the gadgetbridge app id.
        for sample in read.samples {
            let (_, errors) = Self.catalog.prepareForSaving(sample, at: "sample", allowReadOnly: true)
            #expect(errors.isEmpty, "\(errors)")
            #expect(sample.sourceRevision.appID == "gadgetbridge")
        }
    }

    @Test("reading the database again gives the same sync identifiers, each sample its own: a re-import adds nothing")
    func stableIdentity() throws {
        let bytes = Array(try Data(contentsOf: Self.database))
        let once = try GadgetbridgeImport.read(bytes, catalog: Self.catalog).samples.map(Self.identifier)
        let again = try GadgetbridgeImport.read(bytes, catalog: Self.catalog).samples.map(Self.identifier)
        #expect(once == again)
        #expect(Set(once.compactMap { $0 }).count == once.count)
        #expect(once.allSatisfy { $0?.hasPrefix("gadgetbridge:v1|00:00:00:00:00:00|") == true })
    }

    @Test("a device whose identifier makes a sample's identity pass 1,024 bytes: named by the SHA-256 of it, within the limit, the same read again and one per device")
    func longDeviceIdentifier() throws {
        func database(_ identifier: String) throws -> [UInt8] {
            try Self.made(
                """
                PRAGMA user_version = 92;
                CREATE TABLE "DEVICE" ("_id" INTEGER PRIMARY KEY ,"NAME" TEXT NOT NULL ,"MANUFACTURER" TEXT NOT NULL ,"IDENTIFIER" TEXT NOT NULL UNIQUE ,"TYPE" INTEGER NOT NULL ,"TYPE_NAME" TEXT NOT NULL ,"MODEL" TEXT,"ALIAS" TEXT,"PARENT_FOLDER" TEXT);
                INSERT INTO DEVICE VALUES (3, 'Watch', 'Maker', '\(identifier)', 0, 'GARMIN_FORERUNNER_255', NULL, NULL, NULL);
                INSERT INTO DEVICE VALUES (4, 'Watch', 'Maker', 'AA:BB:CC:DD:EE:FF', 0, 'GARMIN_FORERUNNER_255', NULL, NULL, NULL);
                CREATE TABLE "GARMIN_ACTIVITY_SAMPLE" ("TIMESTAMP" INTEGER  NOT NULL ,"DEVICE_ID" INTEGER  NOT NULL ,"USER_ID" INTEGER NOT NULL ,"RAW_INTENSITY" INTEGER NOT NULL ,"STEPS" INTEGER NOT NULL ,"RAW_KIND" INTEGER NOT NULL ,"HEART_RATE" INTEGER NOT NULL ,PRIMARY KEY ("TIMESTAMP" ,"DEVICE_ID" ) ON CONFLICT REPLACE) WITHOUT ROWID;
                INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (1725753600, 3, 1, 0, 0, 1, 55);
                INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (1725753600, 4, 1, 0, 0, 1, 55);
                """)
        }
        let long = String(repeating: "A", count: 2_000)
        let rates = { (bytes: [UInt8]) throws -> [String?] in
            try GadgetbridgeImport.read(bytes, catalog: Self.catalog).samples
                .filter { $0.type.rawValue == "HKQuantityTypeIdentifierHeartRate" }.map(Self.identifier)
        }
        let once = try rates(try database(long))
        let again = try rates(try database(long))
        let other = try rates(try database(String(long.dropLast()) + "B"))
        #expect(once.count == 2 && once == again, "\(once)")
        let named = once[0] ?? ""
        #expect(named.hasPrefix("gadgetbridge:v1|sha256:") && named.utf8.count == "gadgetbridge:v1|sha256:".utf8.count + 64, "\(named.prefix(80))")
        #expect(other[0] != named && other[0]?.hasPrefix("gadgetbridge:v1|sha256:") == true)
        // A short identity reads as it did: the device and the instants.
        #expect(once[1] == "gadgetbridge:v1|AA:BB:CC:DD:EE:FF|1725753600000000|1725753600000000|55 count/min", "\(once[1] ?? "nil")")
        #expect(other[1] == once[1])
    }

    @Test("a schema newer than this version knows is refused naming its version; a known one is read")
    func schemaVersion() throws {
        var bytes = Array(try Data(contentsOf: Self.database))
        // PRAGMA user_version is the big-endian integer at byte 60 of the header.
        bytes.replaceSubrange(60..<64, with: [0, 0, 0, 93])
        #expect {
            _ = try GadgetbridgeImport.read(bytes, catalog: Self.catalog)
        } throws: { error in
            guard let problem = error as? FileProblem else { return false }
            return problem.value == "93" && problem.field.contains("user_version") && problem.expected.contains("1 to 92")
        }
        bytes.replaceSubrange(60..<64, with: [0, 0, 0, 92])
        let read = try GadgetbridgeImport.read(bytes, catalog: Self.catalog)
        #expect(read.schemaVersion == 92 && !read.problems.contains { $0.field == "user_version" })
        #expect(read.samples.count == 11)
    }

    @Test("damaged bytes, a cut file and a database that is not Gadgetbridge's are refused whole, naming why")
    func badDatabases() throws {
        let bytes = Array(try Data(contentsOf: Self.database))
        // Cut in half: pages missing.
        #expect(throws: FileProblem.self) { try GadgetbridgeImport.read(Array(bytes.prefix(bytes.count / 2)), catalog: Self.catalog) }
        // A header and then noise.
        var noise = Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0xA5, count: 8192)
        noise[16] = 0x10
        noise[17] = 0x00
        #expect(throws: FileProblem.self) { try GadgetbridgeImport.read(noise, catalog: Self.catalog) }
        #expect(throws: FileProblem.self) { try GadgetbridgeImport.read(Array("SQLite format 3\0".utf8), catalog: Self.catalog) }
        // An SQLite database of something else.
        let other = try Self.made("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
        #expect {
            _ = try GadgetbridgeImport.read(other, catalog: Self.catalog)
        } throws: { error in
            (error as? FileProblem)?.value == "no DEVICE table"
        }
        // The original bytes are not touched: read-only.
        #expect(Array(try Data(contentsOf: Self.database)) == bytes)
    }

    @Test("a Garmin watch: sleep from its activity kinds and its sleep stages, steps cumulated over the day left out")
    func garminSleep() throws {
        // Times: 2024-09-08 00:00:00 UTC = 1725753600.
        let bytes = try Self.made(
            """
            PRAGMA user_version = 92;
            CREATE TABLE "DEVICE" ("_id" INTEGER PRIMARY KEY ,"NAME" TEXT NOT NULL ,"MANUFACTURER" TEXT NOT NULL ,"IDENTIFIER" TEXT NOT NULL UNIQUE ,"TYPE" INTEGER NOT NULL ,"TYPE_NAME" TEXT NOT NULL ,"MODEL" TEXT,"ALIAS" TEXT,"PARENT_FOLDER" TEXT);
            INSERT INTO DEVICE VALUES (3, 'Forerunner 255', 'Garmin', 'AA:BB:CC:DD:EE:FF', 0, 'GARMIN_FORERUNNER_255', NULL, 'My watch', NULL);
            CREATE TABLE "GARMIN_ACTIVITY_SAMPLE" ("TIMESTAMP" INTEGER  NOT NULL ,"DEVICE_ID" INTEGER  NOT NULL ,"USER_ID" INTEGER NOT NULL ,"RAW_INTENSITY" INTEGER NOT NULL ,"STEPS" INTEGER NOT NULL ,"RAW_KIND" INTEGER NOT NULL ,"HEART_RATE" INTEGER NOT NULL ,PRIMARY KEY ("TIMESTAMP" ,"DEVICE_ID" ) ON CONFLICT REPLACE) WITHOUT ROWID;
            INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (1725753600, 3, 1, 0, 0, 2, 55);
            INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (1725753660, 3, 1, 0, 0, 2, 0);
            INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (1725753720, 3, 1, 0, 0, 4, 255);
            INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (1725753780, 3, 1, 0, 0, 16777216, 52);
            INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (1725753840, 3, 1, 10, 120, 1, 90);
            INSERT INTO GARMIN_ACTIVITY_SAMPLE VALUES (1725753900, 9, 1, 10, 120, 1, 90);
            CREATE TABLE "GARMIN_SLEEP_STAGE_SAMPLE" ("TIMESTAMP" INTEGER  NOT NULL ,"DEVICE_ID" INTEGER  NOT NULL ,"USER_ID" INTEGER NOT NULL ,"STAGE" INTEGER NOT NULL ,PRIMARY KEY ("TIMESTAMP" ,"DEVICE_ID" ) ON CONFLICT REPLACE) WITHOUT ROWID;
            INSERT INTO GARMIN_SLEEP_STAGE_SAMPLE VALUES (1725760800000, 3, 1, 2);
            INSERT INTO GARMIN_SLEEP_STAGE_SAMPLE VALUES (1725762600000, 3, 1, 3);
            INSERT INTO GARMIN_SLEEP_STAGE_SAMPLE VALUES (1725763500000, 3, 1, 0);
            INSERT INTO GARMIN_SLEEP_STAGE_SAMPLE VALUES (1725764400000, 3, 1, 1);
            CREATE TABLE "GARMIN_FUTURE_TABLE" ("X" INTEGER);
            """)
        let read = try GadgetbridgeImport.read(bytes, catalog: Self.catalog)
        #expect(read.schemaVersion == 92)
        #expect(read.devices.map(\.device.name) == ["My watch"])
        #expect(read.unknownTables == ["GARMIN_FUTURE_TABLE"])
        let sleep = read.samples.filter { $0.type.rawValue == "HKCategoryTypeIdentifierSleepAnalysis" }
        func category(_ sample: Sample) -> Int? {
            if case .category(let value) = sample.value { return value }
            return nil
        }
        let spans = sleep.map { ($0.startDate.timeIntervalSince1970, $0.endDate.timeIntervalSince1970, category($0)) }
        // Activity kinds: light 2 minutes (merged), deep 1, REM 1.
        #expect(spans.contains { $0 == (1_725_753_600, 1_725_753_720, 3) })
        #expect(spans.contains { $0 == (1_725_753_720, 1_725_753_780, 4) })
        #expect(spans.contains { $0 == (1_725_753_780, 1_725_753_840, 5) })
        // Sleep stages: each row ends its stage; the first only starts the next, unmeasurable is left out.
        #expect(spans.contains { $0 == (1_725_760_800, 1_725_762_600, 4) })
        #expect(spans.contains { $0 == (1_725_763_500, 1_725_764_400, 2) })
        #expect(sleep.count == 5)
        #expect(read.problems.contains { $0.field == "GARMIN_SLEEP_STAGE_SAMPLE.STAGE" && $0.value == "1 rows" })
        // Heart rates: 0 and 255 are no reading; the row of device 9 (not in DEVICE) is left out.
        let rates = read.samples.filter { $0.type.rawValue == "HKQuantityTypeIdentifierHeartRate" }.compactMap { Self.quantity($0, .countPerMinute) }
        #expect(rates == [55, 52, 90])
        #expect(read.problems.contains { $0.field == "GARMIN_ACTIVITY_SAMPLE.DEVICE_ID" && $0.value == "1 rows" })
        // Garmin's steps are cumulated over the day: left out, said.
        #expect(!read.samples.contains { $0.type.rawValue == "HKQuantityTypeIdentifierStepCount" })
        #expect(read.problems.contains { $0.field == "GARMIN_ACTIVITY_SAMPLE.STEPS" })
        for sample in read.samples {
            let (_, errors) = Self.catalog.prepareForSaving(sample, at: "sample", allowReadOnly: true)
            #expect(errors.isEmpty, "\(errors)")
        }
    }
}
