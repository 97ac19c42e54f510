/// The FIT CRC-16: the reflected CRC with polynomial 0x8005 (0xA001 reflected), initial value 0,
/// no final XOR, as the protocol computes it over a file's header (its first 12 bytes, stored in
/// bytes 12–13) and over the whole file before its last two bytes (stored there, little-endian).
public struct FITCRC: Sendable {
    /// The CRC of the bytes given so far.
    public private(set) var value: UInt16 = 0

    private static let table: [UInt16] = (0..<256).map { byte in
        var crc = UInt16(byte)
        for _ in 0..<8 {
            crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1
        }
        return crc
    }

    /// A CRC of no bytes (0).
    public init() {}

    /// Adds `bytes` to the CRC.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = value
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = (crc >> 8) ^ table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)]
            }
        }
        value = crc
    }

    /// The CRC of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc = FITCRC()
        let array = Array(bytes)
        array.withUnsafeBytes { crc.update($0) }
        return crc.value
    }
}
