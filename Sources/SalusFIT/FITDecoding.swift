/// The header of one FIT file in the bytes decoded (several when files are chained back to back),
/// with what its CRCs said.
public struct FITFileHeader: Sendable, Equatable {
    /// The byte offset of the header in the bytes decoded.
    public var offset: Int
    /// The header's size: 12, or 14 with a header CRC.
    public var headerSize: Int
    /// The protocol version byte (0x20 is 2.0).
    public var protocolVersion: UInt8
    /// The profile version (2015 is 20.15).
    public var profileVersion: UInt16
    /// The size of the data records the header announces, in bytes.
    public var dataSize: UInt32
    /// The header's CRC, nil for a 12-byte header.
    public var headerCRC: UInt16?
    /// Whether the header's CRC is the CRC of its first 12 bytes; nil when there is none or it is
    /// 0 (the protocol's "not computed").
    public var headerCRCValid: Bool?
    /// Whether the file's CRC is the CRC of the bytes before it; nil when the file ends before it.
    public var fileCRCValid: Bool?
    /// How many bytes the file lacks to hold the data size and the CRC its header announces.
    public var bytesMissing: Int
}

/// A developer field as a `field_description` message describes it.
public struct FITDeveloperFieldDescription: Sendable, Equatable {
    /// Which FIT file of a chain described it.
    public var fileIndex: Int
    /// The developer (`developer_data_id`) whose field it is.
    public var developerDataIndex: UInt8
    /// The field's number among that developer's fields, as data messages' definitions name it.
    public var number: UInt8
    /// The base type of its values; nil when the description gave a number the protocol does not define.
    public var baseType: FITBaseType?
    /// The field's name, as the developer wrote it.
    public var name: String?
    /// The units of its values, as the developer wrote them.
    public var units: String?
    /// The native message and field it stands for, if any.
    public var nativeMessageNumber: UInt16?
    public var nativeFieldNumber: UInt8?
}

/// What decoding bytes gave: each FIT file's header, the messages (unless a visitor took them),
/// the developer fields described, and every problem met, in order.
public struct FITDecoding: Sendable {
    /// The header of each FIT file of the chain, in order.
    public var files: [FITFileHeader] = []
    /// The data messages in file order (empty when they went to a visitor).
    public var messages: [FITMessage] = []
    /// Every developer field described (`field_description`), in file order.
    public var developerFields: [FITDeveloperFieldDescription] = []
    /// Every problem met, in file order.
    public var problems: [FITProblem] = []
    /// How many data messages were decoded.
    public var messageCount = 0

    /// The messages of one global number, in file order.
    public func messages(_ globalNumber: UInt16) -> [FITMessage] {
        messages.filter { $0.globalNumber == globalNumber }
    }

    /// Whether the bytes were decoded to their end without a fatal problem.
    public var isWhole: Bool { !problems.contains(where: \.isFatal) }
}
