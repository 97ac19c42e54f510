import Foundation
import SalusAdmin
import SalusKit
import SalusProto
import SalusRPC
import SalusTestSupport
import SwiftProtobuf
import Testing

/// The owner's client (SalusAdmin) against the daemon's services in process: what `salusctl apps`,
/// `consent` and `priority` do, without a process.
@Suite("AdminClient: apps, consent, source priority and preferred units")
struct AdminClientTests {
    typealias S = Authz

    static func admin(_ server: ServerHarness) async throws -> AdminClient {
        AdminClient(rpc: try await server.owner(clientName: "salusctl"))
    }

    /// The error `body` throws, as a SalusError (nil: none, or another kind).
    static func refusal(_ body: () async throws -> Void) async -> SalusError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? SalusError
        }
    }

    @Test("an app added is listed and shown with its usage texts; a policy and grants given by short names hold full identifiers; reset returns every type to not determined; a removed app is not found")
    func appLifecycle() async throws {
        let server = try await ServerHarness.start()
        let admin = try await Self.admin(server)
        let added = try await admin.addApp("org.example.diary", name: "Sleep diary", readUsage: "Shows your nights")
        #expect(added.appID == "org.example.diary")
        #expect(added.name == "Sleep diary")
        #expect(added.readUsage == "Shows your nights")
        #expect(added.writeUsage == "")
        #expect(added.policy == .ask)
        #expect(try await admin.apps().map(\.appID) == ["org.example.diary"])

        // Short names resolve case-insensitively; an unknown name passes through for the daemon to refuse.
        #expect(try await admin.typeIdentifiers(for: ["stepCount", "HEARTRATE", "noSuchType"]) == [S.steps, S.heartRate, "noSuchType"])

        let read = try await admin.typeIdentifiers(for: ["stepCount"])
        let withPolicy = try await admin.setPolicy(ConsentPolicy(.grantListed, read: read, afterMilliseconds: 500), for: "org.example.diary")
        #expect(withPolicy.policy == ConsentPolicy(.grantListed, read: [S.steps], afterMilliseconds: 500))

        let granted = try await admin.setGrants(
            [TypeGrant(type: S.heartRate, read: .granted), TypeGrant(type: S.steps, share: .denied)], for: "org.example.diary")
        let grants = Dictionary(uniqueKeysWithValues: granted.grants.map { ($0.type, $0) })
        #expect(grants[S.heartRate] == TypeGrant(type: S.heartRate, read: .granted, share: .notDetermined))
        #expect(grants[S.steps] == TypeGrant(type: S.steps, read: .notDetermined, share: .denied))
        #expect(try await admin.app("org.example.diary") == granted)

        let reset = try await admin.resetApp("org.example.diary")
        #expect(reset.grants.allSatisfy { $0.read == .notDetermined && $0.share == .notDetermined }, "\(reset.grants)")

        #expect(try await admin.setSyncAgent("org.example.diary", true).isSyncAgent)
        #expect(try await admin.setSyncAgent("org.example.diary", false).isSyncAgent == false)

        try await admin.removeApp("org.example.diary")
        #expect(try await admin.apps().isEmpty)
        let missing = await Self.refusal { _ = try await admin.app("org.example.diary") }
        #expect(missing?.code == .notFound, "\(String(describing: missing))")
        #expect(missing?.message.contains("org.example.diary") == true, "\(String(describing: missing))")
        await admin.close()
    }

    @Test("a request waits in pendingRequests and watchRequests with the app's name, usage texts and types; answering all lets the app write, answering nothing denies it")
    func consentRequests() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let admin = try await Self.admin(server)
        try await admin.addApp("org.example.diary", name: "Sleep diary", readUsage: "Shows your nights", writeUsage: "Records your nights")
        let app = try await server.launchedApp("org.example.diary")
        let asked = Task { try await S.requestAuthorization(app, share: [S.sleep], read: [S.steps]) }

        var watched: ConsentRequest?
        for try await request in admin.watchRequests() {
            watched = request
            break
        }
        let request = try #require(watched)
        #expect(request.appID == "org.example.diary")
        #expect(request.appName == "Sleep diary")
        #expect(request.read == [S.steps])
        #expect(request.share == [S.sleep])
        #expect(request.writeUsage == "Records your nights")
        #expect(request.state == .pending)
        #expect(request.identity == "launcher")
        #expect(request.identityStrength == .strong)
        #expect(try await admin.pendingRequests() == [request])
        #expect(try await admin.app("org.example.diary").pending == [request])

        let answered = try await admin.answer(.all(request))
        #expect(answered.id == request.id)
        #expect(answered.state == .answered)
        try await asked.value
        #expect(try await S.sharingStatus(app, S.sleep) == .sharingAuthorized)
        #expect(try await admin.pendingRequests().isEmpty)

        // Answered again: no longer pending, refused by name.
        let again = await Self.refusal { try await admin.answer(.nothing(request)) }
        #expect(again != nil)
        #expect(again?.message.contains(request.id) == true, "\(String(describing: again))")

        try await admin.resetApp("org.example.diary")
        let second = Task { try await S.requestAuthorization(app, share: [S.sleep]) }
        var pending: [ConsentRequest] = []
        for try await request in admin.watchRequests() {
            pending.append(request)
            break
        }
        try await admin.answer(.nothing(try #require(pending.first)))
        try await second.value
        #expect(try await S.sharingStatus(app, S.sleep) == .sharingDenied)
        await app.close()
        await admin.close()
    }

    @Test("the JSON of apps and requests is the proto3 JSON of the daemon's own responses, as salusctl --json printed it")
    func jsonIsTheDaemons() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let admin = try await Self.admin(server)
        try await admin.addApp("org.example.diary", name: "Sleep diary", readUsage: "r", writeUsage: "w")
        try await admin.setGrants([TypeGrant(type: S.steps, read: .granted, share: .denied)], for: "org.example.diary")
        try await admin.setPolicy(ConsentPolicy(.denyAll, afterMilliseconds: 60_000), for: "org.example.diary")
        try await admin.setPolicy(.ask, for: "org.example.diary")
        let app = try await server.launchedApp("org.example.diary")
        let asked = Task { try await S.requestAuthorization(app, share: [S.sleep]) }
        for try await _ in admin.watchRequests() { break }

        var options = JSONEncodingOptions()
        options.alwaysPrintInt64sAsNumbers = true
        let rawApps: Salus_V1_ListAppsResponse = try await admin.rpc.unary(SalusMethods.Consent.listApps, request: Salus_V1_ListAppsRequest())
        let rawRequests: Salus_V1_ListRequestsResponse = try await admin.rpc.unary(
            SalusMethods.Consent.listRequests, request: Salus_V1_ListRequestsRequest())
        #expect(rawRequests.requests.count == 1)
        #expect(try AdminJSON.text(apps: try await admin.apps()) == (try rawApps.jsonString(options: options)))
        #expect(try AdminJSON.text(app: try await admin.app("org.example.diary")) == (try rawApps.apps[0].jsonString(options: options)))
        #expect(try AdminJSON.text(requests: try await admin.pendingRequests()) == (try rawRequests.jsonString(options: options)))

        let pending = try await admin.pendingRequests()
        try await admin.answer(.nothing(try #require(pending.first)))
        try await asked.value
        await app.close()
        await admin.close()
    }

    @Test("a preferred unit set by the owner is listed as theirs, another type shows its canonical unit, a unit of another dimension is refused naming it, and clearing goes back to the canonical unit")
    func preferredUnits() async throws {
        let server = try await ServerHarness.start()
        let admin = try await Self.admin(server)
        let distance = try await admin.sampleTypeIdentifier(for: "distanceWalkingRunning")
        #expect(try await admin.preferredUnits().isEmpty)
        let set = try await admin.setPreferredUnit("km", of: distance)
        #expect(set == [PreferredUnit(type: distance, unit: "km", isOwnerSet: true)])
        #expect(try await admin.preferredUnits(of: [S.steps, distance]) == [
            PreferredUnit(type: S.steps, unit: "count", isOwnerSet: false), PreferredUnit(type: distance, unit: "km", isOwnerSet: true),
        ])
        let wrong = await Self.refusal { try await admin.setPreferredUnit("kg", of: distance) }
        #expect(wrong?.code == .invalidArgument, "\(String(describing: wrong))")
        #expect(wrong?.value == "kg", "\(String(describing: wrong))")
        #expect(try await admin.preferredUnits() == set)
        #expect(try await admin.setPreferredUnit(nil, of: distance) == [PreferredUnit(type: distance, unit: "m", isOwnerSet: false)])
        #expect(try await admin.preferredUnits().isEmpty)
        await admin.close()
    }

    @Test("a source priority set by a type's short name is read back highest first; no source clears it; a name of no sample type, or a characteristic, is refused naming it")
    func sourcePriority() async throws {
        let server = try await ServerHarness.start()
        let admin = try await Self.admin(server)
        let steps = try await admin.sampleTypeIdentifier(for: "stepcount")
        #expect(steps == S.steps)
        let set = try await admin.setSourcePriority(["org.example.watch", "org.example.phone"], of: steps)
        #expect(set == SourcePriority(type: S.steps, sources: ["org.example.watch", "org.example.phone"]))
        #expect(try await admin.sourcePriority(of: S.steps) == set)
        #expect(try await admin.setSourcePriority([], of: S.steps).sources.isEmpty)
        #expect(try await admin.sourcePriority(of: S.steps).sources.isEmpty)

        let unknown = await Self.refusal { _ = try await admin.sampleTypeIdentifier(for: "stepz") }
        #expect(unknown?.code == .invalidArgument)
        #expect(unknown?.message.hasPrefix("TYPE: no registered sample type \"stepz\"") == true, "\(String(describing: unknown))")
        let characteristic = await Self.refusal { _ = try await admin.sampleTypeIdentifier(for: "dateOfBirth") }
        #expect(characteristic?.code == .invalidArgument, "\(String(describing: characteristic))")
        #expect(try await admin.typeIdentifiers(for: ["dateOfBirth"]) == ["HKCharacteristicTypeIdentifierDateOfBirth"])
        await admin.close()
    }
}
