import CSQLite
import Foundation
import SalusModel
import SalusProtoCodec

/// The SQL functions the store registers on every connection it opens (`Database.init`):
///
/// - `salus_metadata(metadata, key, operation, kind, value, dimension)`: 1 when the stored
///   metadata (`MetadataBlob`) has `key` and, for an operation other than `exists`, its value is
///   of `kind` and compares to `value` by `operation`; 0 otherwise (also for NULL metadata).
///   Predicates on metadata compile to it (`PredicateCompiler`), on the rows the rest of the
///   filter keeps — the type's date range — so no index is needed for them.
/// - `salus_metadata_value(metadata, key)`: the value of `key` as SQL has it (text for a string,
///   REAL for a number and for a quantity's amount, 0 or 1 for a bool, microseconds for a date),
///   or NULL: for checks and tools reading a store's file (the kill check).
/// - `salus_metadata_rows(key, value_type, text_value, number_value, quantity_value)`: an
///   aggregate turning the rows of the schema-1 `metadata` table of one sample into its stored
///   metadata (NULL for none), for migration 14.
/// - `salus_uuid_row(uuid)`: the row id an assigned UUID carries (`SampleUUIDs`), for lookups by
///   UUID.
///
/// Stored bytes the functions cannot read fail the statement with an error naming them; they
/// never trap.
enum SQLFunctions {
    /// What `salus_metadata` tests; its `operation` argument.
    enum Operation: Int64 {
        case exists = 0
        case lessThan, lessThanOrEqual, equal, greaterThanOrEqual, greaterThan, notEqual

        init(_ comparison: ComparisonOperator) {
            switch comparison {
            case .lessThan: self = .lessThan
            case .lessThanOrEqual: self = .lessThanOrEqual
            case .equal: self = .equal
            case .greaterThanOrEqual: self = .greaterThanOrEqual
            case .greaterThan: self = .greaterThan
            case .notEqual: self = .notEqual
            }
        }

        /// Whether an ordering (negative, zero, positive: stored against compared) passes.
        func holds(_ order: Int) -> Bool {
            switch self {
            case .exists: true
            case .lessThan: order < 0
            case .lessThanOrEqual: order <= 0
            case .equal: order == 0
            case .greaterThanOrEqual: order >= 0
            case .greaterThan: order > 0
            case .notEqual: order != 0
            }
        }
    }

    /// The value kinds `salus_metadata` compares; its `kind` argument (the schema-1 value types).
    enum Kind: Int64 {
        /// Strings, by their UTF-8 bytes.
        case string = 0
        /// Numbers and booleans (0 and 1), as doubles; NaN matches nothing.
        case number = 1
        /// Dates, in microseconds.
        case date = 3
        /// Quantities, in their dimension's base unit; `dimension` must be equal.
        case quantity = 4
    }

    /// Units parsed by one connection's `salus_metadata`, by their text; used on the connection's
    /// one thread at a time.
    final class UnitCache {
        private var units: [String: SalusUnit?] = [:]

        /// `amount` of the unit spelled `text` in its dimension's base unit with the dimension,
        /// as the schema-1 column held it (`BaseUnit.normalize`), or nil.
        func normalize(_ amount: Double, unit text: String) -> (value: Double, dimension: String)? {
            let unit: SalusUnit?
            if let known = units[text] {
                unit = known
            } else {
                unit = try? SalusUnit(parsing: text)
                if units.count > 1_000 { units.removeAll() }
                units[text] = .some(unit)
            }
            return unit.flatMap { BaseUnit.normalize(Quantity(value: amount, unit: $0)) }
        }
    }

