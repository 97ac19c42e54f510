import CSalusMalloc

/// How many malloc arenas the daemon keeps.
///
/// **Rule: one arena, unless `MALLOC_ARENA_MAX` says otherwise.** glibc gives each thread that
/// meets contention an arena of its own, up to eight per core, and memory freed in one arena is
/// not reused by another; the daemon's event loop, store queues and the concurrency pool then
/// hold several partly empty arenas. Fewer keep the peak resident memory of the store benchmark at
/// 61 MiB instead of 66 with no change in throughput; with two, four FIT folder imports in
/// eighteen held 10-17 MiB more than the others (salusd 73-80 MiB against 63), with one none did
/// in nine, at the same CPU (docs/reliability.md, "Malloc arenas"). A person who sets
/// `MALLOC_ARENA_MAX` decides instead.
package enum MallocArenas {
    /// The arenas the daemon asks for.
    package static let count: Int32 = 1

    /// Limits the arenas to ``count`` unless `environment` sets `MALLOC_ARENA_MAX` (glibc reads
    /// that itself); returns the limit applied, or nil when none was.
    @discardableResult
    package static func limit(environment: [String: String]) -> Int32? {
        if let given = environment["MALLOC_ARENA_MAX"], !given.isEmpty { return nil }
        return salus_malloc_arena_max(count) == 1 ? count : nil
    }
}
