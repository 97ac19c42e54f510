import Foundation
import Logging
import SalusNotify
import SalusProto
import SalusRPC
import SalusTestSupport
import Synchronization
import Testing

/// salus-notify: consent requests as desktop notifications on a real (private) session bus,
/// answered through the notification's actions, against the daemon's services in process.
@Suite("Consent notifications")
struct ConsentNotifierTests {
    typealias S = Authz

    static let appID = "org.example.diary"

    /// Registers the diary app as the owner knows it.
    static func registerDiary(_ owner: RPCClient) async throws {
        var request = Salus_V1_AddAppRequest()
        request.appID = appID
        request.name = "Sleep Diary"
        request.readUsage = "to show your steps beside your nights"
        request.writeUsage = "to record the nights you log"
        let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.addApp, request: request)
    }

    /// The notifier against `server`'s admin side, on `busAddress`.
    static func notifier(
        _ server: @escaping @Sendable () -> ServerHarness?, busAddress: String?, logger: Logger = Logger(label: "salus-notify-test"),
        reviews: Counter = Counter()
    ) -> ConsentNotifier {
        var options = ConsentNotifier.Options(
            busAddress: busAddress,
            connect: {
                guard let harness = server() else { throw RPCError(code: .unavailable, message: "the daemon is stopped", reason: .unavailable) }
                return try await harness.owner(clientName: "salus-notify")
            },
            openReview: { reviews.add() })
        options.retryDelay = .milliseconds(20)
        options.maximumRetryDelay = .milliseconds(100)
        return ConsentNotifier(options: options, logger: logger)
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    @Test("the notification's text: type names, the same types read and written, objects, markup escaped, a weak identity")
    func notificationText() {
        #expect(ConsentNotification.typeName("HKQuantityTypeIdentifierStepCount") == "StepCount")
        #expect(ConsentNotification.typeName("HKWorkoutTypeIdentifier") == "Workout")
        #expect(ConsentNotification.typeName("HKVisionPrescriptionTypeIdentifier") == "VisionPrescription")
        #expect(ConsentNotification.typeName("org.example.custom") == "org.example.custom")

        var request = Salus_V1_ConsentRequest()
        request.id = "r3"
        request.appID = "org.example.flat"
        request.appName = "Flat <b>&</b>"
        request.read = ["HKQuantityTypeIdentifierStepCount"]
        request.share = ["HKQuantityTypeIdentifierStepCount"]
        request.readUsage = "steps < 10 & more"
        request.writeUsage = "logs"
        request.identity = "flatpak"
        request.identityStrength = .strong
        var shown = ConsentNotification.make(request)
        #expect(shown.summary == "Flat <b>&</b> (org.example.flat) asks to read and write StepCount")
        #expect(shown.body == "Reading: “steps &lt; 10 &amp; more”\nWriting: “logs”\nKnown by its Flatpak sandbox: strong identity.")
        #expect(shown.icon == "security-high")

        request.read = []
        request.share = []
        request.objectType = "HKVisionPrescriptionTypeIdentifier"
        request.objects = [Salus_V1_RequestedObject(), Salus_V1_RequestedObject()]
        request.identity = "scope"
        request.identityStrength = .weak
        shown = ConsentNotification.make(request)
        #expect(shown.summary == "Flat <b>&</b> (org.example.flat) asks to read 2 VisionPrescription objects")
        #expect(shown.body.hasSuffix("Known only by the systemd scope the desktop started it in: weak identity, any program of yours could claim it."))
        #expect(shown.icon == "security-medium")
    }

    @Test("a request is shown with the app as the owner knows it, how it was identified, and Allow grants what it asks")
    func allowFromTheNotification() async throws {
        let bus = try PrivateSessionBus.start()
        defer { bus.stop() }
        let notifications = try NotificationServerDouble(address: bus.address) { _ in "allow" }
        let server = try await ServerHarness.start(developmentMode: false)
        let owner = try await server.owner()
        try await Self.registerDiary(owner)
        let following = Task { await Self.notifier({ server }, busAddress: bus.address).run() }

        let app = try await server.launchedApp(Self.appID)
        let asked = Task { try await S.requestAuthorization(app, share: [S.sleep], read: [S.steps, S.heartRate]) }
        let calls = try await notifications.waitForCalls(1)
        try #require(calls.count == 1)
        let call = calls[0]
        #expect(call.arguments.map(\.signature) == ["s", "u", "s", "s", "s", "as", "a{sv}", "i"])
        #expect(call.appName == "Salus")
        #expect(call.replacesID == 0)
        #expect(call.icon == "security-high")
        #expect(call.summary == "Sleep Diary (org.example.diary) asks to read StepCount and HeartRate and to write SleepAnalysis")
        #expect(call.body == """
            Reading: “to show your steps beside your nights”
            Writing: “to record the nights you log”
            Known as launched by you (salusctl launch: its own socket): strong identity.
            """)
        #expect(call.actions == ["default", "Review", "allow", "Allow", "deny", "Deny", "review", "Review"])
        #expect(call.hints == ["urgency": .byte(1), "category": .string("x-salus.consent")])
        #expect(call.expireTimeout == 0)

        // The server invoked "allow": the app's call returns, and it holds what it asked.
        try await asked.value
        #expect(try await S.sharingStatus(app, S.sleep) == .sharingAuthorized)
        var show = Salus_V1_AppRequest()
        show.appID = Self.appID
        let info: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.showApp, request: show)
        #expect(info.grants.first { $0.type == S.steps }?.read == .granted)
        #expect(info.grants.first { $0.type == S.heartRate }?.read == .granted)
        #expect(info.pending.isEmpty)

        following.cancel()
        await following.value
        await notifications.stop()
        await app.close()
        await owner.close()
        await server.stop()
    }

    @Test("ActionInvoked from another program on the bus is ignored; Review opens the review and leaves the request; Deny denies")
    func impostorReviewAndDeny() async throws {
        let bus = try PrivateSessionBus.start()
        defer { bus.stop() }
        let notifications = try NotificationServerDouble(address: bus.address) { _ in nil }
        let server = try await ServerHarness.start(developmentMode: true)
        let owner = try await server.owner()
        try await Self.registerDiary(owner)
        let reviews = Counter()
        let following = Task { await Self.notifier({ server }, busAddress: bus.address, reviews: reviews).run() }

        // Declared in Hello on a development daemon: unverified, and shown as such.
        let app = try await server.app(Self.appID)
        let asked = Task { try await S.requestAuthorization(app, share: [S.sleep]) }
        let call = try #require(try await notifications.waitForCalls(1).first)
        #expect(call.icon == "security-low")
        #expect(call.summary == "Sleep Diary (org.example.diary) asks to write SleepAnalysis")
        #expect(call.body == """
            Writing: “to record the nights you log”
            Known only by what it says of itself (development daemon): unverified, any program could claim it.
            """)

        // Any program of the session can broadcast the signal: only the server's counts.
        try notifications.impostorInvokes(call.id, "allow")
        notifications.invoke(call.id, "review")
        let deadline = ContinuousClock.now + .seconds(10)
        while reviews.value == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(reviews.value == 1)
        // The impostor's signal came first on the bus; the review's was handled, so it was read.
        #expect(server.services.authorization.consent.pending().map(\.appID) == [Self.appID])

        notifications.invoke(call.id, "deny")
        try await asked.value
        #expect(try await S.sharingStatus(app, S.sleep) == .sharingDenied)
        // Answered: the notifier closes its notification.
        while notifications.closed.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(notifications.closed == [call.id])

        following.cancel()
        await following.value
        await notifications.stop()
        await app.close()
        await owner.close()
        await server.stop()
    }

    @Test("without a session bus the notifier follows on, says so once, and requests wait for an answer", arguments: [nil, "unix:path=/nonexistent/salus-test-bus"])
    func noSessionBus(address: String?) async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let owner = try await server.owner()
        try await Self.registerDiary(owner)
        let log = CapturedLog()
        let following = Task { await Self.notifier({ server }, busAddress: address, logger: Logger(label: "salus-notify-test") { _ in log }).run() }

        let app = try await server.launchedApp(Self.appID)
        let first = Task { try await S.requestAuthorization(app, share: [S.sleep]) }
        let second = Task { try await S.requestAuthorization(app, read: [S.steps]) }
        // The whole suite's load once kept both notes from coming within 10 s.
        let deadline = ContinuousClock.now + .seconds(30)
        while log.entries.filter({ $0.message.hasPrefix("consent request not shown") }).count < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let missing = log.entries.filter { $0.message.hasPrefix("no session bus") }
        #expect(missing.count == 1, "\(log.entries.map(\.message))")
        #expect(missing.first?.level == .warning)
        #expect(log.entries.filter { $0.message.hasPrefix("consent request not shown") }.count == 2)
        // Both still wait; the owner answers them elsewhere (salusctl consent watch).
        let pending = server.services.authorization.consent.pending()
        #expect(pending.count == 2)
        for request in pending {
            var answer = Salus_V1_AnswerRequestRequest()
            answer.requestID = request.id
            answer.grantShare = request.share
            let _: Salus_V1_ConsentRequest = try await owner.unary(SalusMethods.Consent.answerRequest, request: answer)
        }
        try await first.value
        try await second.value
        #expect(try await S.sharingStatus(app, S.sleep) == .sharingAuthorized)

        following.cancel()
        await following.value
        await app.close()
        await owner.close()
        await server.stop()
    }

    @Test("when the daemon restarts the notifier connects again and shows the next request")
    func reconnectsAfterRestart() async throws {
        let bus = try PrivateSessionBus.start()
        defer { bus.stop() }
        let notifications = try NotificationServerDouble(address: bus.address) { _ in nil }
        let first = try await ServerHarness.start(developmentMode: false)
        let current = Mutex<ServerHarness?>(first)
        let owner = try await first.owner()
        try await Self.registerDiary(owner)
        await owner.close()
        let following = Task { await Self.notifier({ current.withLock { $0 } }, busAddress: bus.address).run() }

        let app = try await first.launchedApp(Self.appID)
        let asked = Task { try await S.requestAuthorization(app, share: [S.sleep]) }
        _ = try await notifications.waitForCalls(1)
        // The app gives up (its call would hold the stop for the drain timeout); the
        // notifier's watch leaves on GoAway by itself.
        asked.cancel()
        _ = await asked.result
        await app.close()
        current.withLock { $0 = nil }
        // A watch that stayed would hold the stop for the whole grace period (60 s); one that
        // leaves on GoAway lets it end long before, even on a loaded machine (6.1 s was seen
        // against a bound of 4 s with the whole suite on two cores).
        let stopping = ContinuousClock.now
        await first.stop(gracePeriod: .seconds(60))
        #expect(ContinuousClock.now - stopping < .seconds(30), "the notifier's watch held the daemon's stop")

        let second = try await first.restart()
        current.withLock { $0 = second }
        let again = try await second.launchedApp(Self.appID)
        let askedAgain = Task { try await S.requestAuthorization(again, read: [S.steps]) }
        let calls = try await notifications.waitForCalls(2)
        try #require(calls.count == 2)
        #expect(calls[1].summary == "Sleep Diary (org.example.diary) asks to read StepCount")
        // The first request went with the old daemon: its notification is closed.
        let deadline = ContinuousClock.now + .seconds(10)
        while notifications.closed.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(notifications.closed == [calls[0].id])

        notifications.invoke(calls[1].id, "allow")
        try await askedAgain.value

        following.cancel()
        await following.value
        await notifications.stop()
        await again.close()
        await second.stop()
    }
}
