import Foundation
import SalusProto
import Testing

/// `salusctl export` as a process: its exit codes, the lines it prints, and the mode of the files
/// it writes under its own umask. What each format's files hold and their way back in are
/// checked in process on `AdminClient.export` (SalusServerTests' `AdminClientExportTests`).
@Suite("salusctl export on a running daemon")
struct ExportDaemonTests {
    static func mode(_ path: String) -> Int {
        var status = stat()
        guard lstat(path, &status) == 0 else { return -1 }
        return Int(status.st_mode & 0o777)
    }

    /// A daemon holding five step counts of org.example.steps.
    static func daemonWithSteps() async throws -> DaemonHarness {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let app = try await DaemonClients.app(daemon, "org.example.steps")
        let samples = (0..<5).map { DaemonClients.stepSample(Double($0 + 1), start: 1_700_000_000_000_000 + Int64($0) * 60_000_000) }
        let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: DaemonClients.saveRequest(samples))
        await app.close()
        return daemon
    }

    @Test("each format says what it wrote on standard error (JSON lines to standard output without --output); a missing --output, an unwritable one and an unknown type fail with a message naming them")
    func terminalOutput() async throws {
        let daemon = try await Self.daemonWithSteps()
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "export")
        defer { try? FileManager.default.removeItem(at: directory) }
        let zip = directory.appendingPathComponent("export.zip").path

        let lines = try await StatisticsDaemonTests.salusctl(daemon, ["export", "--types", "stepCount"])
        #expect(lines.status == 0, "\(lines.output)")
        let printed = lines.output.split(separator: "\n")
        #expect(printed.count == 6 && printed.prefix(5).allSatisfy { $0.hasPrefix(#"{"uuid":""#) }, "\(lines.output)")
        #expect(printed.last == "exported 5 samples of 1 types", "\(lines.output)")

        let csv = try await StatisticsDaemonTests.salusctl(daemon, ["export", "--format", "csv", "--output", directory.appendingPathComponent("csv").path])
        #expect(csv.status == 0 && csv.output.hasPrefix("exported 5 samples of "), "\(csv.output)")

        let apple = try await StatisticsDaemonTests.salusctl(daemon, ["export", "--format", "apple-health", "--output", zip, "--types", "stepCount", "workout"])
        #expect(apple.status == 0 && apple.output == "exported 5 samples of 2 types to \(zip)\n", "\(apple.output)")
        let everything = try await StatisticsDaemonTests.salusctl(daemon, ["export", "--format", "apple-health", "--output", zip])
        #expect(everything.status == 0, "\(everything.output)")
        #expect(everything.output.firstMatch(of: /^exported 5 samples of \d+ types to .*export\.zip; \d+ types have no place in Apple's format and were left out\n$/) != nil, "\(everything.output)")

        let fhir = try await StatisticsDaemonTests.salusctl(
            daemon, ["export", "--format", "fhir", "--output", directory.appendingPathComponent("steps.json").path, "--types", "stepCount", "workout"])
        #expect(fhir.status == 0, "\(fhir.output)")
        #expect(fhir.output == "exported 5 samples of 1 types as FHIR Observations; 1 types have no Observation form and were left out\n", "\(fhir.output)")

        let missing = try await StatisticsDaemonTests.salusctl(daemon, ["export", "--format", "csv"])
        #expect(missing.status == 64 && missing.output.contains("--output: missing; expected a folder for the CSV files (one per type)"), "\(missing.output)")
        let unwritable = try await StatisticsDaemonTests.salusctl(
            daemon, ["export", "--format", "apple-health", "--output", directory.appendingPathComponent("none/export.zip").path])
        #expect(unwritable.status == 1 && unwritable.output.contains("--output: ") && unwritable.output.contains("none"), "\(unwritable.output)")
        let unknown = try await StatisticsDaemonTests.salusctl(daemon, ["export", "--types", "noSuchType"])
        #expect(unknown.status == 1 && unknown.output.contains("noSuchType"), "\(unknown.output)")
        _ = try await daemon.stop()
    }

    @Test("under umask 022 every export format writes files of mode 0600 (folders 0700), also over an existing file, and never through a link planted at the staging name")
    func exportsArePrivate() async throws {
        let daemon = try await Self.daemonWithSteps()
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
