import NIOCore

/// Runs tasks on a NIO event loop, so a handler that writes to its channel does so without
/// a thread hop. Handlers that run here must not block: blocking work belongs on a thread
/// pool (the store has its own).
final class EventLoopExecutor: TaskExecutor, @unchecked Sendable {
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
