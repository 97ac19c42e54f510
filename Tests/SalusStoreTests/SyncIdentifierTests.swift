import Foundation
import SalusModel
import SalusStore
import Testing

@Suite("Sync identifier and version")
struct SyncIdentifierTests {
    @Test("first save, replay, higher version, lower version")
    func lifecycle() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let descriptor = [QueryDescriptor(type: Fixtures.steps)]

        let first = try await store.save([Fixtures.synced("run-1", version: 1, value: 10)], source: Fixtures.app)
        #expect(first.results[0].outcome == .saved)
        let original = first.results[0].uuid
        let beforeReplace = first.anchor

        let replay = try await store.save([Fixtures.synced("run-1", version: 1, value: 99)], source: Fixtures.app)
        #expect(replay.results == [SaveResult(uuid: original, outcome: .keptExisting)])
        #expect(replay.anchor == first.anchor)
        #expect(try await store.all(Fixtures.steps).map(\.value) == [Fixtures.quantity(10).value])

        let higher = try await store.save([Fixtures.synced("run-1", version: 2, value: 20)], source: Fixtures.app)
        #expect(higher.results[0].outcome == .replaced(original))
        let replacement = higher.results[0].uuid
        #expect(replacement != original)
        #expect(higher.anchor == Anchor(beforeReplace.rawValue + 2))
        let live = try await store.all(Fixtures.steps)
        #expect(live.map(\.uuid) == [replacement])
        #expect(live[0].syncVersion == 2)

        let changes = try await store.anchoredQuery(descriptor, anchor: beforeReplace)
        #expect(changes.added.map(\.uuid) == [replacement])
        #expect(
            changes.deleted == [
                DeletedObject(
                    uuid: original, type: Fixtures.steps,
                    metadata: [MetadataKey.syncIdentifier: .string("run-1"), MetadataKey.syncVersion: .number(1)])
            ])
        #expect(changes.anchor == higher.anchor)

        let lower = try await store.save([Fixtures.synced("run-1", version: 1.5, value: 15)], source: Fixtures.app)
        #expect(lower.results == [SaveResult(uuid: replacement, outcome: .keptExisting)])
        #expect(try await store.all(Fixtures.steps).map(\.uuid) == [replacement])
    }

    @Test("identifiers are scoped per app and per type")
    func scope() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let mine = try await store.save([Fixtures.synced("x", version: 1)], source: Fixtures.app)
        let theirs = try await store.save([Fixtures.synced("x", version: 1)], source: Fixtures.otherApp)
        #expect(theirs.results[0].outcome == .saved)
        let otherType = Fixtures.quantity(
            Fixtures.distance, 5, "m",
            metadata: [MetadataKey.syncIdentifier: .string("x"), MetadataKey.syncVersion: .number(1)])
        let distance = try await store.save([otherType], source: Fixtures.app)
        #expect(distance.results[0].outcome == .saved)
        #expect(try await store.count(Fixtures.steps) == 2)
        #expect(mine.results[0].uuid != theirs.results[0].uuid)
        // A new version of the same app replaces across app versions: the scope is the app id.
        var newer = Fixtures.app
        newer.version = "1.1"
        let upgraded = try await store.save([Fixtures.synced("x", version: 2)], source: newer)
        #expect(upgraded.results[0].outcome == .replaced(mine.results[0].uuid))
    }

    @Test("within one batch, later samples see earlier ones")
    func withinBatch() async throws {
        let temporary = try await TemporaryStore.make()
        let response = try await temporary.store.save(
            [
                Fixtures.synced("a", version: 1), Fixtures.synced("a", version: 1),
                Fixtures.synced("a", version: 3), Fixtures.synced("a", version: 2),
            ], source: Fixtures.app)
        let first = response.results[0].uuid
        let third = response.results[2].uuid
        #expect(
            response.results.map(\.outcome) == [.saved, .keptExisting, .replaced(first), .keptExisting])
        #expect(response.results[3].uuid == third)
        #expect(try await temporary.store.all(Fixtures.steps).map(\.uuid) == [third])
    }
}

@Suite("Delete")
struct DeleteTests {
    @Test("an app deletes its own samples by UUID; each deletion is a tombstone at a new position")
    func deleteOwn() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let saved = try await store.save([Fixtures.quantity(1), Fixtures.quantity(2)], source: Fixtures.app)
        let uuids = saved.results.map(\.uuid)
        let response = try await store.delete(uuids + [uuids[0]], requester: .app(Fixtures.app.appID))
        #expect(response.deleted == 2)
        #expect(response.anchor == Anchor(4))
        #expect(try await store.count(Fixtures.steps) == 0)
        let changes = try await store.anchoredQuery([QueryDescriptor(type: Fixtures.steps)], anchor: saved.anchor)
        #expect(changes.deleted.map(\.uuid) == uuids)
        #expect(changes.added.isEmpty)
    }

    @Test("deleting another app's sample is refused, naming the UUID, and nothing is deleted")
    func deleteOthers() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let mine = try await store.save([Fixtures.quantity(1)], source: Fixtures.app).results[0].uuid
        let theirs = try await store.save([Fixtures.quantity(2)], source: Fixtures.otherApp).results[0].uuid
        let error = try #require(
            await #expect(throws: StoreError.self) {
                try await store.delete([mine, theirs], requester: .app(Fixtures.app.appID))
            })
        #expect(error.code == .notOwner)
        #expect(error.field == "uuids[1]")
        #expect(error.value == theirs.uuidString)
        #expect(try await store.count(Fixtures.steps) == 2)
        #expect(try await store.currentAnchor() == Anchor(2))

        let missing = UUID()
        let notFound = try #require(
            await #expect(throws: StoreError.self) {
                try await store.delete([mine, missing], requester: .app(Fixtures.app.appID))
            })
        #expect(notFound.code == .notFound)
        #expect(notFound.field == "uuids[1]")
        #expect(try await store.count(Fixtures.steps) == 2)

        await #expect(throws: StoreError.self) { try await store.delete([], requester: .owner) }

        // The owner may delete anything.
        #expect(try await store.delete([theirs], requester: .owner).deleted == 1)
    }

    @Test("deleting by type and predicate counts only the caller's matching samples")
    func deleteMatching() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save((0..<10).map { Fixtures.quantity(Double($0), start: Double($0)) }, source: Fixtures.app)
        _ = try await store.save((0..<10).map { Fixtures.quantity(Double($0), start: Double($0)) }, source: Fixtures.otherApp)
        let predicate = SamplePredicate.quantity(.greaterThanOrEqual, Quantity(value: 5, unit: .count))
        let response = try await store.delete(
            type: Fixtures.steps, matching: predicate, requester: .app(Fixtures.app.appID))
        #expect(response.deleted == 5)
        #expect(try await store.count(Fixtures.steps) == 15)
        #expect(try await store.count(Fixtures.steps, .sources([Fixtures.app.appID])) == 5)
        let all = try await store.delete(type: Fixtures.steps, matching: nil, requester: .owner)
        #expect(all.deleted == 15)
        #expect(all.anchor == Anchor(40))
        #expect(try await store.delete(type: Fixtures.sleep, matching: nil, requester: .owner).deleted == 0)
    }
}
