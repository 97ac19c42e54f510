import Foundation
import SalusKit
import SalusModel
import SalusRPC

/// An authorization scenario (`salusctl scenario run FILE`, Examples/scenarios/): apps with
/// usage texts and policies, then steps that each app or the owner takes, with what each should
/// give. Read from JSON with `JSONDecoder`.
public struct AuthorizationScenario: Decodable, Sendable {
    /// An app the scenario registers (and resets) before its steps, with its policy.
    public struct App: Decodable, Sendable {
        public var id: String
        public var name: String
        public var readUsage: String?
        public var writeUsage: String?
        /// ask (the default), grant-all, deny-all or grant (the types of `read` and `share`).
        public var policy: String?
        public var read: [String]?
        public var share: [String]?
        /// How long the policy waits before it answers ("300ms", "2s"); at once without.
        public var after: String?
    }

    /// One step: exactly one action, and what it should give.
    public struct Step: Decodable, Sendable {
        public var app: String?
        /// The step's line; without, the action is described.
        public var describe: String?
        /// RequestAuthorization.
        public var request: Types?
        /// RequestPerObjectReadAuthorization of this type.
        public var requestObjects: String?
        /// Save `count` samples of `type` (quantity `value` in `unit`, or category `value`).
        public var save: Save?
        /// Query samples of this type.
        public var query: String?
        /// AuthorizationStatus of this type.
        public var status: String?
        /// The owner revokes (denies) these types for `app`.
        public var revoke: Types?
        /// The owner resets `app`.
        public var reset: Bool?
        /// "ok" (the default), an error reason (AUTHORIZATION_DENIED…), or a sharing status
        /// (sharingAuthorized…).
        public var expect: String?
        public var expectCount: Int?
        public var expectSources: [String]?
    }

    public struct Types: Decodable, Sendable {
        public var share: [String]?
        public var read: [String]?
    }

    public struct Save: Decodable, Sendable {
        public var type: String
        public var value: Double?
        public var unit: String?
        public var count: Int?
    }

    public var name: String
    public var apps: [App]
    public var steps: [Step]
}

/// What one step of a scenario gave.
public struct ScenarioStepResult: Sendable, Hashable {
    /// The step's number, from 1.
    public var number: Int
    public var passed: Bool
    /// The step's `describe`, else what it did ("org.example.a saves 3 HKQuantityTypeIdentifierStepCount").
    public var text: String
    /// Why it failed ("expected ok, got AUTHORIZATION_DENIED: …"); empty when it passed.
    public var detail: String

    /// The line `salusctl scenario run` prints: "PASS step 2: …" or "FAIL step 2: … — why".
    public var line: String {
        "\(passed ? "PASS" : "FAIL") step \(number): \(text)\(passed ? "" : " — \(detail)")"
    }
}

extension AdminClient {
    /// Runs `scenario`: registers each of its apps (name and usage texts), resets it and sets its
    /// policy, then takes each step as its app would, through SalusKit's `HealthStore` on the
    /// store `connect` gives for the app id (by default the app's own socket,
    /// ``appEndpoint(_:)``, as `salusctl launch` gives it), or as the owner for `revoke` and
    /// `reset`. `stepDone` is told each step's result as it is known; the results are returned
    /// in order. A failed step does not stop the scenario. Throws ``SalusError`` when an app
    /// cannot be registered or its policy is not one (naming `apps[ID].policy` or `.after`).
    public func run(
        _ scenario: AuthorizationScenario,
        connect: (@Sendable (String) async throws -> HealthStore)? = nil,
        stepDone: (ScenarioStepResult) -> Void = { _ in }
    ) async throws -> [ScenarioStepResult] {
        let runner = ScenarioRunner(owner: self, connect: connect)
        for app in scenario.apps {
            _ = try await addApp(app.id, name: app.name, readUsage: app.readUsage ?? "", writeUsage: app.writeUsage ?? "")
            _ = try await resetApp(app.id)
            let policy = ConsentPolicy(
                try ConsentPolicy.Kind(word: app.policy ?? "ask", field: "apps[\(app.id)].policy"),
                read: app.read ?? [], share: app.share ?? [],
                afterMilliseconds: try app.after.map { try ConsentPolicy.milliseconds($0, field: "apps[\(app.id)].after") } ?? 0)
            _ = try await setPolicy(policy, for: app.id)
        }
        var results: [ScenarioStepResult] = []
        for (index, step) in scenario.steps.enumerated() {
            let (passed, what, detail) = await runner.perform(step)
            let result = ScenarioStepResult(number: index + 1, passed: passed, text: step.describe ?? what, detail: detail)
            stepDone(result)
            results.append(result)
        }
        await runner.close()
        return results
    }
}

extension ConsentPolicy.Kind {
    /// The policy a word names: ask, grant-all, deny-all or grant (the listed types); `field`
    /// names where the word came from in the error.
    public init(word: String, field: String) throws {
        switch word {
        case "ask": self = .ask
        case "grant-all": self = .grantAll
        case "deny-all": self = .denyAll
        case "grant": self = .grantListed
        default:
            throw SalusError(
                code: .invalidArgument, message: "\(field): '\(word)' is not a policy; expected ask, grant-all, deny-all or grant",
                field: field, value: word, expected: "ask, grant-all, deny-all or grant")
        }
    }
}

extension ConsentPolicy {
    /// A policy's wait, "2s", "500ms", "1m", "1h" or plain seconds, in milliseconds; `field`
    /// names where the text came from in the error.
    public static func milliseconds(_ text: String, field: String) throws -> Int64 {
        let units: [(String, Double)] = [("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast(suffix.count)), value >= 0, let milliseconds = Int64(rounding: value * scale, .down) {
                return milliseconds
            }
        }
        if let value = Double(text), value >= 0, let milliseconds = Int64(rounding: value * 1_000, .down) { return milliseconds }
        throw SalusError(
            code: .invalidArgument, message: "\(field): '\(text)' is not a duration; expected a number with ms, s, m or h (500ms, 2s, 1m)",
            field: field, value: text, expected: "a number with ms, s, m or h (500ms, 2s, 1m)")
    }
}

/// Takes a scenario's steps through the owner's client and each app's store.
final class ScenarioRunner {
    let owner: AdminClient
    let connect: (@Sendable (String) async throws -> HealthStore)?
    var apps: [String: HealthStore] = [:]
    /// The start of the next sample an app saves: a minute after the last one.
    var clock = Date(timeIntervalSince1970: 1_700_000_000)

    init(owner: AdminClient, connect: (@Sendable (String) async throws -> HealthStore)?) {
        self.owner = owner
        self.connect = connect
    }

    /// The app `id`'s store, through SalusKit as the app itself would call.
    func app(_ id: String) async throws -> HealthStore {
        if let store = apps[id] { return store }
        let store: HealthStore
        if let connect {
            store = try await connect(id)
        } else {
            store = try await HealthStore.connect(socketPath: try await owner.appEndpoint(id), appID: id)
        }
        apps[id] = store
        return store
    }

    func close() async {
        for store in apps.values { await store.close() }
        apps = [:]
    }
    /// Whether the step passed, what it did and, when it failed, why.
    func perform(_ step: AuthorizationScenario.Step) async -> (Bool, String, String) {
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

    func check(_ step: AuthorizationScenario.Step, what: String, error: SalusError?) -> (Bool, String, String) {
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
