import ArgumentParser
import Foundation
import SalusAdmin
import SalusProto
import SalusRPC
import SalusWire

/// `salusctl scenario run FILE`: registers the scenario's apps with their policies, runs its
/// steps as those apps (through their launcher sockets) and prints pass or fail per step.
struct Scenario: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run authorization scenarios against a daemon.",
        subcommands: [Run.self]
    )

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a scenario file (JSON) and print pass/fail per step.",
            discussion: "See Examples/scenarios/ and docs/authorization.md. Exits 1 when a step fails.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: ArgumentHelp("The scenario file.", valueName: "file")) var file: String

        func run() async throws {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw CommandFailure("FILE: cannot read \(file): \(error.localizedDescription)")
            }
            let scenario: ScenarioFile
            do {
                scenario = try JSONDecoder().decode(ScenarioFile.self, from: data)
            } catch {
                throw CommandFailure("FILE: \(file) is not a scenario: \(error)")
            }
            let failures = try await connection.withAdmin { owner in
                print("scenario: \(scenario.name)")
                return try await ScenarioRunner(owner: owner).run(scenario)
            }
            print(failures == 0 ? "PASS: all \(scenario.steps.count) steps" : "FAIL: \(failures) of \(scenario.steps.count) steps")
            if failures > 0 { throw ExitCode(1) }
        }
    }
}

/// A scenario: apps with usage texts and policies, then steps with expected outcomes.
struct ScenarioFile: Decodable {
    struct App: Decodable {
        var id: String
        var name: String
        var readUsage: String?
        var writeUsage: String?
        /// ask, grant-all, deny-all or grant.
        var policy: String?
        var read: [String]?
        var share: [String]?
        var after: String?
    }

    struct Step: Decodable {
        var app: String?
        var describe: String?
        /// RequestAuthorization.
        var request: Types?
        /// RequestPerObjectReadAuthorization of this type.
        var requestObjects: String?
        /// Save `count` samples of `type` (quantity `value` in `unit`, or category `value`).
        var save: Save?
        /// Query samples of this type.
        var query: String?
        /// AuthorizationStatus of this type.
        var status: String?
        /// The owner revokes (denies) these types for `app`.
        var revoke: Types?
        /// The owner resets `app`.
        var reset: Bool?
        /// "ok", an error reason (AUTHORIZATION_DENIED…), or a sharing status (sharingAuthorized…).
        var expect: String?
        var expectCount: Int?
        var expectSources: [String]?
    }

    struct Types: Decodable {
        var share: [String]?
        var read: [String]?
    }

    struct Save: Decodable {
        var type: String
        var value: Double?
        var unit: String?
        var count: Int?
    }

    var name: String
    var apps: [App]
    var steps: [Step]
}

/// Runs scenarios through the owner's connection and per-app sockets.
final class ScenarioRunner {
    let owner: AdminClient
    var apps: [String: RPCClient] = [:]
    var clock: Int64 = 1_700_000_000_000_000

    init(owner: AdminClient) { self.owner = owner }

    func app(_ id: String) async throws -> RPCClient {
        if let client = apps[id] { return client }
        let socketPath = try await owner.appEndpoint(id)
        var configuration = RPCClient.Configuration()
        configuration.clientName = id
        let client = try await RPCClient.connect(unixSocketPath: socketPath, configuration: configuration)
        apps[id] = client
        return client
    }

    func run(_ scenario: ScenarioFile) async throws -> Int {
        for app in scenario.apps {
            try await owner.addApp(app.id, name: app.name, readUsage: app.readUsage ?? "", writeUsage: app.writeUsage ?? "")
            try await owner.resetApp(app.id)
            let policy = ConsentPolicy(
                try ConsentCalls.policyKind(app.policy ?? "ask", field: "apps[\(app.id)].policy"),
                read: app.read ?? [], share: app.share ?? [],
                afterMilliseconds: try app.after.map { try ConsentCalls.milliseconds($0, flag: "apps[\(app.id)].after") } ?? 0)
            try await owner.setPolicy(policy, for: app.id)
        }
        var failures = 0
        for (index, step) in scenario.steps.enumerated() {
            let (passed, what, detail) = await perform(step)
            let text = step.describe ?? what
            print("\(passed ? "PASS" : "FAIL") step \(index + 1): \(text)\(passed ? "" : " — \(detail)")")
            if !passed { failures += 1 }
        }
        for client in apps.values { await client.close() }
        return failures
    }

