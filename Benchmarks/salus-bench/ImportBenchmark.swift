#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SalusSoak
import SalusImport
import SalusSpawn
import SalusStore
import Synchronization

/// `salusctl import` of a synthetic Apple Health export into a fresh daemon, beside
/// healthkit-to-sqlite 1.0.1 (PyPI, in a private environment under .bench/) on the same zip and
/// beside raw SQLite inserts of the rows Salus stored into a minimal table (the limit of one
/// writer), `trials` times interleaved; then `salusctl export --format jsonl` of what the first
/// trial imported. The export's DTD is
/// made well-formed, since healthkit-to-sqlite cannot read past the broken one of iOS 16+.
///
/// Memory is the sum of two peaks: salusctl's (its own, from `wait4`: the largest of every child
/// this process waited for would include the gRPC peer of a full run) and salusd's (VmHWM from
/// /proc, read before it stops).
enum ImportBenchmark {
    /// The figures, with the number of records and the seconds each step took.
    static func run(records: Int, trials: Int, directory: String, binDirectory: URL, pluginDirectory: String) async throws -> [String: Double] {
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

        // Trials, interleaved (Salus, healthkit-to-sqlite, raw inserts, then Salus again …), so
        // that a noisy second weighs on all three; each Salus trial into a fresh daemon.
        let venv = ".bench/healthkit-to-sqlite"
        if !FileManager.default.isExecutableFile(atPath: venv + "/bin/healthkit-to-sqlite") {
            print("  installing healthkit-to-sqlite 1.0.1 into \(venv)")
            try check(try run("/usr/bin/env", ["python3", "-m", "venv", venv], in: nil), "creating \(venv)")
            try check(
                try run(venv + "/bin/pip", ["install", "-q", "--disable-pip-version-check", "healthkit-to-sqlite==1.0.1"], in: nil),
                "installing healthkit-to-sqlite")
        }
        var ours: [Double] = []
        var theirs: [Double] = []
        var raws: [Double] = []
        var peaks: [(salusctl: Double, salusd: Double)] = []
        var seen = 0.0
        var exportRate = Double.nan
        var rows: [RawRow] = []
        for trial in 0..<trials {
            let salus = try await importOnce(zip: zip, root: root, binDirectory: binDirectory, pluginDirectory: pluginDirectory, first: trial == 0)
            seen = salus.records
            if trial == 0 {
                exportRate = salus.exportRate
                rows = salus.rows
            }
            ours.append(salus.records / salus.seconds)
            peaks.append((salus.salusctlPeak, salus.daemonPeak))
            print("  trial \(trial + 1): salusctl import \(Int(salus.records)) records (\(Int(salus.saved)) samples saved) in \(format(salus.seconds)) s; peak RSS salusctl \(format(salus.salusctlPeak)) MiB + salusd \(format(salus.daemonPeak)) MiB")

            try? FileManager.default.removeItem(atPath: root + "/peer.db")
            let peerStart = ContinuousClock.now
            try check(
                try run(FileManager.default.currentDirectoryPath + "/" + venv + "/bin/healthkit-to-sqlite", [zip, root + "/peer.db", "-s"], in: root),
                "healthkit-to-sqlite")
            let peerSeconds = StoreBenchmark.seconds(ContinuousClock.now - peerStart)
            theirs.append(seen / peerSeconds)

            let rawSeconds = try rawInserts(rows, into: root + "/minimal.sqlite")
            raws.append(seen / rawSeconds)
            print("  trial \(trial + 1): healthkit-to-sqlite 1.0.1 the same records in \(format(peerSeconds)) s; raw SQLite inserts of the \(rows.count) rows in \(format(rawSeconds)) s")
        }
        let peer = Comparison(salus: ours, baseline: theirs)
        let raw = Comparison(salus: ours, baseline: raws)
        let total = Spread(peaks.map { $0.salusctl + $0.salusd })
        var results: [String: Double] = [
            "import_records": seen,
            "import_trials": Double(trials),
            "import_peak_rss_mb": total.median,
            "import_peak_rss_mb_min": total.min,
            "import_peak_rss_mb_max": total.max,
            "import_salusctl_peak_rss_mb": Spread(peaks.map(\.salusctl)).median,
            "import_salusd_peak_rss_mb": Spread(peaks.map(\.salusd)).median,
            "export_records_per_s": exportRate,
            "peer_import_records_per_s_min": peer.baseline.min,
            "peer_import_records_per_s_max": peer.baseline.max,
            "raw_import_records_per_s_min": raw.baseline.min,
            "raw_import_records_per_s_max": raw.baseline.max,
        ]
        peer.record(into: &results, key: "import_records_per_s", baselineKey: "peer_import_records_per_s", ratioKey: "import_ratio")
        raw.record(into: &results, key: "import_records_per_s", baselineKey: "raw_import_records_per_s", ratioKey: "import_raw_ratio")
        return results
    }

