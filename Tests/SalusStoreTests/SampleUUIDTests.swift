import Foundation
import SalusModel
import Testing

@testable import SalusStore

/// Schema 16 finds a sample by its UUID through the row id an assigned UUID carries, or through
/// the partial UUID index for any other (`SampleUUIDs`): every sample must be found whichever way
/// its UUID was made.
@Suite("Sample UUIDs")
struct SampleUUIDTests {
    /// A UUID with `row` in its last six bytes, as an assigned one carries it.
    static func carrying(_ row: Int64) -> UUID {
        var bytes = UUID().uuid
        withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 0..<6 { raw[10 + index] = UInt8(truncatingIfNeeded: row >> (8 * (5 - index))) }
        }
        return UUID(uuid: bytes)
    }

    @Test("a store of schema 17 opens at 18 with the rows whose UUID carries no row id marked and indexed, and every sample still found by UUID")
    func migrationEighteen() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let assigned = try await store.save([Fixtures.quantity(1, start: 0), Fixtures.quantity(2, start: 60)], source: Fixtures.app)
            .results.map(\.uuid)
        var kept = Fixtures.quantity(3, start: 120)
        kept.uuid = UUID()
        _ = try await store.save([kept], source: Fixtures.app, options: SaveOptions(uuidPolicy: .keep))
        await store.close()
        // As schema 17 left it: no mark, the index on the UUID's hex.
        var database = try Database(path: temporary.path, create: false)
        try database.execute(
            "DROP INDEX samples_uuid; ALTER TABLE samples DROP COLUMN uuid_own; \(SampleUUIDs.indexSixteen) PRAGMA user_version = 17;")
        database.close()

        let reopened = try await SampleStore.open(path: temporary.path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        database = try Database(path: temporary.path, create: false, readOnly: true)
        #expect(try database.scalarText("PRAGMA user_version") == "\(Schema.currentVersion)")
        #expect(try database.scalarInt("SELECT count(*) FROM samples WHERE \(SampleUUIDs.indexed)") == 1)
        #expect(try database.scalarInt(
            "SELECT count(*) FROM samples INDEXED BY samples_uuid WHERE substr(uuid, 1, 8) IS NOT NULL AND \(SampleUUIDs.indexed)") == 1)
        #expect(try database.scalarText("SELECT sql FROM sqlite_master WHERE name = 'samples_uuid'")?.contains("uuid_own") == true)
        database.close()
        for uuid in assigned + [kept.uuid] {
            #expect(try await reopened.sample(uuid: uuid)?.uuid == uuid)
        }
        #expect(try await reopened.integrityCheck() == "ok")
        await reopened.close()
    }

    @Test("assigned, kept and replica UUIDs are all found, queried and deleted by UUID; only those not carrying their row are indexed")
    func everyUUIDFound() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let assigned = try await store.save(
            [Fixtures.quantity(1, start: 0), Fixtures.quantity(2, start: 60), Fixtures.quantity(3, start: 120)],
            source: Fixtures.app
        ).results.map(\.uuid)
        // A kept UUID of no particular shape, and one whose last bytes are the row id it gets.
        var random = Fixtures.quantity(4, start: 180)
        random.uuid = UUID()
        let next = Int64(try await store.currentAnchor().rawValue) + 2
        var shaped = Fixtures.quantity(5, start: 240)
        shaped.uuid = Self.carrying(next)
        _ = try await store.save([random, shaped], source: Fixtures.app, options: SaveOptions(uuidPolicy: .keep))
        var replica = Fixtures.quantity(6, start: 300)
        replica.uuid = UUID()
        replica.sourceRevision = Fixtures.otherApp
        _ = try await store.saveReplicas([replica])
        let all = assigned + [random.uuid, shaped.uuid, replica.uuid]

        let database = try Database(path: store.path, create: false, readOnly: true)
        defer { database.close() }
        // An assigned UUID carries its row id; the index holds the two that carry none.
        for uuid in assigned {
            let row = try database.scalarInt("SELECT id FROM samples WHERE uuid = ?", [.uuid(uuid)])
            #expect(withUnsafeBytes(of: uuid.uuid) { SampleUUIDs.row($0) } == row)
        }
        #expect(try database.scalarInt("SELECT count(*) FROM samples WHERE \(SampleUUIDs.indexed)") == 2)
        #expect(try database.scalarInt("SELECT count(*) FROM samples INDEXED BY samples_uuid WHERE substr(uuid, 1, 8) IS NOT NULL AND \(SampleUUIDs.indexed)") == 2)
        // The writer's mark (schema 18) is the UUID's own test, row by row: the shaped kept UUID
        // carries its row and is not marked.
        #expect(try database.scalarInt(
            "SELECT count(*) FROM samples WHERE (\(SampleUUIDs.indexed)) <> (\(SampleUUIDs.indexedSixteen))") == 0)

        for (index, uuid) in all.enumerated() {
            let sample = try await store.sample(uuid: uuid)
            #expect(sample?.uuid == uuid && sample.map { $0.value == .quantity(Quantity(value: Double(index + 1), unit: .count)) } == true, "\(index)")
            #expect(try await store.types(of: [uuid]) == [Fixtures.steps], "\(index)")
            #expect(try await store.all(Fixtures.steps, .uuids([uuid])).map(\.uuid) == [uuid], "\(index)")
        }
        #expect(Set(try await store.all(Fixtures.steps, .uuids(Set(all))).map(\.uuid)) == Set(all))
        // A UUID one byte off is no sample's.
        for uuid in [assigned[0], random.uuid] {
            var bytes = uuid.uuid
            bytes.3 ^= 1
            #expect(try await store.sample(uuid: UUID(uuid: bytes)) == nil)
        }
        // A kept UUID already assigned is refused.
        var again = Fixtures.quantity(7, start: 360)
        again.uuid = assigned[1]
        await #expect(throws: StoreError.self) {
            _ = try await store.save([again], source: Fixtures.app, options: SaveOptions(uuidPolicy: .keep))
        }
        // The lookup seeks: by row id or in the index, never a scan of the table.
        let plan = try database.prepare(
            "EXPLAIN QUERY PLAN SELECT id FROM samples s WHERE \(SampleUUIDs.match("s", "?1"))", cached: false)
        try plan.bind([.uuid(random.uuid)])
        var steps: [String] = []
        while try plan.step() { steps.append(plan.text(3) ?? "") }
        #expect(steps.contains { $0.contains("INTEGER PRIMARY KEY") } && steps.contains { $0.contains("samples_uuid") })
        #expect(!steps.contains { $0.hasPrefix("SCAN") }, "\(steps)")

        let deleted = try await store.delete(all, requester: .owner)
        #expect(deleted.deleted == all.count)
        for uuid in all { #expect(try await store.sample(uuid: uuid) == nil) }
    }
}
