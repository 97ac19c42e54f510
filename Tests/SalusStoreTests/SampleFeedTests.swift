import Foundation
import SalusModel
import SalusStore
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
}
