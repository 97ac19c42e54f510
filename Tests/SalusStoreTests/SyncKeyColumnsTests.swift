import Foundation
import SalusModel
import SalusProto
import SalusStore
import SalusWire
import NIOCore
import SwiftProtobuf
import Testing

/// A row keeps its sync identifier and version in its own columns only, not again in its
/// metadata blob (`MetadataBlob.encodeRow`); every read puts them back, and rows saved before,
/// whose blob has them, read them once.
@Suite("Sync keys kept in their columns")
struct SyncKeyColumnsTests {
    /// Keys on both sides of the sync keys in UTF-8 order, so the wire path must put them back
    /// between the stored entries.
    static let saved: [[String: MetadataValue]] = [
        [
            MetadataKey.syncIdentifier: .string(String(repeating: "A1B2C3D4-", count: 10) + "record"),
            MetadataKey.syncVersion: .number(3),
            "HKMetadataKeyHeartRateMotionContext": .number(1),
            "HKMetadataKeySyncOther": .string("between the two sync keys"),
            MetadataKey.timeZone: .string("Europe/Paris"),
        ],
        [MetadataKey.syncIdentifier: .string("only the sync keys"), MetadataKey.syncVersion: .number(1.5)],
        // −0 would read back +0 from the REAL column: it stays in the blob.
        [MetadataKey.syncIdentifier: .string("negative zero"), MetadataKey.syncVersion: .number(-0.0)],
        ["org.example.note": .string("no sync keys")],
        [:],
    ]

    static func samples() -> [Sample] {
        saved.enumerated().map { index, metadata in Fixtures.quantity(Double(index), start: Double(index * 60), metadata: metadata) }
    }

    /// The stored `metadata` blobs of the steps, in row order.
    static func storedBlobs(_ path: String) throws -> [[UInt8]?] {
        let database = try Database(path: path, create: false, readOnly: true)
        defer { database.close() }
        let statement = try database.prepare("SELECT metadata FROM samples ORDER BY id", cached: false)
        var blobs: [[UInt8]?] = []
        while try statement.step() { blobs.append(statement.blob(0)) }
        statement.reset()
        return blobs
    }

    /// Rewrites the steps' blobs as rows were written before schema 17: the whole map, sync keys
    /// included.
    static func writeBlobsAsBefore(_ path: String) throws {
        let database = try Database(path: path, create: false)
        defer { database.close() }
        let ids = try database.prepare("SELECT id FROM samples ORDER BY id", cached: false)
        var rows: [Int64] = []
        while try ids.step() { rows.append(ids.int64(0)) }
        ids.reset()
        for (id, metadata) in zip(rows, saved) {
            try database.run(
                "UPDATE samples SET metadata = ? WHERE id = ?", [MetadataBlob.encode(metadata).map { .blob($0) } ?? .null, .integer(id)])
        }
    }

