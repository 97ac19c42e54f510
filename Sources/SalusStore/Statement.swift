import CSQLite
import Foundation

/// A value bound to a statement parameter or read from a column.
package enum SQLValue: Hashable, Sendable {
    /// SQL NULL.
    case null
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// A UUID as its 16 bytes.
    package static func uuid(_ uuid: UUID) -> SQLValue {
        .blob(withUnsafeBytes(of: uuid.uuid) { Array($0) })
    }

    /// An optional string: `.text` or `.null`.
    package static func optional(_ text: String?) -> SQLValue {
        text.map { .text($0) } ?? .null
    }

    /// An optional double: `.real` or `.null`.
    package static func optional(_ number: Double?) -> SQLValue {
        number.map { .real($0) } ?? .null
    }

    /// An optional integer: `.integer` or `.null`.
    package static func optional(_ number: Int64?) -> SQLValue {
        number.map { .integer($0) } ?? .null
    }
}

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared SQLite statement, owned by the `Database` that prepared it.
///
/// Use it on the connection's queue only, and `reset()` it when done with its rows.
package final class Statement {
    private let pointer: OpaquePointer
    private unowned let database: Database
    /// The statement's SQL.
    package let sql: String

    init(pointer: OpaquePointer, database: Database, sql: String) {
        self.pointer = pointer
        self.database = database
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(pointer)
    }

    /// Binds `values` to parameters 1, 2, … in order.
    package func bind(_ values: [SQLValue]) throws(DatabaseError) {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the parameter at `index` (1-based).
    package func bind(_ value: SQLValue, at index: Int32) throws(DatabaseError) {
        let result: Int32
        switch value {
        case .null: result = sqlite3_bind_null(pointer, index)
        case .integer(let number): result = sqlite3_bind_int64(pointer, index, number)
        case .real(let number): result = sqlite3_bind_double(pointer, index, number)
        case .text(let text): result = sqlite3_bind_text(pointer, index, text, -1, transient)
        case .blob(let bytes):
            result = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_blob(pointer, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), transient)
            }
        }
        guard result == SQLITE_OK else {
            throw DatabaseError(
                code: result, message: database.errorMessage, context: "binding parameter \(index) of \(sql.prefix(80))")
        }
    }

    /// Binds an integer, or NULL for nil, to the parameter at `index` (1-based), with no
    /// `SQLValue` in between: for the hot insert of a batch save.
    package func bind(integer value: Int64?, at index: Int32) throws(DatabaseError) {
        try check(value.map { sqlite3_bind_int64(pointer, index, $0) } ?? sqlite3_bind_null(pointer, index), index)
    }

    /// Binds a double, or NULL for nil.
    package func bind(real value: Double?, at index: Int32) throws(DatabaseError) {
        try check(value.map { sqlite3_bind_double(pointer, index, $0) } ?? sqlite3_bind_null(pointer, index), index)
    }

    /// Binds a string, or NULL for nil.
    package func bind(text value: String?, at index: Int32) throws(DatabaseError) {
        guard var value else { return try check(sqlite3_bind_null(pointer, index), index) }
        let result = value.withUTF8 { utf8 in
            sqlite3_bind_text(
                pointer, index, UnsafeRawPointer(utf8.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                    .assumingMemoryBound(to: CChar.self), Int32(utf8.count), transient)
        }
        try check(result, index)
    }

    /// Binds a UUID's 16 bytes as a blob, copied by SQLite from the stack.
    package func bind(uuid: UUID, at index: Int32) throws(DatabaseError) {
        var raw = uuid.uuid
        let result = withUnsafeBytes(of: &raw) { sqlite3_bind_blob(pointer, index, $0.baseAddress, 16, transient) }
        try check(result, index)
    }

    @inline(__always)
    private func check(_ result: Int32, _ index: Int32) throws(DatabaseError) {
        guard result == SQLITE_OK else { throw bindingError(result, index) }
    }

    @inline(never)
    private func bindingError(_ result: Int32, _ index: Int32) -> DatabaseError {
        DatabaseError(code: result, message: database.errorMessage, context: "binding parameter \(index) of \(sql.prefix(80))")
    }

    /// Binds UTF-8 `text` (copied by SQLite) to the parameter at `index` (1-based), without
    /// making a Swift string of it.
    package func bindText(_ text: UnsafeRawBufferPointer, at index: Int32) throws(DatabaseError) {
        let base = text.baseAddress?.assumingMemoryBound(to: CChar.self) ?? UnsafePointer<CChar>(bitPattern: 1)
        let result = sqlite3_bind_text(pointer, index, base, Int32(text.count), transient)
        guard result == SQLITE_OK else {
            throw DatabaseError(
                code: result, message: database.errorMessage, context: "binding parameter \(index) of \(sql.prefix(80))")
        }
    }

    /// Steps to the next row: true when a row is available, false when done.
    package func step() throws(DatabaseError) -> Bool {
        let result = sqlite3_step(pointer)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            throw DatabaseError(code: result, message: database.errorMessage, context: "running \(sql.prefix(120))")
        }
    }

    /// The virtual-machine instructions this statement has run since it was prepared: how much
    /// work a query did, whatever the machine's speed.
    package var instructionsRun: Int {
        Int(sqlite3_stmt_status(pointer, SQLITE_STMTSTATUS_VM_STEP, 0))
    }

    /// Resets the statement for another run and clears its bindings.
    package func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
    }

    /// Whether column `index` of the current row is NULL.
    package func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(pointer, index) == SQLITE_NULL
    }

    /// Whether column `index` of the current row holds an integer (its storage class).
    package func isInteger(_ index: Int32) -> Bool {
        sqlite3_column_type(pointer, index) == SQLITE_INTEGER
    }

    /// The storage class of a column's value.
    package enum ColumnType: Sendable {
        case integer, real, text, blob, null
    }

    /// The storage class of column `index` of the current row.
    package func type(_ index: Int32) -> ColumnType {
        switch sqlite3_column_type(pointer, index) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// Column `index` as an integer.
    package func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(pointer, index)
    }

    /// Column `index` as a double.
    package func double(_ index: Int32) -> Double {
        sqlite3_column_double(pointer, index)
    }

    /// Column `index` as text, nil when NULL.
    package func text(_ index: Int32) -> String? {
        guard let text = sqlite3_column_text(pointer, index) else { return nil }
        return String(cString: text)
    }

    /// Column `index` as bytes, nil when NULL.
    package func blob(_ index: Int32) -> [UInt8]? {
        guard sqlite3_column_type(pointer, index) != SQLITE_NULL else { return nil }
        let count = Int(sqlite3_column_bytes(pointer, index))
        guard count > 0, let bytes = sqlite3_column_blob(pointer, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// How many bytes column `index` holds as text or blob (0 for NULL).
    package func byteCount(_ index: Int32) -> Int {
        Int(sqlite3_column_bytes(pointer, index))
    }

    /// Column `index`'s bytes (a text's UTF-8 or a blob's bytes) in SQLite's own buffer: no copy,
    /// valid until the statement steps or resets. Nil when NULL.
    package func rawBytes(_ index: Int32) -> UnsafeRawBufferPointer? {
        guard let bytes = sqlite3_column_blob(pointer, index) else {
            // A zero-length blob or text is a null pointer too; only NULL is nil.
            return sqlite3_column_type(pointer, index) == SQLITE_NULL ? nil : UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(pointer, index)))
    }

    /// The same as `rawBytes` for a column that is mostly NULL (a row's unit, metadata, sync
    /// identifier): the storage class is asked first, so a NULL costs one call into SQLite, not
    /// two (each call checks the statement and its column; a day's query on the 20M store makes
    /// about 20 of them a row).
    @inline(__always) package func rawBytesUnlessNull(_ index: Int32) -> UnsafeRawBufferPointer? {
        guard sqlite3_column_type(pointer, index) != SQLITE_NULL else { return nil }
        guard let bytes = sqlite3_column_blob(pointer, index) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(pointer, index)))
    }

    /// Column `index` as a UUID, nil when NULL or not 16 bytes.
    package func uuid(_ index: Int32) -> UUID? {
        guard sqlite3_column_type(pointer, index) == SQLITE_BLOB,
            sqlite3_column_bytes(pointer, index) == 16,
            let bytes = sqlite3_column_blob(pointer, index)
        else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: 16)) }
        return UUID(uuid: value)
    }
}
