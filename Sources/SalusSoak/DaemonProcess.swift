#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What the tools that run a salusd of their own (`make soak`, `make bench`) share: the bundled
/// plugins copied beside it, and the daemon stopped when the tool is interrupted or crashes.
package enum DaemonProcess {
    /// The bundled plugins, as `--plugins-dir` expects them.
    package static let bundledPlugins = [
        "SalusCore", "SalusSleep", "SalusReproductive", "SalusMobility", "SalusVision", "SalusWheelchair",
        "SalusVitals", "SalusNutrition", "SalusHearing", "SalusSymptoms", "SalusLab", "SalusMindfulness", "SalusClinical",
    ]

    /// Copies the bundled plugins built in `binDirectory` into `folder`, created when missing.
    package static func copyBundledPlugins(from binDirectory: URL, to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in bundledPlugins {
            try FileManager.default.copyItem(
                atPath: binDirectory.appendingPathComponent("lib\(name).so").path, toPath: "\(folder)/lib\(name).so")
        }
    }

    /// Stops `pid` with SIGTERM if this process is interrupted or crashes (a failed precondition
    /// traps), so that its salusd does not live on.
    package static func stopOnExit(_ pid: pid_t) {
        watchedPID = pid
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGSEGV] {
            signal(signalNumber) { received in
                if watchedPID > 0 { kill(watchedPID, SIGTERM) }
                signal(received, SIG_DFL)
                raise(received)
            }
        }
    }
}

/// The daemon's pid, for the signal handlers.
nonisolated(unsafe) private var watchedPID: pid_t = 0
