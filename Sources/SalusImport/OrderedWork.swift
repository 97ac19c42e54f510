import Foundation

/// Work done on every core that comes out in the order it went in: an import's reader hands
/// over elements one at a time, in file order; they are mapped and checked in jobs of
/// `jobSize` on the concurrency pool, several jobs at once, and the results are taken back job
/// by job, oldest first, so whatever follows (the saves, the report's problems with their
/// lines) sees the file's order exactly as if one thread had done it all.
///
/// **Memory stays bounded.** At most `window` jobs run or wait to be taken; `results(all:)`
/// gives the oldest job's outputs only once more than `window` are started, so the caller
/// feeds the reader a slice at a time and takes what is ready after each: what is held is
/// `window` jobs plus the slice's elements, whatever the file's size.
///
/// **Cancellation.** When the task taking the results is cancelled (the client went away),
/// every job still running is cancelled: each stops before its next item, and `results`
/// throws `CancellationError` instead of giving part of a job. `cancel()` does the same from
/// outside (an import that failed), and so does the end of the object's life.
///
/// Not thread-safe itself: one task submits and takes (the import's); only `transform` runs
/// elsewhere, so it must be a pure function of its input.
package final class OrderedWork<Input: Sendable, Output: Sendable> {
    /// Items per job.
    package let jobSize: Int
    /// The most jobs started and not yet taken before `results(all: false)` gives the oldest.
    package let window: Int
    private let transform: @Sendable (Input) -> Output
    /// Items submitted since the last job started.
    private var gathering: [Input] = []
    /// Jobs started, oldest first, from `head` on.
    private var running: [Task<[Output], Never>?] = []
    private var head = 0
    private var cancelled = false

    /// A pipeline running `transform` on each item. The defaults suit an import: jobs of 256
    /// elements (a Record is about 400 bytes, so a 256 KiB chunk of export.xml is two or three
    /// jobs), two jobs per core.
    package init(
        jobSize: Int = 256, window: Int = 2 * max(1, ProcessInfo.processInfo.activeProcessorCount),
        transform: @escaping @Sendable (Input) -> Output
    ) {
        precondition(jobSize > 0 && window > 0, "a job holds at least one item, and at least one job runs")
        self.jobSize = jobSize
        self.window = window
        self.transform = transform
        gathering.reserveCapacity(jobSize)
    }

    deinit {
        for task in running[head...] { task?.cancel() }
    }

    /// Jobs started and not yet taken.
    package var jobsInFlight: Int { running.count - head }

    /// Items submitted and not yet taken (those of running jobs and those gathering).
    package private(set) var itemsInFlight = 0

    /// Adds the next item; a job starts once `jobSize` items are gathered.
    package func submit(_ input: Input) {
        guard !cancelled else { return }
        gathering.append(input)
        itemsInFlight += 1
        if gathering.count >= jobSize { start() }
    }

    private func start() {
        guard !gathering.isEmpty else { return }
        let items = gathering
        gathering = []
        gathering.reserveCapacity(jobSize)
        let transform = transform
        running.append(Task {
            var outputs: [Output] = []
            outputs.reserveCapacity(items.count)
            for item in items {
                if Task.isCancelled { break }
                outputs.append(transform(item))
            }
            return outputs
        })
    }

    /// The outputs of the oldest job, in order, when more than `window` jobs are in flight; with
    /// `all`, of the oldest job while any is in flight (the items gathered are started as a job
    /// first). Nil when there is nothing to take. Throws `CancellationError` when the calling task
    /// is cancelled, or `cancel()` was called; every job is cancelled then.
    package func results(all: Bool) async throws -> [Output]? {
        if cancelled { throw CancellationError() }
        if all { start() }
        guard jobsInFlight > (all ? 0 : window) else { return nil }
        let task = running[head]!
        // Cancelled while waiting: every job stops at once, from the cancelling thread; the jobs
        // may hold every thread of the pool, so waiting for this task to run again would let
        // them go on until they end.
        let jobs = running[head...].compactMap { $0 }
        let outputs = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            for job in jobs { job.cancel() }
        }
        if Task.isCancelled || task.isCancelled {
            cancel()
            throw CancellationError()
        }
        running[head] = nil
        head += 1
        if head > 64, head * 2 > running.count {
            running.removeFirst(head)
            head = 0
        }
        itemsInFlight -= outputs.count
        return outputs
    }

    /// Stops: every running job is cancelled, nothing gathered is started, and `results` throws
    /// from now on.
    package func cancel() {
        cancelled = true
        for task in running[head...] { task?.cancel() }
        running = []
        head = 0
        gathering = []
        itemsInFlight = 0
    }
}
