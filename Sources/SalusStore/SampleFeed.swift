import Foundation
import SalusModel

/// The samples of one save, handed to the store's writer in parts and in order by a producer
/// that converts and checks each part while the writer saves the parts before it
/// (``SampleStore/save(feed:source:)``): on two cores a large batch's conversion and its
/// inserts overlap instead of following each other.
///
/// The save is one transaction, all or nothing, as any save: the producer's ``fail(_:)``
/// (a sample that breaks a rule, in a part not yet handed over) makes the writer roll back the
/// parts it has saved. The writer blocks its connection's thread on ``next()`` until a part,
/// the end or a failure arrives, so a producer must end every feed with ``finish()`` or
/// ``fail(_:)``; once the writer stops taking parts (it failed, or the feed ended) ``put(_:)``
/// returns false and the producer stops.
package final class SampleFeed: @unchecked Sendable {
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var parts: [[Sample]] = []
    private var first = 0
    private var ended = false
    private var producerError: (any Error)?
    private var abandoned = false
    /// Parts the writer has saved, freed by the producer's next `put` on its own thread: freeing
    /// a part's samples (a release of every field of each) was about 4% of the writer's time.
    private var spent: [[Sample]] = []
    /// A producer waiting for room (`waitForRoom`).
    private var waiting: CheckedContinuation<Void, Never>?

    /// The most parts handed over and not yet taken by the writer: enough for the two to overlap.
    package static let partsAhead = 2

    package init() {}

    /// Hands over the next part; false when the writer has stopped taking parts. Frees the parts
    /// the writer has saved since the last call.
    @discardableResult
    package func put(_ part: [Sample]) -> Bool {
        var saved: [[Sample]] = []
        let taken: Bool
        do {
            condition.lock()
            defer { condition.unlock() }
            swap(&saved, &spent)
            taken = !abandoned && !ended
            if taken {
                parts.append(part)
                condition.signal()
            }
        }
        // Freed here, outside the lock, on the producer's thread.
        saved.removeAll()
        return taken
    }

    /// Returns once the producer may convert its next part: fewer than ``partsAhead`` parts wait
    /// for the writer, or the writer has stopped taking parts. A save waiting for the writer
    /// behind others' so holds its request and two parts, not all its samples converted: 48
    /// saves of 55,000 samples at once took salusd's peak memory up by 365 MiB, each converted
    /// whole while it waited. The parts ready when the writer takes the save let it start at once.
    package func waitForRoom() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if hasRoom {
                condition.unlock()
                continuation.resume()
            } else {
                waiting = continuation
                condition.unlock()
            }
        }
    }

    /// Whether a producer may go on (the caller holds the lock).
    private var hasRoom: Bool {
        abandoned || ended || parts.count - first < Self.partsAhead
    }

    /// The waiting producer, taken when it may go on (the caller holds the lock), to be resumed
    /// once the lock is released.
    private func takeWaitingIfRoom() -> CheckedContinuation<Void, Never>? {
        guard hasRoom, let continuation = waiting else { return nil }
        waiting = nil
        return continuation
    }

    /// How many parts were handed over and not yet taken by the writer.
    var queuedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return parts.count - first
    }

    /// Takes back a part the writer has saved, to be freed by the producer (`put`).
    func retire(_ part: [Sample]) {
        condition.lock()
        defer { condition.unlock() }
        spent.append(part)
    }

    /// How many saved parts wait for the producer to free them.
    var retiredCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return spent.count
    }

    /// Ends the feed: the writer saves what it was given and commits.
    package func finish() {
        condition.lock()
        ended = true
        condition.signal()
        let producer = takeWaitingIfRoom()
        condition.unlock()
        producer?.resume()
    }

    /// Ends the feed with `error`: the writer rolls back and its save throws `error`.
    package func fail(_ error: any Error) {
        condition.lock()
        if !ended { producerError = error }
        ended = true
        condition.signal()
        let producer = takeWaitingIfRoom()
        condition.unlock()
        producer?.resume()
    }

    /// Whether the writer has stopped taking parts: the producer may stop converting.
    package var isAbandoned: Bool {
        condition.lock()
        defer { condition.unlock() }
        return abandoned
    }

    /// The error the producer failed with, if it did.
    var failure: (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        return producerError
    }

    /// The writer's next part, waiting for it; nil at the end; the producer's error when it failed.
    func next() throws -> [Sample]? {
        condition.lock()
        defer { condition.unlock() }
        while first == parts.count && !ended { condition.wait() }
        if let producerError { throw producerError }
        guard first < parts.count else { return nil }
        let part = parts[first]
        parts[first] = []
        first += 1
        // Room for one more part: resumed outside the lock (deferred unlock first).
        if let producer = takeWaitingIfRoom() {
            condition.unlock()
            producer.resume()
            condition.lock()
        }
        return part
    }

    /// The writer takes no more parts (it failed or finished): later `put`s return false.
    package func abandon() {
        condition.lock()
        abandoned = true
        parts = []
        first = 0
        let producer = takeWaitingIfRoom()
        condition.unlock()
        producer?.resume()
    }
}
