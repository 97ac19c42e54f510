/// Writes Protocol Buffers' binary format at a raw pointer, into room the caller has reserved:
/// the primitive under ``ProtoBytes``, and what writes a page sized beforehand.
///
/// Fields follow proto3's rules as SwiftProtobuf writes them: a scalar at its default (0, an
/// empty string, a double whose bit pattern is 0) is left out unless it is a oneof member or a map
/// entry's key or value, which are always written (`always`).
public struct ProtoWriter {
    /// Where the next byte goes.
    public var cursor: UnsafeMutablePointer<UInt8>

    /// A writer at `cursor`.
    @inlinable public init(cursor: UnsafeMutablePointer<UInt8>) {
        self.cursor = cursor
    }

    /// The most bytes a varint takes.
    @inlinable public static var maxVarint: Int { 10 }

    /// The bytes a varint of `value` takes.
    @inlinable @inline(__always) public static func varintSize(_ value: UInt64) -> Int {
        var size = 1
        var rest = value >> 7
        while rest != 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    /// A varint, with no tag.
    @inlinable @inline(__always) public mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            cursor.pointee = UInt8(truncatingIfNeeded: rest) | 0x80
            cursor += 1
            rest >>= 7
        }
        cursor.pointee = UInt8(rest)
        cursor += 1
    }

    /// A tag: `field` (1 to 2^29 − 1) and `wireType`.
    @inlinable @inline(__always) public mutating func tag(_ field: UInt64, _ wireType: WireType) {
        assert(field != 0 && field <= FieldNumber.max, "field number \(field)")
        varint(field << 3 | wireType.bits)
    }

    /// An int64 (or int32, or an enum) field: at most 20 bytes.
    @inlinable @inline(__always) public mutating func int64(_ field: UInt64, _ value: Int64, always: Bool = false) {
        guard always || value != 0 else { return }
        tag(field, .varint)
        varint(UInt64(bitPattern: value))
    }

    /// A uint64 (or uint32) field: at most 20 bytes.
    @inlinable @inline(__always) public mutating func uint64(_ field: UInt64, _ value: UInt64, always: Bool = false) {
        guard always || value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    /// A double field: at most 18 bytes.
    @inlinable @inline(__always) public mutating func double(_ field: UInt64, _ value: Double, always: Bool = false) {
        guard always || value.bitPattern != 0 else { return }
        tag(field, .fixed64)
        UnsafeMutableRawPointer(cursor).storeBytes(of: value.bitPattern.littleEndian, as: UInt64.self)
        cursor += 8
    }

    /// `raw`, as it is.
    @inlinable @inline(__always) public mutating func copy(_ raw: UnsafeRawBufferPointer) {
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        UnsafeMutableRawPointer(cursor).copyMemory(from: base, byteCount: raw.count)
        cursor += raw.count
    }
}
