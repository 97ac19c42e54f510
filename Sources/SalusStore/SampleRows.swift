import Foundation
import SalusModel

/// Reading samples and deleted objects back from rows.
enum SampleRows {
    /// The columns `SampleRowDecoder` reads, in order, over the alias `r` of `samples`. The span,
    /// not the virtual `end_us`, which reads a damaged span (negative, text, past an int64) as
    /// some end: the decoder adds it to the start and refuses one that gives no end
    /// (`StoredRowChecks.end`), as the wire path does.
    static let columns = """
        r.id, r.uuid, t.identifier, r.kind, r.start_us, r.span_us, coalesce(r.value_in_unit, r.value), \
        coalesce(r.unit, t.unit), r.category, \
        r.payload, r.creation_us, r.id, src.app_id, src.name, src.version, src.product_type, src.os_version, \
        r.device_id, d.name, d.manufacturer, d.model, d.hardware_version, d.firmware_version, \
        d.software_version, d.local_identifier, d.udi_device_identifier, r.metadata, r.sync_identifier, r.sync_version
        """

    /// The columns `WirePageEncoder.addSample` reads, in order, over `samples r` alone: the type,
    /// source revision and device by row id, read once per page rather than joined to each row
    /// (a unit the row leaves out is its type's, `types.unit`, read with the type). The span, not
    /// the virtual `end_us`: the encoder adds it to the start (`StoredRowChecks.end`), where SQLite
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

