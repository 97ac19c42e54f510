import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

@testable import SalusServer

/// `salusctl consent watch` shows the owner the requests that wait for them, and only those.
@Suite("Consent watch")
struct ConsentWatchTests {
    typealias S = Authz

    @Test("a request an app's policy answers (grant-all, even after a delay) is never shown to a watcher; an ask app's is")
    func policyAnsweredRequestsAreNotWatched() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let owner = try await server.owner()
        try await S.register(owner, "org.example.auto", read: nil, share: nil)
        try await S.register(owner, "org.example.asks", read: nil, share: nil)
        // Answered by its policy after a delay: the request waits a while, as an owner's would.
        try await S.policy(owner, "org.example.auto", .grantAll, afterMs: 1_500)
        let watched = Recorded<PendingRequest>()
        let watcher = Task {
            for await request in server.services.authorization.consent.watch() { watched.append(request) }
        }
        let auto = try await server.launchedApp("org.example.auto")
        let autoAsked = Task { try await S.requestAuthorization(auto, share: [S.steps], read: [S.steps]) }
        let deadline = ContinuousClock.now + .seconds(10)
        while server.services.authorization.consent.pending().isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.services.authorization.consent.pending().map(\.appID) == ["org.example.auto"])
        // A watcher that starts while a policy's request waits does not see it either.
        let late = Task { () -> [PendingRequest] in
            var seen: [PendingRequest] = []
            for await request in server.services.authorization.consent.watch() {
                seen.append(request)
                if request.appID == "org.example.asks" { break }
            }
            return seen
        }
        let asks = try await server.launchedApp("org.example.asks")
        let asked = Task { try await S.requestAuthorization(asks, share: [S.steps]) }
        let seenLate = await late.value
        #expect(seenLate.map(\.appID) == ["org.example.asks"], "\(seenLate.map(\.appID))")
        #expect(watched.items.map(\.appID) == ["org.example.asks"], "\(watched.items.map(\.appID))")
        // The policy did answer: the app may write steps.
        try await autoAsked.value
        var status = Salus_V1_AuthorizationStatusRequest()
        status.type = S.steps
        let response: Salus_V1_AuthorizationStatusResponse = try await auto.unary(SalusMethods.Authorization.authorizationStatus, request: status)
        #expect(response.status == .sharingAuthorized)

        asked.cancel()
        watcher.cancel()
        await auto.close()
        await asks.close()
        await owner.close()
        await server.stop()
    }
}