    /// Expects every read of the store to give each sample exactly the metadata it was saved with.
    static func expectReadsAsSaved(_ store: SampleStore, uuids: [UUID]) async throws {
        let query = SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate)])
        let model = try await store.samples(query).collect()
        #expect(model.map(\.metadata) == saved, "the model path")
        // −0 is equal to +0: its sign is checked apart.
        #expect(model[2].metadata[MetadataKey.syncVersion]?.numberValue?.sign == .minus)
        for (uuid, metadata) in zip(uuids, saved) {
            #expect(try await store.sample(uuid: uuid)?.metadata == metadata, "a read by UUID")
        }
        let anchored = try await store.anchoredQuery([QueryDescriptor(type: Fixtures.steps)], anchor: nil)
        #expect(anchored.added.map(\.metadata) == saved, "an anchored read")
        // The wire path: byte for byte what SwiftProtobuf writes for the model's samples, every
        // map entry once and in key order.
        try await WireEncodingTests.expectPages(of: query, in: store, sizes: [1, 5], equal: model)
        let wire = try await store.anchoredWire(
            [QueryDescriptor(type: Fixtures.steps)], anchor: nil, encoder: WireEncodingTests.encoder)
        var batch = Salus_V1_AnchoredBatch()
        batch.added = anchored.added.map(\.wire)
        batch.anchor = anchored.anchor.rawValue
        batch.initialResultsComplete = true
        var page = wire
        let lean = Array(page.batch(initialResultsComplete: true, moreChanges: false).readableBytesView)
        let same = lean == (try batch.serializedBytes(options: WireEncodingTests.deterministic()))
        #expect(same, "an anchored wire read")
        let decoded = try Salus_V1_AnchoredBatch(serializedBytes: lean)
        #expect(decoded.added.map(\.metadata.count) == saved.map(\.count))
        // Predicates on the sync keys (their columns) and on a key beside them (the blob).
        #expect(
            try await store.all(Fixtures.steps, .metadata(key: MetadataKey.syncIdentifier, equalTo: .string("negative zero")))
                .map(\.uuid) == [uuids[2]])
        #expect(
            try await store.all(Fixtures.steps, .metadata(key: MetadataKey.syncVersion, .comparison(.greaterThan, .number(1))))
                .map(\.uuid) == [uuids[0], uuids[1]])
        #expect(
            try await store.all(Fixtures.steps, .metadata(key: "HKMetadataKeySyncOther", test: .exists)).map(\.uuid) == [uuids[0]])
    }

    @Test("a saved row's metadata blob holds no sync key its columns hold; the sync columns hold them")
    func storedWithoutSyncKeys() async throws {
        let temporary = try await TemporaryStore.make()
        _ = try await temporary.store.save(Self.samples(), source: Fixtures.app)
        let blobs = try Self.storedBlobs(temporary.path)
        #expect(blobs.count == Self.saved.count)
        let keys = try blobs.map { try $0.map { try MetadataBlob.decode($0).keys.sorted() } }
        #expect(keys[0] == ["HKMetadataKeyHeartRateMotionContext", "HKMetadataKeySyncOther", MetadataKey.timeZone])
        #expect(keys[1] == nil, "only the sync keys: no blob")
        #expect(keys[2] == [MetadataKey.syncVersion], "a version of −0 stays in the blob")
        #expect(keys[3] == ["org.example.note"])
        #expect(keys[4] == nil)
        let database = try Database(path: temporary.path, create: false, readOnly: true)
        defer { database.close() }
        #expect(try database.scalarInt("SELECT count(*) FROM samples WHERE sync_identifier IS NOT NULL AND sync_version IS NOT NULL") == 3)
    }

    @Test("every read gives the sync keys back: model, by UUID, anchored, wire pages, anchored wire, predicates")
    func readsPutThemBack() async throws {
        let temporary = try await TemporaryStore.make()
        let uuids = try await temporary.store.save(Self.samples(), source: Fixtures.app).results.map(\.uuid)
        try await Self.expectReadsAsSaved(temporary.store, uuids: uuids)
        // The replacement rule reads the columns: a higher version replaces, and the new row
        // reads its own keys.
        let replacement = Fixtures.quantity(
            9, start: 0,
            metadata: [MetadataKey.syncIdentifier: .string("only the sync keys"), MetadataKey.syncVersion: .number(2)])
        let response = try await temporary.store.save([replacement], source: Fixtures.app)
        #expect(response.results.first?.outcome == .replaced(uuids[1]))
        #expect(try await temporary.store.sample(uuid: response.results[0].uuid)?.metadata == replacement.metadata)
    }

    @Test("an identifier with a NUL and letters past ASCII reads back whole from its column, on every path")
    func identifierBytes() async throws {
        let temporary = try await TemporaryStore.make()
        let identifier = "før\u{0}after – 心"
        let sample = Fixtures.synced(identifier, version: 7)
        let uuid = try #require(try await temporary.store.save([sample], source: Fixtures.app).results.first?.uuid)
        #expect(try Self.storedBlobs(temporary.path) == [nil])
        let query = SampleQuery(type: Fixtures.steps)
        let model = try await temporary.store.samples(query).collect()
        #expect(model.map(\.metadata) == [sample.metadata])
        try await WireEncodingTests.expectPages(of: query, in: temporary.store, sizes: [1], equal: model)
        _ = try await temporary.store.delete([uuid], requester: .owner)
        let deleted = try await temporary.store.anchoredQuery([QueryDescriptor(type: Fixtures.steps)], anchor: nil).deleted
        #expect(deleted.map(\.metadata) == [sample.metadata], "the deleted object keeps both keys")
    }

    @Test("rows saved with the sync keys in their blob read each key once, on every path")
    func oldRowsReadOnce() async throws {
        let temporary = try await TemporaryStore.make()
        let uuids = try await temporary.store.save(Self.samples(), source: Fixtures.app).results.map(\.uuid)
        try Self.writeBlobsAsBefore(temporary.path)
        let blobs = try Self.storedBlobs(temporary.path)
        #expect(try blobs[0].map { try MetadataBlob.decode($0).count } == 5)
        try await Self.expectReadsAsSaved(temporary.store, uuids: uuids)
    }

    /// Schema 17 is the version from which a row may leave its sync keys out of its blob: a build
    /// that knows only 16 would read such rows without them, so it must refuse the store (as any
    /// store of a newer schema). A store of schema 16 opens at 17 with nothing rewritten.
    @Test("a store of schema 16, its blobs holding the sync keys, opens at 17 unchanged and reads each key once")
    func schemaSeventeen() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("salus.sqlite").path
        var store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        let uuids = try await store.save(Self.samples(), source: Fixtures.app).results.map(\.uuid)
        await store.close()
        // As schema 16 wrote them: the whole map in the blob, and version 16.
        try Self.writeBlobsAsBefore(path)
        let database = try Database(path: path, create: false)
        #expect(try database.scalarText("PRAGMA user_version") == "\(Schema.currentVersion)")
        try database.execute("PRAGMA user_version = 16")
        database.close()
        let before = try Self.storedBlobs(path)

        store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        let reopened = try Database(path: path, create: false, readOnly: true)
        #expect(try reopened.scalarText("PRAGMA user_version") == "\(Schema.currentVersion)")
        reopened.close()
        #expect(try Self.storedBlobs(path) == before, "the migration rewrites no row")
        try await Self.expectReadsAsSaved(store, uuids: uuids)
        await store.close()
    }
}
