/// A minimal protobuf decoder: enough to read a `salus.v1.Sample` inside a validator without
/// linking SwiftProtobuf into the plugin (see ``ProtoWriter``).
struct ProtoReader {
    private let bytes: [UInt8]
    private var index: Int
    private let end: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.index = 0
        self.end = bytes.count
    }

    private init(_ bytes: [UInt8], from start: Int, to end: Int) {
        self.bytes = bytes
        self.index = start
        self.end = end
    }

    /// The next field's number and wire type, or nil at the end.
    mutating func nextField() throws(SampleDecodingError) -> (number: Int, wireType: Int)? {
        guard index < end else { return nil }
        let key = try varint()
        let number = Int(key >> 3)
        guard number > 0 else { throw SampleDecodingError("field number 0 at byte \(index)") }
        return (number, Int(key & 7))
    }

    mutating func varint() throws(SampleDecodingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard index < end else { throw SampleDecodingError("truncated varint at byte \(index)") }
            let byte = bytes[index]
            index += 1
            guard shift < 64 else { throw SampleDecodingError("varint longer than 10 bytes") }
            result |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    mutating func fixed64() throws(SampleDecodingError) -> UInt64 {
        guard end - index >= 8 else { throw SampleDecodingError("truncated fixed64 at byte \(index)") }
        var result: UInt64 = 0
        for offset in 0..<8 { result |= UInt64(bytes[index + offset]) << (8 * UInt64(offset)) }
        index += 8
        return result
    }

    mutating func double() throws(SampleDecodingError) -> Double {
        Double(bitPattern: try fixed64())
    }

    /// A length-delimited field as a reader of its own.
    mutating func nested() throws(SampleDecodingError) -> ProtoReader {
        let length = try varint()
        guard length <= UInt64(end - index) else {
            throw SampleDecodingError("length \(length) at byte \(index) runs past the end")
        }
        let start = index
        index += Int(length)
        return ProtoReader(bytes, from: start, to: index)
    }

    mutating func string() throws(SampleDecodingError) -> String {
        let inner = try nested()
        return String(decoding: bytes[inner.index..<inner.end], as: UTF8.self)
    }

    /// Skips a field of the given wire type.
    mutating func skip(wireType: Int) throws(SampleDecodingError) {
        switch wireType {
        case 0: _ = try varint()
        case 1: _ = try fixed64()
        case 2: _ = try nested()
        case 5:
            guard end - index >= 4 else { throw SampleDecodingError("truncated fixed32 at byte \(index)") }
            index += 4
        default: throw SampleDecodingError("unsupported wire type \(wireType) at byte \(index)")
        }
    }
}

/// A sample a validator could not decode; the message says where.
public struct SampleDecodingError: Error, CustomStringConvertible, Sendable {
    /// What was wrong with the bytes.
    public let description: String

    init(_ description: String) { self.description = description }
}
