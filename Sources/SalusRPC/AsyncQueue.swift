import Synchronization

/// A single-consumer queue between the event loop (producer) and a task (consumer).
///
/// It does not bound itself: producers check ``count`` against their own limit (stream
/// credits or the per-stream buffer limit) and fail the stream instead of growing it.
final class AsyncQueue<Element: Sendable>: Sendable {
    private struct State {
        var buffer: [Element] = []
        var head = 0
        var waiter: CheckedContinuation<Element?, any Error>?
        var end: Result<Void, any Error>?
        var count: Int { buffer.count - head }

        mutating func popFirst() -> Element? {
            guard head < buffer.count else { return nil }
            let element = buffer[head]
            head += 1
            if head > 64, head * 2 > buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
            return element
        }
    }

    private let state = Mutex(State())

    init() {}

    /// Elements waiting to be taken.
    var count: Int { state.withLock { $0.count } }

    /// Adds an element; returns the number buffered afterwards, or nil when the queue has ended.
    @discardableResult
    func push(_ element: Element) -> Int? {
        let (waiter, count): (CheckedContinuation<Element?, any Error>?, Int?) = state.withLock { state in
            guard state.end == nil else { return (nil, nil) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, 0)
            }
            state.buffer.append(element)
            return (nil, state.count)
        }
        waiter?.resume(returning: element)
        return count
    }

    /// Ends the queue: the consumer gets the buffered elements, then nil (or `error`).
    func finish(throwing error: (any Error)? = nil) {
        let waiter: CheckedContinuation<Element?, any Error>? = state.withLock { state in
            guard state.end == nil else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.waiter = nil }
            return state.waiter
        }
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume(returning: nil) }
    }

    /// Ends the queue at once, dropping buffered elements; the consumer gets `error`.
    func fail(_ error: any Error) {
        let waiter: CheckedContinuation<Element?, any Error>? = state.withLock { state in
            state.buffer = []
            state.head = 0
            if state.end == nil { state.end = .failure(error) }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)
    }

    /// The next element; nil at the end. Throws the finishing error, or `CancellationError`
    /// when the waiting task is cancelled.
    func next() async throws -> Element? {
        if let immediate = try state.withLock({ state -> Element?? in
            if let element = state.popFirst() { return .some(element) }
            if let end = state.end {
                try end.get()
                return .some(nil)
            }
            return nil
        }) {
            return immediate
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                let result: Result<Element?, any Error>? = state.withLock { state in
                    if let element = state.popFirst() { return .success(element) }
                    if let end = state.end {
                        switch end {
                        case .success: return .success(nil)
                        case .failure(let error): return .failure(error)
                        }
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiter = continuation
                    return nil
                }
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

/// Credits for sending Data frames on one stream: ``acquire()`` waits until the receiver has
/// granted one.
final class CreditGate: Sendable {
    private struct State {
        var credits: Int
        var waiter: CheckedContinuation<Void, any Error>?
        var closed: (any Error)?
    }

    private let state: Mutex<State>

    /// A gate with `credits` to start with; `nil` means unlimited (no flow control).
    init(credits: Int?) {
        state = Mutex(State(credits: credits ?? Int.max))
    }

    var available: Int { state.withLock { $0.credits } }

    func grant(_ credits: Int) {
        guard credits > 0 else { return }
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
            if state.credits < Int.max - credits { state.credits += credits } else { state.credits = Int.max }
            guard state.waiter != nil else { return nil }
            state.credits -= 1
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func close(_ error: any Error) {
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
            if state.closed == nil { state.closed = error }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)
    }

    /// Takes one credit, waiting for a grant when there is none.
    func acquire() async throws {
        let ready: Bool = try state.withLock { state in
            if let closed = state.closed { throw closed }
            if state.credits > 0 {
                if state.credits != Int.max { state.credits -= 1 }
                return true
            }
            return false
        }
        if ready { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let result: Result<Void, any Error>? = state.withLock { state in
                    if let closed = state.closed { return .failure(closed) }
                    if state.credits > 0 {
                        if state.credits != Int.max { state.credits -= 1 }
                        return .success(())
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiter = continuation
                    return nil
                }
                if let result { continuation.resume(with: result) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}

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
