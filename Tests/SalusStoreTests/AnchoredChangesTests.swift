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

    @Test("a catch-up reads its next page while the caller holds the one returned, and stops reading ahead at its end; every change comes once, in order")
    func readAhead() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let saved = try await store.save((0..<5).map { Fixtures.quantity(Double($0), start: Double($0)) }, source: Fixtures.app)
        var iterator = try store.anchoredChanges([QueryDescriptor(type: Fixtures.steps)], from: nil, pageSize: 2)
            .makeAsyncIterator()
        #expect(!iterator.isReadingAhead)
        var seen: [(count: Int, complete: Bool, ahead: Bool)] = []
        var added: [UUID] = []
        while let batch = try await iterator.next() {
            seen.append((batch.result.added.count, batch.initialResultsComplete, iterator.isReadingAhead))
            added += batch.result.added.map(\.uuid)
            if batch.initialResultsComplete { break }
        }
        #expect(seen.map(\.count) == [2, 2, 1])
        #expect(seen.map(\.complete) == [false, false, true])
        // Nothing is read past the initial results: live changes wait for a commit.
        #expect(seen.map(\.ahead) == [true, true, false])
        #expect(added == saved.results.map(\.uuid))
        // A change committed while a page read ahead is held still comes, once.
        let more = try await store.save((5..<9).map { Fixtures.quantity(Double($0), start: Double($0)) }, source: Fixtures.app)
        let first = try #require(try await iterator.next())
        #expect(first.result.added.count == 2)
        #expect(iterator.isReadingAhead)
        let late = try await store.save([Fixtures.quantity(9, start: 9)], source: Fixtures.app)
        var live = first.result.added.map(\.uuid)
        while live.count < 5, let batch = try await iterator.next() { live += batch.result.added.map(\.uuid) }
        #expect(live == (more.results + late.results).map(\.uuid))
        await store.close()
    }

    @Test("an anchored page with a byte budget ends after the sample that reaches it, says more follow, and the next page goes on from its anchor")
    func byteBudget() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let note = MetadataValue.string(String(repeating: "n", count: 10_000))
        let saved = try await store.save(
            (0..<10).map { Fixtures.quantity(Double($0), start: Double($0), metadata: ["org.example.note": note]) }, source: Fixtures.app)
        let steps = [QueryDescriptor(type: Fixtures.steps)]
        // Each sample weighs its metadata's bytes and a little more: 25,000 bytes is three of them.
        let first = try await store.anchoredQuery(steps, anchor: nil, limit: 500, maxBytes: 25_000)
        #expect(first.added.map(\.uuid) == Array(saved.results.prefix(3).map(\.uuid)))
        #expect(first.hasMore)
        var all = first.added.map(\.uuid)
        var anchor = first.anchor
        while true {
            let page = try await store.anchoredQuery(steps, anchor: anchor, limit: 500, maxBytes: 25_000)
            all += page.added.map(\.uuid)
            anchor = page.anchor
            if !page.hasMore { break }
        }
        #expect(all == saved.results.map(\.uuid))
        // Without a budget, one page holds them all.
        let whole = try await store.anchoredQuery(steps, anchor: nil, limit: 500)
        #expect(whole.added.count == 10 && !whole.hasMore)
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
