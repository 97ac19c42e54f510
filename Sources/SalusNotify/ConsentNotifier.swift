import Foundation
import Logging
import SalusProto
import SalusRPC
import Synchronization

/// Follows the daemon's consent requests (`salus.v1.Consent/WatchRequests` on the admin socket)
/// and shows each as a desktop notification whose actions answer it: Allow grants everything it
/// asks, Deny grants nothing (`salus.v1.Consent/AnswerRequest`), Review opens
/// `salusctl consent watch` in a terminal.
///
/// - Without a session bus (none in the environment, or it cannot be reached) it logs that once
///   and follows on without notifying: requests wait for an answer given elsewhere. It tries
///   the bus again at the next request, and logs again only once it came back and went.
/// - When the daemon goes away (a restart) it connects again, after 0.2 s, then up to every 5 s;
///   the requests it had shown that are no longer pending are closed.
package final class ConsentNotifier: Sendable {
    package struct Options: Sendable {
        /// The session bus address (DBUS_SESSION_BUS_ADDRESS); nil or empty: none.
        package var busAddress: String?
        /// Connects to the daemon's admin socket.
        package var connect: @Sendable () async throws -> RPCClient
        /// Opens the review (`salusctl consent watch` in a terminal).
        package var openReview: @Sendable () -> Void
        /// The first wait before connecting again, doubled up to ``maximumRetryDelay``.
        package var retryDelay: Duration = .milliseconds(200)
        package var maximumRetryDelay: Duration = .seconds(5)

        package init(busAddress: String?, connect: @escaping @Sendable () async throws -> RPCClient, openReview: @escaping @Sendable () -> Void) {
            self.busAddress = busAddress
            self.connect = connect
            self.openReview = openReview
        }
    }

    private struct Shown {
        var request: Salus_V1_ConsentRequest
        var key: String
    }

    private struct State {
        var bus: DesktopNotifications?
        /// The session bus was found missing and that was logged.
        var busMissingLogged = false
        var client: RPCClient?
        /// Shown notifications by id, and their ids by request (id and creation time: a
        /// restarted daemon numbers its requests from r1 again).
        var shown: [UInt32: Shown] = [:]
        var byRequest: [String: UInt32] = [:]
    }

    private let options: Options
    private let logger: Logger
    private let state = Mutex(State())

    package init(options: Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Follows the daemon until the task is cancelled.
    package func run() async {
        var delay = options.retryDelay
        var connectionFailureLogged = false
        var connectedBefore = false
        while !Task.isCancelled {
            let client: RPCClient
            do {
                client = try await options.connect()
            } catch {
                if !connectionFailureLogged {
                    logger.warning("cannot reach salusd; trying again", metadata: ["error": "\(Self.describe(error))"])
                    connectionFailureLogged = true
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, options.maximumRetryDelay)
                continue
            }
            connectionFailureLogged = false
            delay = options.retryDelay
            state.withLock { $0.client = client }
            logger.info(connectedBefore ? "following consent requests again" : "following consent requests")
            if connectedBefore { await closeAnswered(client) }
            connectedBefore = true
            do {
                let stream = try client.serverStreaming(SalusMethods.Consent.watchRequests, request: Salus_V1_ListRequestsRequest())
                // A stopping daemon says GoAway and waits for its calls: the watch leaves at once
                // rather than hold the daemon's stop for its whole drain timeout.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await request in stream { await self.show(request) }
                    }
                    group.addTask {
                        while !client.isGoingAway { try await Task.sleep(for: .milliseconds(250)) }
                    }
                    try await group.next()
                    group.cancelAll()
                }
                logger.info("salusd ended the consent watch; connecting again")
            } catch {
                if !Task.isCancelled { logger.info("lost salusd; connecting again", metadata: ["error": "\(Self.describe(error))"]) }
            }
            state.withLock { $0.client = nil }
            await client.close()
            try? await Task.sleep(for: delay)
        }
        let bus = state.withLock { state -> DesktopNotifications? in
            defer { state.bus = nil }
            return state.bus
        }
        bus?.shutdown()
    }

    // MARK: Showing

    private func show(_ request: Salus_V1_ConsentRequest) async {
        let key = "\(request.id)@\(request.createdMs)"
        guard state.withLock({ $0.byRequest[key] == nil }) else { return }
        let metadata: Logger.Metadata = [
            "request": "\(request.id)", "app": "\(request.appID)", "identity": "\(request.identity)",
            "read": "\(request.read)", "share": "\(request.share)",
        ]
        guard let bus = openBus() else {
            logger.info("consent request not shown: no session bus; answer it with salusctl consent watch", metadata: metadata)
            return
        }
        do {
            let id = try await bus.notify(ConsentNotification.make(request)) { [self] id in
                self.state.withLock { state in
                    state.shown[id] = Shown(request: request, key: key)
                    state.byRequest[key] = id
                }
            }
            logger.info("consent request shown", metadata: metadata.merging(["notification": "\(id)"]) { $1 })
        } catch {
            logger.warning("consent request not shown", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            if bus.hasEnded { dropBus(bus, reason: "\(error)") }
        }
    }

    /// The session bus connection, opened when missing; nil without one (logged once).
    private func openBus() -> DesktopNotifications? {
        if let bus = state.withLock({ $0.bus }) {
            guard bus.hasEnded else { return bus }
            dropBus(bus, reason: "the session bus closed the connection")
        }
        guard let address = options.busAddress, !address.isEmpty else {
            logBusMissing("DBUS_SESSION_BUS_ADDRESS is not set")
            return nil
        }
        let bus: DesktopNotifications
        do {
            bus = try DesktopNotifications(address: address)
        } catch {
            logBusMissing("cannot connect to \(address): \(error)")
            return nil
        }
        state.withLock { state in
            state.bus = bus
            state.busMissingLogged = false
        }
        logger.info("showing consent requests as desktop notifications", metadata: ["bus": "\(address)"])
        Task { [self] in
            for await event in bus.events { await handle(event, from: bus) }
        }
        return bus
    }

    private func logBusMissing(_ reason: String) {
        let first = state.withLock { state -> Bool in
            defer { state.busMissingLogged = true }
            return !state.busMissingLogged
        }
        if first {
            logger.warning("no session bus: following consent requests without notifications", metadata: ["reason": "\(reason)"])
        }
    }

    private func dropBus(_ bus: DesktopNotifications, reason: String) {
        let dropped = state.withLock { state -> Bool in
            guard state.bus === bus else { return false }
            state.bus = nil
            state.shown.removeAll()
            state.byRequest.removeAll()
            return true
        }
        bus.shutdown()
        if dropped { logBusMissing(reason) }
    }

    // MARK: Acting

    private func handle(_ event: DesktopNotifications.Event, from bus: DesktopNotifications) async {
        switch event {
        case .closed(let id, _):
            forget(id)
        case .actionInvoked(let id, let key):
            guard let shown = state.withLock({ $0.shown[id] }) else { return }
            switch ConsentNotification.Action(rawValue: key) {
            case .allow:
                await answer(shown.request, grantingAll: true)
                forget(id)
                bus.close(id)
            case .deny:
                await answer(shown.request, grantingAll: false)
                forget(id)
                bus.close(id)
            case .review, .default:
                logger.info("opening the review", metadata: ["request": "\(shown.request.id)"])
                options.openReview()
            case nil:
                logger.debug("unknown notification action", metadata: ["action": "\(key)"])
            }
        }
    }

    private func forget(_ id: UInt32) {
        state.withLock { state in
            if let shown = state.shown.removeValue(forKey: id) { state.byRequest[shown.key] = nil }
        }
    }

    private func answer(_ request: Salus_V1_ConsentRequest, grantingAll: Bool) async {
        var answer = Salus_V1_AnswerRequestRequest()
        answer.requestID = request.id
        if grantingAll {
            answer.grantRead = request.read
            answer.grantShare = request.share
            answer.objects = request.objects.map(\.uuid)
        }
        let metadata: Logger.Metadata = ["request": "\(request.id)", "app": "\(request.appID)", "answer": "\(grantingAll ? "allow" : "deny")"]
        guard let client = state.withLock({ $0.client }) else {
            logger.warning("cannot answer: salusd is not connected", metadata: metadata)
            return
        }
        do {
            _ = try await client.unary(SalusMethods.Consent.answerRequest, request: answer)
            logger.info("consent request answered", metadata: metadata)
        } catch {
            logger.warning("consent request not answered", metadata: metadata.merging(["error": "\(Self.describe(error))"]) { $1 })
        }
    }

    /// After connecting again: closes the notifications of requests no longer pending (answered
    /// elsewhere, or dropped by a daemon that restarted).
    private func closeAnswered(_ client: RPCClient) async {
        guard let pending = try? await client.unary(SalusMethods.Consent.listRequests, request: Salus_V1_ListRequestsRequest()) else { return }
        let keys = Set(pending.requests.map { "\($0.id)@\($0.createdMs)" })
        let (bus, stale) = state.withLock { state -> (DesktopNotifications?, [UInt32]) in
            let stale = state.shown.filter { !keys.contains($0.value.key) }.map(\.key)
            for id in stale { if let shown = state.shown.removeValue(forKey: id) { state.byRequest[shown.key] = nil } }
            return (state.bus, stale)
        }
        for id in stale { bus?.close(id) }
    }

    static func describe(_ error: any Error) -> String {
        (error as? RPCError)?.message ?? "\(error)"
    }
}
