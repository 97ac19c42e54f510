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
    /// The stored bytes of `metadata`; nil for no metadata.
    package static func encode(_ metadata: [String: MetadataValue]) -> [UInt8]? {
        guard !metadata.isEmpty else { return nil }
        var entries = metadata.map { (key: $0.key, value: $0.value) }
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
