// `make soak`: many clients against one salusd (the salusd and bundled plugins built beside this
// program), or with --kills N the SIGKILL loop over salus-store-crashtest. Prints a table and
// PASS or FAIL; exits non-zero on FAIL.
#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import SalusRPC
import SalusSoak
import SalusSpawn

@main
struct SalusSoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salus-soak",
        abstract: "Load and kill tests for salusd and its store.",
        discussion: """
            Without --kills: starts salusd (built beside this program, with the bundled plugins, \
            --dev --authorization open, over a temporary folder) and runs CLIENTS clients for \
            DURATION seconds: saves in batches, sample queries, live anchored feeds, statistics \
            collections, connect-call-close churn and one client that stops reading its stream. \
            It passes with 0 errors, flat RSS and descriptors (the last window within 5% of the \
            one after warm-up), every live feed holding every change exactly once, and the \
            daemon, stopped with SIGTERM at the end, exiting with status 0 within 30 s and \
            reporting no crash on its standard error.

            With --kills N: runs salus-store-crashtest N times on one store, killing it with \
            SIGKILL at a random moment during saves, deletes, sync-identifier replacements, \
            workout finishes and attachment uploads, and checks the store after each kill: \
            PRAGMA integrity_check, every acknowledged change present, no partial one.
            """)

    @Option(help: "Concurrent clients (at least 6).")
    var clients = 64

    @Option(help: "Seconds the clients run.")
    var duration = 60.0

    @Option(help: "Seconds before the first flatness window.")
    var warmUp = 10.0

    @Option(help: "A kind of client to leave out (save, query, feed, statistics, churn, stalled); repeatable.")
    var skip: [String] = []

    @Option(help: "Run the kill loop this many times instead of the load.")
    var kills: Int?

    @Option(help: "Stop the kill loop after this many seconds, with the kills done so far.")
    var killSeconds: Double?

    @Option(help: "Samples per save in the kill loop.")
    var killBatchSize = 50

    func validate() throws {
        guard clients >= 6 else { throw ValidationError("--clients \(clients): expected at least 6 (one of each kind)") }
        guard duration > 0 else { throw ValidationError("--duration \(duration): expected a positive number of seconds") }
        if let kills, kills < 1 { throw ValidationError("--kills \(kills): expected at least 1") }
        for kind in skip where LoadKind(rawValue: kind) == nil {
            throw ValidationError("--skip \(kind): expected one of \(LoadKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// The folder this program was built into, which holds salusd, the plugins and the crash test.
    static var binDirectory: URL {
        URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
            .deletingLastPathComponent()
    }

    static func temporaryDirectory() -> String {
        var template = Array("/tmp/salus-soak-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template))
    }

    func run() async throws {
        if let kills {
            try runKills(kills)
        } else {
            try await runLoad()
        }
    }

    func runKills(_ kills: Int) throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var loop = KillLoop(
            executable: Self.binDirectory.appendingPathComponent("salus-store-crashtest"),
            databasePath: directory + "/salus.sqlite")
        loop.size = killBatchSize
        print("Kill loop: \(kills) SIGKILLs of salus-store-crashtest during saves, deletes, sync replacements, workout finishes and attachment uploads (\(killBatchSize) samples per save)")
        let deadline = killSeconds.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) }
        let report = try loop.run(kills: kills, deadline: deadline, progress: { done, report in
            if done % 100 == 0 || done == kills {
                print("  \(done) kills: \(report.lost.count) lost, \(report.partial.count) partial, \(report.integrityFailures.count) integrity failures")
                fflush(nil)
            }
        })
        if report.kills < kills { print("stopped after \(report.kills) of \(kills) kills (--kill-seconds)") }
        print(render(report))
        if !report.passed { throw ExitCode.failure }
    }

    func render(_ report: KillLoop.Report) -> String {
        var lines: [String] = []
        lines.append("operation          acknowledged  killed during  of which committed")
        for kind in CrashOperation.allCases {
            lines.append(
                kind.rawValue.padding(toLength: 17, withPad: " ", startingAt: 0)
                    + String(format: "  %12d  %13d  %18d", report.acknowledged[kind] ?? 0, report.killedDuring[kind] ?? 0,
                        report.committedUnacknowledged[kind] ?? 0))
        }
        lines.append(
            String(
                format: "%d kills in %.1f s (%.0f ms per kill): integrity_check ok %d of %d, %d lost, %d partial",
                report.kills, report.seconds, report.seconds * 1000 / Double(max(report.kills, 1)),
                report.kills - report.integrityFailures.count, report.kills, report.lost.count, report.partial.count))
        for problem in (report.integrityFailures + report.lost + report.partial).prefix(20) { lines.append("  \(problem)") }
        if report.notKilled > 0 { lines.append("\(report.notKilled) runs ended before the kill") }
        lines.append(report.passed ? "PASS" : "FAIL")
        return lines.joined(separator: "\n")
    }

    func runLoad() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plugins = directory + "/plugins"
        try DaemonProcess.copyBundledPlugins(from: Self.binDirectory, to: plugins)
        let socketPath = directory + "/app.sock"
        let logPath = directory + "/salusd.log"
        let daemon = try ChildProcess(
            executable: Self.binDirectory.appendingPathComponent("salusd").path,
            arguments: [
                "--socket", socketPath, "--admin-socket", directory + "/admin.sock", "--data-dir", directory + "/data",
                "--log-level", "error", "--plugins-dir", plugins, "--dev", "--authorization", "open",
            ],
            standardOutput: .null, standardError: .file(logPath))
        DaemonProcess.stopOnExit(daemon.processIdentifier)
        defer {
            // Already stopped unless the run failed before its end.
            daemon.send(SIGTERM)
            daemon.waitUntilExit()
        }
        var ready = false
        for _ in 0..<400 where !ready {
            if let client = try? await RPCClient.connect(unixSocketPath: socketPath) {
                await client.close()
                ready = true
            } else {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        guard ready else { throw ValidationError("salusd did not start at \(socketPath)") }

        var configuration = LoadConfiguration()
        configuration.clients = clients
        configuration.duration = duration
        configuration.warmUp = warmUp
        configuration.skipped = Set(skip.compactMap(LoadKind.init(rawValue:)))
        print("Load: \(clients) clients for \(duration) s against salusd (pid \(daemon.processIdentifier))")
        let report = try await LoadRun(socketPath: socketPath, daemonPID: daemon.processIdentifier, configuration: configuration).run()
        // The run ends as the owner ends a daemon: SIGTERM, and a clean exit is part of PASS.
        let stop = await DaemonStop.stop(daemon, logPath: logPath)
        var rendered = report.render().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let verdict = rendered.popLast() ?? ""
        rendered.append(stop.summary)
        if report.passed && !stop.passed {
            rendered.append("FAIL: the daemon did not stop cleanly on SIGTERM")
        } else {
            rendered.append(report.passed ? "PASS" : verdict + (stop.passed ? "" : "; the daemon did not stop cleanly on SIGTERM"))
        }
        print(rendered.joined(separator: "\n"))
        if !report.passed || !stop.passed { throw ExitCode.failure }
    }
}