    /// Whether the step passed, what it did and, when it failed, why.
    func perform(_ step: ScenarioFile.Step) async -> (Bool, String, String) {
        let appID = step.app ?? ""
        var what = ""
        do {
            if let types = step.revoke {
                what = "owner revokes \(appID)'s read \(types.read ?? []) share \(types.share ?? [])"
                try await owner.setGrants(
                    (types.read ?? []).map { TypeGrant(type: $0, read: .denied) } + (types.share ?? []).map { TypeGrant(type: $0, share: .denied) },
                    for: appID)
                return check(step, what: what, error: nil)
            }
            if step.reset == true {
                what = "owner resets \(appID)"
                try await owner.resetApp(appID)
                return check(step, what: what, error: nil)
            }
            let client = try await app(appID)
            if let types = step.request {
                what = "\(appID) requests share \(types.share ?? []) read \(types.read ?? [])"
                var request = Salus_V1_AuthorizationRequest()
                request.share = types.share ?? []
                request.read = types.read ?? []
                do {
                    let _: Salus_V1_AuthorizationResponse = try await client.unary(
                        SalusMethods.Authorization.requestAuthorization, request: request)
                    return check(step, what: what, error: nil)
                } catch let error as RPCError { return check(step, what: what, error: error) }
            }
            if let type = step.requestObjects {
                what = "\(appID) requests per-object read of \(type)"
                do {
                    let _: Salus_V1_AuthorizationResponse = try await client.unary(
                        SalusMethods.Authorization.requestPerObjectReadAuthorization,
                        request: Salus_V1_PerObjectReadRequest.with { $0.type = type })
                    return check(step, what: what, error: nil)
                } catch let error as RPCError { return check(step, what: what, error: error) }
            }
            if let save = step.save {
                let count = save.count ?? 1
                what = "\(appID) saves \(count) \(save.type)"
                var request = Salus_V1_SaveRequest()
                for _ in 0..<count {
                    clock += 60_000_000
                    var sample = Salus_V1_Sample()
                    sample.type = save.type
                    sample.startDate = clock
                    sample.endDate = clock + 30_000_000
                    if save.type == "HKVisionPrescriptionTypeIdentifier" {
                        sample.endDate = clock
                        sample.visionPrescription.prescriptionType = 1
                        sample.visionPrescription.dateIssued = clock
                    } else if let unit = save.unit {
                        sample.quantity.value = save.value ?? 1
                        sample.quantity.unit = unit
                    } else {
                        sample.category.value = Int64(save.value ?? 0)
                    }
                    request.samples.append(sample)
                }
                do {
                    let _: Salus_V1_SaveResponse = try await client.unary(SalusMethods.Store.save, request: request)
                    return check(step, what: what, error: nil)
                } catch let error as RPCError { return check(step, what: what, error: error) }
            }
            if let type = step.query {
                what = "\(appID) queries \(type)"
                var samples: [Salus_V1_Sample] = []
                for try await batch in try client.serverStreaming(
                    SalusMethods.Store.querySamples,
                    request: Salus_V1_SampleQueryRequest.with { $0.type = type })
                {
                    samples += batch.samples
                }
                if let expected = step.expectCount, expected != samples.count {
                    return (false, what, "expected \(expected) samples, got \(samples.count)")
                }
                if let expected = step.expectSources, Set(expected) != Set(samples.map(\.sourceRevision.appID)) {
                    return (false, what, "expected sources \(expected.sorted()), got \(Set(samples.map(\.sourceRevision.appID)).sorted())")
                }
                return (true, what + " (\(samples.count) samples)", "")
            }
            if let type = step.status {
                what = "\(appID) sharing status of \(type)"
                let response: Salus_V1_AuthorizationStatusResponse = try await client.unary(
                    SalusMethods.Authorization.authorizationStatus,
                    request: Salus_V1_AuthorizationStatusRequest.with { $0.type = type })
                let got = switch response.status {
                case .sharingAuthorized: "sharingAuthorized"
                case .sharingDenied: "sharingDenied"
                default: "notDetermined"
                }
                return step.expect == nil || step.expect == got ? (true, what + " is \(got)", "") : (false, what, "expected \(step.expect!), got \(got)")
            }
            return (false, "step", "no action: expected one of request, requestObjects, save, query, status, revoke, reset")
        } catch {
            return (false, what, "\(error)")
        }
    }

    func check(_ step: ScenarioFile.Step, what: String, error: RPCError?) -> (Bool, String, String) {
        let expected = step.expect ?? "ok"
        let got = error.map { Self.reasonName($0) } ?? "ok"
        return expected == got ? (true, what + (error == nil ? "" : " → \(got)"), "") : (false, what, "expected \(expected), got \(got)\(error.map { ": \($0.message)" } ?? "")")
    }

    static func reasonName(_ error: RPCError) -> String {
        switch error.reason {
        case .authorizationDenied: "AUTHORIZATION_DENIED"
        case .authorizationNotDetermined: "AUTHORIZATION_NOT_DETERMINED"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .notFound: "NOT_FOUND"
        case .unauthenticated: "UNAUTHENTICATED"
        case .permissionDenied: "PERMISSION_DENIED"
        default: "\(error.code)"
        }
    }
}
