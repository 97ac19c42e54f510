import CSQLite
import Foundation
import SalusModel

/// Gadgetbridge's exported database (Settings › Export database: an SQLite file named
/// `Gadgetbridge`), read through the system SQLite, **read-only**: the bytes are handed to SQLite
/// with `sqlite3_deserialize(…, SQLITE_DESERIALIZE_READONLY)`, so nothing is written, not even a
/// journal, and no file is made. `trusted_schema` is off, so a crafted schema cannot run
/// functions with side effects through views or generated columns; only tables of Gadgetbridge's
/// schema, by their known names, are ever read.
///
/// **What becomes what** (docs/import.md, "Gadgetbridge"):
/// - `DEVICE` (with its latest `DEVICE_ATTRIBUTES`) is the device of every sample read from its
///   rows: name (the alias when set), manufacturer, model, firmware, the MAC as local identifier.
/// - The activity-sample tables (`MI_BAND_ACTIVITY_SAMPLE`, `HYBRID_HRACTIVITY_SAMPLE`,
///   `XIAOMI_ACTIVITY_SAMPLE`, `GARMIN_ACTIVITY_SAMPLE`, …: every table with `TIMESTAMP` in seconds
///   and `DEVICE_ID`), for the devices `DEVICE` lists: `HEART_RATE` as a heart-rate sample at the
///   row's time (0 and 255 and above are the devices' "no reading", left out), `STEPS` as a step
///   count over the minute the row stands for (up to the next row of the device, at most 60 s).
///   Garmin stores steps cumulated over the day: they are left out and reported.
/// - Activity kinds: where `RAW_KIND` holds Gadgetbridge's own `ActivityKind` codes (Garmin), the
///   sleep kinds become sleep analysis (light 0x2 → core, deep 0x4 → deep, REM 0x01000000 → REM,
///   awake in sleep 0x02000000 → awake), consecutive rows of one kind merged into one sample.
///   Other devices' raw kinds are device codes this version does not map: counted in the report.
/// - `GARMIN_SLEEP_STAGE_SAMPLE` (milliseconds; each row ends its stage, the one before it starts
///   it): FIT's sleep levels awake 1, light 2, deep 3, REM 4.
/// - The schema version (`PRAGMA user_version`, GreenDAO's) is checked: up to
///   ``newestSchema``; 0 is "not recorded" (a copy made by `.dump`), read by its tables. Tables
///   this version does not know are reported by name; tables it knows but does not import
///   (battery levels, alarms, notifications…) are reported with their row counts when they hold
///   rows.
package enum GadgetbridgeImport {
    /// The newest GreenDAO schema version this reader was written against (Gadgetbridge's source
    /// of December 2024 declares 92).
    package static let newestSchema = 92
    /// The app id every sample of a Gadgetbridge database is saved under; the watch is the
    /// sample's device.
    package static let appID = "gadgetbridge"

    /// A device of the `DEVICE` table.
    package struct DeviceRow: Sendable, Equatable {
        package var id: Int64
        package var typeName: String
        package var device: Device
    }

    /// What a database holds, as samples.
    package struct Result: Sendable {
        package var schemaVersion: Int
        package var devices: [DeviceRow] = []
        package var samples: [Sample] = []
        /// Tables that are not Gadgetbridge's as this version knows it.
        package var unknownTables: [String] = []
        /// What was left out or could not be read, each naming its table and row.
        package var problems: [FileProblem] = []
    }

    /// Gadgetbridge's own activity kinds (`ActivityKind` codes).
    static let lightSleep: Int64 = 0x2
    static let deepSleep: Int64 = 0x4
    static let remSleep: Int64 = 0x0100_0000
    static let awakeSleep: Int64 = 0x0200_0000

    /// Tables whose `RAW_KIND` is Gadgetbridge's own `ActivityKind` code (the provider's
    /// `normalizeType` is `ActivityKind.fromCode`).
    static let kindCodeTables: Set<String> = ["GARMIN_ACTIVITY_SAMPLE"]
    /// Tables whose `STEPS` are cumulated over the day, not per row.
    static let cumulativeStepTables: Set<String> = ["GARMIN_ACTIVITY_SAMPLE"]

    /// The database in `bytes`, read-only.
    package static func read(_ bytes: [UInt8], catalog: TypeCatalog) throws(FileProblem) -> Result {
        let database = try Connection(bytes)
        let version = Int(try database.integer("PRAGMA user_version") ?? 0)
        guard version <= newestSchema, version >= 0 else {
            throw FileProblem(
                offset: 60, field: "user_version (the Gadgetbridge schema version)", value: "\(version)",
                expected: "a schema this version knows, 1 to \(newestSchema) (or 0, not recorded); a newer Gadgetbridge may have "
                    + "changed its tables: import with a Salus that knows schema \(version)")
        }
        var tables: [String] = []
        try database.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { row in tables.append(row.text(0) ?? "") }
        guard tables.contains("DEVICE") else {
            throw FileProblem(offset: nil, field: "tables", value: "no DEVICE table", expected: "a Gadgetbridge database (its DEVICE table)")
        }
        var result = Result(schemaVersion: version)
        if version == 0 {
            result.problems.append(FileProblem(
                offset: 60, field: "user_version", value: "0",
                expected: "the schema version Gadgetbridge writes; not recorded (a copy made by sqlite3 .dump), so the tables were read by name and columns"))
        }
        result.unknownTables = tables.filter { !knownTables.contains($0) && !$0.hasPrefix("sqlite_") && $0 != "android_metadata" }
        for table in result.unknownTables {
            result.problems.append(FileProblem(offset: nil, field: "table \(table)", value: "", expected: "a table of Gadgetbridge's schema; not read"))
        }

        // Devices, with their newest attributes.
        var firmware: [Int64: (String?, String?)] = [:]
        if tables.contains("DEVICE_ATTRIBUTES") {
            try database.rows(
                "SELECT DEVICE_ID, FIRMWARE_VERSION1, FIRMWARE_VERSION2 FROM DEVICE_ATTRIBUTES ORDER BY DEVICE_ID, VALID_FROM_UTC"
            ) { row in firmware[row.integer(0) ?? -1] = (row.text(1), row.text(2)) }
        }
        try database.rows("SELECT _id, NAME, MANUFACTURER, IDENTIFIER, TYPE_NAME, MODEL, ALIAS FROM DEVICE ORDER BY _id") { row in
            let id = row.integer(0) ?? -1
            let alias = row.text(6).flatMap { $0.isEmpty ? nil : $0 }
            let versions = firmware[id]
            let device = Device(
                name: alias ?? row.text(1), manufacturer: row.text(2), model: row.text(5), hardwareVersion: nil,
                firmwareVersion: versions?.0, softwareVersion: versions?.1, localIdentifier: row.text(3))
            result.devices.append(DeviceRow(id: id, typeName: row.text(4) ?? "", device: device))
        }
        let devices = Dictionary(result.devices.map { ($0.id, $0.device) }) { first, _ in first }
        let source = SourceRevision(appID: appID, name: "Gadgetbridge", version: nil)
        func sample(_ type: String, _ value: SampleValue, from start: Date, to end: Date, device: Device?) -> Sample {
            var made = Sample(
                type: TypeIdentifier(type), startDate: start, endDate: end, value: value, sourceRevision: source, device: device,
                creationDate: end)
            let identity = ImportIdentity.text(of: made).dropFirst(ImportIdentity.prefix.count)
            // Two watches may record the same minute with the same figure: the device is part of it.
            // A device identifier that makes it pass the sync identifier's limit: its digest.
            made.metadata[MetadataKey.syncIdentifier] = .string(ImportIdentity.bounded(
                "gadgetbridge:v1|\(device?.localIdentifier ?? "")|\(identity)", family: "gadgetbridge:v1|"))
            made.metadata[MetadataKey.syncVersion] = .number(1)
            return made
        }
        let heartRate = "HKQuantityTypeIdentifierHeartRate"
        let steps = "HKQuantityTypeIdentifierStepCount"
        let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
        let registered = { (type: String) in catalog.rules(for: type) != nil }

        for table in tables where activityTables.contains(table) || (table.hasSuffix("ACTIVITY_SAMPLE") && knownTables.contains(table)) {
            let columns = try database.columns(of: table)
            guard columns.contains("TIMESTAMP"), columns.contains("DEVICE_ID") else { continue }
            let hasRate = columns.contains("HEART_RATE")
            let hasSteps = columns.contains("STEPS")
            let hasKind = columns.contains("RAW_KIND")
            let count = try database.integer("SELECT count(*) FROM \"\(table)\"") ?? 0
            guard count > 0 else { continue }
            let sql = "SELECT TIMESTAMP, DEVICE_ID, \(hasRate ? "HEART_RATE" : "NULL"), \(hasSteps ? "STEPS" : "NULL"), "
                + "\(hasKind ? "RAW_KIND" : "NULL") FROM \"\(table)\" ORDER BY DEVICE_ID, TIMESTAMP"
            var rows: [(time: Int64, device: Int64, rate: Int64?, steps: Int64?, kind: Int64?)] = []
            try database.rows(sql) { row in rows.append((row.integer(0) ?? 0, row.integer(1) ?? -1, row.integer(2), row.integer(3), row.integer(4))) }
            var unmappedKinds = 0
            var cumulative = 0
            var orphans = 0
            var sleepRun: (kind: Int64, device: Int64, start: Int64, end: Int64)?
            func closeSleep() {
                guard let run = sleepRun else { return }
                sleepRun = nil
                let value: Int =
                    switch run.kind {
                    case lightSleep: 3
                    case deepSleep: 4
                    case remSleep: 5
                    default: 2
                    }
                guard registered(sleep) else { return }
                result.samples.append(sample(
                    sleep, .category(value), from: Date(timeIntervalSince1970: TimeInterval(run.start)),
                    to: Date(timeIntervalSince1970: TimeInterval(run.end)), device: devices[run.device]))
            }
            for (index, row) in rows.enumerated() {
                guard let device = devices[row.device] else {
                    orphans += 1
                    continue
                }
                let start = Date(timeIntervalSince1970: TimeInterval(row.time))
                let next = index + 1 < rows.count && rows[index + 1].device == row.device ? rows[index + 1].time : row.time + 60
                let span = TimeInterval(max(1, min(60, next - row.time)))
                if let rate = row.rate, rate > 0, rate < 255, registered(heartRate) {
                    result.samples.append(sample(
                        heartRate, .quantity(Quantity(value: Double(rate), unit: .countPerMinute)), from: start, to: start, device: device))
                }
                if let count = row.steps, count > 0 {
                    if cumulativeStepTables.contains(table) {
                        cumulative += 1
                    } else if registered(steps) {
                        result.samples.append(sample(
                            steps, .quantity(Quantity(value: Double(count), unit: .count)), from: start, to: start.addingTimeInterval(span),
                            device: device))
                    }
                }
                if let kind = row.kind {
                    if kindCodeTables.contains(table) {
                        if [lightSleep, deepSleep, remSleep, awakeSleep].contains(kind) {
                            if let run = sleepRun, run.kind == kind, run.device == row.device, run.end >= row.time {
                                sleepRun?.end = row.time + Int64(span)
                            } else {
                                closeSleep()
                                sleepRun = (kind, row.device, row.time, row.time + Int64(span))
                            }
                        } else {
                            closeSleep()
                        }
                    } else if kind > 0 {
                        unmappedKinds += 1
                    }
                }
            }
            closeSleep()
            if unmappedKinds > 0 {
                result.problems.append(FileProblem(
                    offset: nil, field: "\(table).RAW_KIND", value: "\(unmappedKinds) rows",
                    expected: "Gadgetbridge's activity kind codes; this device's raw kinds are its own and are not mapped, left out", recordsLeftOut: unmappedKinds))
            }
            if cumulative > 0 {
                result.problems.append(FileProblem(
                    offset: nil, field: "\(table).STEPS", value: "\(cumulative) rows",
                    expected: "steps per row; these are cumulated over the day and are left out", recordsLeftOut: cumulative))
            }
            if orphans > 0 {
                result.problems.append(FileProblem(
                    offset: nil, field: "\(table).DEVICE_ID", value: "\(orphans) rows",
                    expected: "a device of the DEVICE table; rows of no listed device are left out", recordsLeftOut: orphans))
            }
        }

        // Garmin's sleep stages: each row ends its stage.
        if tables.contains("GARMIN_SLEEP_STAGE_SAMPLE"), registered(sleep) {
            var previous: (device: Int64, time: Int64)?
            var unknownStages = 0
            try database.rows("SELECT TIMESTAMP, DEVICE_ID, STAGE FROM GARMIN_SLEEP_STAGE_SAMPLE ORDER BY DEVICE_ID, TIMESTAMP") { row in
                let time = row.integer(0) ?? 0
                let deviceID = row.integer(1) ?? -1
                defer { previous = (deviceID, time) }
                guard let last = previous, last.device == deviceID, time > last.time, time - last.time <= 6 * 3_600_000,
                      let device = devices[deviceID]
                else { return }
                let value: Int
                switch row.integer(2) {
                case 1: value = 2
                case 2: value = 3
                case 3: value = 4
                case 4: value = 5
                default:
                    unknownStages += 1
                    return
                }
                result.samples.append(sample(
                    sleep, .category(value), from: Date(timeIntervalSince1970: TimeInterval(last.time) / 1000),
                    to: Date(timeIntervalSince1970: TimeInterval(time) / 1000), device: device))
            }
            if unknownStages > 0 {
                result.problems.append(FileProblem(
                    offset: nil, field: "GARMIN_SLEEP_STAGE_SAMPLE.STAGE", value: "\(unknownStages) rows",
                    expected: "a FIT sleep level: awake 1, light 2, deep 3, REM 4; unmeasurable (0) and others left out", recordsLeftOut: unknownStages))
            }
        }

        // Known tables with rows this version does not import.
        for table in tables where knownTables.contains(table) && !readTables.contains(table) && !table.hasSuffix("ACTIVITY_SAMPLE") {
            let count = try database.integer("SELECT count(*) FROM \"\(table)\"") ?? 0
            if count > 0 {
                result.problems.append(FileProblem(
                    offset: nil, field: "table \(table)", value: "\(count) rows", expected: "health data this version imports; not imported"))
            }
        }
        return result
    }

    /// The database as `FileImporters` gives every file to the daemon's save path: its samples
    /// under the app id `gadgetbridge`, each with its watch as the device.
    package static func fileImport(_ bytes: [UInt8], catalog: TypeCatalog) throws(FileProblem) -> FileImport {
        let read = try read(bytes, catalog: catalog)
        var result = FileImport(format: .gadgetbridge, source: SourceRevision(appID: appID, name: "Gadgetbridge", version: nil))
        result.samples = read.samples
        result.problems = read.problems
        return result
    }

    /// Tables whose rows this version reads.
    static let readTables: Set<String> = ["DEVICE", "DEVICE_ATTRIBUTES", "GARMIN_SLEEP_STAGE_SAMPLE", "USER", "USER_ATTRIBUTES"]
    /// Activity-sample tables whose name does not end in ACTIVITY_SAMPLE.
    static let activityTables: Set<String> = ["HYBRID_HRACTIVITY_SAMPLE", "WITHINGS_STEEL_HRACTIVITY_SAMPLE", "PEBBLE_MISFIT_SAMPLE", "SONY_SWR12_SAMPLE"]

    /// The tables of Gadgetbridge's schema (GreenDAO's, as of schema 92).
    static let knownTables: Set<String> = [
        "ACTIVITY_DESCRIPTION", "ACTIVITY_DESC_TAG_LINK", "ALARM", "APP_SPECIFIC_NOTIFICATION_SETTING", "BANGLE_JSACTIVITY_SAMPLE",
        "BASE_ACTIVITY_SUMMARY", "BATTERY_LEVEL", "CALENDAR_SYNC_STATE", "CASIO_GBX100_ACTIVITY_SAMPLE", "CMF_ACTIVITY_SAMPLE",
        "CMF_HEART_RATE_SAMPLE", "CMF_SLEEP_SESSION_SAMPLE", "CMF_SLEEP_STAGE_SAMPLE", "CMF_SPO2_SAMPLE", "CMF_STRESS_SAMPLE",
        "CMF_WORKOUT_GPS_SAMPLE", "CONTACT", "CYCLING_SAMPLE", "DEVICE", "DEVICE_ATTRIBUTES", "FEMOMETER_VINCA2_TEMPERATURE_SAMPLE",
        "FIT_PRO_ACTIVITY_SAMPLE", "GARMIN_ACTIVITY_SAMPLE", "GARMIN_EVENT_SAMPLE", "GARMIN_FIT_FILE", "GARMIN_SLEEP_STAGE_SAMPLE",
        "GARMIN_SPO2_SAMPLE", "GARMIN_STRESS_SAMPLE", "HPLUS_HEALTH_ACTIVITY_OVERLAY", "HPLUS_HEALTH_ACTIVITY_SAMPLE",
        "HUAMI_EXTENDED_ACTIVITY_SAMPLE", "HUAMI_HEART_RATE_MANUAL_SAMPLE", "HUAMI_HEART_RATE_MAX_SAMPLE",
        "HUAMI_HEART_RATE_RESTING_SAMPLE", "HUAMI_PAI_SAMPLE", "HUAMI_SLEEP_RESPIRATORY_RATE_SAMPLE", "HUAMI_SPO2_SAMPLE",
        "HUAMI_STRESS_SAMPLE", "HUAWEI_ACTIVITY_SAMPLE", "HUAWEI_WORKOUT_DATA_SAMPLE", "HUAWEI_WORKOUT_PACE_SAMPLE",
        "HUAWEI_WORKOUT_SUMMARY_SAMPLE", "HYBRID_HRACTIVITY_SAMPLE", "ID115_ACTIVITY_SAMPLE", "JYOU_ACTIVITY_SAMPLE",
        "LEFUN_ACTIVITY_SAMPLE", "LEFUN_BIOMETRIC_SAMPLE", "LEFUN_SLEEP_SAMPLE", "MAKIBES_HR3_ACTIVITY_SAMPLE", "MI_BAND_ACTIVITY_SAMPLE",
        "NO1_F1_ACTIVITY_SAMPLE", "NOTIFICATION_FILTER", "NOTIFICATION_FILTER_ENTRY", "PEBBLE_HEALTH_ACTIVITY_OVERLAY",
        "PEBBLE_HEALTH_ACTIVITY_SAMPLE", "PEBBLE_MISFIT_SAMPLE", "PEBBLE_MORPHEUZ_SAMPLE", "PINE_TIME_ACTIVITY_SAMPLE", "REMINDER",
        "SONY_SWR12_SAMPLE", "TAG", "TLW64_ACTIVITY_SAMPLE", "USER", "USER_ATTRIBUTES", "VIVOMOVE_HR_ACTIVITY_SAMPLE",
        "WATCH_XPLUS_ACTIVITY_SAMPLE", "WATCH_XPLUS_HEALTH_ACTIVITY_OVERLAY", "WENA3_ACTIVITY_SAMPLE", "WENA3_BEHAVIOR_SAMPLE",
        "WENA3_CALORIES_SAMPLE", "WENA3_ENERGY_SAMPLE", "WENA3_HEART_RATE_SAMPLE", "WENA3_STRESS_SAMPLE", "WENA3_VO2_SAMPLE",
        "WITHINGS_STEEL_HRACTIVITY_SAMPLE", "WORLD_CLOCK", "XIAOMI_ACTIVITY_SAMPLE", "XIAOMI_DAILY_SUMMARY_SAMPLE",
        "XIAOMI_MANUAL_SAMPLE", "XIAOMI_SLEEP_STAGE_SAMPLE", "XIAOMI_SLEEP_TIME_SAMPLE", "XWATCH_ACTIVITY_SAMPLE",
        "ZE_TIME_ACTIVITY_SAMPLE",
    ]
}

