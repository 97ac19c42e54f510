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
        defer { condition.unlock() }
        ended = true
        condition.signal()
    }

    /// Ends the feed with `error`: the writer rolls back and its save throws `error`.
    package func fail(_ error: any Error) {
        condition.lock()
        defer { condition.unlock() }
        if !ended { producerError = error }
        ended = true
        condition.signal()
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
        return part
    }

    /// The writer takes no more parts (it failed or finished): later `put`s return false.
    package func abandon() {
        condition.lock()
        defer { condition.unlock() }
        abandoned = true
        parts = []
        first = 0
    }
}
