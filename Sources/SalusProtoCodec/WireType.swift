/// Protocol Buffers' wire types that `salus.v1` uses, and the limits of a tag.
///
/// Groups (wire types 3 and 4) are proto2's and appear in no `salus.v1` message: a tag carrying
/// one is refused, as are wire types 6 and 7, which protobuf does not define.
package enum WireType: UInt8, Sendable {
    /// int32, int64, uint32, uint64, bool, enum.
    case varint = 0
    /// double, fixed64, sfixed64.
    case fixed64 = 1
    /// string, bytes, messages, packed repeated fields.
    case lengthDelimited = 2
    /// float, fixed32, sfixed32.
    case fixed32 = 5
}

/// The field numbers a tag may carry.
package enum FieldNumber {
    /// The highest field number protobuf allows, 2^29 − 1; 0 is never a field.
    @inlinable package static var max: UInt64 { (1 << 29) - 1 }
}
