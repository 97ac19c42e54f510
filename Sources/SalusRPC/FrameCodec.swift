import NIOCore

/// What the frame decoder passes on: a whole frame, or the header of one whose payload was
/// over the limit and has been skipped.
enum InboundFrame: Sendable {
    case frame(Frame)
    case oversized(streamID: UInt32, type: FrameType, length: UInt32)
}

/// Splits the byte stream into frames. A payload over 4 MiB is skipped without buffering and
/// reported as `.oversized`, so only that stream fails; a header whose first byte is not zero
/// throws ``ProtocolViolation`` and the connection is closed.
struct FrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = InboundFrame

    private var skipping: (header: FrameCoding.Header, remaining: Int)?
    /// How long a partial frame may wait for its next byte; nil: for ever.
    let stalledFrameTimeout: TimeAmount?
    /// Closes the connection when the partial frame waited `stalledFrameTimeout`.
    private var stallTimer: Scheduled<Void>?

    init(stalledFrameTimeout: TimeAmount? = nil) {
        self.stalledFrameTimeout = stalledFrameTimeout
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let state = try decodeFrame(context: context, buffer: &buffer)
        guard let timeout = stalledFrameTimeout else { return state }
        // Bytes arrived or a frame completed: the wait starts again, and only while part of a
        // frame is held. The timer is cancelled on a completed frame too: the handler does not
        // call `decode` again once the buffer is empty, so a timer left from the frame's first
        // part would otherwise close a healthy connection later.
        stallTimer?.cancel()
        stallTimer = nil
        if state == .needMoreData, buffer.readableBytes > 0 || skipping != nil {
            let channel = context.channel
            stallTimer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
        }
        return state
    }

    private mutating func decodeFrame(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        if let (header, remaining) = skipping {
            let take = min(remaining, buffer.readableBytes)
            buffer.moveReaderIndex(forwardBy: take)
            if take < remaining {
                skipping = (header, remaining - take)
                return .needMoreData
            }
            skipping = nil
            context.fireChannelRead(
                wrapInboundOut(.oversized(streamID: header.streamID, type: header.type, length: header.length))
            )
            return .continue
        }
        let saved = buffer.readerIndex
        guard let header = try FrameCoding.readHeader(&buffer) else { return .needMoreData }
        if header.length > WireLimits.maxFramePayload {
            skipping = (header, Int(header.length))
            return .continue
        }
        guard let payload = buffer.readSlice(length: Int(header.length)) else {
            buffer.moveReaderIndex(to: saved)
            return .needMoreData
        }
        let frame = Frame(streamID: header.streamID, type: header.type, flags: header.flags, payload: payload)
        context.fireChannelRead(wrapInboundOut(.frame(frame)))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        stallTimer?.cancel()
        stallTimer = nil
        while try decodeFrame(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

/// Writes frames. A small frame goes out as one buffer, header and payload together. A large
/// payload (a page of samples) is not copied: its header goes in a buffer of its own, and the
/// two are written one after the other, which the channel sends with one gathering write.
package final class FrameEncoder: ChannelOutboundHandler {
    package typealias OutboundIn = Frame
    package typealias OutboundOut = ByteBuffer

    /// The payload size from which a frame's payload is sent as it is rather than copied
    /// after its header: below it, one buffer costs less than a second entry in the write.
    package static let separatePayload = 4096

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let frame = unwrapOutboundIn(data)
        if frame.payload.readableBytes >= Self.separatePayload {
            var header = context.channel.allocator.buffer(capacity: WireLimits.headerSize)
            FrameCoding.writeHeader(of: frame, to: &header)
            context.write(wrapOutboundOut(header), promise: nil)
            context.write(wrapOutboundOut(frame.payload), promise: promise)
        } else {
            var buffer = context.channel.allocator.buffer(capacity: WireLimits.headerSize + frame.payload.readableBytes)
            FrameCoding.write(frame, to: &buffer)
            context.write(wrapOutboundOut(buffer), promise: promise)
        }
    }
}
