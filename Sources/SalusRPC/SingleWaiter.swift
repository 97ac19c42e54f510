import Synchronization

/// State that one task at a time waits on: ``take()`` says what the waiter gets now, or nil
/// while it must wait.
protocol WaitableState: Sendable {
    associatedtype Output: Sendable
    /// What a waiter gets now (consuming it), or nil to wait for the next change.
    mutating func take() -> Result<Output, any Error>?
}

/// A state behind a lock with at most one waiting task: the shared core of ``AsyncQueue`` and
/// ``CreditGate``.
///
/// Producers change the state with ``update(_:)``, which wakes the waiter when the state now
/// has something for it. The waiter is woken outside the lock. Cancelling the waiting task
/// ends its wait with `CancellationError` and leaves the state as it was.
final class SingleWaiter<State: WaitableState>: Sendable {
    private struct Locked: Sendable {
        var value: State
        var waiter: CheckedContinuation<State.Output, any Error>?
    }

    private let locked: Mutex<Locked>

    init(_ value: State) {
        locked = Mutex(Locked(value: value))
    }

    /// Reads the state.
    func read<R>(_ body: (State) -> R) -> R {
        locked.withLock { body($0.value) }
    }

    /// Changes the state; returns what `body` returned and whether a waiter was woken (and so
    /// took something).
    @discardableResult
    func update<R>(_ body: (inout State) -> R) -> (result: R, woke: Bool) {
        let (result, wake): (R, (CheckedContinuation<State.Output, any Error>, Result<State.Output, any Error>)?) = locked.withLock { locked in
            let result = body(&locked.value)
            guard let waiter = locked.waiter, let taken = locked.value.take() else { return (result, nil) }
            locked.waiter = nil
            return (result, (waiter, taken))
        }
        if let (waiter, taken) = wake { waiter.resume(with: taken) }
        return (result, wake != nil)
    }

    /// Whether a task is waiting.
    var hasWaiter: Bool { locked.withLock { $0.waiter != nil } }

    /// Changes the state without waking the waiter: a producer that changes it many times in a
    /// burst calls ``update(_:)`` once after the burst, so the waiting task is scheduled once, not
    /// once per change.
    func updateQuietly<R>(_ body: (inout State) -> R) -> R {
        locked.withLock { body(&$0.value) }
    }

    /// What the state has for the caller, waiting until it has something. Throws what the state
    /// gives as a failure, or `CancellationError` when the waiting task is cancelled.
    func wait() async throws -> State.Output {
        if let now = locked.withLock({ $0.value.take() }) { return try now.get() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<State.Output, any Error>) in
                let now: Result<State.Output, any Error>? = locked.withLock { locked in
                    if let taken = locked.value.take() { return taken }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    locked.waiter = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = locked.withLock { locked in
                defer { locked.waiter = nil }
                return locked.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
