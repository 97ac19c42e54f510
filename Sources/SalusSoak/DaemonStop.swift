#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SalusSpawn

/// A daemon's stop as the owner sees it: SIGTERM, then an exit with status 0 within a time and
/// nothing on its standard error that says it crashed.
///
/// Why it is checked after load: a daemon stopped after a few minutes exited cleanly while two
/// that had served for 40 minutes crashed right after logging "stopped"; only a stop after
/// real work finds what shutdown leaves running.
package struct DaemonStop: Sendable, Equatable {
    /// How the daemon ended; nil when it had not ended in time (it is killed then).
    package var termination: ChildProcess.Termination?
    /// Seconds from SIGTERM to its end.
    package var seconds: Double
    /// Lines of its log that report a crash (a signal, a trap, a backtrace).
    package var crashLines: [String]

    /// Exit status 0 and no crash reported.
    package var passed: Bool { termination == .exited(0) && crashLines.isEmpty }

    /// One line: how it ended and in how long, with the crash lines after it.
    package var summary: String {
        let ended = termination.map { "\($0)" } ?? "no exit (killed with SIGKILL)"
        var text = String(format: "stop: SIGTERM → %@ in %.2f s", ended, seconds)
        if !crashLines.isEmpty { text += "; crash reported:\n" + crashLines.prefix(20).map { "  " + $0 }.joined(separator: "\n") }
        return text
    }

    /// Sends SIGTERM to `daemon`, waits up to `timeout` for it to exit (SIGKILL after), and
    /// reads `logPath` (its standard error) for crash reports.
    package static func stop(_ daemon: ChildProcess, logPath: String, timeout: Duration = .seconds(30)) async -> DaemonStop {
        let started = ContinuousClock.now
        daemon.send(SIGTERM)
        while daemon.ended == nil, ContinuousClock.now - started < timeout {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let termination = daemon.ended
        if termination == nil {
            daemon.send(SIGKILL)
            _ = daemon.waitUntilExit()
        }
        let elapsed = ContinuousClock.now - started
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return DaemonStop(
            termination: termination,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            crashLines: crashLines(in: log))
    }

    /// The lines of a daemon's log that report a crash: Swift's backtracer ("💣 Program
    /// crashed", "Thread N crashed", "Fatal error"), a trap, or a shell's "Segmentation fault".
    package static func crashLines(in log: String) -> [String] {
        let markers = [
            "Program crashed", "crashed:", "Fatal error", "Segmentation fault", "Bad pointer dereference", "Illegal instruction",
            "Aborted", "Trace/breakpoint trap", "Current stack trace", "Stack dump",
        ]
        return log.split(separator: "\n", omittingEmptySubsequences: true).map(String.init).filter { line in
            markers.contains { line.contains($0) }
        }
    }
}
