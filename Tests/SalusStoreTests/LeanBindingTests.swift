import Foundation
import SalusModel
import SalusStore
import Testing

/// The batch insert binds only the columns a row fills and relies on each statement's
/// parameters being NULL before it runs: a row with nothing in a column must store NULL there,
/// whatever the row that used the same statement slot before it held.
@Suite("Rows inserted binding only what they hold")
struct LeanBindingTests {
    /// A heart rate filling every column a quantity can (its own unit, count/s rather than the
    /// type's count/min; metadata beside a sync identifier and version; a device), or for an odd
    /// `index` a sleep category with metadata.
    static func full(_ index: Int) -> Sample {
        let metadata: [String: MetadataValue] = [
            "org.example.note": .string("n\(index)"), MetadataKey.syncIdentifier: .string("id-\(index)"),
            MetadataKey.syncVersion: .number(1),
        ]
        if index % 2 == 1 {
            return Fixtures.category(Fixtures.sleep, 1 + index % 3, start: Double(index) * 60, end: Double(index) * 60 + 30, metadata: metadata)
        }
        return Fixtures.quantity(
            Fixtures.heartRate, 1 + Double(index % 50) / 100, "count/s", start: Double(index) * 60, metadata: metadata,
            device: Device(name: "Strap \(index % 3)", manufacturer: "Acme"))
    }

    /// A step count filling none of them.
    static func lean(_ index: Int) -> Sample {
        Fixtures.quantity(Double(index), start: Double(index) * 60)
    }

    @Test("in one save, rows that fill no optional column follow rows that fill them all in the same statements (256 rows twice, then 64, 16, 4 and 1 twice each), and store NULL in every one; all read back as saved")
    func nothingCarriedOver() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        // Groups of full then lean rows, sized so that each statement runs once with each.
        var batch: [Sample] = []
        var next = 0
        for size in [256, 64, 16, 4, 1] {
            batch += (next..<next + size).map(Self.full)
            batch += (next + size..<next + 2 * size).map(Self.lean)
            next += 2 * size
        }
        let saved = try await store.save(batch, source: Fixtures.app).results.map(\.uuid)
        #expect(saved.count == batch.count)

        let database = try Database(path: store.path, create: false, readOnly: true)
        defer { database.close() }
        let stepsID = try #require(try database.scalarInt("SELECT id FROM types WHERE identifier = ?", [.text(Fixtures.steps.rawValue)]))
        #expect(try database.scalarInt("SELECT count(*) FROM samples WHERE type_id = ?", [.integer(stepsID)]) == 341)
        for column in [
            "value_in_unit", "unit", "category", "activity_type", "payload", "device_id", "sync_identifier", "sync_version",
            "replica", "metadata", "uuid_own",
        ] {
            #expect(
                try database.scalarInt("SELECT count(*) FROM samples WHERE type_id = ? AND \(column) IS NOT NULL", [.integer(stepsID)]) == 0,
                "column \(column)")
        }

        // Every sample as saved, in its saved order (each group starts later than the one before).
        var read: [Sample] = []
        for type in [Fixtures.heartRate, Fixtures.sleep, Fixtures.steps] { read += try await store.all(type) }
        let byUUID = Dictionary(uniqueKeysWithValues: zip(saved, batch))
        #expect(read.count == batch.count)
        for sample in read {
            let original = try #require(byUUID[sample.uuid])
            #expect(sample.type == original.type && sample.startDate == original.startDate && sample.endDate == original.endDate)
            #expect(sample.value == original.value, "\(sample.type) at \(sample.startDate)")
            #expect(sample.device == original.device && sample.metadata == original.metadata, "\(sample.type) at \(sample.startDate)")
        }
        await store.close()
    }
}
