#include <sqlite3.h>

/// Sets how many bytes a statement journal (the undo of one statement inside a transaction)
/// holds in memory before SQLite moves it to a temporary file (SQLITE_CONFIG_STMTJRNL_SPILL;
/// SQLite's default is 64 KiB). sqlite3_config is variadic, so Swift calls it through here.
/// Takes effect only before SQLite is first initialized; returns SQLITE_MISUSE after.
static inline int csqlite_statement_journal_spill(int bytes) {
    return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes);
}
