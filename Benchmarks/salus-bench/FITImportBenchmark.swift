#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SalusFIT
import SalusSoak
import SalusSpawn

/// `salusctl import` of a folder of FIT activity files into a fresh salusd, beside fitdecode 0.11.0
/// (PyPI, the Python reader a person would script, in a private environment under .bench/)
/// reading the same files, in the same run.
///
/// The folder is the shared FIT corpus's whole activity files (those both readers read to their
/// end) repeated with shifted times, each copy a different activity to Salus (its times, and so its
/// workouts' sync identifiers, differ). fitdecode, about fifty times slower, reads every tenth
/// repetition of the corpus each trial: the same mix of files, so its bytes per second compare.
/// The figure is megabytes of FIT per second; the trials alternate, Salus first.
enum FITImportBenchmark {
    static func run(
        files: Int, trials: Int, sharedData: String, directory: String, binDirectory: URL, pluginDirectory: String
    ) async throws -> [String: Double] {
        let root = directory + "/fit-import"
        let folder = root + "/GARMIN/Activity"
        let peerFolder = root + "/peer"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: peerFolder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }

        let corpus = try wholeActivityFiles(in: sharedData + "/fit")
        guard !corpus.isEmpty else { throw ImportBenchmark.BenchFailure(description: "no whole FIT activity file under \(sharedData)/fit") }
        var bytes = 0.0
        var peerBytes = 0.0
        for index in 0..<files {
            let repetition = index / corpus.count
            let original = corpus[index % corpus.count]
            // A week apart per repetition: no two copies of a file overlap in time.
            guard let shifted = FITTimeShift.shifted(original.bytes, by: UInt32(repetition) * 7 * 86_400) else {
                throw ImportBenchmark.BenchFailure(description: "could not shift the times of \(original.name)")
            }
            let name = String(format: "%04d-", index) + original.name
            try Data(shifted).write(to: URL(fileURLWithPath: folder + "/" + name))
            bytes += Double(shifted.count)
            if repetition % 10 == 0 {
                try Data(shifted).write(to: URL(fileURLWithPath: peerFolder + "/" + name))
                peerBytes += Double(shifted.count)
            }
        }
        let megabytes = bytes / 1_048_576
        let peerMegabytes = peerBytes / 1_048_576
        print("  \(files) FIT files (\(format(megabytes)) MiB; \(corpus.count) whole activity files of the corpus, repeated a week apart)")

        let venv = ".bench/fitdecode"
        if !FileManager.default.isExecutableFile(atPath: venv + "/bin/python") || !hasFitdecode(venv) {
            print("  installing fitdecode 0.11.0 into \(venv)")
            try ImportBenchmark.check(try ImportBenchmark.run("/usr/bin/env", ["python3", "-m", "venv", venv], in: nil), "creating \(venv)")
            try ImportBenchmark.check(
                try ImportBenchmark.run(venv + "/bin/pip", ["install", "-q", "--disable-pip-version-check", "fitdecode==0.11.0"], in: nil),
                "installing fitdecode")
        }
        let script = FileManager.default.currentDirectoryPath + "/Benchmarks/fit/fitdecode_read.py"
        let python = FileManager.default.currentDirectoryPath + "/" + venv + "/bin/python"

