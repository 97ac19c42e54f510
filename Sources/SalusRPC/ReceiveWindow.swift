/// The receiving side of a stream's flow control: counts the messages its reader consumed
/// and says when to grant the sender more credits.
///
/// Without a byte budget the window stays the size announced in Hello: every half window
/// consumed is granted again. With one, small messages widen it: the reader keeps about
/// `byteBudget` bytes in flight (from the recent messages' average size), between the announced
/// size and `maximumCredits`. A stream of 70-byte messages then has 1,024 in flight instead of
/// 64, and its reader grants (a write from its thread) once per 512 messages instead of once per
/// 32; a stream of 60 KB pages keeps the announced window.
struct ReceiveWindow: Sendable {
    /// Data frames the sender may have in flight at first (the window announced in Hello).
    let size: Int
    private let byteBudget: Int
    private let maximumCredits: Int
    /// Credits granted and not yet used by a consumed message.
    private var outstanding: Int
    /// The recent messages' average size in bytes (0: none yet).
    private var averageBytes = 0

    init(size: Int, byteBudget: Int = 0, maximumCredits: Int = 0) {
        self.size = size
        self.byteBudget = byteBudget
        self.maximumCredits = max(size, maximumCredits)
        self.outstanding = size
    }

    /// The credits the reader aims to keep granted.
    var target: Int {
        guard byteBudget > 0, averageBytes > 0 else { return size }
        return min(maximumCredits, max(size, byteBudget / averageBytes))
    }

    /// Records one consumed message of `bytes`; returns the credits to grant now (0: none yet).
    /// A grant comes once half the target is used, and brings it back to the target.
    mutating func consume(bytes: Int = 0) -> Int {
        outstanding -= 1
        if byteBudget > 0 {
            let size = max(1, bytes)
            averageBytes = averageBytes == 0 ? size : (averageBytes * 7 + size) / 8
        }
        let target = self.target
        guard outstanding <= target - max(1, target / 2) else { return 0 }
        defer { outstanding = target }
        return target - outstanding
    }
}

extension RPCError {
    /// A message that does not fit in one frame.
    static func oversizedMessage(bytes: Int, what: String = "message") -> RPCError {
        RPCError(
            code: .resourceExhausted,
            message: "\(what) of \(bytes) bytes exceeds the 4 MiB frame limit",
            reason: .resourceExhausted,
            field: "payload",
            value: "\(bytes) bytes",
            expected: "at most \(WireLimits.maxFramePayload) bytes"
        )
    }
}
