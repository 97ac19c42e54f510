import Foundation
import NIOCore
import SalusKit
import SalusModel
import SalusProto
import SalusWire
import SwiftProtobuf
import Testing

/// SalusKit reads a page's samples straight from its bytes; an app must not be able to tell:
/// every page gives exactly the samples (and errors) the generated code gives.
@Suite("SalusKit's page decoder")
struct SamplePageDecoderTests {
    static func page(_ samples: [Salus_V1_Sample]) throws -> [UInt8] {
        var batch = Salus_V1_SampleBatch()
        batch.samples = samples
        return try batch.serializedBytes()
    }

    /// The page's samples, read both ways SalusKit reads them: all at once, and one by one as a
    /// query's iterator does (``SamplePageDecoder/nextSample(field:of:offset:path:index:)``), from
    /// decoders in the same state. The two must give the same samples, or the same error.
    static func decode(_ bytes: [UInt8], decoder: inout SamplePageDecoder) throws -> [Sample] {
        let buffer = ByteBuffer(bytes: bytes)
        var single = decoder
        var oneByOne: [Sample] = []
        var singleError: SalusError?
        var offset = 0
        do {
            while let sample = try single.nextSample(field: 1, of: buffer, offset: &offset, path: "samples", index: oneByOne.count) {
                oneByOne.append(sample)
            }
        } catch {
            singleError = error
        }
        do {
            let all = try decoder.samples(field: 1, of: buffer, path: "samples")
            #expect(singleError == nil && oneByOne == all, "one by one: \(String(describing: singleError))")
            return all
        } catch {
            #expect(singleError?.code == error.code && singleError?.field == error.field, "one by one: \(String(describing: singleError))")
            #expect(singleError?.message == error.message && singleError?.value == error.value && singleError?.expected == error.expected)
            throw error
        }
    }

    @Test("every kind, metadata value type and device form decodes to what the generated code gives, page after page")
    func everyKind() throws {
        let samples = WireEncodingTests.samples() + [
            Fixtures.quantity(5, start: 80),  // no device after one with a device
            Fixtures.quantity(6, start: 81, device: WireEncodingTests.fullDevice),
            Fixtures.quantity(Fixtures.heartRate, 62, "count/min", start: 82, end: 83, device: Device(name: "Phone")),
            Fixtures.quantity(7, start: 84, device: WireEncodingTests.fullDevice),  // back to an earlier device
        ]
        var wire = samples.map(\.wire)
        // Another source in the middle, and one with no source revision at all.
        var other = Fixtures.quantity(8, start: 85)
        other.sourceRevision = SourceRevision(appID: "org.example.other", name: "Other", version: "2", productType: "", osVersion: "1.0")
        wire.insert(other.wire, at: 3)
        var bare = Fixtures.category(2, start: 90, end: 91).wire
        bare.clearSourceRevision()
        wire.append(bare)
        var decoder = SamplePageDecoder()
        // The whole list as one page, then in pages of 3 with the same decoder (its caches carry over).
        let whole = try Self.page(wire)
        #expect(try Self.decode(whole, decoder: &decoder) == (try SamplePageDecoder.reference(field: 1, of: whole, path: "samples")))
        for start in stride(from: 0, to: wire.count, by: 3) {
            let part = try Self.page(Array(wire[start..<min(start + 3, wire.count)]))
            let lean = try Self.decode(part, decoder: &decoder)
            let reference = try SamplePageDecoder.reference(field: 1, of: part, path: "samples")
            #expect(lean == reference, "samples \(start)…")
        }
        #expect(try Self.decode(whole, decoder: &decoder).count == samples.count + 2)
    }

    @Test("a sample the generated code refuses is refused with the same field, value and expectation; a truncated page is malformed")
    func errors() throws {
        var badUnit = Fixtures.quantity(1, start: 0).wire
        badUnit.quantity.unit = "furlongs/fortnight²"
        var shortUUID = Fixtures.quantity(2, start: 1).wire
        shortUUID.uuid = Data([1, 2, 3])
        var noValue = Fixtures.quantity(3, start: 2).wire
        noValue.value = nil
        var badMetadata = Fixtures.quantity(4, start: 3).wire
        badMetadata.metadata["org.example.empty"] = Salus_V1_MetadataValue()
        for (index, bad) in [badUnit, shortUUID, noValue, badMetadata].enumerated() {
            let bytes = try Self.page([Fixtures.quantity(9, start: 9).wire, bad])
            var decoder = SamplePageDecoder()
            let lean = #expect(throws: SalusError.self) { try Self.decode(bytes, decoder: &decoder) }
            let reference = #expect(throws: SalusError.self) { try SamplePageDecoder.reference(field: 1, of: bytes, path: "samples") }
            #expect(lean?.code == .malformedMessage, "case \(index)")
            #expect(lean?.field == reference?.field, "case \(index)")
            #expect(lean?.field?.hasPrefix("samples[1]") == true, "case \(index): \(lean?.field ?? "-")")
            #expect(lean?.value == reference?.value && lean?.expected == reference?.expected, "case \(index)")
        }
        let whole = try Self.page([Fixtures.quantity(1, start: 0).wire])
        var decoder = SamplePageDecoder()
        let truncated = #expect(throws: SalusError.self) { try Self.decode(Array(whole.dropLast(3)), decoder: &decoder) }
        #expect(truncated?.code == .malformedMessage)
    }

