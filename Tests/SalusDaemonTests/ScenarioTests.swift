import Foundation
import Testing

/// `salusctl scenario run` as a process against a daemon without development mode (apps act
/// through their launcher sockets): what it prints and its exit code. Every example scenario's
/// steps, and the steps' checks, are run in process on `AdminClient.run` (SalusServerTests'
/// `AdminClientScenarioTests`).
@Suite("salusctl scenario run: the example scenarios")
struct ScenarioTests {
    static let salusctl = DaemonHarness.binary("salusctl")

    static func example(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/scenarios/\(name)").path
    }

    @Test("an example scenario prints its name, PASS per step and PASS: all, and exits 0")
    func example() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let result = try await DaemonHarness.run(
            Self.salusctl, ["scenario", "run", "--admin-socket", daemon.adminSocketPath, Self.example("sleep-denied-read.json")], timeout: .seconds(120))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasPrefix("scenario: A sleep app may write sleep but is denied reading it"), "\(result.output)")
        #expect(result.output.contains("PASS step 1: saving before asking is not determined"), "\(result.output)")
        #expect(result.output.hasSuffix("PASS: all 11 steps\n"), "\(result.output)")
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
