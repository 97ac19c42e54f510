import Foundation

/// Reads a side file in chunks as they come (from disk, or inflated from a zip entry) and passes
/// them on, stopping one byte past `limit`: memory holds one chunk, whatever the file's size or
/// what a zip's header claims it is.
package enum SideFileReader {
    /// How the reading ended.
    package enum Outcome: Sendable, Equatable {
        /// Every byte was passed on.
        case complete
        /// The file is larger than the limit: `limit + 1` bytes were passed on (so the daemon,
        /// which holds the same limit, reports it), and the rest was never read.
        case tooLarge
    }

    /// Thrown into the producer to stop it.
    private struct TooLarge: Error {}

    /// Calls `produce` with a consumer of the file's chunks, and passes each on to `send`.
    package static func read(
        limit: Int, produce: (_ consume: @escaping (Data) throws -> Void) throws -> Void, send: (Data) throws -> Void
    ) throws -> Outcome {
        var count = 0
        do {
            try withoutActuallyEscaping(send) { send in
                try produce { chunk in
                    guard count + chunk.count > limit else {
                        count += chunk.count
                        try send(chunk)
                        return
                    }
                    // One byte past the limit, then stop the producer (an inflater, a file read).
                    try send(chunk.prefix(limit + 1 - count))
                    throw TooLarge()
                }
            }
        } catch is TooLarge {
            return .tooLarge
        }
        return .complete
    }
}
