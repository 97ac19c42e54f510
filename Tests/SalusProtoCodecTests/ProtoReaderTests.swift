import Foundation
import SalusModel
import SalusProto
import SalusProtoCodec
import SalusWire
import SwiftProtobuf
import Testing

/// The codec's reader reads what SwiftProtobuf writes, and refuses malformed input with an error
/// naming the field, the byte and what was expected; nothing traps.
@Suite("The codec's reader")
struct ProtoReaderTests {
    /// Runs `body` on a reader of `bytes`.
    static func read<T>(_ bytes: [UInt8], _ body: (inout ProtoReader) throws(ProtoDecodingError) -> T) throws(ProtoDecodingError) -> T {
        var outcome: Result<T, ProtoDecodingError>!
        bytes.withUnsafeBytes { raw in
            var reader = ProtoReader(raw)
            do throws(ProtoDecodingError) {
                outcome = .success(try body(&reader))
            } catch {
                outcome = .failure(error)
            }
        }
        return try outcome.get()
    }

    /// Reads every field of `bytes`, descending into `nested` fields as messages, and writes
    /// each back with the codec.
    static func copy(_ bytes: [UInt8]) throws(ProtoDecodingError) -> [UInt8] {
        try read(bytes) { (reader: inout ProtoReader) throws(ProtoDecodingError) in
            var out = ProtoBytes()
            while let (number, wireType) = try reader.tag() {
                let field = UInt64(number)
                switch wireType {
                case .varint: out.uint64(field, try reader.varint(), always: true)
                case .fixed64: out.double(field, Double(bitPattern: try reader.fixed64()), always: true)
                case .fixed32:
                    let value = try reader.fixed32()
                    out.write(ProtoWriter.maxVarint + 4) { writer in
                        writer.varint(field << 3 | 5)
                        UnsafeMutableRawPointer(writer.cursor).storeBytes(of: value.littleEndian, as: UInt32.self)
                        writer.cursor += 4
                    }
                case .lengthDelimited: out.bytes(field, try reader.bytes(), always: true)
                }
            }
            return out.array
        }
    }

