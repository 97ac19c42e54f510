import Foundation
import Logging
import SalusProto
import SalusRPC
import SalusStore
import SalusTestSupport
import Testing

@testable import SalusServer

/// A change the owner makes is saved before the owner's call returns, or the call fails saying
/// so; the failure is logged, and the next change saves what was missed.
@Suite("Consent persistence")
struct ConsentPersistenceTests {
    typealias S = Authz

    /// Makes `authorization.sqlite` refuse every write to the apps table, as a full or failing
    /// disk would (a trigger works for every user, root included, unlike file modes).
    static func refuseWrites(_ server: ServerHarness) throws -> Database {
        let database = try Database(path: server.authorizationDatabase.path)
        try database.execute("CREATE TRIGGER refuse_insert BEFORE INSERT ON apps BEGIN SELECT RAISE(ABORT, 'disk refused the write'); END")
        try database.execute("CREATE TRIGGER refuse_delete BEFORE DELETE ON apps BEGIN SELECT RAISE(ABORT, 'disk refused the write'); END")
        return database
    }

    static func allowWrites(_ database: Database) throws {
        try database.execute("DROP TRIGGER refuse_insert")
        try database.execute("DROP TRIGGER refuse_delete")
    }

    static func grantRequest(_ appID: String, read: Salus_V1_Decision, share: Salus_V1_Decision) -> Salus_V1_SetGrantsRequest {
        var grant = Salus_V1_TypeGrant()
        grant.type = S.steps
        grant.read = read
        grant.share = share
        var request = Salus_V1_SetGrantsRequest()
        request.appID = appID
        request.grants = [grant]
        return request
    }

    @Test("a grant that cannot be saved fails the owner's call with a clear error, is logged, and is saved by the next change")
    func unsavedGrant() async throws {
        let log = CapturedLog()
        let server = try await ServerHarness.start(developmentMode: false, logger: Logger(label: "test") { _ in log })
        let owner = try await server.owner()
        try await S.register(owner, "org.example.app", read: nil, share: nil)

        let refusing = try Self.refuseWrites(server)
        let error = await #expect(throws: RPCError.self) {
            let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.setGrants, request: Self.grantRequest("org.example.app", read: .granted, share: .granted))
        }
        #expect(error?.code == .internal)
        #expect(error?.reason == .databaseInaccessible)
        #expect(error?.message.contains("in effect but was not saved") == true)
        #expect(error?.message.contains("authorization.sqlite") == true)
        #expect(error?.message.contains("disk refused the write") == true)
        #expect(error?.detail?.value == "org.example.app")
        #expect(log.entries.contains { $0.level == .error && $0.message.contains("cannot save the authorization") && $0.metadata.contains("org.example.app") })
        #expect(server.services.authorization.apps.unsaved() == ["org.example.app"])

        // In effect in memory, as the owner was told.
        var show = Salus_V1_AppRequest()
        show.appID = "org.example.app"
        let info: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.showApp, request: show)
        #expect(info.grants.first?.read == .granted)

        // Once the disk takes writes again, the next change saves the missed one too.
        try Self.allowWrites(refusing)
        try await S.register(owner, "org.example.second", read: nil, share: nil)
        #expect(server.services.authorization.apps.unsaved().isEmpty)
        server.services.authorization.flush()
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical
        let reloaded = try AppRegistry(types: [:], databasePath: server.authorizationDatabase.path, logger: quiet)
        #expect(reloaded.record("org.example.app")?.read[S.steps] == .granted)
        #expect(reloaded.record("org.example.second") != nil)

        await owner.close()
        await server.stop()
    }

    @Test("an answer that cannot be saved completes the app's request and fails the owner's answer, naming the request")
    func unsavedAnswer() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let owner = try await server.owner()
        try await S.register(owner, "org.example.app", read: nil, share: nil)
        let app = try await server.launchedApp("org.example.app")
        let asked = Task {
            var request = Salus_V1_AuthorizationRequest()
            request.share = [S.steps]
            let _: Salus_V1_AuthorizationResponse = try await app.unary(SalusMethods.Authorization.requestAuthorization, request: request)
        }
        var pending: [PendingRequest] = []
        for await request in server.services.authorization.consent.watch() {
            pending.append(request)
            break
        }
        let refusing = try Self.refuseWrites(server)
        var answer = Salus_V1_AnswerRequestRequest()
        answer.requestID = try #require(pending.first?.id)
        answer.grantShare = [S.steps]
        let error = await #expect(throws: RPCError.self) {
            let _: Salus_V1_ConsentRequest = try await owner.unary(SalusMethods.Consent.answerRequest, request: answer)
        }
        #expect(error?.code == .internal)
        #expect(error?.message.contains("request \(answer.requestID) is answered") == true)
        try await asked.value
        var status = Salus_V1_AuthorizationStatusRequest()
        status.type = S.steps
        let response: Salus_V1_AuthorizationStatusResponse = try await app.unary(SalusMethods.Authorization.authorizationStatus, request: status)
        #expect(response.status == .sharingAuthorized)

        try Self.allowWrites(refusing)
        await app.close()
        await owner.close()
        await server.stop()
    }

    @Test("an answer a policy gave that cannot be saved is reported by the owner's next change")
    func unsavedPolicyAnswer() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let owner = try await server.owner()
        try await S.register(owner, "org.example.app", read: nil, share: nil)
        var policy = Salus_V1_SetPolicyRequest()
        policy.appID = "org.example.app"
        policy.policy.kind = .grantAll
        let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.setPolicy, request: policy)
        let refusing = try Self.refuseWrites(server)

        // The policy answers; the app's call completes with the grant in effect.
        let app = try await server.launchedApp("org.example.app")
        var request = Salus_V1_AuthorizationRequest()
        request.share = [S.steps]
        let _: Salus_V1_AuthorizationResponse = try await app.unary(SalusMethods.Authorization.requestAuthorization, request: request)
        _ = try await S.save(app, [S.sample(value: 1, start: 1_700_000_000_000_000)])

        // The policy's write may still be on its way; once it failed, the owner's next change says so.
        let deadline = ContinuousClock.now + .seconds(5)
        while server.services.authorization.apps.unsaved().isEmpty && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(server.services.authorization.apps.unsaved() == ["org.example.app"])
        let error = await #expect(throws: RPCError.self) { try await S.register(owner, "org.example.second", read: nil, share: nil) }
        #expect(error?.code == .internal)
        #expect(error?.detail?.value.contains("org.example.app") == true)

        try Self.allowWrites(refusing)
        await app.close()
        await owner.close()
        await server.stop()
    }
}

/// A log handler that keeps every entry, for tests that check what was logged.
final class CapturedLog: LogHandler, @unchecked Sendable {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: String
    }

    private let recorded = Recorded<Entry>()
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    /// Every entry so far.
    var entries: [Entry] { recorded.items }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        recorded.append(Entry(level: event.level, message: "\(event.message)", metadata: "\(merged)"))
    }
}
