import SalusFIT

/// Builds FIT files byte by byte for the tests, from the protocol's description (not from the
/// decoder): a header, definition and data messages, a CRC computed bit by bit.
struct FITBuilder {
    /// The data records written so far.
    var records: [UInt8] = []

    /// A field definition: number, size, base type byte.
    typealias Field = (number: UInt8, size: UInt8, baseType: UInt8)

    /// Writes a definition message for `local`.
    mutating func define(local: UInt8, global: UInt16, bigEndian: Bool = false, _ fields: [Field], developer: [Field] = []) {
        records.append(0x40 | (developer.isEmpty ? 0 : 0x20) | local)
        records.append(0)
        records.append(bigEndian ? 1 : 0)
        records += bigEndian ? be16(global) : le16(global)
        records.append(UInt8(fields.count))
        for field in fields { records += [field.number, field.size, field.baseType] }
        if !developer.isEmpty {
            records.append(UInt8(developer.count))
            for field in developer { records += [field.number, field.size, field.baseType] }
        }
    }

    /// Writes a data message of `local` with a normal header.
    mutating func data(local: UInt8, _ content: [UInt8]) {
        records.append(local)
        records += content
    }

    /// Writes a data message of `local` (0–3) with a compressed-timestamp header.
    mutating func compressed(local: UInt8, offset: UInt8, _ content: [UInt8]) {
        records.append(0x80 | local << 5 | (offset & 0x1F))
        records += content
    }

    /// The whole file: header (14 bytes with its CRC, or 12), the records, the file CRC.
    func file(headerSize: Int = 14, headerCRC: UInt16? = nil) -> [UInt8] {
        var header: [UInt8] = [UInt8(headerSize), 0x20] + le16(2132) + le32(UInt32(records.count)) + Array(".FIT".utf8)
        if headerSize == 14 { header += le16(headerCRC ?? Self.crc(header)) }
        let body = header + records
        return body + le16(Self.crc(body))
    }

    /// The FIT CRC-16 (reflected, polynomial 0xA001, initial 0), bit by bit.
    static func crc(_ bytes: [UInt8]) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }
}

func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
func be16(_ value: UInt16) -> [UInt8] { le16(value).reversed() }
func be32(_ value: UInt32) -> [UInt8] { le32(value).reversed() }

/// Base type bytes as a definition writes them.
enum BaseTypeByte {
    static let enumeration: UInt8 = 0x00
    static let sint8: UInt8 = 0x01
    static let uint8: UInt8 = 0x02
    static let sint16: UInt8 = 0x83
    static let uint16: UInt8 = 0x84
    static let sint32: UInt8 = 0x85
    static let uint32: UInt8 = 0x86
    static let string: UInt8 = 0x07
    static let float32: UInt8 = 0x88
    static let float64: UInt8 = 0x89
    static let uint8z: UInt8 = 0x0A
    static let uint16z: UInt8 = 0x8B
    static let uint32z: UInt8 = 0x8C
    static let byte: UInt8 = 0x0D
    static let sint64: UInt8 = 0x8E
    static let uint64: UInt8 = 0x8F
    static let uint64z: UInt8 = 0x90
}

/// A seeded generator (SplitMix64), so a failing run can be repeated.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