    @Test("a page with field 0, an undefined wire type or a length past its end is malformed, naming the field and the byte, as the generated code refuses it")
    func malformedPages() throws {
        let whole = try Self.page([Fixtures.quantity(1, start: 0).wire])
        let cases: [([UInt8], String)] = [
            (whole + [0x00, 0x01], "the tag at byte \(whole.count): field number 0 (expected 1 to 536870911)"),
            (whole + [0x0F], "field 1 at byte \(whole.count): wire type 7 is not a wire type (expected 0, 1, 2 or 5)"),
            (whole + [0x0A, 0x05, 0x01], "field 1 at byte \(whole.count + 1): a length of 5 runs past the end (1 byte left)"),
        ]
        for (bytes, message) in cases {
            var decoder = SamplePageDecoder()
            let lean = #expect(throws: SalusError.self) { try Self.decode(bytes, decoder: &decoder) }
            #expect(lean?.code == .malformedMessage)
            #expect(lean?.message == "the daemon's page does not decode: \(message)")
            #expect(throws: (any Error).self) { try SamplePageDecoder.reference(field: 1, of: bytes, path: "samples") }
            let anchored = #expect(throws: SalusError.self) { try decoder.anchoredBatch(ByteBuffer(bytes: bytes), path: "batches[0]") }
            #expect(anchored?.message == lean?.message)
        }
    }

    @Test("an anchored batch: its added samples, deleted objects with their sync keys, anchor and flags, as the generated code reads them")
    func anchoredBatches() throws {
        var batch = Salus_V1_AnchoredBatch()
        batch.added = WireEncodingTests.samples().map(\.wire)
        let gone = DeletedObject(
            uuid: UUID(), type: Fixtures.steps,
            metadata: [MetadataKey.syncIdentifier: .string("walk-1"), MetadataKey.syncVersion: .number(2)])
        let second = DeletedObject(uuid: UUID(), type: Fixtures.sleep, metadata: [:])
        batch.deleted = [gone.wire, second.wire]
        batch.anchor = 1_234_567_890_123
        batch.moreChanges = true
        let bytes: [UInt8] = try batch.serializedBytes()
        var decoder = SamplePageDecoder()
        let lean = try decoder.anchoredBatch(ByteBuffer(bytes: bytes), path: "batches[0]")
        #expect(lean.added == (try SamplePageDecoder.reference(field: 1, of: bytes, path: "batches[0].added")))
        #expect(lean.deleted == [gone, second])
        #expect(lean.anchor == 1_234_567_890_123)
        #expect(lean.moreChanges && !lean.initialResultsComplete)
        batch.moreChanges = false
        batch.initialResultsComplete = true
        batch.added = []
        let flags = try decoder.anchoredBatch(ByteBuffer(bytes: try batch.serializedBytes() as [UInt8]), path: "batches[1]")
        #expect(flags.initialResultsComplete && !flags.moreChanges && flags.added.isEmpty && flags.deleted.count == 2)
    }

    @Test("a first batch's initial added hint makes room for the whole catch-up at once, up to a bound a daemon cannot raise")
    func initialAddedHint() throws {
        var batch = Salus_V1_AnchoredBatch()
        batch.added = WireEncodingTests.samples().map(\.wire)
        batch.initialAddedHint = 5_000
        var decoder = SamplePageDecoder()
        var added: [Sample] = []
        _ = try decoder.anchoredBatch(ByteBuffer(bytes: try batch.serializedBytes() as [UInt8]), path: "batches[0]", appendingAddedTo: &added)
        #expect(added.count == batch.added.count)
        #expect(added.capacity >= 5_000)
        // Later batches append into that room: the list is not moved.
        let room = added.capacity
        batch.initialAddedHint = 0
        for index in 1...3 {
            _ = try decoder.anchoredBatch(ByteBuffer(bytes: try batch.serializedBytes() as [UInt8]), path: "batches[\(index)]", appendingAddedTo: &added)
        }
        #expect(added.count == 4 * batch.added.count)
        #expect(added.capacity == room)
        // A hint past the bound reserves only the bound.
        #expect(SamplePageDecoder().largestReservation >= 1_000_000)
        decoder.largestReservation = 1_000
        batch.initialAddedHint = .max
        var bounded: [Sample] = []
        _ = try decoder.anchoredBatch(ByteBuffer(bytes: try batch.serializedBytes() as [UInt8]), path: "batches[0]", appendingAddedTo: &bounded)
        #expect(bounded.capacity >= 1_000)
        #expect(bounded.capacity < 2_000)
    }
}
