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
///
/// Given the store's file (`ahead`), the increasing walk runs on a thread of its own with its own
/// read connection (`MetadataFoldAhead`), so the fold's reads and encoding (about a second per
/// million samples) overlap the copy on a second core; a lower id than one already asked is
/// still answered by the seek on `database`.
final class MetadataFold {
    private var statement: OpaquePointer?
    /// The sample id of the row the cursor stands on; nil past the last row or before the first seek.
    private var current: Int64?
    private var asked: Int64 = .max
    private var out = ProtoBytes(capacity: 256)
    /// The walk ahead on its own thread, and the highest id asked of it.
    private var ahead: MetadataFoldAhead?
    private var aheadAsked: Int64 = .min

    /// Prepares the walk of `schema`'s `metadata` table on `database`; with `ahead`, the path of
    /// the file `schema` is, the increasing walk runs on a thread reading that file.
    init(_ database: Database, schema: String, ahead path: String? = nil) throws(DatabaseError) {
        let sql = "SELECT sample_id, key, value_type, text_value, number_value, quantity_value FROM \(schema).metadata "
            + "WHERE sample_id >= ? ORDER BY sample_id, key"
        let result = sqlite3_prepare_v2(database.rawHandle, sql, -1, &statement, nil)
        guard result == SQLITE_OK else {
            throw DatabaseError(code: result, message: database.errorMessage, context: "preparing \(sql)")
        }
        if let path { ahead = try MetadataFoldAhead(path: path) }
    }

    deinit {
        ahead?.stop()
        sqlite3_finalize(statement)
    }

    /// Ends the walk: stops the thread ahead (its connection closed) and finalizes the
    /// statement, which must go before its connection closes (a connection closed with a
    /// statement left open stays open until it is finalized) and before the schema it reads is
    /// detached. The function answers NULL after.
    func finish() {
        ahead?.stop()
        ahead = nil
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
        if let ahead, id > aheadAsked {
            aheadAsked = id
            return ahead.answer(context, id)
        }
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
            MetadataFold.write(statement, into: &out)
            guard step(context) else { return }
        }
        out.withBytes { raw in
            sqlite3_result_blob(context, raw.baseAddress, Int32(raw.count), MetadataFold.transient)
        }
    }

    /// The entry of `statement`'s row (the walk's columns), as `salus_metadata_rows` writes it.
    static func write(_ statement: OpaquePointer?, into out: inout ProtoBytes) {
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
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// `MetadataFold`'s walk in increasing sample order on a thread of its own, with its own read
/// connection to the store's file: it encodes each sample's metadata and hands them over in
/// batches of `batchSamples` samples, at most `queued` batches ahead of the copy. The store is
/// locked for writing by the migration meanwhile (`Schema.rebuild`), so this connection reads
/// what the copy reads. An error of the walk fails the copy's statement with its message.
final class MetadataFoldAhead: @unchecked Sendable {
    /// Samples' encoded metadata: `ids[i]`'s bytes end at `ends[i]` in `data`.
    final class Batch {
        var ids: [Int64] = []
        var ends: [Int] = []
        var data = ProtoBytes(capacity: 1 << 18)
    }

    static let batchSamples = 4096
    static let queued = 4

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var ready: [Batch] = []
    private var done = false
    private var failure: String?
    private var stopping = false
    private var exited = false
    // The consumer's (the copy's thread).
    private var batch: Batch?
    private var index = 0

    /// Opens a read connection to `path` (throwing if it cannot) and starts the walk.
    init(path: String) throws(DatabaseError) {
        let reader = try Database(path: path, create: false, readOnly: true)
        let sql = "SELECT sample_id, key, value_type, text_value, number_value, quantity_value FROM metadata "
            + "ORDER BY sample_id, key"
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v2(reader.rawHandle, sql, -1, &statement, nil)
        guard result == SQLITE_OK else {
            let error = DatabaseError(code: result, message: reader.errorMessage, context: "preparing \(sql)")
            reader.close()
            throw error
        }
        let walk = WalkStatement(statement)
        let thread = Thread { [self] in
            produce(walk.statement)
            sqlite3_finalize(walk.statement)
            reader.close()
            condition.lock()
            exited = true
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "salus-metadata-fold"
        thread.start()
    }

    /// The prepared walk, handed to the thread that alone steps it.
    private struct WalkStatement: @unchecked Sendable {
        let statement: OpaquePointer?
        init(_ statement: OpaquePointer?) { self.statement = statement }
    }

    /// Stops the walk and waits for its thread to close its connection.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !exited { condition.wait() }
        ready.removeAll()
        condition.unlock()
        batch = nil
    }

    /// Queues `batch`, waiting while `queued` are waiting; false when stopped.
    private func hand(_ batch: Batch) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while ready.count >= MetadataFoldAhead.queued && !stopping { condition.wait() }
        guard !stopping else { return false }
        ready.append(batch)
        condition.broadcast()
        return true
    }

    private func produce(_ statement: OpaquePointer?) {
        var current = Batch()
        var sample: Int64?
        var failed: String?
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                failed = "folding the metadata of the store: " + String(cString: sqlite3_errstr(code))
                break
            }
            let id = sqlite3_column_int64(statement, 0)
            if let last = sample, last != id {
                current.ids.append(last)
                current.ends.append(current.data.count)
                if current.ids.count >= MetadataFoldAhead.batchSamples {
                    guard hand(current) else { return }
                    current = Batch()
                }
            }
            sample = id
            MetadataFold.write(statement, into: &current.data)
        }
        if failed == nil, let last = sample {
            current.ids.append(last)
            current.ends.append(current.data.count)
        }
        if failed == nil, !current.ids.isEmpty { guard hand(current) else { return } }
        condition.lock()
        failure = failed
        done = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sample `id`'s metadata as the function's result (NULL when it has none); ids asked in
    /// increasing order.
    func answer(_ context: OpaquePointer?, _ id: Int64) {
        while true {
            if let batch, index < batch.ids.count {
                let found = batch.ids[index]
                if found < id {
                    index += 1
                    continue
                }
                guard found == id else { return sqlite3_result_null(context) }
                let start = index == 0 ? 0 : batch.ends[index - 1]
                let end = batch.ends[index]
                index += 1
                batch.data.withBytes { raw in
                    sqlite3_result_blob(
                        context, raw.baseAddress.map { $0 + start }, Int32(end - start), MetadataFold.transient)
                }
                return
            }
            condition.lock()
            while ready.isEmpty && !done && !stopping { condition.wait() }
            guard !ready.isEmpty else {
                let failed = failure
                condition.unlock()
                batch = nil
                index = 0
                if let failed { return sqlite3_result_error(context, failed, -1) }
                return sqlite3_result_null(context)
            }
            batch = ready.removeFirst()
            index = 0
            condition.broadcast()
            condition.unlock()
        }
    }
}
