/// Reads Protocol Buffers' binary format from bytes it borrows: tags, varints, fixed-width
/// values and length-delimited fields, each checked against the end of the input.
///
/// **Rule: nothing read traps.** A truncated value, a varint past ten bytes, field 0, a field
/// past 2^29 − 1, a group or an undefined wire type, a length past the end: each throws a
/// ``ProtoDecodingError`` naming the field and the byte, counted from the start of the outermost
/// message even inside a nested one (``message()``).
///
/// Inlined into its callers (the page decoder reads every field of every sample through it):
/// no allocation, no existential, one bounds check per byte read. Public, not `package`, though
/// no product exports it: Swift inlines an `@inlinable` body into another module only when it is
/// public; a `package` one is called, and the page decoder ran at half its speed.
public struct ProtoReader {
    /// The bytes read.
    @usableFromInline let buffer: UnsafeRawBufferPointer
    /// Where the next byte is.
    @usableFromInline var position: Int
    /// Where `buffer` starts in the outermost message, for errors.
    @usableFromInline let origin: Int
    /// The field whose tag was read last; 0 before the first.
    @usableFromInline var field: Int

    /// A reader of `buffer`, which starts `origin` bytes into the outermost message.
    @inlinable public init(_ buffer: UnsafeRawBufferPointer, origin: Int = 0) {
        self.buffer = buffer
        position = 0
        self.origin = origin
        field = 0
    }

    /// Whether every byte is read.
    @inlinable public var isAtEnd: Bool { position >= buffer.count }

    /// Where the next byte is, from the start of the outermost message.
    @inlinable public var offset: Int { origin + position }

    /// The bytes not read yet, borrowed from the buffer: a whole message, for a reader just
    /// made by ``message()``.
    @inlinable public var remaining: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[position...])
    }

    @usableFromInline func failure(_ reason: ProtoDecodingError.Reason, at position: Int) -> ProtoDecodingError {
        ProtoDecodingError(reason, offset: origin + position, field: field)
    }

    /// The next field's number and wire type, or nil at the end.
    @inlinable @inline(__always) public mutating func tag() throws(ProtoDecodingError) -> (number: Int, wireType: WireType)? {
        guard position < buffer.count else { return nil }
        let start = position
        field = 0
        let key = try varint()
        let number = key >> 3
        guard number != 0 else { throw failure(.fieldNumberZero, at: start) }
        guard number <= FieldNumber.max else { throw failure(.fieldNumberTooLarge(number), at: start) }
        field = Int(truncatingIfNeeded: number)
        let low = UInt8(truncatingIfNeeded: key & 7)
        guard let wireType = WireType(bits: low) else { throw failure(.unsupportedWireType(low), at: start) }
        return (field, wireType)
    }

    /// A varint: at most ten bytes, the tenth 0 or 1.
    @inlinable @inline(__always) public mutating func varint() throws(ProtoDecodingError) -> UInt64 {
        if position < buffer.count {
            let byte = buffer[position]
            if byte < 0x80 {
                position += 1
                return UInt64(byte)
            }
        }
        return try longVarint()
    }

    /// A varint of more than one byte, or none.
    @inlinable public mutating func longVarint() throws(ProtoDecodingError) -> UInt64 {
        let start = position
        var index = position
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while index < buffer.count {
            let byte = buffer[index]
            index += 1
            result |= UInt64(byte & 0x7F) &<< shift
            if byte < 0x80 {
                guard shift < 63 || byte <= 1 else { throw failure(.varintOverflow, at: start) }
                position = index
                return result
            }
            shift &+= 7
            guard shift < 64 else { throw failure(.overlongVarint, at: start) }
        }
        throw failure(.truncatedVarint, at: start)
    }

    /// An int64, int32 or enum value (an int32 is written as its int64 sign extension).
    @inlinable @inline(__always) public mutating func int64() throws(ProtoDecodingError) -> Int64 {
        Int64(bitPattern: try varint())
    }

    /// A bool: any nonzero varint is true.
    @inlinable @inline(__always) public mutating func bool() throws(ProtoDecodingError) -> Bool {
        try varint() != 0
    }

    /// A fixed64 (little-endian).
    @inlinable @inline(__always) public mutating func fixed64() throws(ProtoDecodingError) -> UInt64 {
        guard buffer.count - position >= 8 else {
            throw failure(.truncatedFixed(size: 8, remaining: buffer.count - position), at: position)
        }
        let value = buffer.loadUnaligned(fromByteOffset: position, as: UInt64.self)
        position += 8
        return UInt64(littleEndian: value)
    }

    /// A fixed32 (little-endian).
    @inlinable @inline(__always) public mutating func fixed32() throws(ProtoDecodingError) -> UInt32 {
        guard buffer.count - position >= 4 else {
            throw failure(.truncatedFixed(size: 4, remaining: buffer.count - position), at: position)
        }
        let value = buffer.loadUnaligned(fromByteOffset: position, as: UInt32.self)
        position += 4
        return UInt32(littleEndian: value)
    }

    /// A double.
    @inlinable @inline(__always) public mutating func double() throws(ProtoDecodingError) -> Double {
        Double(bitPattern: try fixed64())
    }

    /// Where the next length-delimited field's contents are in the buffer.
    @inlinable @inline(__always) public mutating func lengthDelimited() throws(ProtoDecodingError) -> Range<Int> {
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
    @inlinable @inline(__always) public mutating func bytes() throws(ProtoDecodingError) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: buffer[try lengthDelimited()])
    }

    /// The next length-delimited field as a reader of its own, whose errors count bytes from
    /// the outermost message.
    @inlinable @inline(__always) public mutating func message() throws(ProtoDecodingError) -> ProtoReader {
        let range = try lengthDelimited()
        return ProtoReader(UnsafeRawBufferPointer(rebasing: buffer[range]), origin: origin + range.lowerBound)
    }

    /// The next length-delimited field as text; bytes that are not UTF-8 become U+FFFD.
    @inlinable public mutating func string() throws(ProtoDecodingError) -> String {
        String(decoding: try bytes(), as: UTF8.self)
    }

    /// Skips the value of a field of `wireType` whose tag was read.
    @inlinable @inline(__always) public mutating func skip(_ wireType: WireType) throws(ProtoDecodingError) {
        switch wireType {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .lengthDelimited: _ = try lengthDelimited()
        case .fixed32: _ = try fixed32()
        }
    }
}
