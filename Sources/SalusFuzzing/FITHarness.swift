import SalusFIT

/// FIT files: the decoder on any bytes. Besides never trapping, what it returns must hold
/// together: each message and problem inside the bytes, messages in increasing offsets, the
/// visitor given as many messages as the count says, and the bytes cut in half decode to the
/// first messages of the whole (what is decoded is whole, never a guess past a cut).
enum FITHarness {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        var lastOffset = -1
        var visited = 0
        let decoding = FITDecoder().decode(bytes) { message in
            guard message.offset > lastOffset, message.offset < bytes.count else {
                fatalError("message at byte \(message.offset) after one at \(lastOffset), in \(bytes.count) bytes")
            }
            lastOffset = message.offset
            visited += 1
            // Every accessor the import uses.
            _ = message.value(FITProfile.Record.heartRate)
            _ = message.values(FITProfile.HRV.time)
            _ = message.string(FITProfile.FileID.productName)
            _ = message.integer(FITProfile.Session.sport)
        }
        guard visited == decoding.messageCount else {
            fatalError("the visitor got \(visited) messages, the decoding counts \(decoding.messageCount)")
        }
        for problem in decoding.problems where problem.offset < 0 || problem.offset > bytes.count {
            fatalError("problem outside the \(bytes.count) bytes: \(problem)")
        }
        let whole = FITDecoder().decode(Array(bytes))
        let half = FITDecoder().decode(Array(bytes.prefix(bytes.count / 2)))
        guard half.messages.count <= whole.messages.count,
            Array(whole.messages.prefix(half.messages.count)) == half.messages
        else {
            fatalError("the first \(bytes.count / 2) bytes decode to messages that are not the whole file's first ones")
        }
    }
}
