/// Credits for sending Data frames on one stream: ``acquire()`` waits until the receiver has
/// granted one.
final class CreditGate: Sendable {
    private struct State: WaitableState {
        var credits: Int
        var closed: (any Error)?

        /// One credit (none is used up when unlimited), the closing error, or nothing yet.
        mutating func take() -> Result<Void, any Error>? {
            if let closed { return .failure(closed) }
            guard credits > 0 else { return nil }
            if credits != Int.max { credits -= 1 }
            return .success(())
        }
    }

    private let state: SingleWaiter<State>

    /// A gate with `credits` to start with; `nil` means unlimited (no flow control).
    init(credits: Int?) {
        state = SingleWaiter(State(credits: credits ?? Int.max))
    }

    var available: Int { state.read(\.credits) }

    func grant(_ credits: Int) {
        guard credits > 0 else { return }
        state.update { state in
            if state.credits < Int.max - credits { state.credits += credits } else { state.credits = Int.max }
        }
    }

    func close(_ error: any Error) {
        state.update { state in
            if state.closed == nil { state.closed = error }
        }
    }

    /// Takes one credit, waiting for a grant when there is none.
    func acquire() async throws {
        try await state.wait()
    }
}
