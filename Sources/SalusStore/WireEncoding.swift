import Foundation
import NIOCore
import SalusModel
import SalusProtoCodec

/// Turns `samples` and `tombstones` rows into the bytes of `salus.v1.Sample` and
/// `salus.v1.DeletedObject` messages, with no model sample in between: the lean read path of
/// sample queries, anchored queries and live feeds (docs/storage.md, "Reading rows straight to
/// wire bytes").
///
/// The bytes are exactly what SwiftProtobuf writes for the message the model path builds
/// (`Sample.wire`) with deterministic map order: the fields in SwiftProtobuf's order (value
/// fields 5–9 before the source revision, 14–22 after the creation date), defaults left out,
/// metadata entries sorted by key. Values the store keeps as JSON payloads (every kind but
/// quantities and categories) are decoded and written by `values`, which the wire layer supplies;
/// quantities, categories, the envelope, sources, devices and metadata are written straight from
/// the columns. Correlations are not covered: their members and per-member access need the model.
package struct SampleWireEncoder: Sendable {
    /// Writes the serialized value field (tag, length, message) of a payload kind's value, as it
    /// appears in a serialized `salus.v1.Sample` holding only that value.
    package typealias ValueEncoder = @Sendable (
        _ value: SampleValue, _ startMicroseconds: Int64, _ endMicroseconds: Int64
    ) throws -> [UInt8]

    let values: ValueEncoder

    /// An encoder that writes payload kinds' values with `values`.
    package init(values: @escaping ValueEncoder) {
        self.values = values
    }
}

/// One encoded page: the bytes of a repeated message field and how many messages they hold.
package struct WirePage: Sendable {
    /// The serialized messages, each with its field tag and length, in the buffer the frame
    /// carrying them is sent from: a page is written once and not copied on its way out.
    package var bytes: ByteBuffer
    /// How many messages.
    package var count: Int
}

/// Encodes a query's pages with `encoder` in the buffers of the connection that reads each page
/// (`Database.wirePages`), so that a page allocates its output and nothing per row, and a query
/// does not grow buffers of its own from empty: a day's query on the 20M store spent a tenth of
/// salusd's CPU in page faults, most of them in buffers growing and in the first writes to them.
final class WirePageBuilder: Sendable {
    private let encoder: SampleWireEncoder

    init(encoder: SampleWireEncoder) {
        self.encoder = encoder
    }

    /// A connection keeps its buffers after a page that wrote at most this many bytes; after a
    /// larger one (a page of documents with their data) they are freed, so an idle connection
    /// holds about one ordinary page's worth.
    static let keptBytes = 2 << 20

    /// Runs `body` on `database`'s buffers, emptied first (new ones when it has none). The buffers
    /// are moved out for the page and back after it: the per-row work mutates a local value, with
    /// no exclusivity check per access as a class's stored properties would need. A connection
    /// reads one page at a time (`ConnectionQueue`).
    func page<T>(on database: Database, _ body: (inout WirePageEncoder) throws -> T) rethrows -> T {
        let slot = database.wirePages
        var local = slot.buffers.take() ?? WirePageEncoder(encoder: encoder)
        local.encoder = encoder
        local.reset()
        do {
            let result = try body(&local)
            if local.writtenBytes <= Self.keptBytes { slot.buffers = consume local }
            return result
        } catch {
            if local.writtenBytes <= Self.keptBytes { slot.buffers = consume local }
            throw error
        }
    }
}

/// Where a connection keeps its page buffers between pages (`WirePageBuilder`).
final class WirePageBufferSlot {
    var buffers: WirePageEncoder?
}

/// Builds one page of rows and deleted objects into wire bytes.
struct WirePageEncoder: ~Copyable {
    /// The most bytes one sample may take as sent: a response frame's 4 MiB less 64 KiB for its
    /// page's fields and framing. A save takes at most `Validation.maximumSampleBytes`.
    static let largestSample = 4 << 20 - 64 << 10

