import Foundation
import NIOCore
import SalusProto
import SalusRPC
import SalusServer
import Testing

/// What a client written from docs/protocol.md alone relies on.
@Suite("The server does what docs/protocol.md says")
struct ProtocolConformanceTests {
    /// Calls Hello on stream 1 listing `features`; returns the server's answer.
    private func hello(_ raw: RawConnection, features: [String]) async throws -> Salus_V1_HelloResponse {
        var request = Salus_V1_HelloRequest()
        request.protocolVersion = 1
        request.clientName = "conformance"
        request.features = features
        await raw.write(try requestFrame(streamID: 1, method: SalusMethods.Session.hello.descriptor, payload: try request.serializedBytes()))
        let frame = try #require(await raw.readFrame())
        let response = try Salus_V1_Response(serializedBytes: Array(frame.payload.readableBytesView))
        #expect(response.status.code == 0)
        return try Salus_V1_HelloResponse(serializedBytes: response.payload)
    }

    /// Reads frames of `streamID` until its Response, at most `limit` frames; nil when none came.
    private func response(_ raw: RawConnection, streamID: UInt32, limit: Int = 1_000) async -> (status: RPCError?, data: Int, windowUpdates: Int) {
        var data = 0
        var windowUpdates = 0
        for _ in 0..<limit {
            guard let frame = await raw.readFrame() else { break }
            guard frame.streamID == streamID else { continue }
            switch frame.type {
            case .response: return (status(of: frame), data, windowUpdates)
            case .data: data += 1
            case .windowUpdate: windowUpdates += 1
            default: break
            }
        }
        return (nil, data, windowUpdates)
    }

    @Test("a Data frame with a message on a unary call fails it with INVALID_ARGUMENT and ends its handler")
    func dataOnUnaryCall() async throws {
        let server = try await TestServer.start()
        let raw = try RawConnection(path: server.socketPath, receiveTimeout: 3)
        let echo = try echoRequest("x").serializedBytes() as [UInt8]
        await raw.write(try requestFrame(streamID: 1, method: TestServer.block.descriptor, payload: echo))
        #expect(await eventually { server.probe.started == 1 })
        await raw.write(Frame(streamID: 1, type: .data, payload: ByteBuffer(bytes: echo)))
        let error = await response(raw, streamID: 1).status
        #expect(error?.code == .invalidArgument)
        #expect(error?.detail?.field == "stream_id")
        #expect(await eventually { server.probe.cancelled == 1 })
        // The connection goes on.
        await raw.write(try requestFrame(streamID: 3, method: SalusMethods.Diagnostics.echo.descriptor, payload: echo))
        #expect(await response(raw, streamID: 3).status?.code == .ok)
        await server.stop()
    }

    @Test("a Data frame with a message on a server-streaming call fails it with INVALID_ARGUMENT")
    func dataOnServerStreamingCall() async throws {
        let server = try await TestServer.start()
        let raw = try RawConnection(path: server.socketPath, receiveTimeout: 3)
        _ = try await hello(raw, features: ["cancel", "window_update", "go_away"])
        let echo = try echoRequest("x").serializedBytes() as [UInt8]
        await raw.write(try requestFrame(
            streamID: 3, method: TestServer.infinite.descriptor, payload: echo, flags: [.remoteClosed]
        ))
        #expect(await eventually { server.probe.sent >= 64 })
        await raw.write(Frame(streamID: 3, type: .data, payload: ByteBuffer(bytes: echo)))
        let result = await response(raw, streamID: 3)
        #expect(result.status?.code == .invalidArgument)
        #expect(result.data == 64)
        #expect(await eventually { server.probe.cancelled == 1 })
        await server.stop()
    }

    @Test("a close-only Data frame on a unary call is accepted")
    func closeOnUnaryCall() async throws {
        let server = try await TestServer.start()
        let raw = try RawConnection(path: server.socketPath, receiveTimeout: 3)
        let echo = try echoRequest("x").serializedBytes() as [UInt8]
        await raw.write(try requestFrame(streamID: 1, method: SalusMethods.Diagnostics.sleep.descriptor, payload: [0x08, 0x64]))
        await raw.write(Frame(streamID: 1, type: .data, flags: [.remoteClosed, .noData]))
        #expect(await response(raw, streamID: 1).status?.code == .ok)
        await raw.write(try requestFrame(streamID: 3, method: SalusMethods.Diagnostics.echo.descriptor, payload: echo))
        #expect(await response(raw, streamID: 3).status?.code == .ok)
        await server.stop()
    }

    @Test("a client whose Hello lists no features gets no windows, no WindowUpdate and no GoAway")
    func helloWithoutFeatures() async throws {
        let server = try await TestServer.start()
        let raw = try RawConnection(path: server.socketPath, receiveTimeout: 3)
        let answer = try await hello(raw, features: [])
        #expect(answer.features.isEmpty)
        var request = Salus_V1_GenerateRequest()
        request.count = 300
        await raw.write(try requestFrame(
            streamID: 3, method: SalusMethods.Diagnostics.generate.descriptor, payload: try request.serializedBytes(), flags: [.remoteClosed]
        ))
        let result = await response(raw, streamID: 3, limit: 400)
        #expect(result.status?.code == .ok)
        #expect(result.data == 300)
        // Client streaming: the server grants nothing either.
        await raw.write(try requestFrame(streamID: 5, method: SalusMethods.Diagnostics.collect.descriptor, payload: [], flags: [.remoteOpen]))
        let echo = try echoRequest("x").serializedBytes() as [UInt8]
        for _ in 0..<40 { await raw.write(Frame(streamID: 5, type: .data, payload: ByteBuffer(bytes: echo))) }
        await raw.write(Frame(streamID: 5, type: .data, flags: [.remoteClosed, .noData]))
        let collected = await response(raw, streamID: 5)
        #expect(collected.status?.code == .ok)
        #expect(collected.windowUpdates == 0)
        // Shutdown closes the connection without a GoAway frame.
        async let stopped: Void = server.stop()
        let next = await raw.readFrame()
        #expect(next == nil, "got \(String(describing: next?.type))")
        await stopped
    }

    @Test("a client's Hello turns on only the features it lists")
    func helloWithSomeFeatures() async throws {
        let server = try await TestServer.start()
        let raw = try RawConnection(path: server.socketPath, receiveTimeout: 3)
        let answer = try await hello(raw, features: ["window_update", "something_new"])
        #expect(answer.features == ["window_update"])
        await raw.write(try requestFrame(
            streamID: 3, method: TestServer.infinite.descriptor,
            payload: try echoRequest("").serializedBytes(), flags: [.remoteClosed]
        ))
        #expect(await eventually { server.probe.sent >= 64 })
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.probe.sent == 64)
        // Without "cancel", a Cancel frame is an unknown frame type: ignored.
        await raw.write(Frame(streamID: 3, type: .cancel))
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.probe.cancelled == 0)
        await server.stop()
    }
}
