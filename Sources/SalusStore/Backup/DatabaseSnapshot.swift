import CSQLite
import Foundation

/// Copies of a live database and checks of a database file, without writing to the file.
///
/// Rules:
/// 1. A snapshot is taken with SQLite's online backup API from a connection that holds one read
///    transaction for the whole copy. Why: in WAL mode a reader never blocks the writer, so saves
///    go on while the copy is made, and every step reads the same committed state, so the copy is
///    one consistent moment (a backup that re-reads between steps restarts whenever another
///    connection commits, and may never finish under steady saves).
/// 2. Checks open the file read-only (`SQLITE_OPEN_READONLY`), and `immutable` when no WAL is
///    beside it. Why: a damaged file must stay as it is for whoever recovers it; a read-write
///    connection may checkpoint a WAL into it on close, and a read-only one on a WAL-mode file
///    creates its -wal and -shm files.
package enum DatabaseSnapshot {
    /// Copies the database at `source` into a new file `destination` (removed first when it
    /// exists), `pagesPerStep` pages at a time; `progress` gets (pages copied, pages in all)
    /// after each step.
    package static func copy(
        from source: String, to destination: String, pagesPerStep: Int32 = 256,
        progress: (Int, Int) -> Void = { _, _ in }
    ) throws(DatabaseError) {
        unlink(destination)
        let reader = try Database(path: source, create: false, readOnly: true)
        defer { reader.close() }
        let target = try Database(path: destination, create: true)
        defer { target.close() }
        try target.execute("PRAGMA journal_mode=DELETE")
        try reader.execute("BEGIN")
        defer { try? reader.execute("ROLLBACK") }
        // Starts the read transaction: the snapshot is the state committed at this moment.
        _ = try reader.scalarInt("SELECT count(*) FROM sqlite_schema")
        guard let backup = sqlite3_backup_init(target.rawHandle, "main", reader.rawHandle, "main") else {
            throw DatabaseError(code: sqlite3_errcode(target.rawHandle), message: target.errorMessage, context: "starting the backup of \(source)")
        }
        var result: Int32 = SQLITE_OK
        repeat {
            result = sqlite3_backup_step(backup, pagesPerStep)
            let total = Int(sqlite3_backup_pagecount(backup))
            progress(total - Int(sqlite3_backup_remaining(backup)), total)
            if result == SQLITE_BUSY || result == SQLITE_LOCKED { sqlite3_sleep(10) }
        } while result == SQLITE_OK || result == SQLITE_BUSY || result == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        guard result == SQLITE_DONE, finish == SQLITE_OK else {
            throw DatabaseError(
                code: result == SQLITE_DONE ? finish : result, message: target.errorMessage,
                context: "copying \(source) to \(destination)")
        }
        // A standalone file: no WAL beside it in the archive.
        try target.execute("PRAGMA journal_mode=DELETE")
    }

    /// What `PRAGMA quick_check` (or `integrity_check` when `full`) reports for the file at
    /// `path`, opened read-only: empty when the file is sound, else the problems, one a line
    /// (at most `limit`), or the error that kept the check from running.
    package static func problems(path: String, full: Bool, limit: Int = 10) -> [String] {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        // Without a WAL beside it the file is the whole database: `immutable` reads it without
        // creating the -wal and -shm files that a WAL-mode file otherwise gets on open.
        var location = path
        if !FileManager.default.fileExists(atPath: path + "-wal") {
            let escaped = path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
                .replacingOccurrences(of: "#", with: "%23")
            location = "file:" + escaped + "?immutable=1"
        }
        let opened = sqlite3_open_v2(location, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nil)
        guard opened == SQLITE_OK, let handle else {
            return ["cannot open: " + (handle.map { String(cString: sqlite3_errmsg($0)) } ?? "error \(opened)")]
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let sql = full ? "PRAGMA integrity_check(\(limit))" : "PRAGMA quick_check(\(limit))"
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            return [String(cString: sqlite3_errmsg(handle))]
        }
        var lines: [String] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_ROW {
                lines.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
            } else if step == SQLITE_DONE {
                break
            } else {
                lines.append(String(cString: sqlite3_errmsg(handle)))
                break
            }
        }
        return lines == ["ok"] ? [] : lines
    }
}
