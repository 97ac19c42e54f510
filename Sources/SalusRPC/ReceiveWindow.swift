/// The receiving side of a stream's flow control: counts the messages its reader consumed
/// and says when to grant the sender more credits (every half window, what was consumed).
struct ReceiveWindow: Sendable {
    /// Data frames the sender may have in flight.
    let size: Int
    private var consumedSinceGrant = 0

    init(size: Int) {
        self.size = size
    }

    /// Records one consumed message; returns the credits to grant now (0: none yet).
    mutating func consume() -> Int {
        consumedSinceGrant += 1
        guard consumedSinceGrant >= max(1, size / 2) else { return 0 }
        defer { consumedSinceGrant = 0 }
        return consumedSinceGrant
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
