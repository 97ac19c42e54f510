import CSQLite
import Foundation
import Synchronization

/// An error from SQLite: the result code, SQLite's message and what was being done.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    public var code: Int32
    public var message: String
    public var context: String

    public var description: String { "\(context): \(message) (SQLite code \(code))" }
}

/// One SQLite connection to the store's file, in WAL mode.
///
/// A connection is used by one task at a time; the store keeps one writer and several
/// readers.
public final class Database: @unchecked Sendable {
    private var handle: OpaquePointer?
    public let path: String

    /// Opens (creating when `create`) the database at `path` and switches it to WAL.
    public init(path: String, create: Bool = true, readOnly: Bool = false) throws {
        self.path = path
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        flags |= SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            handle = nil
            throw DatabaseError(code: result, message: message, context: "opening \(path)")
        }
        sqlite3_busy_timeout(handle, 5_000)
        if !readOnly {
            try execute("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=NORMAL")
        }
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &error)
        if result != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "error"
            sqlite3_free(error)
            throw DatabaseError(code: result, message: message, context: "executing \(sql.prefix(80))")
        }
    }

    /// The first column of the first row of `sql`, as text.
    public func scalarText(_ sql: String) throws -> String? {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK else {
            throw DatabaseError(code: prepared, message: String(cString: sqlite3_errmsg(handle)), context: "preparing \(sql.prefix(80))")
        }
        defer { sqlite3_finalize(statement) }
        let step = sqlite3_step(statement)
        guard step == SQLITE_ROW else { return nil }
        return sqlite3_column_text(statement, 0).map { String(cString: $0) }
    }

    /// Closes the connection; later use fails.
    public func close() {
        sqlite3_close_v2(handle)
        handle = nil
    }
}
