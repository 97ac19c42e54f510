import NIOCore
import SalusProto

/// What the client and the server side of a connection share: a channel of frames, a gate on
/// its writability, and what to do with each decoded frame and with the channel's end.
protocol FrameConnection: AnyObject, Sendable {
    var channel: any Channel { get }
    var writability: WritabilityGate { get }

    /// A decoded frame, on the event loop.
    func receive(_ inbound: InboundFrame)
    /// The channel's current read ended: every frame it held has been passed to ``receive(_:)``.
    func readComplete()
    /// The channel closed: every call on it ends.
    func channelClosed()
    /// The channel failed with `error`; it is closed right after.
    func channelFailed(_ error: any Error)
}

extension FrameConnection {
    func readComplete() {}

    func write(_ frame: Frame) {
        channel.writeAndFlush(frame, promise: nil)
    }

    /// Grants the peer `credits` more Data frames on `streamID`.
    func sendWindowUpdate(streamID: UInt32, credits: Int) {
        var update = Salus_V1_WindowUpdate()
        update.credits = UInt32(clamping: credits)
        if let payload = try? encodeMessage(update) {
            write(Frame(streamID: streamID, type: .windowUpdate, payload: payload))
        }
    }

    /// Adds the frame decoder, the encoder and the handler feeding this connection to the
    /// channel's pipeline; call on the event loop.
    ///
    /// `stalledFrameTimeout`: a connection that has sent part of a frame and then nothing for
    /// this long is closed (a slow-loris peer holding the server's buffers and descriptors);
    /// nil for none. A connection with no partial frame is never closed for being quiet.
    func installHandlers(stalledFrameTimeout: TimeAmount? = nil) throws {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(ByteToMessageHandler(FrameDecoder(stalledFrameTimeout: stalledFrameTimeout)))
        try pipeline.addHandler(FrameEncoder())
        try pipeline.addHandler(FrameConnectionHandler(connection: self))
    }
}

/// Feeds decoded frames to a connection, keeps its writability gate current, and tells it when
/// the channel closes or fails.
final class FrameConnectionHandler<Connection: FrameConnection>: ChannelInboundHandler {
    typealias InboundIn = InboundFrame

    let connection: Connection

    init(connection: Connection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection.receive(unwrapInboundIn(data))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        connection.readComplete()
        context.fireChannelReadComplete()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        connection.writability.update(writable: context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.channelClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        connection.channelFailed(error)
        context.close(promise: nil)
    }
}