    /// One encoded row: where its parts are in `heads`, `tails` and its keys.
    struct Row {
        var id: Int64
        var sequence: Int64
        var start: Int64
        var end: Int64
        var creation: Int64
        var head: Range<Int>
        var tail: Range<Int>
        /// Its metadata map entries (field 12), as stored, in `metadata`.
        var meta: Range<Int>
    }

    var encoder: SampleWireEncoder
    /// Fields 1–11 of every row, one after the other.
    var heads = ProtoBytes()
    /// Value fields 14–22 of rows that have them.
    var tails = ProtoBytes()
    var rows: [Row] = []
    /// Metadata map entries (field 12) of the page's rows, copied from their `metadata` column.
    var metadata = ProtoBytes()
    /// Deleted objects (anchored queries), one after the other, with their change positions.
    var deletions = ProtoBytes()
    var deletionRows: [(sequence: Int64, range: Range<Int>)] = []
    /// The encoded type (field 2), source revision (field 10) and device (field 11) of the page's
    /// rows, each read and encoded once per page: a page's rows share a few of them.
    var types = ReferenceFields()
    /// The unit field (2 of `salus.v1.Quantity`) of the types whose unit the page's rows leave
    /// out (schema 16: `types.unit`).
    var units = ReferenceFields()
    var sources = ReferenceFields()
    var devices = ReferenceFields()
    /// The units of rows that keep their own (not their type's) found to parse, kept for the
    /// connection's pages: a few at most.
    var checkedUnits: [[UInt8]] = []

    init(encoder: SampleWireEncoder) {
        self.encoder = encoder
    }

    /// Bytes the page's samples take so far (their heads, value tails and metadata).
    var sampleBytes: Int { heads.count + tails.count + metadata.count }

    /// Bytes the page wrote into its buffers, its deleted objects and reference fields included.
    var writtenBytes: Int {
        sampleBytes + deletions.count + types.bytes.count + units.bytes.count + sources.bytes.count + devices.bytes.count
    }

    mutating func reset() {
        heads.removeAll()
        tails.removeAll()
        rows.removeAll(keepingCapacity: true)
        metadata.removeAll()
        deletions.removeAll()
        deletionRows.removeAll(keepingCapacity: true)
        types.reset()
        units.reset()
        sources.reset()
        devices.reset()
    }

