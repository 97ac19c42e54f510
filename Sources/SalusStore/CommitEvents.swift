import SalusModel
import Synchronization

/// A committed change: which types it touched, which apps wrote them, and the change-sequence
/// position after it.
package struct CommitEvent: Hashable, Sendable {
    /// The position after the commit (or after the last of the coalesced commits).
    package var anchor: Anchor
    /// The types whose samples were added or deleted.
    package var changedTypes: Set<TypeIdentifier>
    /// For each changed type, the apps whose saves or deletions changed it: the source app id
    /// of a save, the requesting app of a deletion. The owner's deletions name no app, so a type
    /// changed only by the owner is absent.
    ///
    /// **Rule: the writer travels with the commit.** It is set on the writer's queue by the
    /// transaction that made the change, so whoever receives the event knows who wrote it with
    /// no lookup elsewhere. Why: a log kept beside the store is written after the event is
    /// published, and a reader of the event can get there first. Kept per type, so that when
    /// events coalesce an app's write of one type never stands for another app's write of
    /// another type.
    package var writers: [TypeIdentifier: Set<String>]

    /// Creates an event.
    package init(anchor: Anchor, changedTypes: Set<TypeIdentifier>) {
        self.init(anchor: anchor, changedTypes: changedTypes, writers: [:])
    }

    /// Creates an event with the apps that wrote each type.
    package init(anchor: Anchor, changedTypes: Set<TypeIdentifier>, writers: [TypeIdentifier: Set<String>]) {
        self.anchor = anchor
        self.changedTypes = changedTypes
        self.writers = writers
    }

    /// Whether `appID` saved or deleted samples of `type` in this event (or in one of the
    /// commits coalesced into it).
    package func wrote(_ appID: String, _ type: TypeIdentifier) -> Bool {
        writers[type]?.contains(appID) ?? false
    }

    /// This event and a later one as one: the later anchor, the union of the types and, per
    /// type, the union of the writers.
    package func merged(with later: CommitEvent) -> CommitEvent {
        CommitEvent(
            anchor: max(anchor, later.anchor), changedTypes: changedTypes.union(later.changedTypes),
            writers: writers.merging(later.writers) { $0.union($1) })
    }
}

/// The commits after a subscription started, as an asynchronous sequence.
///
/// **What may coalesce:** when the reader falls behind, the events that arrived while it was
/// busy are merged into one (latest anchor, union of the types and of each type's writers), so
/// memory stays bounded however slow the reader is. **What is never lost:** every commit after
/// the subscription was made is
/// covered by some event the reader receives, with an anchor at or after that commit; a reader
/// that re-runs an anchored query from its last anchor on each event sees every change once.
///
/// **Rule: subscribe before the initial query.** The subscription starts when `commits()`
/// returns, not when iteration starts. Subscribe, then run the anchored query, then follow the
/// events: a commit between the query and the first `next()` is still delivered. Querying
/// first would lose a commit that lands between the query and the subscription.
///
/// The sequence ends when the store closes or the iterating task is cancelled. Iterate it from
/// one task at a time.
package struct CommitEvents: AsyncSequence, Sendable {
    /// Each element is one event (possibly several coalesced commits).
    package typealias Element = CommitEvent

    let subscription: CommitSubscription

    /// The iterator.
    package struct AsyncIterator: AsyncIteratorProtocol {
        let subscription: CommitSubscription

        /// The next event, or nil when the store closed or the task was cancelled.
        package mutating func next() async -> CommitEvent? {
            await subscription.next()
        }
    }

    /// Makes the iterator.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(subscription: subscription)
    }
}

/// One subscriber's pending event and waiting reader.
final class CommitSubscription: Sendable {
    private struct State {
        var pending: CommitEvent?
        var waiter: CheckedContinuation<CommitEvent?, Never>?
        var finished = false
    }

    private let state = Mutex(State())
    private let broadcaster: CommitBroadcaster
    let id: Int

    init(id: Int, broadcaster: CommitBroadcaster) {
        self.id = id
        self.broadcaster = broadcaster
    }

    deinit {
        broadcaster.remove(id)
    }

    func publish(_ event: CommitEvent) {
        let waiter = state.withLock { state -> CheckedContinuation<CommitEvent?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = state.pending.map { $0.merged(with: event) } ?? event
            return nil
        }
        waiter?.resume(returning: event)
    }

    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<CommitEvent?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    func next() async -> CommitEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CommitEvent?, Never>) in
                let immediate = state.withLock { state -> CommitEvent?? in
                    if let pending = state.pending {
                        state.pending = nil
                        return .some(pending)
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            finish()
        }
    }
}

/// Hands each commit to every live subscription, in commit order (it is called on the writer's
/// queue after each commit).
final class CommitBroadcaster: Sendable {
    private struct State {
        var nextID = 0
        var subscriptions: [Int: Weak] = [:]
        var closed = false
    }

    private struct Weak: @unchecked Sendable {
        weak var subscription: CommitSubscription?
    }

    private let state = Mutex(State())

    func subscribe() -> CommitSubscription {
        state.withLock { state in
            state.nextID += 1
            let subscription = CommitSubscription(id: state.nextID, broadcaster: self)
            if state.closed {
                subscription.finish()
            } else {
                state.subscriptions[state.nextID] = Weak(subscription: subscription)
            }
            return subscription
        }
    }

    func remove(_ id: Int) {
        _ = state.withLock { $0.subscriptions.removeValue(forKey: id) }
    }

    func publish(_ event: CommitEvent) {
        let targets = state.withLock { state in state.subscriptions.values.compactMap(\.subscription) }
        for subscription in targets { subscription.publish(event) }
    }

    func close() {
        let targets = state.withLock { state in
            state.closed = true
            defer { state.subscriptions = [:] }
            return state.subscriptions.values.compactMap(\.subscription)
        }
        for subscription in targets { subscription.finish() }
    }
}