    /// The error reading all of `bytes` as fields throws, if any.
    static func failure(_ bytes: [UInt8]) -> ProtoDecodingError? {
        do throws(ProtoDecodingError) {
            _ = try copy(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test("every sample kind's fields read back and write out as SwiftProtobuf's bytes")
    func everyKind() throws {
        for (kind, sample) in EveryKind.samples + EveryKind.metadataSamples.map({ ($0.key, $0.sample) }) {
            let bytes: [UInt8] = try sample.wire.serializedBytes()
            #expect(try Self.copy(bytes) == bytes, "\(kind)")
        }
    }

    @Test("each wire type is read and skipped; an int64 takes ten bytes, the largest field number is read")
    func wireTypes() throws {
        // 1: varint -1 (ten bytes); 2: fixed64; 3: bytes "ab"; 4: fixed32; (2^29 - 1): varint 7.
        let last = ProtoWriter.varintSize(FieldNumber.max << 3)
        var bytes: [UInt8] = [0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x01]
        bytes += [0x11, 1, 2, 3, 4, 5, 6, 7, 8, 0x1A, 2, 0x61, 0x62, 0x25, 9, 8, 7, 6]
        bytes += [0xF8, 0xFF, 0xFF, 0xFF, 0x0F, 7]
        #expect(last == 5)
        let values = try Self.read(bytes) { (reader: inout ProtoReader) throws(ProtoDecodingError) in
            var numbers: [Int] = []
            var first: Int64 = 0
            var fixed: UInt64 = 0
            var text = ""
            var small: UInt32 = 0
            var lastValue: UInt64 = 0
            while let (number, wireType) = try reader.tag() {
                numbers.append(number)
                switch (number, wireType) {
                case (1, .varint): first = try reader.int64()
                case (2, .fixed64): fixed = try reader.fixed64()
                case (3, .lengthDelimited): text = try reader.string()
                case (4, .fixed32): small = try reader.fixed32()
                case (_, .varint): lastValue = try reader.varint()
                default: try reader.skip(wireType)
                }
            }
            return (numbers, first, fixed, text, small, lastValue)
        }
        #expect(values.0 == [1, 2, 3, 4, Int(FieldNumber.max)])
        #expect(values.1 == -1)
        #expect(values.2 == 0x0807_0605_0403_0201)
        #expect(values.3 == "ab")
        #expect(values.4 == 0x0607_0809)
        #expect(values.5 == 7)
        // The same fields skipped one by one.
        let skipped = try Self.read(bytes) { (reader: inout ProtoReader) throws(ProtoDecodingError) in
            var count = 0
            while let (_, wireType) = try reader.tag() {
                try reader.skip(wireType)
                count += 1
            }
            return (count, reader.isAtEnd, reader.offset)
        }
        #expect(skipped.0 == 5 && skipped.1 && skipped.2 == bytes.count)
    }

    /// Bytes that are not protobuf and the error reading them must throw.
    struct Malformed: Sendable, CustomTestStringConvertible {
        var bytes: [UInt8]
        var error: ProtoDecodingError

        init(_ bytes: [UInt8], _ reason: ProtoDecodingError.Reason, offset: Int, field: Int) {
            self.bytes = bytes
            error = ProtoDecodingError(reason, offset: offset, field: field)
        }

        var testDescription: String { "\(bytes.prefix(12)): \(error)" }
    }

    static let malformedCases = [
        Malformed([0x80], .truncatedVarint, offset: 0, field: 0),
        Malformed([0x08, 0x96], .truncatedVarint, offset: 1, field: 1),
        Malformed([0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01], .overlongVarint, offset: 1, field: 1),
        Malformed([0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x02], .varintOverflow, offset: 1, field: 1),
        Malformed([0x00, 0x01], .fieldNumberZero, offset: 0, field: 0),
        Malformed([0x02, 0x00], .fieldNumberZero, offset: 0, field: 0),
        Malformed([0x80, 0x80, 0x80, 0x80, 0x10], .fieldNumberTooLarge(1 << 29), offset: 0, field: 0),
        Malformed([0x08, 0x01, 0x13, 0x14], .unsupportedWireType(3), offset: 2, field: 2),
        Malformed([0x0C], .unsupportedWireType(4), offset: 0, field: 1),
        Malformed([0x0E, 0x00], .unsupportedWireType(6), offset: 0, field: 1),
        Malformed([0xFF, 0x01], .unsupportedWireType(7), offset: 0, field: 31),
        Malformed([0x0A, 0x05, 0x61], .lengthPastEnd(length: 5, remaining: 1), offset: 1, field: 1),
        Malformed([0x0A] + [UInt8](repeating: 0xFF, count: 9) + [0x01], .lengthPastEnd(length: .max, remaining: 0), offset: 1, field: 1),
        Malformed([0x09, 1, 2, 3], .truncatedFixed(size: 8, remaining: 3), offset: 1, field: 1),
        Malformed([0x15, 1], .truncatedFixed(size: 4, remaining: 1), offset: 1, field: 2),
    ]

    @Test("malformed input throws a precise error: truncated and overlong varints, field 0 and past 2^29 - 1, groups and undefined wire types, lengths and fixed values past the end", arguments: malformedCases)
    func malformed(_ input: Malformed) {
        #expect(Self.failure(input.bytes) == input.error)
    }

    @Test("an error inside a nested message counts bytes from the outermost message and names the inner field")
    func nested() throws {
        // Field 5 holds 4 bytes: field 1, length 5, then only "ab".
        let bytes: [UInt8] = [0x08, 0x01, 0x2A, 0x04, 0x0A, 0x05, 0x61, 0x62]
        let error = #expect(throws: ProtoDecodingError.self) {
            try Self.read(bytes) { (reader: inout ProtoReader) throws(ProtoDecodingError) in
                while let (number, wireType) = try reader.tag() {
                    if number == 5 {
                        var inner = try reader.message()
                        while let (_, innerType) = try inner.tag() { try inner.skip(innerType) }
                    } else {
                        try reader.skip(wireType)
                    }
                }
            }
        }
        #expect(error == ProtoDecodingError(.lengthPastEnd(length: 5, remaining: 2), offset: 5, field: 1))
        #expect(error?.description == "field 1 at byte 5: a length of 5 runs past the end (2 bytes left)")
        // The outer reader sees a whole field 5 and reads on.
        #expect(Self.failure(bytes) == nil)
    }

    @Test("the messages name the field or the tag, the byte and what was expected")
    func descriptions() {
        #expect(ProtoDecodingError(.fieldNumberZero, offset: 0, field: 0).description
            == "the tag at byte 0: field number 0 (expected 1 to 536870911)")
        #expect(ProtoDecodingError(.unsupportedWireType(3), offset: 4, field: 2).description
            == "field 2 at byte 4: wire type 3 is a group, which proto3 does not use (expected 0, 1, 2 or 5)")
        #expect(ProtoDecodingError(.truncatedVarint, offset: 7, field: 3).description
            == "field 3 at byte 7: the input ends inside a varint (expected a byte below 0x80 to end it)")
        #expect(ProtoDecodingError(.truncatedFixed(size: 8, remaining: 3), offset: 1, field: 1).description
            == "field 1 at byte 1: a 64-bit fixed value needs 8 bytes, 3 bytes left")
    }

    @Test("every prefix of every sample kind, read as nested messages all the way down, throws or reads, never traps")
    func everyPrefix() throws {
        /// Reads every field, trying each length-delimited one as a message first.
        func walk(_ reader: inout ProtoReader) throws(ProtoDecodingError) {
            while let (_, wireType) = try reader.tag() {
                guard wireType == .lengthDelimited else {
                    try reader.skip(wireType)
                    continue
                }
                var inner = try reader.message()
                do throws(ProtoDecodingError) { try walk(&inner) } catch {}
            }
        }
        var failures = 0
        for (kind, sample) in EveryKind.samples where kind != "electrocardiogram" {
            let bytes: [UInt8] = try sample.wire.serializedBytes()
            let step = max(1, bytes.count / 400)
            for length in stride(from: 0, to: bytes.count, by: step) {
                let prefix = Array(bytes.prefix(length))
                do throws(ProtoDecodingError) {
                    try Self.read(prefix) { (reader: inout ProtoReader) throws(ProtoDecodingError) in try walk(&reader) }
                } catch {
                    failures += 1
                    #expect(error.offset <= length, "\(kind) cut at \(length): \(error)")
                }
            }
        }
        #expect(failures > 0)
    }
}