    /// Encodes the current row of a statement selecting `SampleRows.wireColumns`; `database` (the
    /// statement's connection, in the same read transaction) gives the type, source revision and
    /// device rows the page has not met yet.
    mutating func addSample(_ statement: Statement, _ database: Database) throws {
        let id = statement.int64(0)
        guard let uuid = statement.rawBytes(1), uuid.count == 16 else {
            throw StoreError(code: .database, message: "sample row \(id) has no 16-byte UUID")
        }
        let kindCode = statement.int64(3)
        let start = statement.int64(4)
        let end = try StoredRowChecks.end(statement, column: 5, start: start, row: "row \(id)")
        let headStart = heads.count
        let tailStart = tails.count
        heads.bytes(1, uuid)
        // Each column is asked for once: every call into SQLite checks the statement and the
        // column, and they were about a fifth of salusd's CPU in a day's query on the 20M store.
        let typeID = statement.int64(2)
        // Each range is taken before the append: the arguments are read left to right.
        let type = try types.field(typeID) { try Self.typeField($0, database, into: &$1) }
        heads.append(types.bytes, type)
        heads.int64(3, start)
        heads.int64(4, end)
        switch kindCode {
        case 0:  // quantity
            let quantity = heads.begin(5)
            heads.double(1, statement.double(6))
            if let unit = statement.rawBytesUnlessNull(7) {
                // Rows in their type's unit leave it out (schema 16): one that has its own is
                // checked before it is served, as the model path parses it.
                if !checkedUnits.contains(where: { $0.elementsEqual(unit) }) {
                    var parsed: [String: SalusUnit] = [:]
                    guard StoredRowChecks.isUTF8(unit) else {
                        throw StoredRowChecks.damaged(
                            "row \(id)", "unit", value: StoredRowChecks.render(unit), expected: "a unit in UTF-8 text")
                    }
                    _ = try StoredRowChecks.unit(String(decoding: unit, as: UTF8.self), units: &parsed, column: "unit", row: "row \(id)")
                    if checkedUnits.count < 64 { checkedUnits.append(Array(unit)) }
                }
                heads.bytes(2, unit)
            } else {
                let unit = try units.field(typeID) { try Self.unitField($0, database, into: &$1) }
                heads.append(units.bytes, unit)
            }
            heads.end(quantity)
        case 1:  // category
            let category = heads.begin(6)
            heads.int64(1, statement.int64(8))
            heads.end(category)
        default:
            guard let kind = StoredCodes.kind(code: kindCode) else {
                throw StoredRowChecks.damaged("row \(id)", "kind", value: "\(kindCode)", expected: "the code of an object kind")
            }
            guard kind != .correlation else {
                throw StoreError(
                    code: .database,
                    message: "sample row \(id) has kind \(kindCode), which the lean encoder does not write (correlations need the model)")
            }
            let payload = statement.rawBytes(9).map { Array($0) } ?? []
            let value = try Payloads.decode(kind: kind, bytes: payload)
            let field = try encoder.values(value, start, end)
            // Values 5–9 precede the source revision, 14–22 follow the creation date.
            let number = field.withUnsafeBytes { raw in
                var reader = ProtoReader(raw)
                return (try? reader.tag())?.number ?? 0
            }
            if number < 10 {
                heads.append(contentsOf: field)
            } else {
                tails.append(contentsOf: field)
            }
        }
        let source = try sources.field(statement.int64(12)) { try Self.sourceField($0, database, into: &$1) }
        heads.append(sources.bytes, source)
        // A device row id is never 0 (SQLite's row ids start at 1): only a 0 asks whether it is NULL.
        let deviceID = statement.int64(13)
        if deviceID != 0 || !statement.isNull(13) {
            let device = try devices.field(deviceID) { try Self.deviceField($0, database, into: &$1) }
            heads.append(devices.bytes, device)
        }
        // The stored metadata is the map's wire bytes (`MetadataBlob`): copied as it is, with the
        // sync keys the row keeps in its columns put back in key order.
        let metaStart = metadata.count
        let identifier = try StoredRowChecks.identifier(statement, column: 15, row: "row \(id)")
        let version = try StoredRowChecks.version(statement, column: 16, row: "row \(id)")
        do {
            try MetadataBlob.appendEntries(
                stored: statement.rawBytesUnlessNull(14), identifier: identifier, version: version, into: &metadata)
        } catch {
            throw StoredRowChecks.damaged(
                "row \(id)", "metadata", value: StoredRowChecks.fault(statement.rawBytes(14), error),
                expected: MetadataBlob.expected(error))
        }
        // **A sample larger than a frame fails the read naming it.** An earlier version took
        // samples of any size up to what its frames and files allowed (clinical records from an
        // Apple Health export up to 64 MiB); one larger than a response frame can never be sent,
        // and the read failed only at the socket, naming no sample.
        let sent = (heads.count - headStart) + (tails.count - tailStart) + (metadata.count - metaStart)
        if sent > Self.largestSample {
            let metadataBytes = metadata.count - metaStart
            let column =
                (identifier?.count ?? 0) * 2 > sent
                ? "sync_identifier" : metadataBytes * 2 > sent ? "metadata" : kindCode <= 1 ? "device" : "payload"
            throw StoredRowChecks.damaged(
                "row \(id) (\(UUID(uuid: uuid.loadUnaligned(as: uuid_t.self))))", column,
                value: "a sample of \(sent) bytes as sent",
                expected: "at most \(Self.largestSample) bytes, what one response frame carries beside its page; "
                    + "an earlier version saved it, which took larger samples: delete it to read the others of its type")
        }
        rows.append(
            Row(
                // Column 11 is the row id again (a sample's change position is its row id).
                id: id, sequence: id, start: start, end: end, creation: statement.int64(10),
                head: headStart..<heads.count, tail: tailStart..<tails.count, meta: metaStart..<metadata.count))
    }

