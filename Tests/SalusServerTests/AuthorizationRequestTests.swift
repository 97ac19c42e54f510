import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Requests, consent answers, policies, errors and per-object authorization.
@Suite("Authorization requests, consent and policies")
struct AuthorizationRequestTests {
    @Test("missing usage texts, read-only share types and per-object read types are refused by name")
    func requestErrors() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.silent", read: "", write: "")
        let silent = try await Authz.app(server, "org.example.silent")
        let noRead = await Authz.error { try await Authz.requestAuthorization(silent, read: [Authz.steps]) }
        #expect(noRead?.code == .invalidArgument)
        #expect(noRead?.detail?.field == "readUsage")
        let noWrite = await Authz.error { try await Authz.requestAuthorization(silent, share: [Authz.steps]) }
        #expect(noWrite?.detail?.field == "writeUsage")

        try await Authz.register(owner, "org.example.app")
        let app = try await Authz.app(server, "org.example.app")
        let readOnly = await Authz.error { try await Authz.requestAuthorization(app, share: [Authz.steps, "HKCategoryTypeIdentifierAppleWalkingSteadinessEvent"]) }
        #expect(readOnly?.code == .invalidArgument)
        #expect(readOnly?.detail?.field == "share[1]")
        #expect(readOnly?.detail?.value == "HKCategoryTypeIdentifierAppleWalkingSteadinessEvent")
        let characteristic = await Authz.error { try await Authz.requestAuthorization(app, share: ["HKCharacteristicTypeIdentifierDateOfBirth"]) }
        #expect(characteristic?.detail?.field == "share[0]")
        let perObject = await Authz.error { try await Authz.requestAuthorization(app, read: [Authz.vision]) }
        #expect(perObject?.detail?.field == "read[0]")
        #expect(perObject?.message.contains("RequestPerObjectReadAuthorization") == true)
        let unknown = await Authz.error { try await Authz.requestAuthorization(app, read: ["HKQuantityTypeIdentifierNoSuchThing"]) }
        #expect(unknown?.detail?.value == "HKQuantityTypeIdentifierNoSuchThing")

