import Foundation
import SalusProto
import Testing

/// What `salusctl` writes of the person's data to files (exports, a route's GPX) is private to
/// the owner from its creation, whatever the umask, and nothing is staged under a name another
/// user could guess and claim first.
@Suite("salusctl's output files are private")
struct PrivateExportDaemonTests {
    static func mode(_ path: String) -> Int {
        var status = stat()
        guard lstat(path, &status) == 0 else { return -1 }
        return Int(status.st_mode & 0o777)
    }

    @Test("under umask 022 every export format writes files of mode 0600 (folders 0700), also over an existing file, and never through a link planted at the staging name")
    func exportsArePrivate() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let app = try await DaemonClients.app(daemon, "org.example.steps")
        let samples = (0..<5).map { DaemonClients.stepSample(Double($0 + 1), start: 1_700_000_000_000_000 + Int64($0) * 60_000_000) }
        let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: DaemonClients.saveRequest(samples))
        await app.close()
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "private-export")
        defer { try? FileManager.default.removeItem(at: directory) }
        let previous = umask(0o022)
        defer { umask(previous) }

        let jsonl = directory.appendingPathComponent("steps.jsonl").path
        // An existing file that others may read is replaced by a private one.
        try Data("old".utf8).write(to: URL(fileURLWithPath: jsonl))
        chmod(jsonl, 0o644)
        let fhir = directory.appendingPathComponent("steps.json").path
        let csv = directory.appendingPathComponent("csv").path
        let zip = directory.appendingPathComponent("export.zip").path
        // The name the Apple Health export once staged export.xml at, beside the zip: a link there
        // must not be written through.
        let victim = directory.appendingPathComponent("victim").path
        try Data("the victim's".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent(".export.zip.export.xml").path, withDestinationPath: victim)
        for arguments in [
            ["export", "--format", "jsonl", "--output", jsonl],
            ["export", "--format", "fhir", "--output", fhir],
            ["export", "--format", "csv", "--output", csv],
            ["export", "--format", "apple-health", "--output", zip],
        ] {
            let result = try await StatisticsDaemonTests.salusctl(daemon, arguments)
            #expect(result.status == 0, "\(arguments): \(result.output)")
        }
        #expect(Self.mode(jsonl) == 0o600)
        #expect(try String(contentsOfFile: jsonl, encoding: .utf8).contains("HKQuantityTypeIdentifierStepCount"))
        #expect(Self.mode(fhir) == 0o600)
        #expect(Self.mode(csv) == 0o700)
        #expect(Self.mode(csv + "/stepCount.csv") == 0o600)
        #expect(Self.mode(zip) == 0o600)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "the victim's")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == [".export.zip.export.xml", "csv", "export.zip", "steps.json", "steps.jsonl", "victim"], "\(left)")
        _ = try await daemon.stop()
    }
}
