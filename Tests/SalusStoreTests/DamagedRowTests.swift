import Foundation
import SalusModel
import SalusProto
import SalusWire
import SwiftProtobuf
import Testing

@testable import SalusStore

/// A row damaged on disk (someone edited the file, a disk flipped bits) goes through every read
/// of a sample: the model path (a query, a read by UUID, an anchored read, the statistics' lean
/// read) and the wire path (query pages, anchored pages). Each read either gives the row back as
/// it is stored, or refuses with a store error that names the row (its id or UUID), the column
/// and what was expected. A damaged row fails the read it is in (docs/storage.md, "Damaged
/// rows"); it never traps, never serves bytes an app cannot decode, and the reads of rows
/// around it (another type's) go on.
@Suite("Damaged stored rows")
struct DamagedRowTests {
    /// One damage: SQL run on the file with `?1` the damaged row's id, and the column it names.
    struct Damage: CustomStringConvertible, Sendable {
        var name: String
        var sql: String
        var column: String
        /// Whether the read may instead answer the row: then `check` says it is as stored.
        var check: (@Sendable (Sample) -> Bool)?
        /// Whether the damage needs the schema's NOT NULL on `span_us` lifted.
        var nullableSpan = false
        /// Whether the row damaged is the one without sync keys (its blob copied unread).
        var withoutSyncKeys = false
        /// Whether statistics read what is damaged.
        var statistics = false

        var description: String { name }
    }

    static let identifier = "d4-record-1"

    /// Three steps: the second has a note and its sync keys, the third a note alone, so that its
    /// blob is copied as it is.
    static func saved() -> [Sample] {
        [
            Fixtures.quantity(1, start: 0),
            Fixtures.quantity(
                2, start: 60, end: 120,
                metadata: [
                    "note": .string("alpha"), MetadataKey.syncIdentifier: .string(identifier),
                    MetadataKey.syncVersion: .number(2),
                ]),
            Fixtures.quantity(3, start: 180, end: 240, metadata: ["note": .string("beta")]),
        ]
    }

    static func blob(_ hex: String) -> String { "UPDATE samples SET metadata = X'\(hex)' WHERE id = ?1" }

    static let blobs: [(String, String)] = [
        ("truncated after its tag", "62"),
        ("an entry's length past the blob's end", "62050A016E"),
        ("a length of ten varint bytes", "62FFFFFFFFFFFFFFFFFF01"),
        ("an unknown wire type", "67"),
        ("a key's length past the entry", "62040A096E6F"),
        ("not protobuf at all", "DEADBEEF00FF"),
        ("an entry whose key is not UTF-8", "62080A01FF12030A0161"),
        ("a string value that is not UTF-8", "62080A016E12030A01FF"),
        ("a field of the sample (its type) instead of map entries", "120B4F74686572205479706521"),
        ("a note, then an entry cut short", "62100A046E6F746512080A0673656372657462"),
        ("a quantity whose unit does not parse", "620B0A017112062A0412025E5E"),
    ]

    static var damages: [Damage] {
        var all: [Damage] = []
        for (name, hex) in blobs {
            for bare in [false, true] {
                all.append(
                    Damage(
                        name: "metadata: \(name)\(bare ? " (no sync keys)" : "")", sql: blob(hex), column: "metadata",
                        withoutSyncKeys: bare))
            }
        }
        let tenMegabytes = String(repeating: "x", count: 10_000_000)
        all += [
            Damage(
                name: "sync_identifier: a BLOB of UTF-8", sql: "UPDATE samples SET sync_identifier = CAST('blob-id' AS BLOB) WHERE id = ?1",
                column: "sync_identifier", check: { $0.metadata[MetadataKey.syncIdentifier] == .string("blob-id") }),
            Damage(
                name: "sync_identifier: an INTEGER (kept as text by the column's affinity)",
                sql: "UPDATE samples SET sync_identifier = 42 WHERE id = ?1", column: "sync_identifier",
                check: { $0.metadata[MetadataKey.syncIdentifier] == .string("42") }),
            Damage(
                name: "sync_identifier: 10 MB", sql: "UPDATE samples SET sync_identifier = replace(hex(zeroblob(5000000)), '0', 'x') WHERE id = ?1",
                column: "sync_identifier", check: { $0.metadata[MetadataKey.syncIdentifier] == .string(tenMegabytes) }),
            Damage(
                name: "sync_identifier: not UTF-8", sql: "UPDATE samples SET sync_identifier = X'6964FF00FE' WHERE id = ?1",
                column: "sync_identifier"),
            Damage(
                name: "sync_version: TEXT", sql: "UPDATE samples SET sync_version = 'three' WHERE id = ?1", column: "sync_version"),
            Damage(
                name: "sync_version: a BLOB", sql: "UPDATE samples SET sync_version = X'0102' WHERE id = ?1", column: "sync_version"),
            Damage(
                name: "sync_version: NaN (SQLite keeps it as NULL)", sql: "UPDATE samples SET sync_version = ?2 WHERE id = ?1",
                column: "sync_version", check: { $0.metadata[MetadataKey.syncVersion] == nil }),
            Damage(
                name: "span_us: NULL", sql: "UPDATE samples SET span_us = NULL WHERE id = ?1", column: "span_us",
                nullableSpan: true, statistics: true),
            Damage(
                name: "span_us: negative (the end before the start)", sql: "UPDATE samples SET span_us = -60000000 WHERE id = ?1",
                column: "span_us", statistics: true),
            Damage(
                name: "span_us: TEXT", sql: "UPDATE samples SET span_us = 'sixty' WHERE id = ?1", column: "span_us",
                statistics: true),
            Damage(
                name: "span_us: an end as text before the start", sql: "UPDATE samples SET span_us = '5' WHERE id = ?1",
                column: "span_us", statistics: true),
            Damage(
                name: "span_us: start + span past int64", sql: "UPDATE samples SET span_us = 9223372036854775807 WHERE id = ?1",
                column: "span_us", statistics: true),
            Damage(
                name: "span_us: a REAL", sql: "UPDATE samples SET span_us = 60000000.5 WHERE id = ?1", column: "span_us",
                statistics: true),
            Damage(
                name: "unit: text that does not parse", sql: "UPDATE samples SET unit = 'furlong^^', value_in_unit = 2 WHERE id = ?1",
                column: "unit"),
            Damage(name: "kind: a code no kind has", sql: "UPDATE samples SET kind = 99 WHERE id = ?1", column: "kind"),
        ]
        return all
    }

