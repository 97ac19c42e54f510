import CSalusSpawn

#if canImport(Glibc)
import Glibc
#endif

/// Replacing this process with another program (`salusctl launch`).
package enum Exec {
    /// Runs `program` (looked up in `PATH` as `execvp` does) with `arguments` (its name first)
    /// in place of this process, with no signal blocked or ignored; returns only when it cannot,
    /// with the `errno` of the failure.
    ///
    /// Why: a Swift program calls this from a thread of its concurrency pool, whose threads
    /// block nearly every signal, and SwiftNIO ignores SIGPIPE. An exec keeps both, so a program
    /// started plainly with `execvp` ignored Ctrl-C, `kill` and a closed pipe.
    package static func replaceProcess(program: String, arguments: [String]) -> Int32 {
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        csalus_reset_signals()
        execvp(program, cArguments)
        return errno
    }
}
