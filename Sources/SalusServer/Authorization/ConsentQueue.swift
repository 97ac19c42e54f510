import Foundation
import Logging
import Synchronization

/// The codes of `ConsentError`.
package enum ConsentErrorCode: Hashable, Sendable {
    /// No pending request has that id.
    case notFound
    /// The answer grants something the request did not ask for.
    case invalidArgument
    /// The answer is in effect but could not be written to `authorization.sqlite`.
    case notSaved
    /// The answer grants something to a request of a weak identity (a systemd scope), and the
    /// app does not accept one.
    case weakIdentity
}

/// A refusal of the consent queue.
package typealias ConsentError = AuthorizationError<ConsentErrorCode>

/// The requests waiting for the owner's answer, the apps' calls waiting on them, and the
/// owner's watchers (`salusctl consent watch`).
///
/// **Rule: a request outlives the call that made it.** If the app's call is cancelled (the app
/// went away, the daemon is stopping), the request stays pending for the owner; only the wait
/// ends. A reset or a removal of the app drops its requests and ends their waits.
package final class ConsentQueue: Sendable {
    private struct State {
        var pending: [String: PendingRequest] = [:]
        var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
        var watchers: [Int: AsyncStream<PendingRequest>.Continuation] = [:]
        /// Requests the app's policy answers: never shown to watchers, who would ask the owner
        /// about a question already settled.
        var answeredByPolicy: Set<String> = []
        var nextRequest = 1
        var nextWatcher = 1
    }

    /// Where answers are recorded.
    let apps: AppRegistry
    private let state = Mutex(State())
    private let logger: Logger
    /// Requests of one app waiting for the owner at once; another is refused with
    /// RESOURCE_EXHAUSTED naming `pendingRequests` (reported in Hello's limits).
    package let maxPendingPerApp: Int

    /// The default of ``maxPendingPerApp``: an app asks once per feature, not in a loop.
    package static let defaultMaxPendingPerApp = 32

    /// A queue whose answers change the records of `apps`.
    package init(apps: AppRegistry, logger: Logger, maxPendingPerApp: Int = ConsentQueue.defaultMaxPendingPerApp) {
        self.apps = apps
        self.logger = logger
        self.maxPendingPerApp = maxPendingPerApp
    }

    /// Adds a request of `caller` and returns once it is answered (or dropped, or the call is
    /// cancelled). An app whose policy is not `ask` is answered by the policy. An app with
    /// ``maxPendingPerApp`` requests already waiting is refused, and nothing is added: a buggy
    /// or hostile app cannot fill the owner's queue or the daemon's memory.
    package func submit(_ caller: Caller, share: [String], read: [String], objectType: String?, objects: [RequestedObject]) async throws(AccessError) {
        // A weak identity the app does not accept is never answered by a policy: the owner
        // sees it, and may only decline it until they accept a weak identity for the app.
        let policy = apps.record(caller.appID).flatMap { caller.isWeak && !$0.acceptsWeakIdentity ? nil : $0.policy } ?? .ask
        let limit = maxPendingPerApp
        let admitted = state.withLock { state -> Result<PendingRequest, AccessError> in
            let waiting = state.pending.values.reduce(0) { $0 + ($1.appID == caller.appID ? 1 : 0) }
            guard waiting < limit else {
                return .failure(AccessError(
                    .tooManyRequests, field: "pendingRequests", value: "\(waiting)",
                    expected: "at most \(limit) requests of one app waiting for the owner's answer",
                    message: "pendingRequests: \(caller.appID) already has \(waiting) authorization requests waiting for the owner's "
                        + "answer (the limit, Limits.max_pending_requests_per_app); wait for them to be answered"))
            }
            let request = PendingRequest(
                id: "r\(state.nextRequest)", appID: caller.appID, identity: caller.isVerified ? caller.appIDSource.rawValue : "unverified",
                share: share, read: read, objectType: objectType, objects: objects, created: Date())
            state.nextRequest += 1
            state.pending[request.id] = request
            if policy.kind == .ask {
                for watcher in state.watchers.values { watcher.yield(request) }
            } else {
                state.answeredByPolicy.insert(request.id)
            }
            return .success(request)
        }
        let request: PendingRequest
        switch admitted {
        case .success(let admittedRequest): request = admittedRequest
        case .failure(let error):
            logger.warning("authorization request refused: too many waiting", metadata: ["app": "\(caller.label)", "limit": "\(limit)"])
            throw error
        }
        logger.info("authorization requested", metadata: [
            "app": "\(caller.label)", "request": "\(request.id)", "share": "\(share)", "read": "\(read)",
            "objects": "\(objects.count)", "policy": "\(policy.kind.rawValue)",
        ])
        if policy.kind != .ask {
            let answer = Self.answer(request, by: policy)
            Task.detached { [self] in
                if policy.afterMilliseconds > 0 {
                    try? await Task.sleep(for: .milliseconds(policy.afterMilliseconds))
                }
                // A failure to save is logged by the registry and reported to the owner's next change.
                _ = try? await self.answer(request.id, answer)
            }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.pending[request.id] != nil, !Task.isCancelled else { return true }
                    state.waiters[request.id, default: []].append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { $0.waiters.removeValue(forKey: request.id) ?? [] }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// The answer a policy gives to a request.
    static func answer(_ request: PendingRequest, by policy: ConsentPolicy) -> ConsentAnswer {
        switch policy.kind {
        case .ask, .denyAll:
            return ConsentAnswer()
        case .grantAll:
            return ConsentAnswer(grantRead: Set(request.read), grantShare: Set(request.share), objects: Set(request.objects.map(\.uuid)))
        case .grantListed:
            let objects = request.objectType.map { policy.read.contains($0) } == true ? Set(request.objects.map(\.uuid)) : []
            return ConsentAnswer(
                grantRead: Set(request.read).intersection(policy.read),
                grantShare: Set(request.share).intersection(policy.share),
                objects: objects)
        }
    }

    /// Answers a pending request: the listed types and objects are granted, the request's others
    /// denied; the app's call then completes. Throws `notSaved` when the answer is in effect
    /// but could not be written.
    @discardableResult
    package func answer(_ requestID: String, _ answer: ConsentAnswer) async throws(ConsentError) -> PendingRequest {
        // One step under the queue's lock: the request leaves the queue as its decisions enter
        // the app's record, before the app's call completes, so no call sees neither.
        let (request, changed, waiters) = try state.withLock { state throws(ConsentError) -> (PendingRequest, Bool, [CheckedContinuation<Void, Never>]) in
            guard let request = state.pending[requestID] else {
                throw ConsentError(
                    .notFound, field: "requestId", value: requestID, expected: "the id of a pending request",
                    message: "no pending request \(requestID) (salusctl consent lists them)")
            }
            for type in answer.grantRead where !request.read.contains(type) {
                throw ConsentError(.invalidArgument, field: "grantRead", value: type, expected: "one of the types request \(requestID) asks to read: \(request.read.joined(separator: ", "))")
            }
            for type in answer.grantShare where !request.share.contains(type) {
                throw ConsentError(.invalidArgument, field: "grantShare", value: type, expected: "one of the types request \(requestID) asks to share: \(request.share.joined(separator: ", "))")
            }
            let listed = Set(request.objects.map(\.uuid))
            for object in answer.objects where !listed.contains(object) {
                throw ConsentError(.invalidArgument, field: "objects", value: object.uuidString, expected: "one of the \(listed.count) objects listed in request \(requestID)")
            }
            // A request of a weak identity the app does not accept may only be declined, and
            // declining it leaves the app's decisions as they are: whoever made the scope must
            // not be able to deny the real app either.
            let unaccepted = Caller.AppIDSource(rawValue: request.identity)?.isWeak == true
                && apps.record(request.appID)?.acceptsWeakIdentity != true
            if unaccepted, !answer.grantRead.isEmpty || !answer.grantShare.isEmpty || !answer.objects.isEmpty {
                throw ConsentError(
                    .weakIdentity, field: "identity", value: request.identity,
                    expected: "an app that accepts a weak identity (salusctl apps trust \(request.appID) --weak-identity), or an answer that grants nothing",
                    message: "request \(requestID) comes from a weak identity (a systemd scope named \(request.appID)): any program of yours could have made it. "
                        + "Accept a weak identity for the app first (salusctl apps trust \(request.appID) --weak-identity), or answer with nothing to decline it")
            }
            state.pending[requestID] = nil
            state.answeredByPolicy.remove(requestID)
            let changed = unaccepted ? false : (try? apps.change(request.appID) { record in
                for type in request.read { record.read[type] = answer.grantRead.contains(type) ? .granted : .denied }
                for type in request.share { record.share[type] = answer.grantShare.contains(type) ? .granted : .denied }
                if let type = request.objectType, !answer.objects.isEmpty {
                    record.objects[type, default: []].formUnion(answer.objects)
                }
            }) != nil
            return (request, changed, state.waiters.removeValue(forKey: requestID) ?? [])
        }
        logger.info("request answered", metadata: [
            "request": "\(requestID)", "app": "\(request.appID)\(request.identity == "unverified" ? " (unverified)" : "")",
            "granted read": "\(answer.grantRead.sorted())", "granted share": "\(answer.grantShare.sorted())", "objects": "\(answer.objects.count)",
        ])
        for waiter in waiters { waiter.resume() }
        if changed {
            do {
                try await apps.save(request.appID)
            } catch {
                throw ConsentError(.notSaved, field: error.field, value: error.value, expected: error.expected, message: "request \(requestID) is answered; \(error.message)")
            }
        }
        return request
    }

    /// Drops the pending requests of an app; their calls complete.
    package func cancelPending(of id: String) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let ids = state.pending.values.filter { $0.appID == id }.map(\.id)
            var waiters: [CheckedContinuation<Void, Never>] = []
            for request in ids {
                state.pending[request] = nil
                state.answeredByPolicy.remove(request)
                waiters += state.waiters.removeValue(forKey: request) ?? []
            }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The requests waiting for an answer, oldest first.
    package func pending() -> [PendingRequest] {
        state.withLock { Self.ordered($0.pending) }
    }

    /// The pending requests of one app.
    package func pending(of id: String) -> [PendingRequest] {
        pending().filter { $0.appID == id }
    }

    private static func ordered(_ pending: [String: PendingRequest]) -> [PendingRequest] {
        pending.values.sorted { ($0.created, $0.id) < ($1.created, $1.id) }
    }

    /// The pending requests now, then each new one as it arrives.
    package func watch() -> AsyncStream<PendingRequest> {
        let (stream, continuation) = AsyncStream.makeStream(of: PendingRequest.self)
        let id = state.withLock { state -> Int in
            let id = state.nextWatcher
            state.nextWatcher += 1
            for request in Self.ordered(state.pending) where !state.answeredByPolicy.contains(request.id) { continuation.yield(request) }
            state.watchers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }
}
