import CSQLite
import Foundation

/// An error from SQLite: the result code, SQLite's message and what was being done.
package struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// SQLite's (extended) result code.
    package var code: Int32
    /// SQLite's message.
    package var message: String
    /// What was being done ("preparing SELECT …").
    package var context: String

    /// Creates a database error.
    package init(code: Int32, message: String, context: String) {
        self.code = code
        self.message = message
        self.context = context
    }

    /// "`context`: `message` (SQLite code `code`)".
    package var description: String { "\(context): \(message) (SQLite code \(code))" }
}

/// One SQLite connection to the store's file, in WAL mode.
///
/// **Rule: a connection is used by one thread at a time.** The store opens connections with
/// `SQLITE_OPEN_NOMUTEX` and confines each to its own serial queue (`ConnectionQueue`); code that
/// receives a `Database` inside a queue's closure must not keep it after the closure returns.
/// SQLite connections are not safe for concurrent use without its own mutexes, and prepared
/// statements cached here would be corrupted by two threads stepping them.
package final class Database: @unchecked Sendable {
    private var handle: OpaquePointer?
    private var statements: [String: Statement] = [:]
    /// Query statements whose text depends on the query's shape, most recently used last.
    private var recentStatements: [(sql: String, statement: Statement)] = []
    /// How many of those stay prepared.
    package static let recentStatementLimit = 16
    /// The file this connection opened.
    package let path: String
    /// The buffers wire pages read on this connection are encoded in, kept between pages
    /// (`WirePageBuilder`).
    let wirePages = WirePageBufferSlot()

    /// SQLite's process-wide settings, made before the first connection opens. SQLite does not
    /// count the memory it allocates (`SQLITE_CONFIG_MEMSTATUS` off): Salus never asks it, and
    /// the count took a global mutex around every allocation and free SQLite made, on every
    /// connection, about 5% of the writer's time in a batch save. Nothing to do when SQLite was
    /// already in use in the process (a tool that opened a database first).
    private static let configured: Void = {
        _ = salus_sqlite3_config_memstatus(0)
    }()

    /// Opens (creating when `create`) the database at `path` and switches it to WAL.
    ///
    /// A `readOnly` connection is opened read-write but with `PRAGMA query_only`, so that it can
    /// still take part in the WAL's shared-memory index.
    package init(path: String, create: Bool = true, readOnly: Bool = false) throws(DatabaseError) {
        _ = Self.configured
        self.path = path
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            handle = nil
            throw DatabaseError(code: result, message: message, context: "opening \(path)")
        }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 10_000)
        if readOnly {
            try execute("PRAGMA query_only=ON")
        } else {
            try execute("PRAGMA journal_mode=WAL")
            try execute("PRAGMA synchronous=NORMAL")
        }
        try execute("PRAGMA foreign_keys=ON")
        let registered = SQLFunctions.register(handle)
        guard registered == SQLITE_OK else {
            throw DatabaseError(code: registered, message: errorMessage, context: "registering the store's SQL functions on \(path)")
        }
    }

    deinit {
        statements.removeAll()
        recentStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that return no rows.
    package func execute(_ sql: String) throws(DatabaseError) {
        var error: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &error)
        if result != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? "error"
            sqlite3_free(error)
            throw DatabaseError(code: result, message: message, context: "executing \(sql.prefix(80))")
        }
    }

    /// The first column of the first row of `sql`, as text.
    package func scalarText(_ sql: String) throws(DatabaseError) -> String? {
        let statement = try prepare(sql, cached: false)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// The first column of the first row of `sql` with `arguments`, as an integer (nil for no
    /// row or NULL).
    package func scalarInt(_ sql: String, _ arguments: [SQLValue] = []) throws(DatabaseError) -> Int64? {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int64(0)
    }

    /// Runs `sql` with `arguments` and returns the number of rows it changed.
    @discardableResult
    package func run(_ sql: String, _ arguments: [SQLValue] = []) throws(DatabaseError) -> Int {
        let statement = try prepare(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        while try statement.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// A prepared statement for `sql`; cached ones are reused (reset, bindings cleared) and must
    /// be `reset()` by the user when done, before the same SQL is prepared again.
    package func prepare(_ sql: String, cached: Bool = true) throws(DatabaseError) -> Statement {
        if cached, let statement = statements[sql] {
            statement.reset()
            return statement
        }
        var pointer: OpaquePointer?
        let result = sqlite3_prepare_v3(
            handle, sql, -1, cached ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &pointer, nil)
        guard result == SQLITE_OK, let pointer else {
            throw DatabaseError(code: result, message: errorMessage, context: "preparing \(sql.prefix(120))")
        }
        let statement = Statement(pointer: pointer, database: self, sql: sql)
        if cached { statements[sql] = statement }
        return statement
    }

    /// `sql` prepared and reset, kept among the connection's `recentStatementLimit` most recently
    /// used query statements: for statements whose text varies with the query (its predicate,
    /// its sort, a page's keyset condition), which `prepare` would cache without bound. A page of
    /// a query prepares nothing when the page before it ran on the same connection; preparing
    /// took about a tenth of the CPU of a day's heart rate. The caller resets it when done.
    package func prepareRecent(_ sql: String) throws(DatabaseError) -> Statement {
        if let index = recentStatements.lastIndex(where: { $0.sql == sql }) {
            let entry = recentStatements.remove(at: index)
            recentStatements.append(entry)
            entry.statement.reset()
            return entry.statement
        }
        let statement = try prepare(sql, cached: false)
        if recentStatements.count == Self.recentStatementLimit { recentStatements.removeFirst() }
        recentStatements.append((sql, statement))
        return statement
    }

    /// The rowid of the last row inserted on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Whether a transaction is open on this connection.
    package var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` for writers, `BEGIN` for readers), commits
    /// when it returns and rolls back when it throws.
    package func transaction<T>(immediate: Bool, _ body: () throws -> T) throws -> T {
        try step(immediate ? "BEGIN IMMEDIATE" : "BEGIN")
        do {
            let value = try body()
            try step("COMMIT")
            return value
        } catch {
            if isInTransaction { try? execute("ROLLBACK") }
            throw error
        }
    }

    /// Runs `sql`, a statement that returns no rows, prepared once per connection: a read
    /// transaction per page made `BEGIN` and `COMMIT` worth keeping prepared.
    private func step(_ sql: String) throws(DatabaseError) {
        let statement = try prepare(sql)
        defer { statement.reset() }
        _ = try statement.step()
    }

    /// Interrupts the statement running on this connection (callable from any thread).
    package func interrupt() {
        sqlite3_interrupt(handle)
    }

    /// The sqlite3 handle, for the C APIs this type does not wrap (the online backup).
    var rawHandle: OpaquePointer? { handle }

    var errorMessage: String {
        handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed"
    }

    /// Closes the connection; later use fails.
    package func close() {
        statements.removeAll()
        recentStatements.removeAll()
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// Opens `path` again (read-write, as `init` does) on this connection after `close()`: the
    /// migration from schema 13–15 writes a new file and renames it over `path`, and the
    /// connection its caller holds must then read the new file, not the old one's unlinked inode.
    package func reopen() throws(DatabaseError) {
        if handle != nil { close() }
        let opened = try Database(path: path, create: false)
        handle = opened.handle
        opened.handle = nil
    }
}
