import NIOCore
import Synchronization

/// A single-consumer queue between the event loop (producer) and a task (consumer).
///
/// It does not bound itself: producers check ``count`` against their own limit (stream
/// credits or the per-stream buffer limit) and fail the stream instead of growing it.
final class AsyncQueue<Element: Sendable>: Sendable {
    private struct State: WaitableState {
        /// Taken elements leave it at once: an array read from a moving head kept up to 64 taken
        /// messages alive, each a slice pinning the read buffer it came in (48 MiB for an upload
        /// of 48 chunks of 1 MiB).
        var buffer = CircularBuffer<Element>()
        var end: Result<Void, any Error>?
        /// Elements were pushed with ``AsyncQueue/pushDeferringWake(_:)`` and ``AsyncQueue/wake()``
        /// has not run since.
        var wakeOwed = false
        var count: Int { buffer.count }

        mutating func popFirst() -> Element? { buffer.popFirst() }

        /// The next element, else the end (nil or its error), else nothing yet.
        mutating func take() -> Result<Element?, any Error>? {
            if let element = popFirst() { return .success(element) }
            return end.map { end in end.map { nil } }
        }
    }

    private let state = SingleWaiter(State())

    init() {}

    /// Elements waiting to be taken.
    var count: Int { state.read(\.count) }

    /// Whether the consumer is waiting for an element.
    var consumerIsWaiting: Bool { state.hasWaiter }

    /// Adds an element; returns the number buffered afterwards, or nil when the queue has ended.
    @discardableResult
    func push(_ element: Element) -> Int? {
        let (count, woke) = state.update { state -> Int? in
            guard state.end == nil else { return nil }
            state.buffer.append(element)
            return state.count
        }
        // A waiting consumer took the element at once.
        return count.map { woke ? $0 - 1 : $0 }
    }

    /// Adds an element without waking a waiting consumer; the producer calls ``wake()`` when its
    /// burst ends (the event loop, when a read ends). Returns whether the caller now owes that
    /// call: true for the first such push since the last ``wake()``, false after it and when
    /// the queue has ended.
    func pushDeferringWake(_ element: Element) -> Bool {
        state.updateQuietly { state in
            guard state.end == nil else { return false }
            state.buffer.append(element)
            defer { state.wakeOwed = true }
            return !state.wakeOwed
        }
    }

    /// Wakes a waiting consumer for the elements pushed with ``pushDeferringWake(_:)``.
    func wake() {
        state.update { $0.wakeOwed = false }
    }

    /// Ends the queue: the consumer gets the buffered elements, then nil (or `error`).
    func finish(throwing error: (any Error)? = nil) {
        state.update { state in
            guard state.end == nil else { return }
            state.end = error.map { .failure($0) } ?? .success(())
        }
    }

    /// Ends the queue at once, dropping buffered elements; the consumer gets `error`.
    func fail(_ error: any Error) {
        state.update { state in
            state.buffer.removeAll()
            if state.end == nil { state.end = .failure(error) }
        }
    }

    /// The next element; nil at the end. Throws the finishing error, or `CancellationError`
    /// when the waiting task is cancelled.
    func next() async throws -> Element? {
        try await state.wait()
    }
}