    /// Field 2 of `salus.v1.Sample`: the identifier of `types` row `id`.
    static func typeField(_ id: Int64, _ database: Database, into out: inout ProtoBytes) throws {
        let statement = try reference(database, "SELECT identifier FROM types WHERE id = ?", id: id, table: "types")
        defer { statement.reset() }
        if let identifier = statement.rawBytes(0) { out.bytes(2, identifier) }
    }

    /// Field 2 of `salus.v1.Quantity`: the unit of `types` row `id`, which its quantities'
    /// rows leave out when they are in it ("count" for a type without one, as before schema 16).
    static func unitField(_ id: Int64, _ database: Database, into out: inout ProtoBytes) throws {
        let statement = try reference(database, "SELECT unit FROM types WHERE id = ?", id: id, table: "types")
        defer { statement.reset() }
        if let unit = statement.rawBytes(0) {
            var parsed: [String: SalusUnit] = [:]
            _ = try StoredRowChecks.unit(
                String(decoding: unit, as: UTF8.self), units: &parsed, column: "unit of its type (types.unit)",
                row: "of types row \(id)")
            out.bytes(2, unit)
        } else {
            out.string(2, "count")
        }
    }

    /// Field 10 of `salus.v1.Sample`: the `salus.v1.SourceRevision` of `sources` row `id`.
    static func sourceField(_ id: Int64, _ database: Database, into out: inout ProtoBytes) throws {
        let statement = try reference(
            database, "SELECT app_id, name, version, product_type, os_version FROM sources WHERE id = ?", id: id,
            table: "sources")
        defer { statement.reset() }
        let source = out.begin(10)
        for (field, column) in zip(UInt64(1)...5, Int32(0)...4) {
            if let text = statement.rawBytes(column) { out.bytes(field, text) }
        }
        out.end(source)
    }

    /// Field 11 of `salus.v1.Sample`: the `salus.v1.Device` of `devices` row `id`; a field the
    /// device has is written even when empty.
    static func deviceField(_ id: Int64, _ database: Database, into out: inout ProtoBytes) throws {
        let statement = try reference(
            database,
            "SELECT name, manufacturer, model, hardware_version, firmware_version, software_version, local_identifier, "
                + "udi_device_identifier FROM devices WHERE id = ?", id: id, table: "devices")
        defer { statement.reset() }
        let device = out.begin(11)
        for (field, column) in zip(UInt64(1)...8, Int32(0)...7) {
            if let text = statement.rawBytes(column) { out.bytes(field, text, always: true) }
        }
        out.end(device)
    }

    /// `sql` stepped to the row of `table` with `id`; the caller resets it.
    private static func reference(_ database: Database, _ sql: String, id: Int64, table: String) throws -> Statement {
        let statement = try database.prepare(sql)
        try statement.bind(integer: id, at: 1)
        guard try statement.step() else {
            statement.reset()
            throw StoreError(code: .database, message: "a sample row refers to \(table) row \(id), which does not exist")
        }
        return statement
    }

    /// Encodes the current row of a tombstone statement (seq, uuid, identifier, sync identifier,
    /// sync version) as a `salus.v1.DeletedObject`.
    mutating func addDeletion(_ statement: Statement) throws {
        guard let uuid = statement.rawBytes(1), uuid.count == 16 else {
            throw StoreError(code: .database, message: "tombstone \(statement.int64(0)) has no 16-byte UUID")
        }
        let start = deletions.count
        deletions.bytes(1, uuid)
        if let type = statement.rawBytes(2) { deletions.bytes(2, type) }
        // Map entries sorted by key: the sync identifier before the sync version, each checked
        // as a sample row's are (`StoredRowChecks`).
        let row = "tombstone \(statement.int64(0))"
        let version = try StoredRowChecks.version(statement, column: 4, row: row)
        if let identifier = try StoredRowChecks.identifier(statement, column: 3, row: row) {
            let entry = deletions.begin(3)
            deletions.string(1, MetadataKey.syncIdentifier, always: true)
            let value = deletions.begin(2)
            deletions.bytes(1, identifier, always: true)
            deletions.end(value)
            deletions.end(entry)
        }
        if let version {
            let entry = deletions.begin(3)
            deletions.string(1, MetadataKey.syncVersion, always: true)
            let value = deletions.begin(2)
            deletions.double(2, version, always: true)
            deletions.end(value)
            deletions.end(entry)
        }
        deletionRows.append((statement.int64(0), start..<deletions.count))
    }

