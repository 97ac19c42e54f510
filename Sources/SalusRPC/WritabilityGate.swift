import Synchronization

/// Whether a connection's outbound buffer has room: writers wait while the channel is not
/// writable, so a slow reader never makes the process buffer without bound.
final class WritabilityGate: Sendable {
    private struct State {
        var writable = true
        var closed = false
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    func update(writable: Bool) {
        let waiters: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.writable = writable
            guard writable else { return [] }
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func close() {
        let waiters: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.closed = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(throwing: RPCError(code: .unavailable, message: "connection closed")) }
    }

    func waitUntilWritable() async throws {
        let ready: Bool = state.withLock { $0.writable || $0.closed }
        if ready { return }
        let id: UInt64 = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let proceed: Result<Void, any Error>? = state.withLock { state in
                    if state.writable || state.closed { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let proceed { continuation.resume(with: proceed) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
