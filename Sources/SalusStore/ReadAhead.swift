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
