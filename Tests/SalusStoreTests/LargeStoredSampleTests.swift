import Foundation
import SalusModel
import SalusProto
import SwiftProtobuf
import Testing

@testable import SalusStore

/// A sample stored larger than a response frame can carry (an earlier version took samples of
/// any size its frames and files allowed) fails the reads that would send it, naming it.
@Suite("Samples stored larger than a frame")
struct LargeStoredSampleTests {
    @Test("a sample stored larger than a response frame fails the wire reads naming its row, its UUID and its largest part; one just under is served whole", arguments: [4_000_000, 4_200_000])
    func largerThanAFrame(noteBytes: Int) async throws {
        let refused = noteBytes > WirePageEncoder.largestSample
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let uuids = try await store.save(DamagedRowTests.saved(), source: Fixtures.app).results.map(\.uuid)
        let database = try Database(path: temporary.path, create: false)
        let id = try #require(try database.scalarInt("SELECT id FROM samples WHERE uuid = ?", [.uuid(uuids[2])]))
        let blob = try #require(MetadataBlob.encodeRow(["note": .string(String(repeating: "n", count: noteBytes))]))
        try database.run("UPDATE samples SET metadata = ?2 WHERE id = ?1", [.integer(id), .blob(blob)])
        database.close()

        let reads = await DamagedRowTests.read(store, uuid: uuids[2])
        for (name, result, anchored) in [("wire pages", reads.wirePages, false), ("anchored wire", reads.anchoredWire, true)] {
            switch result {
            case .success(let bytes):
                #expect(!refused, "\(name): \(bytes.count) bytes served")
                let samples = anchored
                    ? try Salus_V1_AnchoredBatch(serializedBytes: bytes).added : try Salus_V1_SampleBatch(serializedBytes: bytes).samples
                #expect(samples.count == 3, "\(name)")
                let large = samples.first { $0.uuid == Data(withUnsafeBytes(of: uuids[2].uuid) { Array($0) }) }
                #expect(large?.metadata["note"]?.stringValue.count == noteBytes, "\(name)")
            case .failure(let error):
                #expect(refused, "\(name): \(error)")
                let message = (error as? StoreError)?.message ?? "\(error)"
                #expect(message.contains("row \(id)"), "\(name): \(message)")
                #expect(message.contains(uuids[2].uuidString), "\(name): \(message)")
                #expect(message.contains("metadata"), "\(name): \(message)")
                #expect(message.contains("at most \(WirePageEncoder.largestSample) bytes"), "\(name): \(message)")
            }
        }
    }
}