    /// The stored bytes (`StoreReads.storedBytes`) of the members of the correlations with these
    /// row ids, summed by correlation row id: one query for a whole page, none without
    /// correlations.
    static func memberBytes<IDs: Sequence<Int64>>(_ database: Database, correlations ids: IDs) throws -> [Int64: Int] {
        let list = ids.map(String.init)
        guard !list.isEmpty else { return [:] }
        let statement = try database.prepare(
            "SELECT m.correlation_id, sum(\(StoreReads.storedBytesSQL)) FROM correlation_members m "
                + "JOIN samples r ON r.id = m.member_id "
                + "WHERE m.correlation_id IN (SELECT value FROM json_each(?)) GROUP BY m.correlation_id")
        defer { statement.reset() }
        try statement.bind(.text("[" + list.joined(separator: ",") + "]"), at: 1)
        var result: [Int64: Int] = [:]
        while try statement.step() {
            result[statement.int64(0)] = Int(clamping: statement.int64(1))
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
        let id = statement.int64(0)
        let row = "row \(id) (\(uuid))"
        let kindCode = statement.int64(3)
        guard let kind = StoredCodes.kind(code: kindCode) else {
            throw StoredRowChecks.damaged(row, "kind", value: "\(kindCode)", expected: "the code of an object kind")
        }
        let value: SampleValue
        switch kind {
        case .quantity:
            let unit = try StoredRowChecks.unit(statement.text(7) ?? "count", units: &units, column: "unit", row: row)
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
        let end = try StoredRowChecks.end(statement, column: 5, start: start, row: row)
        var metadata: [String: MetadataValue] = [:]
        if let stored = statement.rawBytes(26) {
            do {
                try MetadataBlob.check(stored)
                metadata = try MetadataBlob.decode(stored, units: &units)
            } catch {
                throw StoredRowChecks.damaged(
                    row, "metadata", value: StoredRowChecks.fault(stored, error), expected: MetadataBlob.expected(error))
            }
        }
        // The sync keys are the row's columns, not in its stored metadata (`MetadataBlob.encodeRow`).
        MetadataBlob.addSyncKeys(
            to: &metadata, identifier: try StoredRowChecks.identifier(statement, column: 27, row: row),
            version: try StoredRowChecks.version(statement, column: 28, row: row))
        let sample = Sample(
            uuid: uuid, type: TypeIdentifier(statement.text(2) ?? ""), startDate: StoredTime.date(start),
            endDate: StoredTime.date(end), value: value, sourceRevision: source, device: device, metadata: metadata,
            creationDate: StoredTime.date(statement.int64(10)))
        return DecodedRow(
            id: id, sequence: statement.int64(11), startMicroseconds: start, endMicroseconds: end,
            sample: sample)
    }
}

/// The checks every read of a `samples` row makes of the columns a damaged file (edited by hand,
/// bits flipped on disk) can hold wrong, on the model path (`SampleRowDecoder`), the wire path
/// (`WirePageEncoder`) and the statistics' lean read alike: a row is answered as it is stored or
/// the read is refused with an error naming the row, the column, the value and what was expected
/// (docs/storage.md, "Damaged rows").
enum StoredRowChecks {
    /// The error about a damaged `column` of the sample `row` ("row 12" or "row 12 (UUID)").
    static func damaged(_ row: String, _ column: String, value: String, expected: String) -> StoreError {
        StoreError(
            code: .database, message: "sample \(row) has a damaged \(column): got \(value); expected \(expected)",
            field: "samples.\(column)", value: value, expected: expected)
    }

    /// A damaged blob or text for an error: its size and what is wrong in it, never its bytes.
    /// The error reaches the app whose read met the row (RPC `internal`, its message): the
    /// bytes around a fault are the sample's other metadata, which a read by UUID, refused
    /// only after the row is read, would show an app that may not read it.
    static func fault(_ bytes: UnsafeRawBufferPointer?, _ error: any Error) -> String {
        "\(bytes?.count ?? 0) bytes (\(error))"
    }

    /// `bytes` for an error: as text when UTF-8, else in hex; at most 64 bytes of it.
    static func render(_ bytes: UnsafeRawBufferPointer?) -> String {
        guard let bytes else { return "NULL" }
        let shown = UnsafeRawBufferPointer(rebasing: bytes.prefix(64))
        let more = bytes.count > 64 ? "… (\(bytes.count) bytes)" : ""
        if isUTF8(shown) { return "\"\(String(decoding: shown, as: UTF8.self))\"\(more)" }
        return "X'" + shown.map { String($0, radix: 16, uppercase: true).leftPadded() }.joined() + "'\(more)"
    }

    /// Whether `bytes` are UTF-8: what an app's protobuf decoder requires of a string field.
    /// Every imported sample's identifier (about 100 bytes) is read through it: ASCII, nearly
    /// always, is tested eight bytes at a time, and only text with another byte is validated.
    @inline(__always) static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var high: UInt64 = 0
        while index + 8 <= bytes.count {
            high |= bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            high |= UInt64(bytes[index])
            index += 1
        }
        return high & 0x8080_8080_8080_8080 == 0 || String(validating: bytes, as: UTF8.self) != nil
    }

    /// The end of the current row: its start plus its span (`column`), or, for a span past what
    /// an int64 holds, the end the row keeps as decimal text, as the virtual `end_us` computes it
    /// (schema 16). A span that does not give an int64 end at or after the start is refused.
    @inline(__always) static func end(
        _ statement: Statement, column: Int32, start: Int64, row: @autoclosure () -> String
    ) throws -> Int64 {
        if statement.isInteger(column) {
            let span = statement.int64(column)
            let (end, overflow) = start.addingReportingOverflow(span)
            if !overflow, span >= 0 { return end }
        } else if let text = statement.rawBytes(column), let end = Int64(String(decoding: text, as: UTF8.self)),
            end >= start
        {
            return end
        }
        throw damaged(
            row(), "span_us", value: statement.isInteger(column) ? "\(statement.int64(column))" : render(statement.rawBytes(column)),
            expected: "a span of at least 0 that gives an end an int64 holds after the start \(start), "
                + "or such an end as decimal text")
    }

    /// The sync version of the current row (`column`): nil when NULL; a number else.
    @inline(__always) static func version(_ statement: Statement, column: Int32, row: @autoclosure () -> String) throws
        -> Double?
    {
        switch statement.type(column) {
        case .null: return nil
        case .real, .integer: return statement.double(column)
        default:
            throw damaged(row(), "sync_version", value: render(statement.rawBytes(column)), expected: "NULL or a number")
        }
    }

    /// The sync identifier of the current row (`column`): nil when NULL; its bytes when UTF-8.
    @inline(__always) static func identifier(_ statement: Statement, column: Int32, row: @autoclosure () -> String) throws
        -> UnsafeRawBufferPointer?
    {
        guard let bytes = statement.rawBytesUnlessNull(column) else { return nil }
        guard isUTF8(bytes) else {
            throw damaged(row(), "sync_identifier", value: "\(bytes.count) bytes that are not UTF-8", expected: "NULL or UTF-8 text")
        }
        return bytes
    }

    /// The unit of `text`, parsed once per `units`, or an error naming the row's `column`.
    static func unit(_ text: String, units: inout [String: SalusUnit], column: String, row: @autoclosure () -> String) throws
        -> SalusUnit
    {
        if let unit = units[text] { return unit }
        do {
            let unit = try SalusUnit(parsing: text)
            units[text] = unit
            return unit
        } catch {
            throw damaged(row(), column, value: "\"\(text)\"", expected: "a unit the store can parse (\(error))")
        }
    }
}

extension String {
    /// Two hex digits.
    fileprivate func leftPadded() -> String { count < 2 ? "0" + self : self }
}
