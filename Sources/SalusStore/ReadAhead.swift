/// A page read started before its consumer asks for it (`SampleWirePages`,
/// `LiveAnchoredChanges`), kept by the iterator that started it and cancelled when that iterator
/// goes: a consumer that stops pulling leaves at most this one read behind it.
final class ReadAhead<Value: Sendable>: Sendable {
    private let task: Task<Value, any Error>

    /// Starts `read` now.
    init(_ read: @escaping @Sendable () async throws -> Value) {
        task = Task { try await read() }
    }

    deinit { task.cancel() }

    /// The read's result, waiting for it; cancelling the waiting task cancels the read.
    func value() async throws -> Value {
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: { [task] in
            task.cancel()
        }
    }
}

/// Counts a page against a budget as it is read, before its consumer sends it: salusd counts
/// the pages a query holds for a client (the one waiting to be sent and the ones read ahead)
/// against the app's buffered bytes, as it counts what the socket has not taken, and the write
/// that sends a page releases what was counted for it. A page that does not fit ends the read
/// with the budget's error. `none` counts nothing (reads in process).
package struct PageHold: Sendable {
    let reserve: @Sendable (Int) throws -> Void

    package init(reserve: @escaping @Sendable (Int) throws -> Void) {
        self.reserve = reserve
    }

    package static let none = PageHold { _ in }
}
