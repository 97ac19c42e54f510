#include <sqlite3.h>

/// sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on): whether SQLite counts the memory it allocates.
/// Swift cannot call the variadic sqlite3_config itself. Takes effect only before SQLite's
/// first connection opens (SQLITE_MISUSE after).
static inline int salus_sqlite3_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}
