import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import Testing

/// `salusctl access`, `apps show`, `apps delete-data`, `apps remove --delete-data` and
/// `export --app` as the owner types them, against a running daemon: the words printed, the
/// exit status, and that bad input deletes nothing. The log's counts and the deletions' reach
/// are checked in process (`AccessLogTests`).
@Suite("salusctl access and an app's data on a running daemon")
struct AccessDaemonTests {
    static let counter = "org.example.counter"
    static let reader = "org.example.reader"

    @Test("access prints what apps did in words and as JSON; apps show lists what an app wrote; delete-data refuses a type it never wrote, counts with --dry-run, deletes without a terminal; export --app writes only its samples; remove --delete-data")
    func accessAndAppData() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let owner = try await AdminClient.connect(socketPath: daemon.adminSocketPath)
        _ = try await owner.addApp(Self.counter, name: "Counter", readUsage: "to show steps", writeUsage: "to count steps")
        _ = try await owner.addApp(Self.reader, name: "Reader", readUsage: "to show steps", writeUsage: "")
        try await owner.setGrants([TypeGrant(type: DaemonClients.steps, read: .denied, share: .granted)], for: Self.counter)
        try await owner.setGrants([TypeGrant(type: DaemonClients.steps, read: .granted)], for: Self.reader)
        let counter = try await DaemonClients.app(daemon, Self.counter)
        let start: Int64 = 1_790_000_000_000_000
        let _: Salus_V1_SaveResponse = try await counter.unary(
            DaemonClients.save,
            request: DaemonClients.saveRequest((0..<3).map { DaemonClients.stepSample(Double(100 * ($0 + 1)), start: start + Int64($0) * 600_000_000) }))
        let reader = try await DaemonClients.store(daemon, Self.reader)
        #expect(try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: reader).count == 3)
        #expect(try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: reader).count == 3)

