#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SalusSoak
import SalusImport
import SalusSpawn
import Synchronization

/// `salusctl import` of a synthetic Apple Health export into a fresh daemon, beside
/// healthkit-to-sqlite 1.0.1 (PyPI, in a private environment under .bench/) on the same zip, in
/// the same run; then `salusctl export --format jsonl` of what was imported. The export's DTD is
/// made well-formed, since healthkit-to-sqlite cannot read past the broken one of iOS 16+.
///
/// Memory is the sum of two peaks: salusctl's (its own, from `wait4`: the largest of every child
/// this process waited for would include the gRPC peer of a full run) and salusd's (VmHWM from
/// /proc, read before it stops).
enum ImportBenchmark {
    /// The figures, with the number of records and the seconds each step took.
    static func run(records: Int, directory: String, binDirectory: URL, pluginDirectory: String) async throws -> [String: Double] {
        let root = directory + "/import"
        let folder = root + "/apple_health_export"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let xmlPath = folder + "/export.xml"
        FileManager.default.createFile(atPath: xmlPath, contents: nil)
        let xml = try FileHandle(forWritingTo: URL(fileURLWithPath: xmlPath))
        let generationStart = ContinuousClock.now
        // The generator writes the broken DTD of iOS 16+ exports, which Salus skips and
        // healthkit-to-sqlite (expat) stops at: the file both read gets the missing `>`.
        var first = true
        try SyntheticExport.write(records: records) { piece in
            var text = piece
            if first {
                text = text.replacingOccurrences(of: "ActivitySummary)*)\n]>", with: "ActivitySummary)*)>\n]>")
                first = false
            }
            try xml.write(contentsOf: Data(text.utf8))
        }
        try xml.close()
        let xmlBytes = (try FileManager.default.attributesOfItem(atPath: xmlPath)[.size] as? NSNumber)?.doubleValue ?? .nan
        print("  generated \(records) records (\(Int(xmlBytes / 1_048_576)) MiB of export.xml) in \(format(StoreBenchmark.seconds(ContinuousClock.now - generationStart))) s")

        // The zip both importers read: apple_health_export/export.xml, as Apple's.
        let zip = root + "/export.zip"
        try check(try run("/usr/bin/env", ["python3", "-m", "zipfile", "-c", zip, "apple_health_export"], in: root), "zipping the export")

        // Salus: a fresh daemon, the import timed, memory of both processes.
        let data = root + "/salus-data"
        let admin = root + "/admin.sock"
        let daemon = try ChildProcess(
            executable: binDirectory.appendingPathComponent("salusd").path,
            arguments: [
                "--socket", root + "/app.sock", "--admin-socket", admin, "--data-dir", data, "--log-level", "error",
                "--plugins-dir", pluginDirectory, "--dev",
            ],
            standardOutput: .null)
        DaemonProcess.stopOnExit(daemon.processIdentifier)
        defer {
            daemon.send(SIGTERM)
            daemon.waitUntilExit()
        }
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: admin) { try await Task.sleep(for: .milliseconds(50)) }
        let salusctl = binDirectory.appendingPathComponent("salusctl").path
        let importStart = ContinuousClock.now
        let (imported, salusctlPeak) = try runMeasured(salusctl, ["import", zip, "--json", "--admin-socket", admin], in: root)
        let importSeconds = StoreBenchmark.seconds(ContinuousClock.now - importStart)
        try check(imported, "salusctl import")
        let daemonPeak = StoreBenchmark.memory(of: daemon.processIdentifier).peak
        // --json prints one salus.v1.ImportEvent a line, progress first, the report last.
        let reportLine = imported.output.split(separator: "\n").last { $0.hasPrefix("{\"report\"") } ?? "{}"
        let event = try JSONSerialization.jsonObject(with: Data(reportLine.utf8)) as? [String: Any] ?? [:]
        let report = event["report"] as? [String: Any] ?? [:]
        let elements = report["elements"] as? [String: Any] ?? [:]
        let seen = ["Record", "Correlation", "Workout"].reduce(0.0) { $0 + (Double(elements[$1] as? String ?? "") ?? (elements[$1] as? Double ?? 0)) }
        let saved = Double(report["saved"] as? String ?? "") ?? (report["saved"] as? Double ?? 0)
        print("  salusctl import: \(Int(seen)) records (\(Int(saved)) samples saved) in \(format(importSeconds)) s; peak RSS salusctl \(format(salusctlPeak)) MiB + salusd \(format(daemonPeak)) MiB")