    /// What each read made of the store: the samples or the error.
    struct Reads {
        var query: Result<[Sample], any Error>
        var byUUID: Result<Sample?, any Error>
        var anchored: Result<[Sample], any Error>
        var wirePages: Result<[UInt8], any Error>
        var anchoredWire: Result<[UInt8], any Error>
        var statistics: Result<[QuantityRow], any Error>
    }

    static func capture<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    static func read(_ store: SampleStore, uuid: UUID) async -> Reads {
        let query = SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate)])
        return Reads(
            query: await capture { try await store.samples(query, pageSize: 2).collect() },
            byUUID: await capture { try await store.sample(uuid: uuid) },
            anchored: await capture { try await store.anchoredQuery([QueryDescriptor(type: Fixtures.steps)], anchor: nil).added },
            wirePages: await capture {
                var bytes: [UInt8] = []
                for try await page in try store.samples(query, pageSize: 2).wire(WireEncodingTests.encoder) {
                    bytes += page.bytes.readableBytesView
                }
                return bytes
            },
            anchoredWire: await capture {
                var page = try await store.anchoredWire(
                    [QueryDescriptor(type: Fixtures.steps)], anchor: nil, encoder: WireEncodingTests.encoder)
                return Array(page.batch(initialResultsComplete: true, moreChanges: false).readableBytesView)
            },
            statistics: await capture {
                try await store.reduceQuantities(type: Fixtures.steps, matching: nil, into: [QuantityRow]()) { rows, row, _ in
                    rows.append(row)
                }
            })
    }

    /// Whether `error` is a store error naming the row (`id` or `uuid`), `column` and what was
    /// expected.
    static func names(_ error: any Error, id: Int64, uuid: UUID, column: String) -> Bool {
        guard let error = error as? StoreError else { return false }
        let text = error.message
        // The message reaches the app: it holds no stored text (the note beside the fault).
        return (text.contains("row \(id)") || text.contains(uuid.uuidString)) && text.contains(column)
            && text.contains("expected") && !text.contains("secret")
    }

    @Test("the UTF-8 test of stored text: a byte past ASCII at any place of a word or the tail is validated")
    func utf8() {
        for length in [0, 1, 7, 8, 9, 16, 100] {
            let ascii = [UInt8](repeating: 0x61, count: length)
            #expect(ascii.withUnsafeBytes(StoredRowChecks.isUTF8), "\(length)")
            for place in 0..<length {
                var bad = ascii
                bad[place] = 0xFF
                #expect(!bad.withUnsafeBytes(StoredRowChecks.isUTF8), "\(length) \(place)")
                var good = ascii
                good.replaceSubrange(place..<place + 1, with: Array("ø".utf8))
                #expect(good.withUnsafeBytes(StoredRowChecks.isUTF8), "\(length) \(place)")
            }
        }
    }

    @Test("a damaged row is answered as stored or refused naming the row, the column and what was expected, on every read", arguments: damages)
    func damagedRow(_ damage: Damage) async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let uuids = try await store.save(Self.saved(), source: Fixtures.app).results.map(\.uuid)
        // Another type's sample, read after the damage as before.
        let other = try await store.save([Fixtures.quantity(Fixtures.heartRate, 60, "count/min")], source: Fixtures.app)
            .results[0].uuid
        let target = damage.withoutSyncKeys ? 2 : 1
        let database = try Database(path: temporary.path, create: false)
        let id = try #require(
            try database.scalarInt("SELECT id FROM samples WHERE uuid = ?", [.uuid(uuids[target])]))
        if damage.nullableSpan {
            try database.execute(
                "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'span_us NOT NULL', 'span_us') "
                    + "WHERE name = 'samples'; PRAGMA writable_schema = OFF;")
            database.close()
        }
        let damaging = damage.nullableSpan ? try Database(path: temporary.path, create: false) : database
        try damaging.execute("PRAGMA ignore_check_constraints = ON")
        try damaging.run(damage.sql, damage.sql.contains("?2") ? [.integer(id), .real(.nan)] : [.integer(id)])
        damaging.close()

        let reads = await Self.read(store, uuid: uuids[target])
        let uuid = uuids[target]
        func expectRefusedOrFaithful(_ name: String, _ result: Result<[Sample], any Error>) {
            switch result {
            case .success(let samples):
                guard let check = damage.check else {
                    Issue.record("\(name): answered \(samples.count) samples, expected a refusal naming row \(id) and \(damage.column)")
                    return
                }
                #expect(samples.count == 3, "\(name)")
                #expect(samples.first { $0.uuid == uuid }.map(check) == true, "\(name): the row as stored")
            case .failure(let error):
                #expect(Self.names(error, id: id, uuid: uuid, column: damage.column), "\(name): \(error)")
            }
        }
        expectRefusedOrFaithful("query", reads.query)
        expectRefusedOrFaithful("by UUID", reads.byUUID.map { $0.map { [$0, $0, $0] } ?? [] })
        expectRefusedOrFaithful("anchored", reads.anchored)
        // The wire path: what it serves, an app decodes, as the model path's samples.
        let model = try? reads.query.get()
        for (name, result, anchored) in [("wire pages", reads.wirePages, false), ("anchored wire", reads.anchoredWire, true)] {
            switch result {
            case .success(let bytes):
                let decoded: [Salus_V1_Sample]
                do {
                    decoded = anchored ? try Salus_V1_AnchoredBatch(serializedBytes: bytes).added : try Salus_V1_SampleBatch(serializedBytes: bytes).samples
                } catch {
                    Issue.record("\(name): served \(bytes.count) bytes an app cannot decode (\(error))")
                    continue
                }
                guard let model, damage.check != nil else {
                    Issue.record("\(name): served the row, expected a refusal naming row \(id) and \(damage.column)")
                    continue
                }
                #expect(decoded == model.map(\.wire), "\(name): the model path's samples")
            case .failure(let error):
                #expect(Self.names(error, id: id, uuid: uuid, column: damage.column), "\(name): \(error)")
            }
        }
        if damage.statistics {
            switch reads.statistics {
            case .success(let rows):
                Issue.record("statistics: answered \(rows.map { "\($0.startMicroseconds)...\($0.endMicroseconds)" })")
            case .failure(let error):
                #expect(Self.names(error, id: id, uuid: uuid, column: damage.column), "statistics: \(error)")
            }
        }
        // The store serves on: another type's sample is read on both paths.
        #expect(try await store.sample(uuid: other)?.uuid == other)
        #expect(try await store.all(Fixtures.heartRate).map(\.uuid) == [other])
    }
}

