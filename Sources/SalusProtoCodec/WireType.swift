/// Protocol Buffers' wire types that `salus.v1` uses, and the limits of a tag.
///
/// Groups (wire types 3 and 4) are proto2's and appear in no `salus.v1` message: a tag carrying
/// one is refused, as are wire types 6 and 7, which protobuf does not define.
public enum WireType: Sendable {
    /// int32, int64, uint32, uint64, bool, enum (0).
    case varint
    /// double, fixed64, sfixed64 (1).
    case fixed64
    /// string, bytes, messages, packed repeated fields (2).
    case lengthDelimited
    /// float, fixed32, sfixed32 (5).
    case fixed32

    /// The wire type of a tag's low three bits; nil for 3 and 4 (groups), 6 and 7.
    @inlinable @inline(__always) public init?(bits: UInt8) {
        switch bits {
        case 0: self = .varint
        case 1: self = .fixed64
        case 2: self = .lengthDelimited
        case 5: self = .fixed32
        default: return nil
        }
    }

    /// The three bits that stand for this wire type in a tag.
    @inlinable @inline(__always) public var bits: UInt64 {
        switch self {
        case .varint: 0
        case .fixed64: 1
        case .lengthDelimited: 2
        case .fixed32: 5
        }
    }
}

/// The field numbers a tag may carry.
public enum FieldNumber {
    /// The highest field number protobuf allows, 2^29 − 1; 0 is never a field.
    @inlinable @inline(__always) public static var max: UInt64 { 0x1FFF_FFFF }
}
