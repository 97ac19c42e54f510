import Synchronization

/// Runs async bodies one at a time, in the order they asked: a read-modify-write of a workout
/// builder or session spans several awaits, and two of them interleaved would lose a change.
final class AsyncLock: Sendable {
    private struct State {
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` once every body that asked before has finished.
    func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    /// Waits until the lock is free, then holds it.
    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.held {
                    state.waiting.append(continuation)
                    return false
                }
                state.held = true
                return true
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Hands the lock to the next waiter, or frees it.
    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.held = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// Values published to every current subscriber. Each subscriber's buffer keeps the newest
/// 256 values: a subscriber that falls further behind misses the oldest, never blocks the
/// publisher.
final class Broadcast<Value: Sendable>: Sendable {
    private struct State {
        var next = 0
        var subscribers: [Int: AsyncStream<Value>.Continuation] = [:]
    }

    private let state = Mutex(State())

    /// The values published from now on, until the stream is dropped.
    func subscribe() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(256))
        let id = state.withLock { state -> Int in
            state.next += 1
            state.subscribers[state.next] = continuation
            return state.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `value` to every subscriber.
    func publish(_ value: Value) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(value) }
    }
}
