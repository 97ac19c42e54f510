import Foundation
import SalusModel
import SalusStore
import Testing

@Suite("Live anchored queries")
struct AnchoredChangesTests {
    @Test("initial results in pages, then live changes that match, in order")
    func initialThenLive() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let before = try await store.save((0..<5).map { Fixtures.category(5, start: Double($0)) }, source: Fixtures.app)
        let rem = [QueryDescriptor(type: Fixtures.sleep, predicate: .categoryValues([5]))]
        let changes = try store.anchoredChanges(rem, from: nil, pageSize: 2)
        // Saved after the subscription but before the first query: part of the initial results.
        _ = try await store.save([Fixtures.category(5, start: 10)], source: Fixtures.app)
        var iterator = changes.makeAsyncIterator()
        var initial: [UUID] = []
        var batches = 0
        while true {
            let batch = try #require(try await iterator.next())
            batches += 1
            #expect(batch.result.added.count <= 2)
            initial += batch.result.added.map(\.uuid)
            if batch.initialResultsComplete { break }
        }
        #expect(initial.count == 6)
        #expect(Array(initial.prefix(5)) == before.results.map(\.uuid))
        #expect(batches == 3)

        _ = try await store.save([Fixtures.category(0, start: 20)], source: Fixtures.app)  // does not match
        _ = try await store.save([Fixtures.quantity(1)], source: Fixtures.app)  // another type
        let rem2 = try await store.save([Fixtures.category(5, start: 30)], source: Fixtures.app)
        let live = try #require(try await iterator.next())
        #expect(live.result.added.map(\.uuid) == rem2.results.map(\.uuid))
        #expect(!live.initialResultsComplete)
        _ = try await store.delete(rem2.results.map(\.uuid), requester: .owner)
        let deletion = try #require(try await iterator.next())
        #expect(deletion.result.deleted.map(\.uuid) == rem2.results.map(\.uuid))

        await store.close()
        #expect(try await iterator.next() == nil)
    }

    @Test("an expired anchor fails the first batch")
    func expired() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let saved = try await store.save([Fixtures.quantity(1), Fixtures.quantity(2)], source: Fixtures.app)
        _ = try await store.delete([saved.results[0].uuid], requester: .owner)
        _ = try await store.purgeTombstones(olderThan: Date().addingTimeInterval(60))
        var iterator = try store.anchoredChanges([QueryDescriptor(type: Fixtures.steps)], from: Anchor(1))
            .makeAsyncIterator()
        let error = try #require(await #expect(throws: StoreError.self) { _ = try await iterator.next() })
        #expect(error.code == .anchorExpired)
    }
}
