import Foundation
import SalusModel
import SalusProto
import SalusProtoCodec
import SalusWire
import SwiftProtobuf
import Testing

/// The codec writes Protocol Buffers as SwiftProtobuf does: every sample kind, every metadata
/// value type, every length size, byte for byte.
@Suite("The codec's writer beside SwiftProtobuf")
struct ProtoBytesTests {
    static func deterministic() -> BinaryEncodingOptions {
        var options = BinaryEncodingOptions()
        options.useDeterministicOrdering = true
        return options
    }

    static func expectSameBytes(_ message: some Message, _ comment: String) throws {
        let expected: [UInt8] = try message.serializedBytes(options: deterministic())
        let written = try CodecVisitor.encode(message)
        #expect(written == expected, "\(comment): \(written.count) bytes beside SwiftProtobuf's \(expected.count)")
    }

    @Test("every sample kind is SwiftProtobuf's bytes", arguments: EveryKind.samples.map(\.kind))
    func everyKind(_ kind: String) throws {
        let sample = try #require(EveryKind.samples.first { $0.kind == kind }?.sample)
        try Self.expectSameBytes(sample.wire, kind)
    }

    @Test("every metadata value type is SwiftProtobuf's bytes, alone and in a sample")
    func everyMetadataValue() throws {
        for (key, sample) in EveryKind.metadataSamples {
            try Self.expectSameBytes(sample.wire, key)
            try Self.expectSameBytes(try #require(sample.wire.metadata[key]), "\(key) alone")
        }
        // Each oneof member at its default is still written.
        for value in [
            Salus_V1_MetadataValue.with { $0.stringValue = "" }, .with { $0.numberValue = 0 }, .with { $0.boolValue = false },
            .with { $0.dateValue = 0 }, .with { $0.quantityValue = Salus_V1_Quantity() },
        ] {
            try Self.expectSameBytes(value, "\(value)")
        }
    }

    @Test("whole pages: a sample batch of every kind and an anchored batch with deleted objects and flags")
    func pages() throws {
        var batch = Salus_V1_SampleBatch()
        batch.samples = EveryKind.samples.map(\.sample.wire) + EveryKind.metadataSamples.map(\.sample.wire)
        try Self.expectSameBytes(batch, "sample batch")
        var anchored = Salus_V1_AnchoredBatch()
        anchored.added = batch.samples
        anchored.deleted = [
            DeletedObject(
                uuid: UUID(), type: "HKQuantityTypeIdentifierStepCount",
                metadata: [MetadataKey.syncIdentifier: .string("walk-1"), MetadataKey.syncVersion: .number(2)]
            ).wire
        ]
        anchored.anchor = .max
        anchored.initialResultsComplete = true
        anchored.moreChanges = true
        anchored.initialAddedHint = 1 << 40
        try Self.expectSameBytes(anchored, "anchored batch")
    }

    @Test("a nested message's length at each varint size: the content moves when the length needs more than one byte")
    func lengthSizes() throws {
        for length in [0, 1, 127, 128, 129, 16_383, 16_384, 2_097_151, 2_097_152] {
            var sample = Salus_V1_Sample()
            sample.sourceRevision.name = String(repeating: "x", count: length)
            sample.sourceRevision.appID = "org.example.app"
            sample.creationDate = -1
            try Self.expectSameBytes(sample, "a name of \(length) bytes")
        }
    }

    @Test("the raw pointer writer: varint sizes, integers at their limits, doubles, defaults left out")
    func writer() throws {
        for value: UInt64 in [0, 1, 127, 128, 16_383, 16_384, 1 << 35, 1 << 63, .max] {
            var bytes = ProtoBytes()
            bytes.varint(value)
            #expect(bytes.count == ProtoWriter.varintSize(value), "\(value)")
            let decoded = try bytes.withBytes { raw throws(ProtoDecodingError) in
                var reader = ProtoReader(raw)
                return try reader.varint()
            }
            #expect(decoded == value)
        }
        var quantity = Salus_V1_Quantity()
        var bytes = ProtoBytes()
        for value in [0, -0.0, 1.5, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude] as [Double] {
            quantity.value = value
            bytes.removeAll()
            bytes.double(1, value)
            #expect(bytes.array == (try quantity.serializedBytes() as [UInt8]), "\(value)")
        }
        var category = Salus_V1_CategoryValue()
        for value in [0, 1, -1, .min, .max] as [Int64] {
            category.value = value
            bytes.removeAll()
            bytes.int64(1, value)
            #expect(bytes.array == (try category.serializedBytes() as [UInt8]), "\(value)")
        }
    }
}
