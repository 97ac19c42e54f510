/// Something wrong in the bytes: where (the byte offset in the bytes decoded), what was found and
/// what the protocol expects there. A problem that ``isFatal`` ended the decoding of its FIT file
/// at ``offset``: the messages before it are whole and returned; the others cost one field or one
/// timestamp, and the decoding went on.
public struct FITProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem.
    public enum Kind: String, Sendable, Equatable {
        /// The bytes do not start with a FIT file header (size 12 or more, ".FIT" at bytes 8–11).
        case notFIT
        /// The header's CRC (bytes 12–13, when not 0) is not the CRC of its first 12 bytes.
        case headerCRC
        /// The file's CRC (its last two bytes) is not the CRC of the bytes before it.
        case fileCRC
        /// The file ends before its header's data size, or in the middle of a message.
        case truncated
        /// A data message of a local message type that no definition before it defined.
        case undefinedLocalMessage
        /// A definition's architecture byte is neither 0 (little-endian) nor 1 (big-endian).
        case architecture
        /// A field definition whose size is no multiple of its base type's size, or whose base
        /// type the protocol does not define: the field's values are read as bytes.
        case fieldSize
        /// A compressed-timestamp header with no full timestamp before it in its file.
        case timestampWithoutReference
        /// A timestamp far after the file's time of creation (past
        /// ``FITDecoder/Options/maximumSpan``): refused, the message is kept without it.
        case timestampOutOfRange
        /// Bytes after the last FIT file that are not another FIT file.
        case trailingBytes
        /// More messages than ``FITDecoder/Options/maximumMessages``: the decoding stopped.
        case tooManyMessages
    }

    /// What kind of problem.
    public var kind: Kind
    /// The byte offset in the bytes decoded where the problem is.
    public var offset: Int
    /// What was found and what was expected, naming the message and field where there is one.
    public var message: String
    /// Whether the decoding of this FIT file stopped here.
    public var isFatal: Bool

    /// A problem of `kind` at byte `offset`, described by `message`.
    public init(_ kind: Kind, at offset: Int, _ message: String, fatal: Bool) {
        self.kind = kind
        self.offset = offset
        self.message = message
        self.isFatal = fatal
    }

    /// "byte OFFSET: MESSAGE".
    public var description: String { "byte \(offset): \(message)" }
}
