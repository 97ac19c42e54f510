import NIOCore

/// The kind of a frame: the ninth byte of its header.
///
/// The first three are ttrpc's; the others are the extension frames that a client enables by
/// calling `salus.v1.Session/Hello`. Unknown types are kept as they are so that a reader can
/// ignore them, as ttrpc servers do.
package struct FrameType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt8

    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Starts a call on a new stream (client to server).
    package static let request = FrameType(rawValue: 0x01)
    /// Ends a call with its status (server to client).
    package static let response = FrameType(rawValue: 0x02)
    /// One stream message, either way.
    package static let data = FrameType(rawValue: 0x03)
    /// Cancels the call on this stream (client to server, empty payload).
    package static let cancel = FrameType(rawValue: 0x04)
    /// Grants the sender of Data frames more credits on this stream.
    package static let windowUpdate = FrameType(rawValue: 0x05)
    /// The server is shutting down (stream id 0).
    package static let goAway = FrameType(rawValue: 0x06)

    package var description: String {
        switch self {
        case .request: "Request"
        case .response: "Response"
        case .data: "Data"
        case .cancel: "Cancel"
        case .windowUpdate: "WindowUpdate"
        case .goAway: "GoAway"
        default: "type 0x\(String(rawValue, radix: 16))"
        }
    }
}

/// The flags of a frame: the tenth byte of its header.
package struct FrameFlags: OptionSet, Hashable, Sendable {
    package var rawValue: UInt8

    package init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The sender sends no more messages on this stream.
    package static let remoteClosed = FrameFlags(rawValue: 0x01)
    /// The sender will stream more messages in Data frames.
    package static let remoteOpen = FrameFlags(rawValue: 0x02)
    /// A Data frame that only carries flags: its payload is not a message.
    package static let noData = FrameFlags(rawValue: 0x04)
}

/// One frame: a 10-byte header (u32 payload length, u32 stream id, u8 type, u8 flags, all
/// big-endian) followed by the payload.
package struct Frame: Hashable, Sendable {
    package var streamID: UInt32
    package var type: FrameType
    package var flags: FrameFlags
    package var payload: ByteBuffer

    package init(streamID: UInt32, type: FrameType, flags: FrameFlags = [], payload: ByteBuffer = ByteBuffer()) {
        self.streamID = streamID
        self.type = type
        self.flags = flags
        self.payload = payload
    }
}

/// The fixed limits of the wire.
package enum WireLimits {
    /// Bytes in a frame header.
    package static let headerSize = 10
    /// The largest payload of one frame (4 MiB). Larger frames fail their stream with
    /// RESOURCE_EXHAUSTED.
    package static let maxFramePayload = 4 << 20
    /// The largest total size of a request's metadata keys and values (8 KiB).
    package static let maxMetadataSize = 8 << 10
}

/// A violation of the framing that makes the rest of the byte stream unreadable; the
/// connection is closed.
package struct ProtocolViolation: Error, CustomStringConvertible {
    package var description: String
}

/// Encoding and decoding of single frames from byte arrays (for tests, vectors and tools).
package enum FrameCoding {
    /// The bytes of `frame`: its header, then its payload.
    package static func encode(_ frame: Frame) -> [UInt8] {
        var buffer = ByteBuffer()
        write(frame, to: &buffer)
        return Array(buffer.readableBytesView)
    }

    /// Decodes one frame from the start of `bytes`; nil when more bytes are needed.
    ///
    /// Throws ``ProtocolViolation`` when the header's first byte is not zero and when the
    /// payload is longer than ``WireLimits/maxFramePayload``.
    package static func decode(_ bytes: [UInt8]) throws -> (frame: Frame, consumed: Int)? {
        var buffer = ByteBuffer(bytes: bytes)
        guard let header = try readHeader(&buffer) else { return nil }
        if header.length > WireLimits.maxFramePayload {
            throw ProtocolViolation(description: "frame payload of \(header.length) bytes exceeds the 4 MiB limit")
        }
        guard let payload = buffer.readSlice(length: Int(header.length)) else { return nil }
        let frame = Frame(streamID: header.streamID, type: header.type, flags: header.flags, payload: payload)
        return (frame, WireLimits.headerSize + Int(header.length))
    }

    struct Header {
        var length: UInt32
        var streamID: UInt32
        var type: FrameType
        var flags: FrameFlags
    }

    /// Reads a header if 10 bytes are there; throws on a non-zero first byte.
    static func readHeader(_ buffer: inout ByteBuffer) throws -> Header? {
        guard buffer.readableBytes >= WireLimits.headerSize else { return nil }
        let start = buffer.readerIndex
        guard let first = buffer.getInteger(at: start, as: UInt8.self), first == 0 else {
            let length = buffer.getInteger(at: start, as: UInt32.self) ?? 0
            throw ProtocolViolation(
                description: "frame header declares \(length) bytes: the first byte must be zero (payloads are at most 4 MiB)"
            )
        }
        let length = buffer.readInteger(as: UInt32.self)!
        let streamID = buffer.readInteger(as: UInt32.self)!
        let type = buffer.readInteger(as: UInt8.self)!
        let flags = buffer.readInteger(as: UInt8.self)!
        return Header(length: length, streamID: streamID, type: FrameType(rawValue: type), flags: FrameFlags(rawValue: flags))
    }

    static func write(_ frame: Frame, to buffer: inout ByteBuffer) {
        buffer.reserveCapacity(minimumWritableBytes: WireLimits.headerSize + frame.payload.readableBytes)
        writeHeader(of: frame, to: &buffer)
        var payload = frame.payload
        buffer.writeBuffer(&payload)
    }

    /// Writes the 10-byte header of `frame`: its payload's length, stream, type and flags.
    static func writeHeader(of frame: Frame, to buffer: inout ByteBuffer) {
        buffer.writeInteger(UInt32(frame.payload.readableBytes))
        buffer.writeInteger(frame.streamID)
        buffer.writeInteger(frame.type.rawValue)
        buffer.writeInteger(frame.flags.rawValue)
    }
}
