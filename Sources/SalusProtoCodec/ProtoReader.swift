/// Reads Protocol Buffers' binary format from bytes it borrows: tags, varints, fixed-width
/// values and length-delimited fields, each checked against the end of the input.
///
/// **Rule: nothing read traps.** A truncated value, a varint past ten bytes, field 0, a field
/// past 2^29 − 1, a group or an undefined wire type, a length past the end: each throws a
/// ``ProtoDecodingError`` naming the field and the byte, counted from the start of the outermost
/// message even inside a nested one (``message()``).
///
/// Inlined into its callers (the page decoder reads every field of every sample through it):
/// no allocation, no existential, one bounds check per byte read.
package struct ProtoReader {
    /// The bytes read.
    @usableFromInline let buffer: UnsafeRawBufferPointer
    /// Where the next byte is.
    @usableFromInline var position: Int
    /// Where `buffer` starts in the outermost message, for errors.
    @usableFromInline let origin: Int
    /// The field whose tag was read last; 0 before the first.
    @usableFromInline var field: Int

    /// A reader of `buffer`, which starts `origin` bytes into the outermost message.
    @inlinable package init(_ buffer: UnsafeRawBufferPointer, origin: Int = 0) {
        self.buffer = buffer
        position = 0
        self.origin = origin
        field = 0
    }

    /// Whether every byte is read.
    @inlinable package var isAtEnd: Bool { position >= buffer.count }

    /// Where the next byte is, from the start of the outermost message.
    @inlinable package var offset: Int { origin + position }

    /// The bytes not read yet, borrowed from the buffer: a whole message, for a reader just
    /// made by ``message()``.
    @inlinable package var remaining: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[position...])
    }

    @usableFromInline func failure(_ reason: ProtoDecodingError.Reason, at position: Int) -> ProtoDecodingError {
        ProtoDecodingError(reason, offset: origin + position, field: field)
    }

    /// The next field's number and wire type, or nil at the end.
    @inlinable package mutating func tag() throws(ProtoDecodingError) -> (number: Int, wireType: WireType)? {
        guard position < buffer.count else { return nil }
        let start = position
        field = 0
        let key: UInt64
        let first = buffer[position]
        if first < 0x80 {
            key = UInt64(first)
            position += 1
        } else {
            key = try varint()
        }
        let number = key >> 3
        guard number != 0 else { throw failure(.fieldNumberZero, at: start) }
        guard number <= FieldNumber.max else { throw failure(.fieldNumberTooLarge(number), at: start) }
        field = Int(truncatingIfNeeded: number)
        let low = UInt8(truncatingIfNeeded: key & 7)
        guard let wireType = WireType(rawValue: low) else { throw failure(.unsupportedWireType(low), at: start) }
        return (field, wireType)
    }

    /// A varint: at most ten bytes, the tenth 0 or 1.
    @inlinable package mutating func varint() throws(ProtoDecodingError) -> UInt64 {
        let start = position
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while position < buffer.count {
            let byte = buffer[position]
            position += 1
            if shift == 63 {
                guard byte <= 1 else {
                    throw failure(byte & 0x80 != 0 ? .overlongVarint : .varintOverflow, at: start)
                }
                return result | UInt64(byte) << 63
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        throw failure(.truncatedVarint, at: start)
    }

    /// An int64, int32 or enum value (an int32 is written as its int64 sign extension).
    @inlinable package mutating func int64() throws(ProtoDecodingError) -> Int64 {
        Int64(bitPattern: try varint())
    }

    /// A bool: any nonzero varint is true.
    @inlinable package mutating func bool() throws(ProtoDecodingError) -> Bool {
        try varint() != 0
    }

    /// A fixed64 (little-endian).
    @inlinable package mutating func fixed64() throws(ProtoDecodingError) -> UInt64 {
        guard buffer.count - position >= 8 else {
            throw failure(.truncatedFixed(size: 8, remaining: buffer.count - position), at: position)
        }
        let value = buffer.loadUnaligned(fromByteOffset: position, as: UInt64.self)
        position += 8
        return UInt64(littleEndian: value)
    }

    /// A fixed32 (little-endian).
    @inlinable package mutating func fixed32() throws(ProtoDecodingError) -> UInt32 {
        guard buffer.count - position >= 4 else {
            throw failure(.truncatedFixed(size: 4, remaining: buffer.count - position), at: position)
        }
        let value = buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self)
        position += 4
        return UInt32(littleEndian: value)
    }

    /// A double.
    @inlinable package mutating func double() throws(ProtoDecodingError) -> Double {
        Double(bitPattern: try fixed64())
    }

    /// Where the next length-delimited field's contents are in the buffer.
    @inlinable package mutating func lengthDelimited() throws(ProtoDecodingError) -> Range<Int> {
        let start = position
        let length = try varint()
        let remaining = buffer.count - position
        guard length <= UInt64(remaining) else {
            throw failure(.lengthPastEnd(length: length, remaining: remaining), at: start)
        }
        let range = position..<position + Int(length)
        position = range.upperBound
        return range
    }

    /// The next length-delimited field's contents, borrowed from the buffer.
    @inlinable package mutating func bytes() throws(ProtoDecodingError) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[try lengthDelimited()])
    }

    /// The next length-delimited field as a reader of its own, whose errors count bytes from
    /// the outermost message.
    @inlinable package mutating func message() throws(ProtoDecodingError) -> ProtoReader {
        let range = try lengthDelimited()
        return ProtoReader(UnsafeRawBufferPointer(rebasing: buffer[range]), origin: origin + range.lowerBound)
    }

    /// The next length-delimited field as text; bytes that are not UTF-8 become U+FFFD.
    @inlinable package mutating func string() throws(ProtoDecodingError) -> String {
        String(decoding: try bytes(), as: UTF8.self)
    }

    /// Skips the value of a field of `wireType` whose tag was read.
    @inlinable package mutating func skip(_ wireType: WireType) throws(ProtoDecodingError) {
        switch wireType {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .lengthDelimited: _ = try lengthDelimited()
        case .fixed32: _ = try fixed32()
        }
    }
}