    /// Registers the functions on `handle`; the SQLite result code.
    static func register(_ handle: OpaquePointer?) -> Int32 {
        let cache = Unmanaged.passRetained(UnitCache()).toOpaque()
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        var result = sqlite3_create_function_v2(
            handle, "salus_metadata", 6, flags, cache,
            { context, _, values in SQLFunctions.metadataTest(context, values) }, nil, nil,
            { pointer in if let pointer { Unmanaged<UnitCache>.fromOpaque(pointer).release() } })
        guard result == SQLITE_OK else { return result }
        result = sqlite3_create_function_v2(
            handle, "salus_metadata_value", 2, flags, nil,
            { context, _, values in SQLFunctions.metadataValue(context, values) }, nil, nil, nil)
        guard result == SQLITE_OK else { return result }
        result = sqlite3_create_function_v2(
            handle, "salus_metadata_rows", 5, flags, nil, nil,
            { context, _, values in SQLFunctions.metadataRowsStep(context, values) },
            { context in SQLFunctions.metadataRowsFinal(context) }, nil)
        guard result == SQLITE_OK else { return result }
        return SampleUUIDs.register(handle)
    }

    private static func bytes(_ value: OpaquePointer?) -> UnsafeRawBufferPointer? {
        guard sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        // The pointer first, then its size (SQLite's order: a conversion would change both).
        let pointer = sqlite3_value_blob(value)
        let count = Int(sqlite3_value_bytes(value))
        guard count > 0, let pointer else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: count)
    }

    private static func text(_ value: OpaquePointer?) -> UnsafeRawBufferPointer? {
        guard sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        let pointer = sqlite3_value_text(value)
        let count = Int(sqlite3_value_bytes(value))
        guard count > 0, let pointer else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: pointer, count: count)
    }

    private static func order<T: Comparable>(_ stored: T, _ compared: T) -> Int {
        stored < compared ? -1 : stored == compared ? 0 : 1
    }

    /// A stored number against a compared one, as SQL compares REAL values: NaN (stored as
    /// NULL) and NULL match nothing.
    private static func compare(_ stored: Double, _ compared: OpaquePointer?, _ operation: Operation) -> Bool {
        guard !stored.isNaN, sqlite3_value_type(compared) != SQLITE_NULL else { return false }
        return operation.holds(order(stored, sqlite3_value_double(compared)))
    }

    private static func metadataTest(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values else { return sqlite3_result_int(context, 0) }
        guard let blob = bytes(values[0]), let key = text(values[1]) else { return sqlite3_result_int(context, 0) }
        let operation = Operation(rawValue: sqlite3_value_int64(values[2])) ?? .exists
        let stored: MetadataBlob.Stored?
        do {
            stored = try MetadataBlob.lookup(blob, key: key)
        } catch {
            return sqlite3_result_error(context, "stored sample metadata is damaged: \(error)", -1)
        }
        guard let stored else { return sqlite3_result_int(context, 0) }
        if operation == .exists { return sqlite3_result_int(context, 1) }
        let kind = Kind(rawValue: sqlite3_value_int64(values[3]))
        let compared = values[4]
        var matches = false
        switch (kind, stored) {
        case (.string?, .string(let text)):
            let other = self.text(compared) ?? UnsafeRawBufferPointer(start: nil, count: 0)
            let order =
                text.lexicographicallyPrecedes(other) ? -1 : text.elementsEqual(other) ? 0 : 1
            matches = operation.holds(order)
        case (.number?, .number(let number)):
            matches = compare(number, compared, operation)
        case (.number?, .bool(let flag)):
            matches = compare(flag ? 1 : 0, compared, operation)
        case (.date?, .date(let microseconds)):
            matches = sqlite3_value_type(compared) != SQLITE_NULL
                && operation.holds(order(microseconds, sqlite3_value_int64(compared)))
        case (.quantity?, .quantity(let amount, let unitBytes)):
            let cache = Unmanaged<UnitCache>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
            let unitText = unitBytes.map { String(decoding: $0, as: UTF8.self) } ?? "count"
            if let (base, dimension) = cache.normalize(amount, unit: unitText), !base.isNaN,
                let wanted = text(values[5]), dimension.utf8.elementsEqual(wanted),
                sqlite3_value_type(compared) != SQLITE_NULL
            {
                matches = operation.holds(order(base, sqlite3_value_double(compared)))
            }
        default:
            matches = false
        }
        sqlite3_result_int(context, matches ? 1 : 0)
    }

    private static func metadataValue(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let blob = bytes(values[0]), let key = text(values[1]) else { return sqlite3_result_null(context) }
        do {
            switch try MetadataBlob.lookup(blob, key: key) {
            case nil: sqlite3_result_null(context)
            case .string(let text)?:
                if let base = text.baseAddress {
                    sqlite3_result_text(context, base.assumingMemoryBound(to: CChar.self), Int32(text.count), transient)
                } else {
                    sqlite3_result_text(context, "", 0, transient)
                }
            case .number(let number)?: sqlite3_result_double(context, number)
            case .bool(let flag)?: sqlite3_result_int(context, flag ? 1 : 0)
            case .date(let microseconds)?: sqlite3_result_int64(context, microseconds)
            case .quantity(let amount, _)?: sqlite3_result_double(context, amount)
            }
        } catch {
            sqlite3_result_error(context, "stored sample metadata is damaged: \(error)", -1)
        }
    }

    /// SQLite's SQLITE_TRANSIENT: the result is copied before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// The rows of one sample gathered by `salus_metadata_rows`.
    private final class Rows {
        var entries: [(key: [UInt8], type: Int64, text: [UInt8]?, number: Double, quantity: Double)] = []
    }

    private static func rows(_ context: OpaquePointer?, create: Bool) -> Rows? {
        let size = Int32(create ? MemoryLayout<UnsafeMutableRawPointer?>.size : 0)
        guard let slot = sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
        else { return nil }
        if let existing = slot.pointee { return Unmanaged<Rows>.fromOpaque(existing).takeUnretainedValue() }
        guard create else { return nil }
        let rows = Rows()
        slot.pointee = Unmanaged.passRetained(rows).toOpaque()
        return rows
    }

    private static func metadataRowsStep(_ context: OpaquePointer?, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
        guard let values, let rows = rows(context, create: true) else {
            return sqlite3_result_error_nomem(context)
        }
        rows.entries.append(
            (
                key: text(values[0]).map { Array($0) } ?? [], type: sqlite3_value_int64(values[1]),
                text: text(values[2]).map { Array($0) }, number: sqlite3_value_double(values[3]),
                quantity: sqlite3_value_double(values[4])
            ))
    }

    private static func metadataRowsFinal(_ context: OpaquePointer?) {
        let size = Int32(0)
        guard let slot = sqlite3_aggregate_context(context, size)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self),
            let pointer = slot.pointee
        else { return sqlite3_result_null(context) }
        let rows = Unmanaged<Rows>.fromOpaque(pointer).takeRetainedValue()
        slot.pointee = nil
        guard !rows.entries.isEmpty else { return sqlite3_result_null(context) }
        rows.entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
        var out = ProtoBytes(capacity: 64 * rows.entries.count)
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        for entry in rows.entries {
            entry.key.withUnsafeBytes { key in
                switch entry.type {
                case 0:
                    (entry.text ?? []).withUnsafeBytes { MetadataBlob.write(key: key, value: .string($0.count == 0 ? empty : $0), into: &out) }
                case 1: MetadataBlob.write(key: key, value: .number(entry.number), into: &out)
                case 2: MetadataBlob.write(key: key, value: .bool(entry.number != 0), into: &out)
                case 3:
                    let microseconds = StoredTime.microseconds(Date(timeIntervalSince1970: entry.number))
                    MetadataBlob.write(key: key, value: .date(microseconds), into: &out)
                default:
                    if let text = entry.text {
                        text.withUnsafeBytes { MetadataBlob.write(key: key, value: .quantity(entry.quantity, $0), into: &out) }
                    } else {
                        MetadataBlob.write(key: key, value: .quantity(entry.quantity, nil), into: &out)
                    }
                }
            }
        }
        let blob = out.array
        blob.withUnsafeBytes { raw in
            sqlite3_result_blob(context, raw.baseAddress, Int32(raw.count), transient)
        }
    }
}