/// A read-only SQLite connection over a database's bytes.
private final class Connection {
    let handle: OpaquePointer

    init(_ bytes: [UInt8]) throws(FileProblem) {
        var made: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &made, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let made
        else {
            sqlite3_close(made)
            throw FileProblem(offset: nil, field: "database", value: "", expected: "an SQLite connection (none could be opened)")
        }
        handle = made
        // A crafted schema's views, triggers and generated columns may call no function with side
        // effects (sqlite3_db_config is variadic, out of Swift's reach; the pragma does the same).
        sqlite3_exec(handle, "PRAGMA trusted_schema = OFF", nil, nil, nil)
        guard bytes.count >= 100, let copy = sqlite3_malloc64(UInt64(bytes.count)) else {
            throw FileProblem(offset: 0, field: "database", value: "\(bytes.count) bytes", expected: "an SQLite database of at least 100 bytes")
        }
        bytes.withUnsafeBytes { copy.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
        let flags = UInt32(SQLITE_DESERIALIZE_READONLY | SQLITE_DESERIALIZE_FREEONCLOSE)
        let status = sqlite3_deserialize(
            handle, "main", copy.assumingMemoryBound(to: UInt8.self), Int64(bytes.count), Int64(bytes.count), flags)
        guard status == SQLITE_OK else {
            throw FileProblem(offset: 0, field: "database", value: message(status), expected: "an SQLite database")
        }
        // A damaged header or page shows at the first read: checked here, named by SQLite.
        var check: OpaquePointer?
        let prepared = sqlite3_prepare_v2(handle, "SELECT count(*) FROM sqlite_master", -1, &check, nil)
        let stepped = prepared == SQLITE_OK ? sqlite3_step(check) : prepared
        sqlite3_finalize(check)
        guard stepped == SQLITE_ROW else {
            throw FileProblem(offset: 0, field: "database", value: message(stepped), expected: "a readable SQLite database")
        }
    }

    deinit { sqlite3_close(handle) }

    func message(_ status: Int32) -> String {
        String(cString: sqlite3_errmsg(handle)) + " (SQLite \(status))"
    }

    struct Row {
        let statement: OpaquePointer
        func integer(_ column: Int32) -> Int64? {
            sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
        }
        func text(_ column: Int32) -> String? {
            guard sqlite3_column_type(statement, column) != SQLITE_NULL, let text = sqlite3_column_text(statement, column) else { return nil }
            return String(cString: text)
        }
    }

    func rows(_ sql: String, _ each: (Row) throws(FileProblem) -> Void) throws(FileProblem) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            let text = message(sqlite3_errcode(handle))
            sqlite3_finalize(statement)
            throw FileProblem(offset: nil, field: "query", value: sql, expected: "a table Gadgetbridge's schema has: \(text)")
        }
        defer { sqlite3_finalize(statement) }
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else {
                throw FileProblem(offset: nil, field: "query", value: sql, expected: "rows SQLite can read: \(message(status))")
            }
            try each(Row(statement: statement))
        }
    }

    func integer(_ sql: String) throws(FileProblem) -> Int64? {
        var value: Int64?
        try rows(sql) { row in value = row.integer(0) }
        return value
    }

    func columns(of table: String) throws(FileProblem) -> Set<String> {
        var names: Set<String> = []
        try rows("SELECT name FROM pragma_table_info('\(table.replacingOccurrences(of: "'", with: "''"))')") { row in
            if let name = row.text(0) { names.insert(name) }
        }
        return names
    }
}
