import Foundation

/// Starts child processes for every test module, one at a time.
///
/// Foundation's `Process.run()` on Linux is not safe to call from several threads at once: tests
/// running in parallel crashed inside it (a bad read in `memmove` while it prepared the spawn).
/// Spawning takes milliseconds, so every test that starts a process goes through `run(_:)`.
public enum ProcessLaunch {
    private static let lock = NSLock()

    /// Runs `process` while no other test is starting one; `prepare` runs first, on the same
    /// thread, under the same lock (to set this thread's signal mask, say).
    public static func run(_ process: Process, prepare: () -> (() -> Void)? = { nil }) throws {
        try lock.withLock {
            let restore = prepare()
            defer { restore?() }
            try process.run()
        }
    }
}
