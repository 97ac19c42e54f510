import CSQLite
import Foundation
import SalusProtoCodec

/// Migration 14's fold of a schema-13 store's `metadata` rows into each sample's metadata bytes,
/// for the copy that writes the store anew (`Schema.rebuild`): one walk of the `metadata` table in
/// its key order, (sample, key), beside the copy's walk of `samples` in row-id order, instead of
/// a lookup and an aggregate per row (`salus_metadata_rows` in a correlated subquery: 0.13 s of
/// seeks and the aggregate's copies per 200,000 rows).
///
/// `salus_metadata_fold(id)` gives the bytes `MetadataBlob` makes of sample `id`'s rows (keys in
/// byte order, as the table's own order and the aggregate's sort give them), or NULL when it has
/// none. Asked for ids in increasing order it only steps its cursor forward; asked for a lower
/// id, it seeks again, so any order gives the right answer.
final class MetadataFold {
    private var statement: OpaquePointer?
    /// The sample id of the row the cursor stands on; nil past the last row or before the first seek.
    private var current: Int64?
    private var asked: Int64 = .max
    private var out = ProtoBytes(capacity: 256)

    /// Prepares the walk of `schema`'s `metadata` table on `database`.
    init(_ database: Database, schema: String) throws(DatabaseError) {
        let sql = "SELECT sample_id, key, value_type, text_value, number_value, quantity_value FROM \(schema).metadata "
            + "WHERE sample_id >= ? ORDER BY sample_id, key"
        let result = sqlite3_prepare_v2(database.rawHandle, sql, -1, &statement, nil)
        guard result == SQLITE_OK else {
            throw DatabaseError(code: result, message: database.errorMessage, context: "preparing \(sql)")
        }
    }

    deinit { sqlite3_finalize(statement) }

    /// Ends the walk: finalizes its statement, which must go before its connection closes (a
    /// connection closed with a statement left open stays open until it is finalized) and
    /// before the schema it reads is detached. The function answers NULL after.
    func finish() {
        sqlite3_finalize(statement)
        statement = nil
        current = nil
        asked = .min
    }

    /// Registers `salus_metadata_fold` on `database`, calling `fold`; the connection keeps it
    /// until it closes.
    static func register(_ fold: MetadataFold, on database: Database) throws(DatabaseError) {
        let result = sqlite3_create_function_v2(
            database.rawHandle, "salus_metadata_fold", 1, SQLITE_UTF8, Unmanaged.passRetained(fold).toOpaque(),
            { context, _, values in
                let fold = Unmanaged<MetadataFold>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
                fold.answer(context, sqlite3_value_int64(values?[0]))
            }, nil, nil,
            { pointer in if let pointer { Unmanaged<MetadataFold>.fromOpaque(pointer).release() } })
        guard result == SQLITE_OK else {
            throw DatabaseError(code: result, message: database.errorMessage, context: "registering salus_metadata_fold")
        }
    }

    /// Steps the cursor to its next row; false (and an error result) when SQLite fails.
    private func step(_ context: OpaquePointer?) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW:
            current = sqlite3_column_int64(statement, 0)
            return true
        case SQLITE_DONE:
            current = nil
            return true
        case let code:
            current = nil
            sqlite3_result_error_code(context, code)
            return false
        }
    }

    private func answer(_ context: OpaquePointer?, _ id: Int64) {
        guard statement != nil else { return sqlite3_result_null(context) }
        if id < asked {
            sqlite3_reset(statement)
            sqlite3_bind_int64(statement, 1, id)
            guard step(context) else { return }
        }
        asked = id
        while let row = current, row < id { guard step(context) else { return } }
        guard current == id else { return sqlite3_result_null(context) }
        out.removeAll()
        while current == id {
            write()
            guard step(context) else { return }
        }
        out.withBytes { raw in
            sqlite3_result_blob(context, raw.baseAddress, Int32(raw.count), MetadataFold.transient)
        }
    }

    /// The entry of the cursor's row, as `salus_metadata_rows` writes it.
    private func write() {
        func text(_ column: Int32) -> UnsafeRawBufferPointer? {
            guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
            let pointer = sqlite3_column_text(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            return UnsafeRawBufferPointer(start: count > 0 ? pointer : nil, count: count)
        }
        let key = text(1) ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let number = sqlite3_column_double(statement, 4)
        switch sqlite3_column_int64(statement, 2) {
        case 0: MetadataBlob.write(key: key, value: .string(text(3) ?? UnsafeRawBufferPointer(start: nil, count: 0)), into: &out)
        case 1: MetadataBlob.write(key: key, value: .number(number), into: &out)
        case 2: MetadataBlob.write(key: key, value: .bool(number != 0), into: &out)
        case 3:
            let microseconds = StoredTime.microseconds(Date(timeIntervalSince1970: number))
            MetadataBlob.write(key: key, value: .date(microseconds), into: &out)
        default:
            MetadataBlob.write(key: key, value: .quantity(sqlite3_column_double(statement, 5), text(3)), into: &out)
        }
    }

    /// SQLite's SQLITE_TRANSIENT: the result is copied before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