        // Out again, as JSON lines.
        let exportStart = ContinuousClock.now
        let lines = root + "/export.jsonl"
        try check(try run(salusctl, ["export", "--format", "jsonl", "--output", lines, "--admin-socket", admin], in: root), "salusctl export")
        let exportSeconds = StoreBenchmark.seconds(ContinuousClock.now - exportStart)
        let exported = try countLines(lines)
        print("  salusctl export --format jsonl: \(exported) samples in \(format(exportSeconds)) s")

        // The peer, installed by the bench into its own environment, on the same zip.
        let venv = ".bench/healthkit-to-sqlite"
        if !FileManager.default.isExecutableFile(atPath: venv + "/bin/healthkit-to-sqlite") {
            print("  installing healthkit-to-sqlite 1.0.1 into \(venv)")
            try check(try run("/usr/bin/env", ["python3", "-m", "venv", venv], in: nil), "creating \(venv)")
            try check(
                try run(venv + "/bin/pip", ["install", "-q", "--disable-pip-version-check", "healthkit-to-sqlite==1.0.1"], in: nil),
                "installing healthkit-to-sqlite")
        }
        let peerStart = ContinuousClock.now
        try check(
            try run(FileManager.default.currentDirectoryPath + "/" + venv + "/bin/healthkit-to-sqlite", [zip, root + "/peer.db", "-s"], in: root),
            "healthkit-to-sqlite")
        let peerSeconds = StoreBenchmark.seconds(ContinuousClock.now - peerStart)
        print("  healthkit-to-sqlite 1.0.1: the same \(Int(seen)) records in \(format(peerSeconds)) s")

        let rate = seen / importSeconds
        let peerRate = seen / peerSeconds
        return [
            "import_records": seen,
            "import_seconds": importSeconds,
            "import_records_per_s": rate,
            "peer_import_seconds": peerSeconds,
            "peer_import_records_per_s": peerRate,
            "import_ratio": rate / peerRate,
            "import_peak_rss_mb": salusctlPeak + daemonPeak,
            "import_salusctl_peak_rss_mb": salusctlPeak,
            "import_salusd_peak_rss_mb": daemonPeak,
            "export_seconds": exportSeconds,
            "export_records_per_s": Double(exported) / exportSeconds,
        ]
    }

    struct Outcome {
        var status: Int32
        var output: String
    }

    /// Runs `command` to its end, as `run` does, and reads its own peak RSS in MiB: its `VmHWM`
    /// (a high-water mark), read every 10 ms while it runs.
    ///
    /// Not `wait4`'s `ru_maxrss`: posix_spawn starts the child in this process's memory
    /// (CLONE_VM), and Linux carries that memory's high-water mark into the child's at exec, so
    /// `ru_maxrss` reported the bench's own peak (280 MiB in a full `make bench`) for salusctl.
    static func runMeasured(_ command: String, _ arguments: [String], in folder: String?) throws -> (Outcome, Double) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("salus-bench-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The shell changes directory and then becomes `command` (exec), so wait4 measures it.
        let argv = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", folder ?? ".", command] + arguments
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, cArguments, environ)
        guard spawned == 0 else {
            throw BenchFailure(description: "could not start \(command): \(String(cString: strerror(spawned)))")
        }
        let child = pid
        let peak = Mutex(0.0)
        let stopped = Atomic<Bool>(false)
        let finished = DispatchSemaphore(value: 0)
        let watcher = Thread {
            while !stopped.load(ordering: .acquiring) {
                let now = StoreBenchmark.memory(of: child).peak
                if now.isFinite { peak.withLock { $0 = max($0, now) } }
                usleep(10_000)
            }
            finished.signal()
        }
        watcher.start()
        // Waits for the end without reaping, so the pid stays this child's while it is watched.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        stopped.store(true, ordering: .releasing)
        finished.wait()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        // Exited normally: the code; killed by a signal: 128 + the signal, as a shell says.
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (Outcome(status: code, output: text), peak.withLock { $0 })
    }

    /// Runs `command` to its end; its standard output and error together.
    static func run(_ command: String, _ arguments: [String], in folder: String?) throws -> Outcome {
        let process = try ChildProcess(
            executable: command, arguments: arguments, directory: folder, standardOutput: .pipe, standardError: .output)
        let output = ChildProcess.readToEnd(process.outputDescriptor)
        return Outcome(status: process.waitUntilExit().shellStatus, output: String(decoding: output, as: UTF8.self))
    }

    static func check(_ outcome: Outcome, _ what: String) throws {
        guard outcome.status == 0 else {
            throw BenchFailure(description: "\(what) failed (exit \(outcome.status)):\n\(outcome.output.suffix(2000))")
        }
    }

    static func countLines(_ path: String) throws -> Int {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var count = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            count += chunk.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        return count
    }

    struct BenchFailure: Error, CustomStringConvertible {
        var description: String
    }
}
