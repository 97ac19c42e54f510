import Foundation

/// A file read in chunks for a streamed import (`salusctl import`), on a thread of its own, at
/// most four chunks ahead of the sender (a zip entry is inflated there), so memory holds four
/// chunks whatever the file's size.
public enum ChunkReader {
    /// Reads a file in chunks, passing each to its argument (which may throw to stop it).
    public typealias Producer = @Sendable (_ consume: @escaping (Data) throws -> Void) throws -> Void

    /// How many chunks the reader may be ahead of the sender.
    static let readAhead = 4

    /// `produce`'s chunks, read as they are taken. Ending the stream early (the daemon refused
    /// the import, the caller stopped) stops the reading thread at its next chunk, however many
    /// chunks it had read ahead.
    public static func stream(_ produce: @escaping Producer) -> AsyncThrowingStream<Data, any Error> {
        // Not a DispatchSemaphore: libdispatch traps (SIGILL, "semaphore object deallocated while
        // in use") when one is released with fewer slots than it began with, which is what an
        // import ended early leaves (the chunks read ahead, never taken).
        let slots = ReadAheadSlots(readAhead)
        return AsyncThrowingStream { continuation in
            continuation.onTermination = { _ in slots.close() }
            let thread = Thread {
                do {
                    try produce { data in
                        guard slots.take() else { throw CancellationError() }
                        continuation.yield(data)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            thread.start()
        }
        .releasing(slots)
    }
}

/// The chunks the reading thread may still read ahead: taken by it before each chunk, given
/// back as the sender takes one; closed when the stream ends, which wakes the thread to stop.
final class ReadAheadSlots: @unchecked Sendable {
    private let condition = NSCondition()
    private var free: Int
    private var closed = false

    init(_ count: Int) { free = count }

    /// Waits for a free slot and takes it; false once closed.
    func take() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while free == 0 && !closed { condition.wait() }
        guard !closed else { return false }
        free -= 1
        return true
    }

    func give() {
        condition.lock()
        free += 1
        condition.signal()
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}

extension AsyncThrowingStream where Element == Data, Failure == any Error {
    /// This stream, giving a slot back to `slots` for every element taken.
    func releasing(_ slots: ReadAheadSlots) -> AsyncThrowingStream<Data, any Error> {
        var iterator = makeAsyncIterator()
        return AsyncThrowingStream {
            let next = try await iterator.next()
            if next != nil { slots.give() }
            return next
        }
    }
}
