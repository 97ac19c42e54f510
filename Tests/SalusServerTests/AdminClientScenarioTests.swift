import Foundation
import SalusAdmin
import SalusKit
import Testing

/// Authorization scenarios through the admin client in process (`AdminClient.run(_:connect:stepDone:)`,
/// what `salusctl scenario run` calls): the example scenarios of Examples/scenarios pass every
/// step with each app on its own (launched) connection, and a wrong expectation fails its step
/// with why. (The printed lines and the exit code are checked on the command, in the daemon's
/// `ScenarioTests`.)
@Suite("AdminClient: authorization scenarios")
struct AdminClientScenarioTests {
    static func example(_ name: String) throws -> AuthorizationScenario {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/scenarios/\(name)")
        return try JSONDecoder().decode(AuthorizationScenario.self, from: Data(contentsOf: url))
    }

    static func run(_ scenario: AuthorizationScenario) async throws -> [ScenarioStepResult] {
        let server = try await ServerHarness.start(developmentMode: false)
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let results = try await admin.run(scenario) { HealthStore(client: try await server.launchedApp($0)) }
        await admin.close()
        return results
    }

    @Test("each example scenario passes every step", arguments: ["sleep-denied-read.json", "reproductive-write-only.json", "vision-per-object.json"])
    func example(_ name: String) async throws {
        let scenario = try Self.example(name)
        let results = try await Self.run(scenario)
        #expect(results.count == scenario.steps.count)
        let failed = results.filter { !$0.passed }.map(\.line)
        #expect(failed.isEmpty, "\(failed)")
        #expect(results.map(\.number) == Array(1...scenario.steps.count))
    }

    @Test("a wrong expectation fails its step, naming what was expected and what came; the steps after it still run; a query's count and sources are checked")
    func failing() async throws {
        let scenario = try JSONDecoder().decode(AuthorizationScenario.self, from: Data("""
            {"name": "wrong", "apps": [{"id": "org.example.a", "name": "A", "writeUsage": "w", "readUsage": "r", "policy": "deny-all"}],
             "steps": [{"app": "org.example.a", "request": {"share": ["HKQuantityTypeIdentifierStepCount"]}},
                       {"app": "org.example.a", "save": {"type": "HKQuantityTypeIdentifierStepCount", "value": 3, "unit": "count"}},
                       {"app": "org.example.a", "save": {"type": "HKQuantityTypeIdentifierStepCount", "value": 3, "unit": "count"}, "expect": "AUTHORIZATION_DENIED", "describe": "denied as the policy says"},
                       {"app": "org.example.a", "query": "HKQuantityTypeIdentifierStepCount", "expectCount": 1},
                       {"app": "org.example.a", "status": "HKQuantityTypeIdentifierStepCount", "expect": "sharingAuthorized"}]}
            """.utf8))
        let results = try await Self.run(scenario)
        #expect(results.map(\.passed) == [true, false, true, false, false], "\(results.map(\.line))")
        #expect(results[1].line.hasPrefix("FAIL step 2: org.example.a saves 1 HKQuantityTypeIdentifierStepCount — expected ok, got AUTHORIZATION_DENIED"), "\(results[1].line)")
        #expect(results[2].line == "PASS step 3: denied as the policy says")
        #expect(results[3].detail == "expected 1 samples, got 0", "\(results[3])")
        #expect(results[4].detail == "expected sharingAuthorized, got sharingDenied", "\(results[4])")
    }

    @Test("a policy that is not one is refused before any step, naming the app's field")
    func badPolicy() async throws {
        let scenario = try JSONDecoder().decode(AuthorizationScenario.self, from: Data("""
            {"name": "bad", "apps": [{"id": "org.example.a", "name": "A", "policy": "maybe"}], "steps": [{"app": "org.example.a", "reset": true}]}
            """.utf8))
        let error = await #expect(throws: SalusError.self) { _ = try await Self.run(scenario) }
        #expect(error?.message == "apps[org.example.a].policy: 'maybe' is not a policy; expected ask, grant-all, deny-all or grant")
    }
}
