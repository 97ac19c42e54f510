import ArgumentParser
import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusRPC

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
    var apps: [String: HealthStore] = [:]
    /// The start of the next sample an app saves: a minute after the last one.
    var clock = Date(timeIntervalSince1970: 1_700_000_000)

    init(owner: AdminClient) { self.owner = owner }

    /// The app `id` on its own socket (what `salusctl launch` gives it), through SalusKit as the
    /// app itself would call.
    func app(_ id: String) async throws -> HealthStore {
        if let store = apps[id] { return store }
        let store = try await HealthStore.connect(socketPath: try await owner.appEndpoint(id), appID: id)
        apps[id] = store
        return store
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
        for store in apps.values { await store.close() }
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
            let store = try await app(appID)
            if let types = step.request {
                what = "\(appID) requests share \(types.share ?? []) read \(types.read ?? [])"
                do {
                    try await store.requestAuthorization(
                        toShare: Set((types.share ?? []).map { SampleType($0) }), read: Set((types.read ?? []).map { SampleType($0) }))
                    return check(step, what: what, error: nil)
                } catch { return check(step, what: what, error: SalusError.from(error)) }
            }
            if let type = step.requestObjects {
                what = "\(appID) requests per-object read of \(type)"
                do {
                    try await store.requestPerObjectReadAuthorization(for: SampleType(type))
                    return check(step, what: what, error: nil)
                } catch { return check(step, what: what, error: SalusError.from(error)) }
            }
            if let save = step.save {
                let count = save.count ?? 1
                what = "\(appID) saves \(count) \(save.type)"
                var samples: [Sample] = []
                for _ in 0..<count {
                    clock += 60
                    let value: SampleValue
                    var end = clock + 30
                    if save.type == SampleType.visionPrescription.identifier.rawValue {
                        end = clock
                        value = .visionPrescription(VisionPrescription(prescriptionType: .glasses, dateIssued: clock))
                    } else if let unit = save.unit {
                        value = .quantity(Quantity(value: save.value ?? 1, unit: try SalusUnit(parsing: unit)))
                    } else {
                        value = .category(Int(save.value ?? 0))
                    }
                    samples.append(Sample(type: SampleType(save.type), value: value, start: clock, end: end))
                }
                do {
                    _ = try await store.save(samples)
                    return check(step, what: what, error: nil)
                } catch { return check(step, what: what, error: SalusError.from(error)) }
            }
            if let type = step.query {
                what = "\(appID) queries \(type)"
                let samples = try await SampleQueryDescriptor(type: SampleType(type)).result(for: store)
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
                let got = switch try await store.authorizationStatus(for: SampleType(type)) {
                case .sharingAuthorized: "sharingAuthorized"
                case .sharingDenied: "sharingDenied"
                case .notDetermined: "notDetermined"
                }
                return step.expect == nil || step.expect == got ? (true, what + " is \(got)", "") : (false, what, "expected \(step.expect!), got \(got)")
            }
            return (false, "step", "no action: expected one of request, requestObjects, save, query, status, revoke, reset")
        } catch {
            return (false, what, "\(error)")
        }
    }

    func check(_ step: ScenarioFile.Step, what: String, error: SalusError?) -> (Bool, String, String) {
        let expected = step.expect ?? "ok"
        let got = error.map { Self.reasonName($0) } ?? "ok"
        return expected == got ? (true, what + (error == nil ? "" : " → \(got)"), "") : (false, what, "expected \(expected), got \(got)\(error.map { ": \($0.message)" } ?? "")")
    }

    /// The daemon's name of a refusal: its reason (`AUTHORIZATION_DENIED`), else its status code.
    static func reasonName(_ error: SalusError) -> String {
        switch error.code {
        case .authorizationDenied: "AUTHORIZATION_DENIED"
        case .authorizationNotDetermined: "AUTHORIZATION_NOT_DETERMINED"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .notFound: "NOT_FOUND"
        case .unauthenticated: "UNAUTHENTICATED"
        case .permissionDenied: "PERMISSION_DENIED"
        default: error.statusCode.map { "\(RPCError.Code(rawValue: $0))" } ?? "\(error.code)"
        }
    }
}