        var workouts = 0.0
        var peak = 0.0
        var trial = 0
        let comparison = try await Comparison.interleaved(
            trials: trials,
            salus: {
                trial += 1
                let (seconds, imported, rss) = try await importOnce(folder: folder, root: root + "/trial-\(trial)", binDirectory: binDirectory, pluginDirectory: pluginDirectory)
                workouts = imported
                peak = max(peak, rss.salusctl + rss.salusd)
                print("  trial \(trial): salusctl import: \(Int(imported)) workouts in \(format(seconds)) s (\(format(megabytes / seconds)) MiB/s), "
                    + "peak RSS \(format(rss.salusctl + rss.salusd)) MiB (salusctl \(format(rss.salusctl)) + salusd \(format(rss.salusd)))")
                return megabytes / seconds
            },
            baseline: {
                let outcome = try ImportBenchmark.run(python, [script, peerFolder], in: nil)
                try ImportBenchmark.check(outcome, "fitdecode")
                let line = outcome.output.split(separator: "\n").last { $0.hasPrefix("{") } ?? "{}"
                let figures = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
                let seconds = figures["seconds"] as? Double ?? .nan
                print("  trial \(trial): fitdecode 0.11.0: \(figures["files"] ?? "?") files (\(format(peerMegabytes)) MiB) in \(format(seconds)) s (\(format(peerMegabytes / seconds)) MiB/s)")
                return peerMegabytes / seconds
            })
        var results: [String: Double] = ["fit_import_files": Double(files), "fit_import_workouts": workouts, "fit_import_peak_rss_mb": peak]
        comparison.record(into: &results, key: "fit_import_mb_per_s", baselineKey: "fit_peer_mb_per_s", ratioKey: "fit_import_ratio")
        return results
    }

    /// One import of the folder into a fresh daemon: its seconds, the workouts saved and the peak
    /// RSS of salusctl and of salusd.
    private static func importOnce(
        folder: String, root: String, binDirectory: URL, pluginDirectory: String
    ) async throws -> (Double, Double, (salusctl: Double, salusd: Double)) {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let admin = root + "/admin.sock"
        let daemon = try ChildProcess(
            executable: binDirectory.appendingPathComponent("salusd").path,
            arguments: [
                "--socket", root + "/app.sock", "--admin-socket", admin, "--data-dir", root + "/data", "--log-level", "error",
                "--plugins-dir", pluginDirectory, "--dev",
            ],
            standardOutput: .null)
        DaemonProcess.stopOnExit(daemon.processIdentifier)
        defer {
            daemon.send(SIGTERM)
            daemon.waitUntilExit()
        }
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: admin) { try await Task.sleep(for: .milliseconds(50)) }
        let start = ContinuousClock.now
        let (outcome, salusctlPeak) = try ImportBenchmark.runMeasured(
            binDirectory.appendingPathComponent("salusctl").path, ["import", folder, "--json", "--admin-socket", admin], in: root)
        let seconds = StoreBenchmark.seconds(ContinuousClock.now - start)
        try ImportBenchmark.check(outcome, "salusctl import of the FIT folder")
        let daemonPeak = StoreBenchmark.memory(of: daemon.processIdentifier).peak
        // The report, last of the JSON lines, names each file's workouts.
        let reportLine = outcome.output.split(separator: "\n").last { $0.hasPrefix("{\"report\"") } ?? "{}"
        let event = try JSONSerialization.jsonObject(with: Data(reportLine.utf8)) as? [String: Any] ?? [:]
        let files = (event["report"] as? [String: Any])?["files"] as? [[String: Any]] ?? []
        let workouts = Double(files.reduce(0) { $0 + (($1["workouts"] as? [Any])?.count ?? 0) })
        return (seconds, workouts, (salusctlPeak, daemonPeak))
    }

    private static func hasFitdecode(_ venv: String) -> Bool {
        (try? ImportBenchmark.run(venv + "/bin/python", ["-c", "import fitdecode"], in: nil).status) == 0
    }

    /// The corpus's files that decode whole (no fatal problem) and hold a session: activities.
    private static func wholeActivityFiles(in folder: String) throws -> [(name: String, bytes: [UInt8])] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [(name: String, bytes: [UInt8])] = []
        for case let path as String in enumerator where path.lowercased().hasSuffix(".fit") {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path)))
            let decoding = FITDecoder().decode(bytes)
            guard decoding.isWhole, decoding.problems.isEmpty, !decoding.messages(18).isEmpty else { continue }
            found.append((URL(fileURLWithPath: path).lastPathComponent, bytes))
        }
        return found.sorted { $0.name < $1.name }
    }
}

/// Moves every time of a FIT file by a number of seconds, rewriting the fields that hold one and
/// the file's CRC: a copy of an activity that happened later.
///
/// Shifted: field 253 (`timestamp`) of every message, and the other `date_time` fields an
/// activity's summary holds: `file_id.time_created` (0/4), `session.start_time` (18/2),
/// `lap.start_time` (19/2), `activity.local_timestamp` (34/5), `length.start_time` (101/2).
/// Compressed timestamps are offsets from the last full one, so they move with it. Invalid values
/// (all ones) stay invalid. Returns nil for bytes that are not a whole FIT file.
enum FITTimeShift {
    private static let dateFields: [UInt16: Set<UInt8>] = [0: [4], 18: [2], 19: [2], 34: [5], 101: [2]]