        let access = try await ConsentFlowTests.ctl(daemon, ["access"])
        print("--- salusctl access ---\n\(access.output)")
        #expect(access.status == 0)
        let lines = access.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("org.example.reader read step count twice today, last at ") && $0.hasSuffix(", through a sample query") })
        #expect(lines.contains { $0.hasPrefix("org.example.counter wrote step count once today, last at ") })
        let json = try await ConsentFlowTests.ctl(daemon, ["access", Self.reader, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let entries = try #require(object?["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["count"] as? Int == 2)
        #expect(entries.first?["kind"] as? String == "ACCESS_KIND_SAMPLE_QUERY")
        let unknown = try await ConsentFlowTests.ctl(daemon, ["access", "org.example.nobody"])
        #expect(unknown.status != 0)
        #expect(unknown.output.contains("no app org.example.nobody is registered"))

        let show = try await ConsentFlowTests.ctl(daemon, ["apps", "show", Self.counter])
        print("--- salusctl apps show \(Self.counter) ---\n\(show.output)")
        #expect(show.output.contains("wrote 3 samples (salusctl apps delete-data org.example.counter deletes them):"))
        #expect(show.output.contains("HKQuantityTypeIdentifierStepCount  3"))

        let never = try await ConsentFlowTests.ctl(daemon, ["apps", "delete-data", Self.counter, "--type", "heartRate"])
        #expect(never.status != 0)
        #expect(never.output.contains("org.example.counter never wrote HKQuantityTypeIdentifierHeartRate (it wrote HKQuantityTypeIdentifierStepCount)"))
        let reversed = try await ConsentFlowTests.ctl(daemon, ["apps", "delete-data", Self.counter, "--since", "2026-02-01", "--until", "2026-01-01"])
        #expect(reversed.status != 0)
        #expect(reversed.output.contains("--until: 2026-01-01 is not after --since 2026-02-01"))
        let dry = try await ConsentFlowTests.ctl(daemon, ["apps", "delete-data", Self.counter, "--dry-run"])
        #expect(dry.output.contains("would delete 3 samples that org.example.counter wrote:"))

        let folder = daemon.directory.appendingPathComponent("export-app.jsonl")
        let exported = try await ConsentFlowTests.ctl(daemon, ["export", "--app", Self.counter, "--output", folder.path])
        #expect(exported.status == 0, "\(exported.output)")
        let exportedLines = try String(contentsOf: folder, encoding: .utf8).split(separator: "\n")
        #expect(exportedLines.count == 3)
        #expect(exportedLines.allSatisfy { $0.contains(Self.counter) })

        let deleted = try await ConsentFlowTests.ctl(daemon, ["apps", "delete-data", Self.counter])
        print("--- salusctl apps delete-data \(Self.counter) ---\n\(deleted.output)")
        #expect(deleted.status == 0)
        #expect(deleted.output.contains("deleted 3 samples that org.example.counter wrote"))
        #expect(try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: reader).isEmpty)
        let removed = try await ConsentFlowTests.ctl(daemon, ["apps", "remove", Self.counter, "--delete-data"])
        #expect(removed.output.contains("org.example.counter wrote nothing the store holds"))
        #expect(removed.output.contains("removed org.example.counter"))
        await reader.close()
        await counter.close()
        await owner.close()
        _ = try await daemon.stop()
    }

    /// Runs salusctl in a terminal of its own (a pty), answers its question with `answer`, and
    /// prints what the terminal showed.
    static let terminalPerson = """
        import os, pty, select, sys, time
        answer = sys.argv[1].encode()
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(sys.argv[2], sys.argv[2:])
        seen = b""
        def until(text, seconds):
            global seen
            end = time.time() + seconds
            while text is None or text not in seen:
                left = end - time.time()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    return False
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    return text is None
                if not chunk:
                    return text is None
                seen += chunk
            return True
        ok = until(b"[y/N] ", 60)
        if ok:
            os.write(fd, answer + b"\\r")
            until(None, 60)
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(seen.decode("utf-8", "replace").replace("\\r\\n", "\\n"))
        sys.exit(0 if ok and status == 0 else 1)
        """

    @Test("at a terminal, apps delete-data lists what it will delete and asks: no deletes nothing, yes deletes it")
    func confirmation() async throws {
        let python = try #require(DaemonHarness.findExecutable("python3"), "python3 drives the terminal")
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let owner = try await AdminClient.connect(socketPath: daemon.adminSocketPath)
        _ = try await owner.addApp(Self.counter, name: "Counter", readUsage: "", writeUsage: "to count steps")
        try await owner.setGrants([TypeGrant(type: DaemonClients.steps, share: .granted)], for: Self.counter)
        let counter = try await DaemonClients.app(daemon, Self.counter)
        let _: Salus_V1_SaveResponse = try await counter.unary(
            DaemonClients.save, request: DaemonClients.saveRequest([DaemonClients.stepSample(100, start: 1_790_000_000_000_000)]))
        let command = [DaemonHarness.binary("salusctl").path, "apps", "delete-data", Self.counter, "--admin-socket", daemon.adminSocketPath]

        let declined = try await DaemonHarness.run(URL(fileURLWithPath: python.path), ["-c", Self.terminalPerson, "n"] + command, timeout: .seconds(120))
        print("--- at a terminal, answering n ---\n\(declined.output)")
        #expect(declined.output.contains("delete 1 sample that org.example.counter wrote?"))
        #expect(declined.output.contains("nothing deleted"))
        #expect(try await owner.appData(Self.counter).total == 1)

        let accepted = try await DaemonHarness.run(URL(fileURLWithPath: python.path), ["-c", Self.terminalPerson, "y"] + command, timeout: .seconds(120))
        #expect(accepted.status == 0, "\(accepted.output)")
        #expect(accepted.output.contains("deleted 1 sample that org.example.counter wrote"))
        #expect(try await owner.appData(Self.counter).types.isEmpty)
        await counter.close()
        await owner.close()
        _ = try await daemon.stop()
    }
}