        let unregistered = try await Authz.app(server, "org.example.stranger")
        let stranger = await Authz.error { try await Authz.requestAuthorization(unregistered, read: [Authz.steps]) }
        #expect(stranger?.code == .failedPrecondition)
        #expect(stranger?.message.contains("salusctl apps add org.example.stranger") == true)
        for client in [silent, app, unregistered, owner] { await client.close() }
        await server.stop()
    }

    /// The owner's list of pending requests of `appID` now, or once it holds `count` of them (at most 5 s).
    static func pending(_ owner: RPCClient, of appID: String, count: Int = 0) async throws -> [Salus_V1_ConsentRequest] {
        var requests: [Salus_V1_ConsentRequest] = []
        for _ in 0..<500 {
            let list: Salus_V1_ListRequestsResponse = try await owner.unary(SalusMethods.Consent.listRequests, request: Salus_V1_ListRequestsRequest())
            requests = list.requests.filter { $0.appID == appID }
            if requests.count >= count { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        return requests
    }

    @Test("an app with 32 requests waiting is refused another with RESOURCE_EXHAUSTED naming pendingRequests; nothing is added, other apps still ask, an answer frees a place; Hello reports the cap")
    func pendingRequestCap() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.eager")
        try await Authz.register(owner, "org.example.calm")
        let eager = try await Authz.app(server, "org.example.eager")
        let limit = Int(try #require(eager.serverHello).limits.maxPendingRequestsPerApp)
        #expect(limit == 32)
        var waits: [Task<Void, Error>] = []
        for _ in 0..<limit {
            waits.append(Task { try await Authz.requestAuthorization(eager, read: [Authz.steps]) })
        }
        let waiting = try await Self.pending(owner, of: "org.example.eager", count: limit)
        #expect(waiting.count == limit)

        let refused = await Authz.error { try await Authz.requestAuthorization(eager, read: [Authz.heartRate]) }
        #expect(refused?.code == .resourceExhausted)
        #expect(refused?.detail?.reason == .resourceExhausted)
        #expect(refused?.detail?.field == "pendingRequests")
        #expect(refused?.detail?.value == "32")
        #expect(refused?.message.contains("org.example.eager already has 32 authorization requests waiting") == true)
        #expect(try await Self.pending(owner, of: "org.example.eager").count == limit)

        // Another app is not held back by the eager one.
        let calm = try await Authz.app(server, "org.example.calm")
        let calmWait = Task { try await Authz.requestAuthorization(calm, read: [Authz.steps]) }
        #expect(try await Self.pending(owner, of: "org.example.calm", count: 1).count == 1)

        // The owner answers one: the eager app may ask once more, and no more.
        var answer = Salus_V1_AnswerRequestRequest()
        answer.requestID = waiting[0].id
        answer.grantRead = [Authz.steps]
        let _: Salus_V1_ConsentRequest = try await owner.unary(SalusMethods.Consent.answerRequest, request: answer)
        #expect(try await Self.pending(owner, of: "org.example.eager").count == limit - 1)
        waits.append(Task { try await Authz.requestAuthorization(eager, read: [Authz.heartRate]) })
        #expect(try await Self.pending(owner, of: "org.example.eager", count: limit).count == limit)
        let again = await Authz.error { try await Authz.requestAuthorization(eager, read: [Authz.sleep]) }
        #expect(again?.detail?.field == "pendingRequests")

        // A reset drops the app's requests: every waiting call returns.
        for appID in ["org.example.eager", "org.example.calm"] {
            var reset = Salus_V1_AppRequest()
            reset.appID = appID
            let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.resetApp, request: reset)
        }
        for wait in waits { try await wait.value }
        try await calmWait.value
        #expect(try await Self.pending(owner, of: "org.example.eager").isEmpty)
        for client in [eager, calm, owner] { await client.close() }
        await server.stop()
    }

    @Test("a request waits for the owner's answer; success says nothing of it; answered types are not asked again")
    func ownerAnswers() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.sleepdiary")
        let app = try await Authz.app(server, "org.example.sleepdiary")
        #expect(try await Authz.sharingStatus(app, Authz.sleep) == .notDetermined)
        let request = Task { try await Authz.requestAuthorization(app, share: [Authz.sleep, Authz.steps], read: [Authz.sleep]) }
        let pending = try await Authz.pendingRequests(owner)
        #expect(pending.count == 1)
        #expect(pending.first?.appName == "App org.example.sleepdiary")
        #expect(pending.first?.readUsage == "to show trends")
        #expect(pending.first.map { Set($0.share) } == [Authz.sleep, Authz.steps])
        #expect(pending.first?.identity == "unverified")
        var answer = Salus_V1_AnswerRequestRequest()
        answer.requestID = pending[0].id
        answer.grantShare = [Authz.sleep]
        let _: Salus_V1_ConsentRequest = try await owner.unary(SalusMethods.Consent.answerRequest, request: answer)
        try await request.value
        #expect(try await Authz.sharingStatus(app, Authz.sleep) == .sharingAuthorized)
        #expect(try await Authz.sharingStatus(app, Authz.steps) == .sharingDenied)
        var status = Salus_V1_AuthorizationRequest()
        status.share = [Authz.sleep, Authz.steps]
        status.read = [Authz.sleep]
        let unnecessary: Salus_V1_RequestStatusResponse = try await app.unary(SalusMethods.Authorization.requestStatus, request: status)
        #expect(unnecessary.status == .unnecessary)
        status.read = [Authz.heartRate]
        let should: Salus_V1_RequestStatusResponse = try await app.unary(SalusMethods.Authorization.requestStatus, request: status)
        #expect(should.status == .shouldRequest)
        // Nothing new: completes at once without a request.
        try await Authz.requestAuthorization(app, share: [Authz.sleep])
        let after: Salus_V1_ListRequestsResponse = try await owner.unary(SalusMethods.Consent.listRequests, request: Salus_V1_ListRequestsRequest())
        #expect(after.requests.isEmpty)

        // Reset: back to not determined.
        var reset = Salus_V1_AppRequest()
        reset.appID = "org.example.sleepdiary"
        let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.resetApp, request: reset)
        #expect(try await Authz.sharingStatus(app, Authz.sleep) == .notDetermined)
        await app.close()
        await owner.close()
        await server.stop()
    }

    @Test("policies answer new requests, after a delay when asked; decisions survive a restart")
    func delayedPolicies() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.slow")
        try await Authz.policy(owner, "org.example.slow", .grantListed, read: [Authz.steps], share: [Authz.steps], afterMs: 400)
        try await Authz.register(owner, "org.example.denied")
        try await Authz.policy(owner, "org.example.denied", .denyAll)
        let slow = try await Authz.app(server, "org.example.slow")
        let started = ContinuousClock.now
        try await Authz.requestAuthorization(slow, share: [Authz.steps, Authz.heartRate], read: [Authz.steps])
        #expect(ContinuousClock.now - started >= .milliseconds(400))
        #expect(try await Authz.sharingStatus(slow, Authz.steps) == .sharingAuthorized)
        #expect(try await Authz.sharingStatus(slow, Authz.heartRate) == .sharingDenied)
        let denied = try await Authz.app(server, "org.example.denied")
        try await Authz.requestAuthorization(denied, share: [Authz.steps])
        let refused = await Authz.error { _ = try await Authz.save(denied, [Authz.sample(value: 1, start: 1_700_000_000_000_000)]) }
        #expect(refused?.reason == .authorizationDenied)
        await slow.close()
        await denied.close()
        await owner.close()
        await server.stop()

        let again = try await server.restart()
        let reopened = try await Authz.app(again, "org.example.slow")
        #expect(try await Authz.sharingStatus(reopened, Authz.steps) == .sharingAuthorized)
        #expect(try await Authz.sharingStatus(reopened, Authz.heartRate) == .sharingDenied)
        await reopened.close()
        await again.stop()
    }

    static func prescription(start: Int64) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = Authz.vision
        sample.startDate = start
        sample.endDate = start
        sample.visionPrescription.prescriptionType = 1
        sample.visionPrescription.dateIssued = start
        return sample
    }

    @Test("per-object reads: the app sees exactly the objects picked plus its own; later objects need a new request; withdrawal hides one at once")
    func perObject() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.optician")
        try await Authz.grant(owner, "org.example.optician", Authz.vision, read: nil, share: .granted)
        let optician = try await Authz.app(server, "org.example.optician")
        let saved = try await Authz.save(optician, (0..<3).map { Self.prescription(start: 1_700_000_000_000_000 + Int64($0) * 86_400_000_000) })
        let uuids = saved.results.map(\.uuid)

        try await Authz.register(owner, "org.example.glasses")
        try await Authz.grant(owner, "org.example.glasses", Authz.vision, read: nil, share: .granted)
        let glasses = try await Authz.app(server, "org.example.glasses")
        let own = try await Authz.save(glasses, [Self.prescription(start: 1_690_000_000_000_000)]).results[0].uuid
        #expect(try await Authz.batches(glasses, type: Authz.vision).flatMap(\.samples).map(\.uuid) == [own])

        let request = Task {
            var perObject = Salus_V1_PerObjectReadRequest()
            perObject.type = Authz.vision
            let _: Salus_V1_AuthorizationResponse = try await glasses.unary(SalusMethods.Authorization.requestPerObjectReadAuthorization, request: perObject)
        }
        let pending = try await Authz.pendingRequests(owner)
        #expect(Set(pending.first?.objects.map(\.uuid) ?? []) == Set(uuids + [own]))
        var answer = Salus_V1_AnswerRequestRequest()
        answer.requestID = pending[0].id
        answer.objects = [uuids[0], uuids[2]]
        let _: Salus_V1_ConsentRequest = try await owner.unary(SalusMethods.Consent.answerRequest, request: answer)
        try await request.value
        #expect(Set(try await Authz.batches(glasses, type: Authz.vision).flatMap(\.samples).map(\.uuid)) == [own, uuids[0], uuids[2]])

        // A later object is not readable without a new request.
        let later = try await Authz.save(optician, [Self.prescription(start: 1_710_000_000_000_000)]).results[0].uuid
        #expect(!(try await Authz.batches(glasses, type: Authz.vision).flatMap(\.samples).map(\.uuid)).contains(later))

        var withdraw = Salus_V1_WithdrawObjectsRequest()
        withdraw.appID = "org.example.glasses"
        withdraw.uuids = [uuids[0]]
        let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.withdrawObjects, request: withdraw)
        #expect(Set(try await Authz.batches(glasses, type: Authz.vision).flatMap(\.samples).map(\.uuid)) == [own, uuids[2]])
        for client in [optician, glasses, owner] { await client.close() }
        await server.stop()
    }
}
