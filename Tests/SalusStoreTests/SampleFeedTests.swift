import Foundation
import SalusModel
@testable import SalusStore
import Synchronization
import Testing

/// A save fed in parts by a producer (`SampleStore.save(feed:source:)`): one transaction, all or
/// nothing, in the feed's order.
@Suite("Save fed in parts")
struct SampleFeedTests {
    static func steps(_ range: Range<Int>) -> [Sample] {
        range.map { Fixtures.quantity(Fixtures.steps, Double($0), "count", start: Double($0) * 60, end: Double($0) * 60 + 60) }
    }

    struct Refused: Error, Equatable {}

    @Test("parts saved in order give the results of one batch; a producer that fails after two parts leaves nothing, not a type row or a change, and the writer takes the next save")
    func failureRollsBack() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store

        let failing = SampleFeed()
        let producer = Task {
            #expect(failing.put(Self.steps(0..<300)))
            try await Task.sleep(for: .milliseconds(20))
            #expect(failing.put(Self.steps(300..<600)))
            failing.fail(Refused())
            // Once the writer has stopped, it takes no more.
            try await Task.sleep(for: .milliseconds(20))
            return failing.put(Self.steps(600..<900))
        }
        await #expect(throws: Refused.self) { _ = try await store.save(feed: failing, source: Fixtures.app) }
        #expect(try await producer.value == false)
        #expect(failing.isAbandoned)
        #expect(try await store.all(Fixtures.steps).isEmpty)
        #expect(try await store.currentAnchor() == Anchor(0))

        let fed = SampleFeed()
        Task {
            for first in stride(from: 0, to: 1_000, by: 250) {
                fed.put(Self.steps(first..<first + 250))
                try await Task.sleep(for: .milliseconds(5))
            }
            fed.finish()
        }
        let response = try await store.save(feed: fed, source: Fixtures.app)
        #expect(response.results.count == 1_000)
        #expect(response.anchor == Anchor(1_000))
        let read = try await store.all(Fixtures.steps)
        #expect(read.map(\.uuid) == response.results.map(\.uuid))
        #expect(read.compactMap { if case .quantity(let quantity) = $0.value { quantity.value } else { nil } } == (0..<1_000).map(Double.init))
    }

    @Test("a feed whose writer cannot start (the store closed) is abandoned: the producer's parts are refused")
    func closedStore() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        await store.close()
        let feed = SampleFeed()
        await #expect(throws: StoreError.self) { _ = try await store.save(feed: feed, source: Fixtures.app) }
        #expect(feed.put(Self.steps(0..<10)) == false)
    }

    @Test("the parts the writer has saved are freed by the producer's next put, off the writer's thread, and still after the writer stopped; a save in parts hands back every part but its last")
    func savedPartsFreedByProducer() async throws {
        let feed = SampleFeed()
        feed.retire(Self.steps(0..<10))
        feed.retire(Self.steps(10..<20))
        #expect(feed.retiredCount == 2)
        #expect(feed.put(Self.steps(20..<30)))
        #expect(feed.retiredCount == 0)
        feed.retire(Self.steps(30..<40))
        feed.abandon()
        #expect(feed.put(Self.steps(40..<50)) == false)
        #expect(feed.retiredCount == 0)

        let temporary = try await TemporaryStore.make()
        let fed = SampleFeed()
        for first in stride(from: 0, to: 1_000, by: 250) { fed.put(Self.steps(first..<first + 250)) }
        fed.finish()
        let response = try await temporary.store.save(feed: fed, source: Fixtures.app)
        #expect(response.results.count == 1_000)
        #expect(fed.retiredCount == 3)
        #expect(try await temporary.store.all(Fixtures.steps).count == 1_000)
    }

    @Test("a producer converts at most two parts ahead of the writer, before it takes the save and while it saves; abandoning the feed lets a waiting producer go")
    func producerWaitsForTheWriter() async throws {
        let feed = SampleFeed()
        for first in [0, 100] {
            await feed.waitForRoom()
            #expect(feed.put(Self.steps(first..<first + 100)))
        }
        let resumed = Mutex(false)
        let waiting = Task {
            await feed.waitForRoom()
            resumed.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(50))
        // No writer has taken the save: a waiting save holds two parts, converts no more.
        #expect(resumed.withLock { $0 } == false)

        let temporary = try await TemporaryStore.make()
        let saving = Task { try await temporary.store.save(feed: feed, source: Fixtures.app) }
        await waiting.value
        #expect(resumed.withLock { $0 })
        for first in stride(from: 200, to: 3_000, by: 100) {
            await feed.waitForRoom()
            // The writer only takes parts meanwhile: fewer than two wait when the producer puts.
            #expect(feed.queuedCount < SampleFeed.partsAhead)
            #expect(feed.put(Self.steps(first..<first + 100)))
        }
        feed.finish()
        let response = try await saving.value
        #expect(response.results.count == 3_000)
        #expect(try await temporary.store.all(Fixtures.steps).count == 3_000)

        let abandoned = SampleFeed()
        let stopped = Task { await abandoned.waitForRoom() }
        try await Task.sleep(for: .milliseconds(20))
        abandoned.abandon()
        await stopped.value
        #expect(abandoned.put(Self.steps(0..<10)) == false)
    }
}
