import Foundation
import SalusProto
import SalusRPC
import Testing

/// `salusctl backup` and `salusctl restore` against a real daemon, and a daemon that meets a
/// damaged database: what the person sees on the command line and what happens to the files.
@Suite("Backups and damaged files, end to end")
struct BackupDaemonTests {
    /// The size, modification time and bytes of the file at `path`.
    static func fingerprint(_ path: String) throws -> (Data, Date) {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (try Data(contentsOf: URL(fileURLWithPath: path)), attributes[.modificationDate] as? Date ?? .distantPast)
    }

    @Test("salusd refuses a damaged database naming the file, what quick_check found and salusctl restore, never writes to it; the restored backup starts")
    func damagedDatabase() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let app = try await DaemonClients.app(daemon, "org.example.steps")
        for batch in 0..<5 {
            let samples = (0..<200).map {
                DaemonClients.stepSample(Double($0), start: 1_700_000_000_000_000 + Int64(batch * 200 + $0) * 60_000_000)
            }
            let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: DaemonClients.saveRequest(samples))
        }
        await app.close()
        let folder = try DaemonHarness.makeTemporaryDirectory(prefix: "backup")
        let archive = folder.appendingPathComponent("salus-backup.zip")
        let backup = try await StatisticsDaemonTests.salusctl(daemon, ["backup", archive.path])
        #expect(backup.status == 0 && backup.output.contains("backed up 1000 samples of 1 types"), "\(backup.output)")
        #expect(FileManager.default.fileExists(atPath: archive.path))
        #expect(try await daemon.stop() == 0)
        // The clean stop stamped the store: the next start on this folder need not check it.
        let stampPath = daemon.dataDirectory.appendingPathComponent(".database-check").path
        let stamp = (try? String(contentsOfFile: stampPath, encoding: .utf8)) ?? ""
        #expect(stamp.contains("\"salus.sqlite\""), "\(stamp)")

        // A copy of the store with the first bytes of every page in its middle half overwritten,
        // with the stamp copied beside it: it does not describe the copy.
        let damaged = folder.appendingPathComponent("damaged", isDirectory: true)
        try FileManager.default.createDirectory(at: damaged, withIntermediateDirectories: true)
        let store = damaged.appendingPathComponent("salus.sqlite").path
        try FileManager.default.copyItem(atPath: daemon.dataDirectory.appendingPathComponent("salus.sqlite").path, toPath: store)
        try FileManager.default.copyItem(atPath: stampPath, toPath: damaged.appendingPathComponent(".database-check").path)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: store)))
        let pageSize = 4096
        let pages = bytes.count / pageSize
        for page in (pages / 4)..<(3 * pages / 4) {
            for offset in 0..<64 { bytes[page * pageSize + offset] = 0xA5 }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: store))
        let before = try Self.fingerprint(store)

        let refused = try await DaemonHarness.run(
            DaemonHarness.binary("salusd"),
            ["--dev", "--data-dir", damaged.path, "--socket", folder.appendingPathComponent("app.sock").path,
             "--admin-socket", folder.appendingPathComponent("admin.sock").path],
            timeout: .seconds(60))
        #expect(refused.status != 0)
        #expect(refused.output.contains("the database \(store) is damaged"), "\(refused.output)")
        #expect(refused.output.contains("PRAGMA quick_check found:"), "\(refused.output)")
        #expect(refused.output.contains("salusctl restore BACKUP --data-dir \(damaged.path)"), "\(refused.output)")
        let after = try Self.fingerprint(store)
        #expect(after.0 == before.0 && after.1 == before.1, "the damaged file is left byte for byte as it was")
        #expect(!FileManager.default.fileExists(atPath: store + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("admin.sock").path))

        let restore = try await DaemonHarness.run(
            DaemonHarness.binary("salusctl"),
            ["restore", archive.path, "--data-dir", damaged.path, "--admin-socket", folder.appendingPathComponent("admin.sock").path],
            timeout: .seconds(60))
        #expect(restore.status == 0 && restore.output.contains("restored 1000 samples"), "\(restore.output)")
        let restarted = try await DaemonHarness.start(arguments: ["--dev", "--data-dir", damaged.path], bundledPlugins: true)
        #expect(try await ImportResumeTests.counts(restarted, types: [DaemonClients.steps]) == [DaemonClients.steps: 1000])

        let whileRunning = try await DaemonHarness.run(
            DaemonHarness.binary("salusctl"),
            ["restore", archive.path, "--data-dir", damaged.path, "--admin-socket", restarted.adminSocketPath],
            timeout: .seconds(60))
        #expect(whileRunning.status != 0 && whileRunning.output.contains("salusd is running (it answers on \(restarted.adminSocketPath))"), "\(whileRunning.output)")
        _ = try await restarted.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
