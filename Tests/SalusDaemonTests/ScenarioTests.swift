import Foundation
import Testing

/// The example scenarios of Examples/scenarios, run by `salusctl scenario run` against a daemon
/// without development mode (apps act through their launcher sockets).
@Suite("salusctl scenario run: the example scenarios")
struct ScenarioTests {
    static let salusctl = DaemonHarness.binary("salusctl")

    static func example(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/scenarios/\(name)").path
    }

    @Test("each example scenario passes every step", arguments: ["sleep-denied-read.json", "reproductive-write-only.json", "vision-per-object.json"])
    func example(_ name: String) async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let result = try await DaemonHarness.run(
            Self.salusctl, ["scenario", "run", "--admin-socket", daemon.adminSocketPath, Self.example(name)], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("PASS: all"), "\(result.output)")
        #expect(!result.output.contains("FAIL"), "\(result.output)")
        #expect(try await daemon.stop() == 0)
    }

    @Test("a failing expectation is reported per step and exits 1")
    func failing() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let file = daemon.directory.appendingPathComponent("wrong.json")
        try Data("""
            {"name": "wrong", "apps": [{"id": "org.example.a", "name": "A", "writeUsage": "w", "policy": "deny-all"}],
             "steps": [{"app": "org.example.a", "request": {"share": ["HKQuantityTypeIdentifierStepCount"]}},
                       {"app": "org.example.a", "save": {"type": "HKQuantityTypeIdentifierStepCount", "value": 3, "unit": "count"}}]}
            """.utf8).write(to: file)
        let result = try await DaemonHarness.run(Self.salusctl, ["scenario", "run", "--admin-socket", daemon.adminSocketPath, file.path], timeout: .seconds(60))
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("FAIL step 2"), "\(result.output)")
        #expect(result.output.contains("expected ok, got AUTHORIZATION_DENIED"), "\(result.output)")
        #expect(try await daemon.stop() == 0)
    }
}
