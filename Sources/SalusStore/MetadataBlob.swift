import Foundation
import SalusModel
import SalusProtoCodec

/// A sample's metadata as the store keeps it since migration 14: one `samples.metadata` value,
/// the wire bytes of the sample's metadata map — field 12 of `salus.v1.Sample`, one
/// `(tag, length, entry)` per key, keys in UTF-8 byte order (SwiftProtobuf's deterministic order
/// for these keys, and the order the metadata table's primary key gave) — or NULL when there is
/// none.
///
/// **Why the wire bytes.** A sample query's lean path copies them into the page as they are
/// (`WirePageEncoder`), with no second query and no per-key rows; a save writes one column
/// instead of one row and two index entries per key (a dozen B-tree inserts for a Watch sample
/// with its 2.25 keys). A metadata predicate decodes the value of one key on the rows of the
/// type's date range (`salus_metadata`, `SQLFunctions`).
///
/// Values: string (field 1), number (2, a double), bool (3), date (4, microseconds since 1970,
/// as every date of the store), quantity (5: value and unit as the app gave them; compared in its
/// dimension's base unit, `BaseUnit`).
package enum MetadataBlob {
    /// The bytes of the whole of `metadata`, the sync keys included (as rows saved before the
    /// sync keys left the blob hold them); nil for no metadata.
    package static func encode(_ metadata: [String: MetadataValue]) -> [UInt8]? {
        guard !metadata.isEmpty else { return nil }
        return encode(metadata.map { (key: $0.key, value: $0.value) })
    }

    /// The stored bytes of a new row's `metadata`: every key but the sync keys that the row's
    /// own columns hold (`sync_identifier`, `sync_version`), which every reader puts back from
    /// them; nil when nothing else is left.
    ///
    /// **Rule: a row does not repeat its sync keys in its metadata.** Every imported Apple Health
    /// or FIT sample has an identifier of about 100 bytes: repeated in the blob it was about 140
    /// of the blob's 154 bytes, and the row 322 bytes where the minimal table's is about 60. A
    /// key is left out only when its column gives it back bit for bit: an identifier always (a
    /// string, stored as text); a version when finite and not −0 (the REAL column stores −0 as
    /// the integer 0, which reads back +0). What breaks if a reader did not put them back: an
    /// app, the export, the sync agent, a backup's reader would see samples without their sync
    /// keys (`SyncKeyColumnsTests`).
    package static func encodeRow(_ metadata: [String: MetadataValue]) -> [UInt8]? {
        guard !metadata.isEmpty else { return nil }
        func inColumn(_ key: String, _ value: MetadataValue) -> Bool {
            switch (key, value) {
            case (MetadataKey.syncIdentifier, .string): true
            case (MetadataKey.syncVersion, .number(let version)): columnKeeps(version: version)
            default: false
            }
        }
        // Most imported samples have the sync keys alone: no array for them.
        if metadata.count <= 2, metadata.allSatisfy({ inColumn($0.key, $0.value) }) { return nil }
        var entries: [(key: String, value: MetadataValue)] = []
        entries.reserveCapacity(metadata.count)
        for (key, value) in metadata where !inColumn(key, value) { entries.append((key, value)) }
        return entries.isEmpty ? nil : encode(entries)
    }

    /// Whether the `sync_version` column (REAL) gives `version` back bit for bit.
    static func columnKeeps(version: Double) -> Bool {
        version.isFinite && !(version == 0 && version.sign == .minus)
    }

    /// The keys of the two entries a row's columns hold, as UTF-8.
    static let syncIdentifierKey = Array(MetadataKey.syncIdentifier.utf8)
    static let syncVersionKey = Array(MetadataKey.syncVersion.utf8)

    /// Puts a row's sync keys back into its decoded metadata from its columns, unless its stored
    /// bytes had them (rows saved before they left the blob, or a −0 version).
    static func addSyncKeys(
        to metadata: inout [String: MetadataValue], identifier: UnsafeRawBufferPointer?, version: Double?
    ) {
        if let identifier, metadata[MetadataKey.syncIdentifier] == nil {
            metadata[MetadataKey.syncIdentifier] = .string(String(decoding: identifier, as: UTF8.self))
        }
        if let version, metadata[MetadataKey.syncVersion] == nil {
            metadata[MetadataKey.syncVersion] = .number(version)
        }
    }

    /// Appends a row's metadata map entries (field 12 of `salus.v1.Sample`) to `out`: its stored
    /// bytes, with the sync keys its columns hold each written at its place in key order, so the
    /// entries are what `encode` makes of the whole map (and SwiftProtobuf's deterministic
    /// encoding of it). A key the stored bytes have already (rows saved before the sync keys
    /// left the blob) is not written twice. With no sync key the stored bytes are copied as
    /// they are, once `check` has read them: an app would read other bytes as fields of the
    /// sample, or refuse the page.
    static func appendEntries(
        stored: UnsafeRawBufferPointer?, identifier: UnsafeRawBufferPointer?, version: Double?,
        into out: inout ProtoBytes
    ) throws {
        if let stored { try check(stored) }
        guard identifier != nil || version != nil else {
            if let stored, !stored.isEmpty { out.write(stored.count) { $0.copy(stored) } }
            return
        }
        var identifier = identifier
        var version = version
        /// Writes the pending sync entries whose keys come before `key` (all of them for nil),
        /// and drops one whose key is `key`.
        func writePending(before key: UnsafeRawBufferPointer?) {
            if let pending = identifier {
                let order = key.map { compare(syncIdentifierKey, $0) } ?? -1
                if order <= 0 {
                    if order < 0 {
                        syncIdentifierKey.withUnsafeBytes { write(key: $0, value: .string(pending), into: &out) }
                    }
                    identifier = nil
                }
            }
            if let pending = version {
                let order = key.map { compare(syncVersionKey, $0) } ?? -1
                if order <= 0 {
                    if order < 0 { syncVersionKey.withUnsafeBytes { write(key: $0, value: .number(pending), into: &out) } }
                    version = nil
                }
            }
        }
        if let stored {
            var reader = ProtoReader(stored)
            while true {
                let start = reader.offset
                guard let (number, wireType) = try reader.tag() else { break }
                if number == 12, wireType == .lengthDelimited {
                    var entry = try reader.message()
                    var key = UnsafeRawBufferPointer(start: nil, count: 0)
                    while let (field, type) = try entry.tag() {
                        if field == 1, type == .lengthDelimited {
                            key = try entry.bytes()
                            break
                        }
                        try entry.skip(type)
                    }
                    if identifier != nil || version != nil { writePending(before: key) }
                } else {
                    try reader.skip(wireType)
                }
                let entry = UnsafeRawBufferPointer(rebasing: stored[start..<reader.offset])
                out.write(entry.count) { $0.copy(entry) }
            }
        }
        writePending(before: nil)
    }

    /// What a damaged blob was expected to be, with what `error` found wrong in it.
    static func expected(_ error: any Error) -> String {
        "metadata map entries (field 12 of salus.v1.Sample), each a UTF-8 key and a string, number, bool, date "
            + "or quantity value (\(error))"
    }

    /// A fault in stored bytes that the protobuf reader does not see: a field that is not a map
    /// entry, text that is not UTF-8, a unit that does not parse.
    struct Fault: Error, CustomStringConvertible {
        var description: String
    }

    /// Checks that `bytes` are what `encode` writes and what an app's protobuf decoder reads as a
    /// sample's metadata: map entries (field 12) only, each a UTF-8 key (field 1) and a value
    /// (field 2) whose known fields have their wire types, its text UTF-8 and a quantity's unit
    /// one the store parses. The wire path copies stored bytes into the sample it serves: any
    /// other field would be read by the app as a field of the sample (its type, its UUID), and
    /// bytes that are not protobuf would make the app refuse the whole page.
    static func check(_ bytes: UnsafeRawBufferPointer) throws {
        func text(_ text: UnsafeRawBufferPointer, _ what: String) throws {
            guard StoredRowChecks.isUTF8(text) else { throw Fault(description: "\(what) is not UTF-8") }
        }
        var reader = ProtoReader(bytes)
        while let (number, wireType) = try reader.tag() {
            guard number == 12, wireType == .lengthDelimited else {
                throw Fault(description: "field \(number) (wire type \(wireType)) at byte \(reader.offset) is not a map entry")
            }
            var entry = try reader.message()
            while let (field, type) = try entry.tag() {
                switch (field, type) {
                case (1, .lengthDelimited): try text(try entry.bytes(), "a key")
                case (2, .lengthDelimited):
                    var value = try entry.message()
                    while let (valueField, valueType) = try value.tag() {
                        switch (valueField, valueType) {
                        case (1, .lengthDelimited): try text(try value.bytes(), "a string value")
                        case (2, .fixed64), (3, .varint), (4, .varint): try value.skip(valueType)
                        case (5, .lengthDelimited):
                            var quantity = try value.message()
                            while let (quantityField, quantityType) = try quantity.tag() {
                                switch (quantityField, quantityType) {
                                case (1, .fixed64): try quantity.skip(quantityType)
                                case (2, .lengthDelimited):
                                    let unit = try quantity.bytes()
                                    try text(unit, "a quantity's unit")
                                    do {
                                        _ = try SalusUnit(parsing: String(decoding: unit, as: UTF8.self))
                                    } catch {
                                        throw Fault(description: "a quantity's unit does not parse: \(error)")
                                    }
                                case (1...2, _): throw Fault(description: "quantity field \(quantityField) has wire type \(quantityType)")
                                default: try quantity.skip(quantityType)
                                }
                            }
                        case (1...5, _): throw Fault(description: "value field \(valueField) has wire type \(valueType)")
                        default: try value.skip(valueType)
                        }
                    }
                case (1...2, _): throw Fault(description: "entry field \(field) has wire type \(type)")
                default: try entry.skip(type)
                }
            }
        }
    }

    /// −1, 0 or 1 as `key` comes before, equals or follows `other` in UTF-8 byte order.
    private static func compare(_ key: [UInt8], _ other: UnsafeRawBufferPointer) -> Int {
        let common = min(key.count, other.count)
        for index in 0..<common where key[index] != other[index] {
            return key[index] < other[index] ? -1 : 1
        }
        return key.count == other.count ? 0 : key.count < other.count ? -1 : 1
    }

    /// The bytes of `entries`, sorted by key.
    private static func encode(_ entries: [(key: String, value: MetadataValue)]) -> [UInt8] {
        var entries = entries
        if entries.count > 1 { entries.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } }
        var out = ProtoBytes(capacity: 48 * entries.count)
        for (key, value) in entries {
            var key = key
            key.withUTF8 { key in
                switch value {
                case .string(var text):
                    text.withUTF8 { write(key: UnsafeRawBufferPointer(key), value: .string(UnsafeRawBufferPointer($0)), into: &out) }
                case .number(let number): write(key: UnsafeRawBufferPointer(key), value: .number(number), into: &out)
                case .bool(let flag): write(key: UnsafeRawBufferPointer(key), value: .bool(flag), into: &out)
                case .date(let date):
                    write(key: UnsafeRawBufferPointer(key), value: .date(StoredTime.microseconds(date)), into: &out)
                case .quantity(let quantity):
                    var unit = quantity.unit.description
                    unit.withUTF8 {
                        write(key: UnsafeRawBufferPointer(key), value: .quantity(quantity.value, UnsafeRawBufferPointer($0)), into: &out)
                    }
                }
            }
        }
        return out.array
    }

    /// Writes one map entry (field 12) of `key` and `value`.
    static func write(key: UnsafeRawBufferPointer, value: Stored, into out: inout ProtoBytes) {
        let entry = out.begin(12)
        out.bytes(1, key, always: true)
        let field = out.begin(2)
        switch value {
        case .string(let text): out.bytes(1, text, always: true)
        case .number(let number): out.double(2, number, always: true)
        case .bool(let flag): out.int64(3, flag ? 1 : 0, always: true)
        case .date(let microseconds): out.int64(4, microseconds, always: true)
        case .quantity(let amount, let unit):
            let inner = out.begin(5)
            out.double(1, amount)
            if let unit { out.bytes(2, unit) } else { out.string(2, "count") }
            out.end(inner)
        }
        out.end(field)
        out.end(entry)
    }

    /// One stored value, borrowed from the bytes it was read from.
    enum Stored {
        case string(UnsafeRawBufferPointer)
        case number(Double)
        case bool(Bool)
        /// Microseconds since 1970.
        case date(Int64)
        /// The value and the unit's text as given (nil: `count`).
        case quantity(Double, UnsafeRawBufferPointer?)
    }

    /// Calls `body` with each key and value of `bytes`, in stored order, until it returns false.
    static func forEach(
        _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Stored) throws -> Bool
    ) throws {
        var reader = ProtoReader(bytes)
        while let (number, wireType) = try reader.tag() {
            guard number == 12, wireType == .lengthDelimited else {
                try reader.skip(wireType)
                continue
            }
            var entry = try reader.message()
            var key = UnsafeRawBufferPointer(start: nil, count: 0)
            var value = Stored.string(UnsafeRawBufferPointer(start: nil, count: 0))
            while let (field, type) = try entry.tag() {
                switch (field, type) {
                case (1, .lengthDelimited): key = try entry.bytes()
                case (2, .lengthDelimited): value = try self.value(try entry.message())
                default: try entry.skip(type)
                }
            }
            if try !body(key, value) { return }
        }
    }

    private static func value(_ message: ProtoReader) throws -> Stored {
        var reader = message
        var value = Stored.string(UnsafeRawBufferPointer(start: nil, count: 0))
        while let (field, type) = try reader.tag() {
            switch (field, type) {
            case (1, .lengthDelimited): value = .string(try reader.bytes())
            case (2, .fixed64): value = .number(try reader.double())
            case (3, .varint): value = .bool(try reader.varint() != 0)
            case (4, .varint): value = .date(try reader.int64())
            case (5, .lengthDelimited):
                var quantity = try reader.message()
                var amount = 0.0
                var unit: UnsafeRawBufferPointer?
                while let (inner, innerType) = try quantity.tag() {
                    switch (inner, innerType) {
                    case (1, .fixed64): amount = try quantity.double()
                    case (2, .lengthDelimited): unit = try quantity.bytes()
                    default: try quantity.skip(innerType)
                    }
                }
                value = .quantity(amount, unit)
            default: try reader.skip(type)
            }
        }
        return value
    }

    /// The metadata of stored `bytes` as model values.
    package static func decode(_ bytes: [UInt8]) throws -> [String: MetadataValue] {
        var units: [String: SalusUnit] = [:]
        return try bytes.withUnsafeBytes { try decode($0, units: &units) }
    }

    /// The metadata of stored `bytes` as model values, parsing each unit once per `units`.
    static func decode(_ bytes: UnsafeRawBufferPointer, units: inout [String: SalusUnit]) throws
        -> [String: MetadataValue]
    {
        var result: [String: MetadataValue] = [:]
        try forEach(bytes) { key, stored in
            let value: MetadataValue
            switch stored {
            case .string(let text): value = .string(String(decoding: text, as: UTF8.self))
            case .number(let number): value = .number(number)
            case .bool(let flag): value = .bool(flag)
            case .date(let microseconds): value = .date(StoredTime.date(microseconds))
            case .quantity(let amount, let unitBytes):
                let text = unitBytes.map { String(decoding: $0, as: UTF8.self) } ?? "count"
                let unit = try units[text] ?? SalusUnit(parsing: text)
                units[text] = unit
                value = .quantity(Quantity(value: amount, unit: unit))
            }
            result[String(decoding: key, as: UTF8.self)] = value
            return true
        }
        return result
    }

    /// The stored value of `key` in `bytes`, or nil when the sample has no such key.
    static func lookup(_ bytes: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer) throws -> Stored? {
        var found: Stored?
        try forEach(bytes) { entryKey, value in
            if entryKey.elementsEqual(key) {
                found = value
                return false
            }
            return true
        }
        return found
    }
}
