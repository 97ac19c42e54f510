import Foundation
import NIOCore
import SalusModel
import SalusProto
import SalusProtoCodec
import SalusWire
import SwiftProtobuf

/// Reads the samples of a page (`salus.v1.SampleBatch` field 1, `AnchoredBatch` field 1) from
/// its bytes straight into model samples.
///
/// **Rule: fields that repeat are read once.** A page's samples mostly share their type, unit,
/// source revision and device; each is decoded when its bytes differ from the previous sample's
/// and reused otherwise, so a page of one watch's heart rate costs one source, one device and one
/// unit parse, not one per sample. Quantity and category samples (with their metadata) are read
/// here; any other kind, and anything unexpected (a value missing, a unit that does not parse, a
/// UUID of the wrong size), goes through SwiftProtobuf and ``Sample/init(received:path:)`` for
/// that one sample, so the result and the errors are always those of the generated code. A test
/// compares the two on every sample kind.
package struct SamplePageDecoder {
    private var lastType: [UInt8] = []
    private var type = TypeIdentifier(rawValue: "")
    private var lastUnit: [UInt8] = []
    private var unit: SalusUnit?
    private var lastSource: [UInt8]?
    private var source = SourceRevision(appID: "", name: "")
    private var lastDevice: [UInt8]?
    private var device: Device?

    /// A decoder with nothing cached.
    package init() {}

    /// The same samples through the generated code (SwiftProtobuf, then
    /// ``Sample/init(received:path:)``): what ``samples(field:of:path:first:)`` must equal.
    package static func reference(field: Int, of bytes: [UInt8], path: String) throws -> [Sample] {
        guard field == 1 else { throw SalusError(code: .malformedMessage, message: "only field 1 is a list of samples") }
        let batch = try Salus_V1_SampleBatch(serializedBytes: bytes)
        return try batch.samples.enumerated().map { index, wire in try Sample(received: wire, path: "\(path)[\(index)]") }
    }

    /// The samples in `field` of the message `bytes`; `path` names the list in errors
    /// ("samples"), numbering from `first`.
    package mutating func samples(field: Int, of bytes: ByteBuffer, path: String, first: Int = 0) throws(SalusError) -> [Sample] {
        var samples: [Sample] = []
        // About one sample per 128 bytes (a watch's heart rate with its source and device): the
        // page's array grows once or not at all.
        samples.reserveCapacity(bytes.readableBytes / 128)
        try Self.read(bytes) { reader, number, wireType, raw throws in
            guard number == field, wireType == .lengthDelimited else {
                try reader.skip(wireType)
                return
            }
            let range = try reader.lengthDelimited()
            samples.append(try sample(raw, range, path: "\(path)[\(first + samples.count)]"))
        }
        return samples
    }

    /// The next sample in `field` of the message `bytes`, from byte `offset` on, moving `offset`
    /// past it; nil when the message holds no more. `path` names the list in errors, numbering
    /// the sample `index`. Read one at a time, a page's samples are never gathered in an array:
    /// each is made where its reader takes it, with no copy (a copy out of a page array and the
    /// array's release took about a third of a query's decoding).
    package mutating func nextSample(field: Int, of bytes: ByteBuffer, offset: inout Int, path: String, index: Int)
        throws(SalusError) -> Sample?
    {
        // The sample is made straight into `found` and returned from there: carried out of the
        // closure in a `Result` with the next offset, each sample was copied and the copy
        // destroyed (a retain and a release of each of its references, and a memmove of its
        // 120 bytes), about a fifth of a day query's decoding.
        var found: Sample?
        var failure: SalusError?
        let start = offset
        let next: Int = bytes.withUnsafeReadableBytes { whole in
            guard start < whole.count else { return start }
            let raw = UnsafeRawBufferPointer(rebasing: whole[start...])
            do {
                // Errors count bytes from the page's start, as ``samples(field:of:path:first:)``'s do.
                var reader = ProtoReader(raw, origin: start)
                while let (number, wireType) = try reader.tag() {
                    guard number == field, wireType == .lengthDelimited else {
                        try reader.skip(wireType)
                        continue
                    }
                    let range = try reader.lengthDelimited()
                    found = try sample(raw, range, path: "\(path)[\(index)]")
                    return start + range.upperBound
                }
                return whole.count
            } catch let error as SalusError {
                failure = error
            } catch {
                failure = SalusError(code: .malformedMessage, message: "the daemon's page does not decode: \(error)")
            }
            return start
        }
        if let failure { throw failure }
        offset = next
        return found
    }

    /// An `AnchoredBatch`: its added samples (field 1) read as ``samples(field:of:path:first:)``
    /// reads them, its deleted objects, anchor and flags; `path` names the batch in errors.
    package mutating func anchoredBatch(_ bytes: ByteBuffer, path: String) throws(SalusError)
        -> (added: [Sample], deleted: [DeletedObject], anchor: UInt64, initialResultsComplete: Bool, moreChanges: Bool)
    {
        var added: [Sample] = []
        let rest = try anchoredBatch(bytes, path: path, appendingAddedTo: &added)
        return (added, rest.deleted, rest.anchor, rest.initialResultsComplete, rest.moreChanges)
    }

    /// The most samples an `AnchoredBatch`'s `initial_added_hint` reserves room for (about 1.2 GiB
    /// of model samples); past it, the list grows as batches come.
    package var largestReservation = 1 << 22

    /// The same, with the added samples appended to `added` (an update gathering several
    /// batches), so that no sample is copied from one array to another.
    ///
    /// A first batch's `initial_added_hint` (how many samples the initial results hold) reserves
    /// room for them all in `added` at once, up to ``largestReservation``: one allocation for the
    /// whole catch-up instead of a copy at each doubling.
    package mutating func anchoredBatch(_ bytes: ByteBuffer, path: String, appendingAddedTo added: inout [Sample])
        throws(SalusError) -> (deleted: [DeletedObject], anchor: UInt64, initialResultsComplete: Bool, moreChanges: Bool)
    {
        let first = added.count
        // The first batch sizes the list by its bytes; after that appends grow it by doubling
        // (amortized O(1) per sample), unless the hint below has made room for all of them.
        if added.isEmpty { added.reserveCapacity(bytes.readableBytes / 128) }
        var deleted: [DeletedObject] = []
        var anchor: UInt64 = 0
        var complete = false
        var more = false
        var hint: UInt64 = 0
        try Self.read(bytes) { reader, number, wireType, raw throws in
            switch (number, wireType) {
            case (1, .lengthDelimited):
                let range = try reader.lengthDelimited()
                added.append(try sample(raw, range, path: "\(path).added[\(added.count - first)]"))
            case (2, .lengthDelimited):
                let range = try reader.lengthDelimited()
                let wire = try Salus_V1_DeletedObject(serializedBytes: Array(raw[range]))
                deleted.append(try DeletedObject(received: wire, path: "\(path).deleted[\(deleted.count)]"))
            case (3, .varint): anchor = try reader.varint()
            case (4, .varint): complete = try reader.bool()
            case (5, .varint): more = try reader.bool()
            case (6, .varint): hint = try reader.varint()
            default: try reader.skip(wireType)
            }
        }
        let room = Int(Swift.min(hint, UInt64(largestReservation)))
        if room > added.capacity { added.reserveCapacity(room) }
        return (deleted, anchor, complete, more)
    }

    /// Calls `field` for each top-level field of `bytes` with the reader after its tag; any
    /// failure becomes a ``SalusError`` (`malformedMessage` for bytes that do not decode, with
    /// the field and byte that do not).
    private static func read(
        _ bytes: ByteBuffer,
        _ field: (inout ProtoReader, Int, WireType, UnsafeRawBufferPointer) throws -> Void
    ) throws(SalusError) {
        let outcome: SalusError? = bytes.withUnsafeReadableBytes { raw in
            do {
                var reader = ProtoReader(raw)
                while let (number, wireType) = try reader.tag() {
                    try field(&reader, number, wireType, raw)
                }
                return nil
            } catch let error as SalusError {
                return error
            } catch {
                return SalusError(code: .malformedMessage, message: "the daemon's page does not decode: \(error)")
            }
        }
        if let outcome { throw outcome }
    }

    /// The sample in `raw[range]`: read here, or through the generated code.
    private mutating func sample(_ raw: UnsafeRawBufferPointer, _ range: Range<Int>, path: @autoclosure () -> String) throws -> Sample {
        if let sample = decode(ProtoReader(UnsafeRawBufferPointer(rebasing: raw[range]), origin: range.lowerBound)) {
            return sample
        }
        let wire = try Salus_V1_Sample(serializedBytes: Array(raw[range]))
        return try Sample(received: wire, path: path())
    }

    /// A quantity or category sample read field by field; nil for anything else.
    private mutating func decode(_ start: ProtoReader) -> Sample? {
        var reader = start
        var uuid: UUID?
        var startDate: Int64 = 0
        var endDate: Int64 = 0
        var creationDate: Int64 = 0
        var value: SampleValue?
        var metadata: [String: MetadataValue] = [:]
        var sourceSeen = false
        var deviceSeen = false
        do {
            while let (number, wireType) = try reader.tag() {
                switch (number, wireType) {
                case (1, .lengthDelimited):
                    let bytes = try reader.bytes()
                    guard bytes.count == 16 else { return nil }
                    var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                    withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: bytes) }
                    uuid = UUID(uuid: raw)
                case (2, .lengthDelimited):
                    let bytes = try reader.bytes()
                    if !Self.same(bytes, lastType) {
                        lastType = Array(bytes)
                        type = TypeIdentifier(rawValue: String(decoding: bytes, as: UTF8.self))
                    }
                case (3, .varint): startDate = try reader.int64()
                case (4, .varint): endDate = try reader.int64()
                case (5, .lengthDelimited):
                    guard let quantity = try quantity(reader.message()) else { return nil }
                    value = .quantity(quantity)
                case (6, .lengthDelimited):
                    var category = try reader.message()
                    var raw: Int64 = 0
                    while let (field, kind) = try category.tag() {
                        if field == 1, kind == .varint { raw = try category.int64() } else { try category.skip(kind) }
                    }
                    guard let exact = Int(exactly: raw) else { return nil }
                    value = .category(exact)
                case (10, .lengthDelimited):
                    sourceSeen = true
                    let message = try reader.message()
                    if lastSource.map({ !Self.same(message.remaining, $0) }) ?? true {
                        lastSource = Array(message.remaining)
                        source = try sourceRevision(message)
                    }
                case (11, .lengthDelimited):
                    deviceSeen = true
                    let message = try reader.message()
                    if lastDevice.map({ !Self.same(message.remaining, $0) }) ?? true {
                        lastDevice = Array(message.remaining)
                        device = try deviceValue(message)
                    }
                case (12, .lengthDelimited):
                    guard let (key, entry) = try metadataEntry(reader.message()) else { return nil }
                    metadata[key] = entry
                case (13, .varint): creationDate = try reader.int64()
                case (5...22, _):
                    return nil  // another kind of value: the generated code reads it
                default:
                    try reader.skip(wireType)
                }
            }
        } catch {
            return nil
        }
        // The value is moved out (`take`), not copied, and the sample is built where it is
        // returned: bound with `guard let` and built in a temporary, both were copied and the
        // originals destroyed, a retain and a release of every reference a sample holds.
        guard let uuid, let value = value.take() else { return nil }
        if !sourceSeen {
            lastSource = nil
            source = SourceRevision(appID: "", name: "")
        }
        return .some(
            Sample(
                uuid: uuid, type: type, startDate: WireDate.date(startDate), endDate: WireDate.date(endDate), value: consume value,
                sourceRevision: source, device: deviceSeen ? device : nil, metadata: consume metadata,
                creationDate: WireDate.date(creationDate)))
    }

    /// Whether `bytes` are `known`'s: one `memcmp`, where the generic `elementsEqual` compared
    /// byte by byte through iterators (it took about a tenth of a day query's decoding).
    @inline(__always) static func same(_ bytes: UnsafeRawBufferPointer, _ known: [UInt8]) -> Bool {
        guard bytes.count == known.count else { return false }
        guard let base = bytes.baseAddress, !known.isEmpty else { return true }
        return known.withUnsafeBytes { memcmp(base, $0.baseAddress!, bytes.count) == 0 }
    }

    /// A `salus.v1.Quantity`; nil when its unit does not parse or its value is not finite.
    private mutating func quantity(_ start: ProtoReader) throws(ProtoDecodingError) -> Quantity? {
        var reader = start
        var value = 0.0
        var unitBytes: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
        while let (field, kind) = try reader.tag() {
            switch (field, kind) {
            case (1, .fixed64): value = try reader.double()
            case (2, .lengthDelimited): unitBytes = try reader.bytes()
            default: try reader.skip(kind)
            }
        }
        guard value.isFinite else { return nil }
        if unit == nil || !Self.same(unitBytes, lastUnit) {
            guard let parsed = try? SalusUnit(parsing: String(decoding: unitBytes, as: UTF8.self)) else { return nil }
            lastUnit = Array(unitBytes)
            unit = parsed
        }
        return unit.map { Quantity(value: value, unit: $0) }
    }

    private func sourceRevision(_ start: ProtoReader) throws(ProtoDecodingError) -> SourceRevision {
        var reader = start
        var fields = ["", "", "", "", ""]
        while let (field, kind) = try reader.tag() {
            if (1...5).contains(field), kind == .lengthDelimited {
                fields[field - 1] = try reader.string()
            } else {
                try reader.skip(kind)
            }
        }
        func optional(_ text: String) -> String? { text.isEmpty ? nil : text }
        return SourceRevision(
            appID: fields[0], name: fields[1], version: optional(fields[2]), productType: optional(fields[3]),
            osVersion: optional(fields[4]))
    }

    private func deviceValue(_ start: ProtoReader) throws(ProtoDecodingError) -> Device {
        var reader = start
        var fields: [String?] = Array(repeating: nil, count: 8)
        while let (field, kind) = try reader.tag() {
            if (1...8).contains(field), kind == .lengthDelimited {
                fields[field - 1] = try reader.string()
            } else {
                try reader.skip(kind)
            }
        }
        return Device(
            name: fields[0], manufacturer: fields[1], model: fields[2], hardwareVersion: fields[3], firmwareVersion: fields[4],
            softwareVersion: fields[5], localIdentifier: fields[6], udiDeviceIdentifier: fields[7])
    }

    /// One entry of the metadata map; nil when its value is missing or unreadable.
    private mutating func metadataEntry(_ start: ProtoReader) throws(ProtoDecodingError) -> (String, MetadataValue)? {
        var reader = start
        var key = ""
        var value: MetadataValue?
        while let (field, kind) = try reader.tag() {
            switch (field, kind) {
            case (1, .lengthDelimited): key = try reader.string()
            case (2, .lengthDelimited):
                var entry = try reader.message()
                value = nil
                while let (inner, innerKind) = try entry.tag() {
                    switch (inner, innerKind) {
                    case (1, .lengthDelimited): value = .string(try entry.string())
                    case (2, .fixed64): value = .number(try entry.double())
                    case (3, .varint): value = .bool(try entry.bool())
                    case (4, .varint): value = .date(WireDate.date(try entry.int64()))
                    case (5, .lengthDelimited):
                        guard let quantity = try quantity(entry.message()) else { return nil }
                        value = .quantity(quantity)
                    default: try entry.skip(innerKind)
                    }
                }
            default: try reader.skip(kind)
            }
        }
        guard let value else { return nil }
        return (key, value)
    }
}
