import Foundation
import SalusImport
import Synchronization
import Testing

/// The import's workers (`OrderedWork`): items mapped on every core come back in the order they
/// went in, memory stays within the window, and a cancelled import stops its workers.
@Suite("OrderedWork")
struct OrderedWorkTests {
    /// Takes everything the work gives, as the import does after each slice and at the end.
    static func drain(_ work: OrderedWork<Int, Int>, all: Bool) async throws -> [Int] {
        var taken: [Int] = []
        while let outputs = try await work.results(all: all) { taken += outputs }
        return taken
    }

    @Test("outputs come back in the order items went in, whatever order the workers finish in")
    func orderKept() async throws {
        // Early items take longest, so later jobs finish first.
        let work = OrderedWork<Int, Int>(jobSize: 7, window: 4) { item in
            if item % 7 == 0 { usleep(UInt32(200 * (40 - item % 40))) }
            return item * 2
        }
        var taken: [Int] = []
        for item in 0..<1000 {
            work.submit(item)
            if item % 50 == 49 { taken += try await Self.drain(work, all: false) }
        }
        taken += try await Self.drain(work, all: true)
        #expect(taken == (0..<1000).map { $0 * 2 })
        #expect(work.jobsInFlight == 0)
        #expect(work.itemsInFlight == 0)
    }

    @Test("at most the window's jobs stay in flight after each take, whatever is submitted")
    func bounded() async throws {
        let work = OrderedWork<Int, Int>(jobSize: 10, window: 3) { $0 }
        var taken: [Int] = []
        for item in 0..<500 {
            work.submit(item)
            taken += try await Self.drain(work, all: false)
            #expect(work.jobsInFlight <= 3)
            #expect(work.itemsInFlight <= 3 * 10 + 9)
        }
        taken += try await Self.drain(work, all: true)
        #expect(taken == Array(0..<500))
    }

    @Test("a cancelled import stops its workers: each job stops before its next item, and taking throws instead of giving part of a job")
    func cancellation() async throws {
        let started = Atomic<Int>(0)
        let release = Atomic<Bool>(false)
        // 3 jobs of 100 items of a millisecond each: 300 ms of work, at least 150 ms on 2 cores.
        let work = OrderedWork<Int, Int>(jobSize: 100, window: 1) { item in
            started.add(1, ordering: .relaxed)
            // The first item of each job waits until the test lets it go.
            if item % 100 == 0 { while !release.load(ordering: .acquiring) { usleep(1000) } }
            usleep(1000)
            return item
        }
        // The work is the import's alone; the test hands it to the task that submits and takes,
        // as the import's task does.
        struct Handed: @unchecked Sendable { let work: OrderedWork<Int, Int> }
        let handed = Handed(work: work)
        let taker = Task {
            for item in 0..<300 { handed.work.submit(item) }
            return try await Self.drain(handed.work, all: true)
        }
        // A job has begun, so the taker has submitted: it is waiting for the oldest job or about
        // to, and its cancellation reaches every job either way.
        for _ in 0..<2000 where started.load(ordering: .relaxed) == 0 { usleep(1000) }
        taker.cancel()
        release.store(true, ordering: .releasing)
        await #expect(throws: CancellationError.self) { try await taker.value }
        try await Task.sleep(for: .milliseconds(60))
        let afterCancel = started.load(ordering: .relaxed)
        #expect(afterCancel < 30, "\(afterCancel) items started after the import was cancelled")
        // Cancelled for good: nothing more is started or taken.
        work.submit(1)
        await #expect(throws: CancellationError.self) { try await work.results(all: true) }
        try await Task.sleep(for: .milliseconds(20))
        #expect(started.load(ordering: .relaxed) == afterCancel)
    }

    @Test("cancel() from outside (an import that failed) stops the running jobs and refuses what follows")
    func cancelFromOutside() async throws {
        let started = Atomic<Int>(0)
        // 20 jobs of 50 items of 2 ms: a second of work on 2 cores.
        let work = OrderedWork<Int, Int>(jobSize: 50, window: 2) { item in
            started.add(1, ordering: .relaxed)
            usleep(2000)
            return item
        }
        for item in 0..<1000 { work.submit(item) }
        work.cancel()
        #expect(work.jobsInFlight == 0)
        await #expect(throws: CancellationError.self) { try await work.results(all: true) }
        try await Task.sleep(for: .milliseconds(150))
        let count = started.load(ordering: .relaxed)
        #expect(count < 20, "\(count) items started after cancel()")
    }
}
