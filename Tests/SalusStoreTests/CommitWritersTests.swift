import Foundation
import SalusModel
import SalusStore
import Testing

/// The apps that wrote each type travel in the commit event, so a reader of the event needs no
/// other record of who wrote what.
@Suite("Commit event writers")
struct CommitWritersTests {
    @Test("a save names its source app, an app's deletion names the app, the owner's names none; coalesced events keep each type's writers")
    func writers() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let events = store.commits()
        let app = Fixtures.app.appID
        let other = Fixtures.otherApp.appID
        let mine = try await store.save([Fixtures.quantity(1)], source: Fixtures.app)
        let theirs = try await store.save([Fixtures.category(2)], source: Fixtures.otherApp)
        var iterator = events.makeAsyncIterator()

        // Coalesced: the union of the types, and each type keeps only its own writers.
        let saves = try #require(await iterator.next())
        #expect(saves.anchor == theirs.anchor)
        #expect(saves.writers == [Fixtures.steps: [app], Fixtures.sleep: [other]])
        #expect(saves.wrote(app, Fixtures.steps))
        #expect(!saves.wrote(app, Fixtures.sleep))

        _ = try await store.delete([mine.results[0].uuid], requester: .app(app))
        let deletion = try #require(await iterator.next())
        #expect(deletion.writers == [Fixtures.steps: [app]])

        _ = try await store.delete([theirs.results[0].uuid], requester: .owner)
        let ownerDeletion = try #require(await iterator.next())
        #expect(ownerDeletion.changedTypes == [Fixtures.sleep])
        #expect(ownerDeletion.writers.isEmpty)
        await store.close()
    }

    @Test("merging unions the writers type by type")
    func merged() {
        let earlier = CommitEvent(anchor: Anchor(1), changedTypes: [Fixtures.steps], writers: [Fixtures.steps: ["a"]])
        let later = CommitEvent(
            anchor: Anchor(2), changedTypes: [Fixtures.steps, Fixtures.sleep],
            writers: [Fixtures.steps: ["b"], Fixtures.sleep: ["c"]])
        let merged = earlier.merged(with: later)
        #expect(merged.anchor == Anchor(2))
        #expect(merged.changedTypes == [Fixtures.steps, Fixtures.sleep])
        #expect(merged.writers == [Fixtures.steps: ["a", "b"], Fixtures.sleep: ["c"]])
    }
}