    /// The bytes of `rows[samples]` as field 1 and `deletionRows[deletions]` as field 2 of the
    /// enclosing message (`SampleBatch`, `AnchoredBatch`), each a whole message: sized first,
    /// then written into one buffer with no append. The buffer has room for `trailer` more bytes
    /// (the enclosing message's own fields), so adding them does not move the page.
    func encoded(samples: Range<Int>, deletions: Range<Int> = 0..<0, trailer: Int = 0) -> ByteBuffer {
        func sampleLength(_ row: Row) -> Int {
            let meta = row.meta.count
            let creationSize = row.creation == 0 ? 0 : 1 + ProtoWriter.varintSize(UInt64(bitPattern: row.creation))
            return row.head.count + meta + creationSize + row.tail.count
        }
        var size = 0
        for index in samples {
            let length = sampleLength(rows[index])
            size += 1 + ProtoWriter.varintSize(UInt64(length)) + length
        }
        for index in deletions {
            let length = deletionRows[index].range.count
            size += 1 + ProtoWriter.varintSize(UInt64(length)) + length
        }
        var page = ByteBufferAllocator().buffer(capacity: size + trailer)
        page.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { buffer in
            guard size > 0, let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            var out = ProtoWriter(cursor: base)
            heads.withBytes { heads in
                metadata.withBytes { metadata in
                    tails.withBytes { tails in
                        for index in samples {
                            let row = rows[index]
                            let meta = row.meta
                            out.tag(1, .lengthDelimited)
                            out.varint(UInt64(sampleLength(row)))
                            out.copy(UnsafeRawBufferPointer(rebasing: heads[row.head]))
                            out.copy(UnsafeRawBufferPointer(rebasing: metadata[meta]))
                            out.int64(13, row.creation)
                            out.copy(UnsafeRawBufferPointer(rebasing: tails[row.tail]))
                        }
                    }
                }
            }
            self.deletions.withBytes { bytes in
                for index in deletions {
                    let span = deletionRows[index].range
                    out.tag(2, .lengthDelimited)
                    out.varint(UInt64(span.count))
                    out.copy(UnsafeRawBufferPointer(rebasing: bytes[span]))
                }
            }
            let written = out.cursor - base
            precondition(written == size, "a page's bytes were sized \(size) and written \(written)")
            return written
        }
        return page
    }
}

/// Fields encoded once per row of a referenced table (types, sources, devices) and appended to
/// every sample that refers to that row.
struct ReferenceFields: ~Copyable {
    var bytes = ProtoBytes()
    var ranges: [Int64: Range<Int>] = [:]
    var lastID: Int64?
    var lastRange = 0..<0

    mutating func reset() {
        bytes.removeAll()
        ranges.removeAll(keepingCapacity: true)
        lastID = nil
    }

    /// Where in `bytes` the field of row `id` is, written by `encode` the first time.
    @inline(__always) mutating func field(_ id: Int64, encode: (Int64, inout ProtoBytes) throws -> Void) rethrows -> Range<Int> {
        if id == lastID { return lastRange }
        if let known = ranges[id] {
            (lastID, lastRange) = (id, known)
            return known
        }
        let start = bytes.count
        try encode(id, &bytes)
        let range = start..<bytes.count
        ranges[id] = range
        (lastID, lastRange) = (id, range)
        return range
    }
}
