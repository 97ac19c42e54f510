/// A FIT base type: how a field's bytes are read, and which value of them means "no value".
///
/// The protocol gives each base type a number (the low five bits of the base type byte of a field
/// definition; bit 7 says whether the type has an endianness), a size in bytes and one invalid
/// value. A field may hold several values of its type (an array): its size is then a multiple of
/// the type's size.
public enum FITBaseType: UInt8, Sendable, CaseIterable {
    case enumeration = 0x00
    case sint8 = 0x01
    case uint8 = 0x02
    case sint16 = 0x03
    case uint16 = 0x04
    case sint32 = 0x05
    case uint32 = 0x06
    case string = 0x07
    case float32 = 0x08
    case float64 = 0x09
    case uint8z = 0x0A
    case uint16z = 0x0B
    case uint32z = 0x0C
    case byte = 0x0D
    case sint64 = 0x0E
    case uint64 = 0x0F
    case uint64z = 0x10

    /// The base type of a field definition's base type byte (its low five bits), or nil for a
    /// number the protocol does not define.
    public init?(definitionByte: UInt8) {
        self.init(rawValue: definitionByte & 0x1F)
    }

    /// The size of one value, in bytes.
    public var size: Int {
        switch self {
        case .enumeration, .sint8, .uint8, .string, .uint8z, .byte: 1
        case .sint16, .uint16, .uint16z: 2
        case .sint32, .uint32, .float32, .uint32z: 4
        case .float64, .sint64, .uint64, .uint64z: 8
        }
    }

    /// The protocol's name of the type.
    public var name: String {
        switch self {
        case .enumeration: "enum"
        case .sint8: "sint8"
        case .uint8: "uint8"
        case .sint16: "sint16"
        case .uint16: "uint16"
        case .sint32: "sint32"
        case .uint32: "uint32"
        case .string: "string"
        case .float32: "float32"
        case .float64: "float64"
        case .uint8z: "uint8z"
        case .uint16z: "uint16z"
        case .uint32z: "uint32z"
        case .byte: "byte"
        case .sint64: "sint64"
        case .uint64: "uint64"
        case .uint64z: "uint64z"
        }
    }

    /// Whether the type is signed.
    var isSigned: Bool {
        switch self {
        case .sint8, .sint16, .sint32, .sint64: true
        default: false
        }
    }

    /// The invalid value's bits, as an unsigned integer of the type's size (for the `z` types 0,
    /// for the signed types the largest positive value, for the rest all ones).
    var invalidBits: UInt64 {
        switch self {
        case .enumeration, .uint8, .byte: 0xFF
        case .sint8: 0x7F
        case .sint16: 0x7FFF
        case .uint16: 0xFFFF
        case .sint32: 0x7FFF_FFFF
        case .uint32, .float32: 0xFFFF_FFFF
        case .float64, .uint64: 0xFFFF_FFFF_FFFF_FFFF
        case .sint64: 0x7FFF_FFFF_FFFF_FFFF
        case .uint8z, .uint16z, .uint32z, .uint64z, .string: 0
        }
    }
}