extension DamagedRowTests {
    @Test("a deleted object's damaged sync keys (an identifier not UTF-8, a version of text) are refused naming the tombstone on both anchored paths", arguments: [
        ("sync_identifier", "UPDATE tombstones SET sync_identifier = X'6964FF'"),
        ("sync_version", "UPDATE tombstones SET sync_version = 'three'"),
    ])
    func damagedTombstone(_ column: String, _ sql: String) async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let uuids = try await store.save(Self.saved(), source: Fixtures.app).results.map(\.uuid)
        _ = try await store.delete([uuids[1]], requester: .owner)
        let database = try Database(path: temporary.path, create: false)
        try database.execute(sql)
        database.close()
        func refused(_ error: any Error) -> Bool {
            guard let error = error as? StoreError else { return false }
            return error.message.contains("tombstone") && error.message.contains(column) && error.message.contains("expected")
        }
        do {
            let result = try await store.anchoredQuery([QueryDescriptor(type: Fixtures.steps)], anchor: nil)
            Issue.record("anchored: answered \(result.deleted.map(\.metadata))")
        } catch {
            #expect(refused(error), "anchored: \(error)")
        }
        do {
            var page = try await store.anchoredWire([QueryDescriptor(type: Fixtures.steps)], anchor: nil, encoder: WireEncodingTests.encoder)
            let bytes = Array(page.batch(initialResultsComplete: true, moreChanges: false).readableBytesView)
            let decoded = try? Salus_V1_AnchoredBatch(serializedBytes: bytes)
            Issue.record("anchored wire: served \(bytes.count) bytes, \(decoded == nil ? "which an app cannot decode" : "decoded")")
        } catch {
            #expect(refused(error), "anchored wire: \(error)")
        }
    }
}
