import Foundation
import SalusModel

/// Reading samples and deleted objects back from rows.
enum SampleRows {
    /// The columns `SampleRowDecoder` reads, in order, over the alias `r` of `samples`.
    static let columns = """
        r.id, r.uuid, t.identifier, r.kind, r.start_us, r.end_us, coalesce(r.value_in_unit, r.value), \
        coalesce(r.unit, t.unit), r.category, \
        r.payload, r.creation_us, r.id, src.app_id, src.name, src.version, src.product_type, src.os_version, \
        r.device_id, d.name, d.manufacturer, d.model, d.hardware_version, d.firmware_version, \
        d.software_version, d.local_identifier, d.udi_device_identifier, r.metadata, r.sync_identifier, r.sync_version
        """

    /// The columns `WirePageEncoder.addSample` reads, in order, over `samples r` alone: the type,
    /// source revision and device by row id, read once per page rather than joined to each row
    /// (a unit the row leaves out is its type's, `types.unit`, read with the type). The span, not
    /// the virtual `end_us`: the encoder adds it to the start (`WirePageEncoder.end`), where SQLite
    /// would evaluate the column's CASE for every row.
    static let wireColumns = """
        r.id, r.uuid, r.type_id, r.kind, r.start_us, r.span_us, coalesce(r.value_in_unit, r.value), r.unit, r.category, \
        r.payload, r.creation_us, r.id, r.source_id, r.device_id, r.metadata, r.sync_identifier, r.sync_version
        """

    /// The joins the columns need.
    static let from = """
        FROM samples r JOIN types t ON t.id = r.type_id JOIN sources src ON src.id = r.source_id \
        LEFT JOIN devices d ON d.id = r.device_id
        """

    /// The members of the correlations with these row ids, by correlation row id, in the order
    /// they were saved: one query for a whole page.
    static func members(_ database: Database, correlations ids: [Int64]) throws -> [Int64: [DecodedRow]] {
        guard !ids.isEmpty else { return [:] }
        let statement = try database.prepare(
            "SELECT \(columns), m.correlation_id FROM correlation_members m JOIN samples r ON r.id = m.member_id "
                + "JOIN types t ON t.id = r.type_id JOIN sources src ON src.id = r.source_id "
                + "LEFT JOIN devices d ON d.id = r.device_id "
                + "WHERE m.correlation_id IN (SELECT value FROM json_each(?)) ORDER BY m.correlation_id, r.id")
        defer { statement.reset() }
        try statement.bind(.text("[" + ids.map(String.init).joined(separator: ",") + "]"), at: 1)
        var decoder = SampleRowDecoder()
        var result: [Int64: [DecodedRow]] = [:]
        while try statement.step() {
            result[statement.int64(29), default: []].append(try decoder.decode(statement))
        }
        return result
    }

    /// Attaches correlations' members to decoded rows and returns the samples: one more query
    /// for a page with correlations, none otherwise (metadata is a column of the row).
    static func samples(_ database: Database, rows: [DecodedRow]) throws -> [Sample] {
        let correlationIDs = rows.filter { $0.sample.kind == .correlation }.map(\.id)
        guard !correlationIDs.isEmpty else { return rows.map(\.sample) }
        let members = try self.members(database, correlations: correlationIDs)
        return rows.map { row in
            var sample = row.sample
            if case .correlation = sample.value {
                sample.value = .correlation(Correlation(objects: (members[row.id] ?? []).map(\.sample)))
            }
            return sample
        }
    }
}

/// One decoded `samples` row (a correlation's members not attached yet).
struct DecodedRow {
    var id: Int64
    var sequence: Int64
    var startMicroseconds: Int64
    var endMicroseconds: Int64
    var sample: Sample
}

/// Decodes rows selected with `SampleRows.columns`, caching parsed units.
struct SampleRowDecoder {
    private var units: [String: SalusUnit] = [:]

    mutating func decode(_ statement: Statement) throws -> DecodedRow {
        guard let uuid = statement.uuid(1) else {
            throw StoreError(code: .database, message: "sample row \(statement.int64(0)) has no 16-byte UUID")
        }
        let kindCode = statement.int64(3)
        guard let kind = StoredCodes.kind(code: kindCode) else {
            throw StoreError(code: .database, message: "sample \(uuid) has unknown kind \(kindCode)")
        }
        let value: SampleValue
        switch kind {
        case .quantity:
            let text = statement.text(7) ?? "count"
            let unit = try units[text] ?? SalusUnit(parsing: text)
            units[text] = unit
            value = .quantity(Quantity(value: statement.double(6), unit: unit))
        case .category:
            value = .category(Int(statement.int64(8)))
        case .correlation:
            // The members are attached by `SampleRows.samples`.
            value = .correlation(Correlation(objects: []))
        default:
            value = try Payloads.decode(kind: kind, bytes: statement.blob(9) ?? [])
        }
        let source = SourceRevision(
            appID: statement.text(12) ?? "", name: statement.text(13) ?? "", version: statement.text(14),
            productType: statement.text(15), osVersion: statement.text(16))
        var device: Device?
        if !statement.isNull(17) {
            device = Device(
                name: statement.text(18), manufacturer: statement.text(19), model: statement.text(20),
                hardwareVersion: statement.text(21), firmwareVersion: statement.text(22),
                softwareVersion: statement.text(23), localIdentifier: statement.text(24),
                udiDeviceIdentifier: statement.text(25))
        }
        let start = statement.int64(4)
        let end = statement.int64(5)
        var metadata: [String: MetadataValue] = [:]
        if let stored = statement.rawBytes(26) {
            do {
                metadata = try MetadataBlob.decode(stored, units: &units)
            } catch {
                throw StoreError(code: .database, message: "sample \(uuid) has damaged metadata: \(error)")
            }
        }
        // The sync keys are the row's columns, not in its stored metadata (`MetadataBlob.encodeRow`).
        MetadataBlob.addSyncKeys(
            to: &metadata, identifier: statement.rawBytes(27), version: statement.isNull(28) ? nil : statement.double(28))
        let sample = Sample(
            uuid: uuid, type: TypeIdentifier(statement.text(2) ?? ""), startDate: StoredTime.date(start),
            endDate: StoredTime.date(end), value: value, sourceRevision: source, device: device, metadata: metadata,
            creationDate: StoredTime.date(statement.int64(10)))
        return DecodedRow(
            id: statement.int64(0), sequence: statement.int64(11), startMicroseconds: start, endMicroseconds: end,
            sample: sample)
    }
}
