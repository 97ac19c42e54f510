import Dispatch
import Foundation
import Synchronization

/// One SQLite connection confined to its own serial dispatch queue.
///
/// **Rule: all SQLite work runs on these queues, never on the caller's task.** `run` enqueues a
/// closure and suspends the calling task until the closure has run; the result comes back
/// through a continuation. Why: a SQLite call blocks its thread (disk I/O, waiting for a lock,
/// a long scan), and Swift's cooperative pool has only as many threads as cores: blocking them
/// would stall every task in the process, RPC included. Dispatch queues run on threads of their
/// own. What breaks otherwise: with two cores, two slow queries would freeze the daemon.
///
/// **Rule: one closure at a time per connection, in submission order.** The queue is serial,
/// which is what SQLite's `SQLITE_OPEN_NOMUTEX` connections require; closures must not keep the
/// `Database` they receive.
final class ConnectionQueue: @unchecked Sendable {
    private let queue: DispatchQueue
    /// Touched only on `queue`.
    private var database: Database?
    private let pendingJobs = Atomic<Int>(0)

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// How many closures are queued or running.
    var pending: Int { pendingJobs.load(ordering: .relaxed) }

    /// Opens the connection on the queue with `make`.
    func open(_ make: @escaping @Sendable () throws -> Database) async throws {
        try await submit { _ in () } prepare: { connection in
            connection.database = try make()
        }
    }

    /// Runs `body` with the connection on its queue and returns its result.
    ///
    /// Errors come back as `StoreError` (SQLite errors as `.database`); a closed connection
    /// throws `.closed`.
    func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await submit(body, prepare: nil)
    }

    private func submit<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T,
        prepare: (@Sendable (ConnectionQueue) throws -> Void)?
    ) async throws -> T {
        pendingJobs.add(1, ordering: .relaxed)
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                defer { self.pendingJobs.subtract(1, ordering: .relaxed) }
                do {
                    if let prepare {
                        try prepare(self)
                    }
                    guard let database = self.database else {
                        throw StoreError(code: .closed, message: "the store is closed")
                    }
                    continuation.resume(returning: try body(database))
                } catch let error as StoreError {
                    continuation.resume(throwing: error)
                } catch let error as DatabaseError {
                    continuation.resume(throwing: StoreError(error, path: self.database?.path))
                } catch {
                    continuation.resume(throwing: StoreError(code: .database, message: "\(error)"))
                }
            }
        }
    }

    /// Closes the connection after every closure already queued has run.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.database?.close()
                self.database = nil
                continuation.resume()
            }
        }
    }
}

/// The reader connections: each query goes to the one with the fewest closures waiting.
///
/// **Rule: readers never write** (`PRAGMA query_only`). In WAL mode readers see the last
/// committed state when their read transaction starts and never wait for the writer, and the
/// writer never waits for them.
final class ReaderPool: Sendable {
    let readers: [ConnectionQueue]

    init(count: Int, label: String) {
        readers = (0..<max(1, count)).map { ConnectionQueue(label: "\(label).reader\($0)") }
    }

    /// Runs `body` on the least busy reader.
    func run<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let reader = readers.min { $0.pending < $1.pending }!
        return try await reader.run(body)
    }
}
