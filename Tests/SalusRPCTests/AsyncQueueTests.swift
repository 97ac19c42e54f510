@testable import SalusRPC
import Testing

@Suite("The queue between the event loop and a reader")
struct AsyncQueueTests {
    @Test("messages queued during a read reach a waiting reader, in order, once the read ends", .timeLimit(.minutes(1)))
    func deferredWake() async throws {
        let queue = AsyncQueue<Int>()
        // A child task, so the time limit's cancellation reaches it if it is never woken.
        async let reader = { () async throws -> [Int] in
            var got: [Int] = []
            while got.count < 3, let next = try await queue.next() { got.append(next) }
            return got
        }()
        while !queue.consumerIsWaiting { await Task.yield() }
        // The first message of a read makes the producer owe one wake; the rest do not, and
        // none of them wakes the reader by itself.
        #expect(queue.pushDeferringWake(1))
        #expect(!queue.pushDeferringWake(2))
        #expect(!queue.pushDeferringWake(3))
        #expect(queue.consumerIsWaiting)
        queue.wake()
        #expect(try await reader == [1, 2, 3])
        // After the wake, the next read owes one again.
        #expect(queue.pushDeferringWake(4))
        queue.wake()
        #expect(try await queue.next() == 4)
    }

    final class Message: Sendable {}

    @Test("a message the reader has taken is no longer held by the queue (a slice of 1 MiB pins its buffer)")
    func takenMessagesAreReleased() async throws {
        let queue = AsyncQueue<Message>()
        weak var first: Message?
        do {
            let message = Message()
            first = message
            queue.push(message)
            queue.push(Message())
        }
        _ = try await queue.next()
        #expect(first == nil, "the queue still holds a message it handed out")
        #expect(queue.count == 1)
    }

    @Test("a queue that has ended takes no more messages and owes no wake")
    func endedQueue() async throws {
        let queue = AsyncQueue<Int>()
        #expect(queue.pushDeferringWake(1))
        queue.finish()
        #expect(!queue.pushDeferringWake(2))
        queue.wake()
        #expect(try await queue.next() == 1)
        #expect(try await queue.next() == nil)
    }
}
