/// Bytes that are not Protocol Buffers' binary format: what was wrong, where, in which field.
public struct ProtoDecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Equatable, Sendable {
        /// The input ends inside a varint (its last byte has the high bit set).
        case truncatedVarint
        /// A varint runs past ten bytes, the most a 64-bit value takes.
        case overlongVarint
        /// A varint's tenth byte carries bits past the 64th.
        case varintOverflow
        /// A tag names field 0.
        case fieldNumberZero
        /// A tag names a field past 2^29 − 1.
        case fieldNumberTooLarge(UInt64)
        /// A tag carries wire type 3 or 4 (groups, which no `salus.v1` message has), 6 or 7
        /// (which protobuf does not define).
        case unsupportedWireType(UInt8)
        /// A fixed-width value needs `size` bytes and `remaining` are left.
        case truncatedFixed(size: Int, remaining: Int)
        /// A length-delimited field's length runs past the end of the input.
        case lengthPastEnd(length: UInt64, remaining: Int)
    }

    /// What was wrong.
    public var reason: Reason
    /// Where the item that is wrong starts, in bytes from the start of the outermost message.
    public var offset: Int
    /// The field whose value is wrong, or 0 when the tag itself is.
    public var field: Int

    /// An error of `reason` at `offset` in `field` (0 for the tag itself).
    public init(_ reason: Reason, offset: Int, field: Int) {
        self.reason = reason
        self.offset = offset
        self.field = field
    }

    /// What was wrong, where and what was expected, in a sentence.
    public var description: String {
        let place = field == 0 ? "the tag at byte \(offset)" : "field \(field) at byte \(offset)"
        switch reason {
        case .truncatedVarint:
            return "\(place): the input ends inside a varint (expected a byte below 0x80 to end it)"
        case .overlongVarint:
            return "\(place): a varint longer than 10 bytes (expected at most 10)"
        case .varintOverflow:
            return "\(place): a varint's tenth byte sets bits past 64 (expected 0 or 1)"
        case .fieldNumberZero:
            return "\(place): field number 0 (expected 1 to \(FieldNumber.max))"
        case .fieldNumberTooLarge(let number):
            return "\(place): field number \(number) (expected 1 to \(FieldNumber.max))"
        case .unsupportedWireType(let wireType):
            let what = wireType == 3 || wireType == 4 ? "a group, which proto3 does not use" : "not a wire type"
            return "\(place): wire type \(wireType) is \(what) (expected 0, 1, 2 or 5)"
        case .truncatedFixed(let size, let remaining):
            return "\(place): a \(size * 8)-bit fixed value needs \(size) bytes, \(Self.bytes(remaining)) left"
        case .lengthPastEnd(let length, let remaining):
            return "\(place): a length of \(length) runs past the end (\(Self.bytes(remaining)) left)"
        }
    }

    private static func bytes(_ count: Int) -> String { count == 1 ? "1 byte" : "\(count) bytes" }
}
