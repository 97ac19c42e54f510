import Foundation
import SalusModel
import SalusStore
import Testing

@Suite("Anchored queries")
struct AnchoredQueryTests {
    @Test("initial results, incremental changes, limits and several descriptors")
    func initialAndIncremental() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let saved = try await store.save(
            [Fixtures.quantity(1), Fixtures.category(3), Fixtures.quantity(2)], source: Fixtures.app)
        let ids = saved.results.map(\.uuid)
        _ = try await store.delete([ids[0]], requester: .owner)

        let steps = [QueryDescriptor(type: Fixtures.steps)]
        let initial = try await store.anchoredQuery(steps, anchor: nil)
        #expect(initial.added.map(\.uuid) == [ids[2]])
        #expect(initial.deleted.map(\.uuid) == [ids[0]])
        #expect(initial.anchor == Anchor(4))
        #expect(!initial.hasMore)

        let both = [QueryDescriptor(type: Fixtures.steps), QueryDescriptor(type: Fixtures.sleep)]
        let all = try await store.anchoredQuery(both, anchor: nil)
        #expect(all.added.map(\.uuid) == [ids[1], ids[2]])

        // Paging with a limit: samples and deletions together, in change order.
        let page1 = try await store.anchoredQuery(both, anchor: nil, limit: 1)
        #expect(page1.added.map(\.uuid) == [ids[1]])
        #expect(page1.hasMore)
        #expect(page1.anchor == Anchor(2))
        let page2 = try await store.anchoredQuery(both, anchor: page1.anchor, limit: 1)
        #expect(page2.added.map(\.uuid) == [ids[2]])
        #expect(page2.hasMore)
        let page3 = try await store.anchoredQuery(both, anchor: page2.anchor, limit: 1)
        #expect(page3.deleted.map(\.uuid) == [ids[0]])
        #expect(page3.anchor == Anchor(4))
        #expect(!page3.hasMore)

        let nothing = try await store.anchoredQuery(steps, anchor: initial.anchor)
        #expect(nothing.added.isEmpty && nothing.deleted.isEmpty)
        #expect(nothing.anchor == initial.anchor)

        let more = try await store.save([Fixtures.quantity(3), Fixtures.category(4)], source: Fixtures.app)
        let incremental = try await store.anchoredQuery(steps, anchor: initial.anchor)
        #expect(incremental.added.map(\.uuid) == [more.results[0].uuid])
        #expect(incremental.anchor == more.anchor)

        let future = try #require(
            await #expect(throws: StoreError.self) {
                try await store.anchoredQuery(steps, anchor: Anchor(99))
            })
        #expect(future.field == "anchor")
    }

    @Test("the predicate filters deletions too, and undecidable nodes report the deletion")
    func predicateFiltersDeletions() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let saved = try await store.save(
            [
                Fixtures.category(5, start: 0, end: 60, metadata: [MetadataKey.timeZone: .string("UTC")]),
                Fixtures.category(0, start: 0, end: 60),
            ], source: Fixtures.app)
        _ = try await store.delete(saved.results.map(\.uuid), requester: .owner)
        let rem = [QueryDescriptor(type: Fixtures.sleep, predicate: .categoryValues([5]))]
        #expect(try await store.anchoredQuery(rem, anchor: saved.anchor).deleted.map(\.uuid) == [saved.results[0].uuid])
        let notRem = [QueryDescriptor(type: Fixtures.sleep, predicate: .not(.categoryValues([5])))]
        #expect(
            try await store.anchoredQuery(notRem, anchor: saved.anchor).deleted.map(\.uuid) == [saved.results[1].uuid])
        // Metadata other than the sync keys is gone from tombstones: "may match", so reported.
        let zone = [
            QueryDescriptor(type: Fixtures.sleep, predicate: .metadata(key: MetadataKey.timeZone, test: .exists))
        ]
        #expect(try await store.anchoredQuery(zone, anchor: saved.anchor).deleted.count == 2)
        let notZone = [
            QueryDescriptor(
                type: Fixtures.sleep, predicate: .not(.metadata(key: MetadataKey.timeZone, test: .exists)))
        ]
        #expect(try await store.anchoredQuery(notZone, anchor: saved.anchor).deleted.count == 2)
    }

    @Test("an anchor below the horizon after a purge is expired; nil and later anchors still work")
    func expiredAnchor() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let steps = [QueryDescriptor(type: Fixtures.steps)]
        let saved = try await store.save([Fixtures.quantity(1), Fixtures.quantity(2)], source: Fixtures.app)
        let early = saved.anchor
        let deleted = try await store.delete([saved.results[0].uuid], requester: .owner)
        #expect(try await store.tombstoneHorizon() == .zero)

        let nothingYet = try await store.purgeTombstones(olderThan: Date().addingTimeInterval(-3600))
        #expect(nothingYet.purged == 0)
        #expect(nothingYet.horizon == .zero)

        let purge = try await store.purgeTombstones(olderThan: Date().addingTimeInterval(60))
        #expect(purge.purged == 1)
        #expect(purge.horizon == deleted.anchor)
        #expect(try await store.tombstoneHorizon() == deleted.anchor)

        let error = try #require(
            await #expect(throws: StoreError.self) { try await store.anchoredQuery(steps, anchor: early) })
        #expect(error.code == .anchorExpired)
        #expect(error.field == "anchor")
        #expect(error.value == "\(early)")

        let fresh = try await store.anchoredQuery(steps, anchor: nil)
        #expect(fresh.added.map(\.uuid) == [saved.results[1].uuid])
        #expect(fresh.deleted.isEmpty)
        #expect(try await store.anchoredQuery(steps, anchor: deleted.anchor).added.isEmpty)
        #expect(try await store.anchoredQuery(steps, anchor: .zero).added.count == 1)
    }

    @Test("retention: purgeExpiredTombstones keeps recent tombstones")
    func retention() async throws {
        let temporary = try await TemporaryStore.make(
            configuration: SampleStore.Configuration(tombstoneRetention: .seconds(3600)))
        let store = temporary.store
        let saved = try await store.save([Fixtures.quantity(1)], source: Fixtures.app)
        _ = try await store.delete(saved.results.map(\.uuid), requester: .owner)
        #expect(try await store.purgeExpiredTombstones().purged == 0)
        #expect(try await store.purgeExpiredTombstones(now: Date().addingTimeInterval(7200)).purged == 1)
    }

    @Test("commit events carry the changed types and the anchor; a subscription started before a commit sees it")
    func commitEvents() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let events = store.commits()
        let saved = try await store.save([Fixtures.quantity(1), Fixtures.category(2)], source: Fixtures.app)
        _ = try await store.save([Fixtures.synced("k", version: 1)], source: Fixtures.app)
        _ = try await store.save([Fixtures.synced("k", version: 1)], source: Fixtures.app)  // no change, no event
        var iterator = events.makeAsyncIterator()
        let event = try #require(await iterator.next())
        // The two commits coalesced: the later anchor, the union of the types.
        #expect(event.anchor == Anchor(3))
        #expect(event.changedTypes == [Fixtures.steps, Fixtures.sleep])
        #expect(saved.anchor == Anchor(2))
        _ = try await store.delete([saved.results[1].uuid], requester: .owner)
        let deletion = try #require(await iterator.next())
        #expect(deletion == CommitEvent(anchor: Anchor(4), changedTypes: [Fixtures.sleep]))
        await store.close()
        #expect(await iterator.next() == nil)
    }
}