    static func shifted(_ original: [UInt8], by seconds: UInt32) -> [UInt8]? {
        var bytes = original
        var fileStart = 0
        // Chained files: one header, its records and CRC after another.
        while fileStart < bytes.count {
            guard bytes.count - fileStart >= 12 else { return nil }
            let headerSize = Int(bytes[fileStart])
            let dataSize = Int(readUInt32(bytes, fileStart + 4, bigEndian: false))
            let dataStart = fileStart + headerSize
            let dataEnd = dataStart + dataSize
            guard headerSize >= 12, dataEnd + 2 <= bytes.count else { return nil }
            // local message type → (fields: (offset, size, shift?), total size, big endian)
            var definitions: [UInt8: (fields: [(offset: Int, size: Int, shift: Bool)], size: Int, bigEndian: Bool)] = [:]
            var offset = dataStart
            while offset < dataEnd {
                let header = bytes[offset]
                offset += 1
                if header & 0x80 != 0 {
                    // A compressed-timestamp data message.
                    guard let definition = definitions[(header >> 5) & 0x03] else { return nil }
                    offset += definition.size
                } else if header & 0x40 != 0 {
                    let developer = header & 0x20 != 0
                    guard offset + 5 <= dataEnd else { return nil }
                    let bigEndian = bytes[offset + 1] == 1
                    let global = bigEndian
                        ? UInt16(bytes[offset + 2]) << 8 | UInt16(bytes[offset + 3])
                        : UInt16(bytes[offset + 3]) << 8 | UInt16(bytes[offset + 2])
                    let count = Int(bytes[offset + 4])
                    offset += 5
                    var fields: [(offset: Int, size: Int, shift: Bool)] = []
                    var size = 0
                    for _ in 0..<count {
                        guard offset + 3 <= dataEnd else { return nil }
                        let number = bytes[offset]
                        let fieldSize = Int(bytes[offset + 1])
                        let isTime = number == 253 || dateFields[global]?.contains(number) == true
                        fields.append((size, fieldSize, isTime && fieldSize == 4))
                        size += fieldSize
                        offset += 3
                    }
                    if developer {
                        guard offset < dataEnd else { return nil }
                        let developerCount = Int(bytes[offset])
                        offset += 1
                        for _ in 0..<developerCount {
                            guard offset + 3 <= dataEnd else { return nil }
                            size += Int(bytes[offset + 1])
                            offset += 3
                        }
                    }
                    definitions[header & 0x0F] = (fields, size, bigEndian)
                } else {
                    guard let definition = definitions[header & 0x0F], offset + definition.size <= dataEnd else { return nil }
                    for field in definition.fields where field.shift {
                        let at = offset + field.offset
                        let value = readUInt32(bytes, at, bigEndian: definition.bigEndian)
                        guard value != 0xFFFF_FFFF else { continue }
                        writeUInt32(&bytes, at, value &+ seconds, bigEndian: definition.bigEndian)
                    }
                    offset += definition.size
                }
            }
            guard offset == dataEnd else { return nil }
            let crc = FITCRC.checksum(bytes[fileStart..<dataEnd])
            bytes[dataEnd] = UInt8(crc & 0xFF)
            bytes[dataEnd + 1] = UInt8(crc >> 8)
            fileStart = dataEnd + 2
        }
        return bytes
    }

    private static func readUInt32(_ bytes: [UInt8], _ at: Int, bigEndian: Bool) -> UInt32 {
        let value = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
        return bigEndian ? value.byteSwapped : value
    }

    private static func writeUInt32(_ bytes: inout [UInt8], _ at: Int, _ value: UInt32, bigEndian: Bool) {
        let stored = bigEndian ? value.byteSwapped : value
        for index in 0..<4 { bytes[at + index] = UInt8(truncatingIfNeeded: stored >> (8 * UInt32(index))) }
    }
}