    /// One row of the minimal table the raw inserts fill: the columns the scale bench's minimal
    /// table keeps (`ScaleBenchmark.minimalTable`).
    struct RawRow {
        var uuid: [UInt8]
        var typeID: Int64
        var start: Int64
        var end: Int64
        var value: Double?
        var sourceID: Int64
        var deviceID: Int64?
        var creation: Int64
    }

    /// What one Salus trial measured.
    struct SalusTrial {
        var records: Double
        var saved: Double
        var seconds: Double
        var salusctlPeak: Double
        var daemonPeak: Double
        var exportRate = Double.nan
        var rows: [RawRow] = []
    }

    /// `salusctl import` of the zip into a fresh daemon, timed, with both processes' peak memory;
    /// on the `first` trial also the jsonl export of what was imported and the stored rows (read
    /// once the daemon has stopped), for the raw inserts.
    static func importOnce(zip: String, root: String, binDirectory: URL, pluginDirectory: String, first: Bool) async throws -> SalusTrial {
        let data = root + "/salus-data"
        try? FileManager.default.removeItem(atPath: data)
        let admin = root + "/admin.sock"
        let daemon = try ChildProcess(
            executable: binDirectory.appendingPathComponent("salusd").path,
            arguments: [
                "--socket", root + "/app.sock", "--admin-socket", admin, "--data-dir", data, "--log-level", "error",
                "--plugins-dir", pluginDirectory, "--dev",
            ],
            standardOutput: .null)
        DaemonProcess.stopOnExit(daemon.processIdentifier)
        var stopped = false
        defer {
            if !stopped {
                daemon.send(SIGTERM)
                daemon.waitUntilExit()
            }
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
        var trial = SalusTrial(records: seen, saved: saved, seconds: importSeconds, salusctlPeak: salusctlPeak, daemonPeak: daemonPeak)
        guard first else { return trial }

        // Out again, as JSON lines.
        let exportStart = ContinuousClock.now
        let lines = root + "/export.jsonl"
        try check(try run(salusctl, ["export", "--format", "jsonl", "--output", lines, "--admin-socket", admin], in: root), "salusctl export")
        let exportSeconds = StoreBenchmark.seconds(ContinuousClock.now - exportStart)
        let exported = try countLines(lines)
        try? FileManager.default.removeItem(atPath: lines)
        trial.exportRate = Double(exported) / exportSeconds
        print("  salusctl export --format jsonl: \(exported) samples in \(format(exportSeconds)) s")

        daemon.send(SIGTERM)
        daemon.waitUntilExit()
        stopped = true
        let store = try Database(path: data + "/salus.sqlite")
        defer { store.close() }
        let select = try store.prepare(
            "SELECT uuid, type_id, start_us, end_us, value, source_id, device_id, creation_us FROM samples ORDER BY id", cached: false)
        while try select.step() {
            trial.rows.append(RawRow(
                uuid: select.blob(0) ?? [], typeID: select.int64(1), start: select.int64(2), end: select.int64(3),
                value: select.isNull(4) ? nil : select.double(4), sourceID: select.int64(5),
                deviceID: select.isNull(6) ? nil : select.int64(6), creation: select.int64(7)))
        }
        return trial
    }

    /// Rows per transaction of the raw inserts: large, as the limit of one SQLite writer.
    static let rawTransactionRows = 10_000

    /// Inserts `rows` into a fresh minimal table (the scale bench's, no index but the row id)
    /// with the store's connection settings (WAL, synchronous NORMAL), one prepared statement,
    /// `rawTransactionRows` a transaction; the seconds it took.
    static func rawInserts(_ rows: [RawRow], into path: String) throws -> Double {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let database = try Database(path: path)
        defer {
            database.close()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        try database.execute("""
            CREATE TABLE samples (uuid BLOB, type_id INTEGER, start_us INTEGER, end_us INTEGER, value REAL, \
            source_id INTEGER, device_id INTEGER, creation_us INTEGER);
            """)
        let insert = try database.prepare("INSERT INTO samples VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        let start = ContinuousClock.now
        for batchStart in stride(from: 0, to: rows.count, by: rawTransactionRows) {
            try database.execute("BEGIN IMMEDIATE")
            for row in rows[batchStart..<min(rows.count, batchStart + rawTransactionRows)] {
                try insert.bind(.blob(row.uuid), at: 1)
                try insert.bind(integer: row.typeID, at: 2)
                try insert.bind(integer: row.start, at: 3)
                try insert.bind(integer: row.end, at: 4)
                try insert.bind(real: row.value, at: 5)
                try insert.bind(integer: row.sourceID, at: 6)
                try insert.bind(integer: row.deviceID, at: 7)
                try insert.bind(integer: row.creation, at: 8)
                while try insert.step() {}
                insert.reset()
            }
            try database.execute("COMMIT")
        }
        return StoreBenchmark.seconds(ContinuousClock.now - start)
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
