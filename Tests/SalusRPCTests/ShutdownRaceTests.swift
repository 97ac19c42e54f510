#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Logging
import NIOCore
import NIOPosix
import SalusProto
import SalusRPC
import SalusServer
import Testing

/// Section 9 for a client without Hello: after SIGTERM it sees no GoAway, only UNAVAILABLE for
/// every Request that comes after, and then the close. These tests hold the server's one event
/// loop still at the moment that matters, so what a loaded machine did now and then happens
/// every time.
@Suite("Shutdown: a Request after SIGTERM gets UNAVAILABLE before the close")
struct ShutdownRaceTests {
    static let hold = UnaryMethod<Salus_V1_EchoRequest, Salus_V1_EchoResponse>(service: "test.Probe", method: "Hold")

    /// A server on one event loop serving Diagnostics and `Hold`, which answers once `gate` opens.
    final class Fixture: Sendable {
        let group: MultiThreadedEventLoopGroup
        let server: RPCServer
        let gate = Gate()
        let directory: String
        let path: String

        /// The listener is on the group's first event loop, the first connection on the next.
        init(threads: Int = 1) async throws {
            group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            var logger = Logger(label: "shutdown-race")
            logger.logLevel = .critical
            server = RPCServer(group: group, logger: logger)
            directory = try makeTemporaryDirectory()
            path = directory + "/race.sock"
            var router = RPCRouter()
            DiagnosticsService.register(into: &router)
            let gate = self.gate
            router.registerUnary(ShutdownRaceTests.hold) { request, _ in
                await gate.wait()
                var response = Salus_V1_EchoResponse()
                response.text = request.text
                return response
            }
            try await server.listen(unixSocketPath: path, router: router, listener: ListenerInfo(label: "app"))
        }

        /// Runs `body` with the event loop stopped: nothing is read or written, and no handler
        /// runs, until `body` returns.
        func withLoopHeld(_ index: Int = 0, _ body: () async throws -> Void) async rethrows {
            let held = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let loops = Array(group.makeIterator())
            loops[index].execute {
                held.signal()
                release.wait()
            }
            await onThread { held.wait() }
            defer { release.signal() }
            try await body()
        }

        func finish() async {
            gate.open()
            try? FileManager.default.removeItem(atPath: directory)
            try? await group.shutdownGracefully()
        }
    }

    /// The frames of a connection until the server closes it (or 5 s pass without one).
    static func framesUntilClose(_ raw: RawConnection) async -> [Frame] {
        var frames: [Frame] = []
        while let frame = await raw.readFrame() { frames.append(frame) }
        return frames
    }

    static func describe(_ frames: [Frame]) -> String {
        frames.map { "\($0.type) \($0.streamID) \(status(of: $0).map { "\($0.code)" } ?? "")" }.joined(separator: ", ")
    }

    @Test("a Request already in the socket when the last call ends is answered UNAVAILABLE before the close")
    func requestWaitingWhenTheLastCallEnds() async throws {
        let fixture = try await Fixture()
        let raw = try RawConnection(path: fixture.path)
        await raw.write(try requestFrame(streamID: 1, method: Self.hold.descriptor, payload: try echoRequest("held").serializedBytes()))
        #expect(await eventually { fixture.server.startedHandlerCount == 1 })
        let shutdown = Task { await fixture.server.shutdown(gracePeriod: .seconds(20)) }
        // The connection is going away once a new call is refused.
        var next: UInt32 = 3
        var refused = false
        while !refused && next < 200 {
            await raw.write(try requestFrame(streamID: next, method: SalusMethods.Diagnostics.echo.descriptor, payload: try echoRequest("a").serializedBytes()))
            let answer = await raw.readFrame()
            refused = answer?.streamID == next && status(of: answer)?.code == .unavailable
            next += 2
        }
        try #require(refused)

        // The client sends a Request while the held call still runs; the call ends before the
        // server has read it.
        try await fixture.withLoopHeld {
            await raw.write(try requestFrame(streamID: next, method: SalusMethods.Diagnostics.echo.descriptor, payload: try echoRequest("b").serializedBytes()))
            fixture.gate.open()
        }
        let frames = await Self.framesUntilClose(raw)
        let held = frames.first { $0.streamID == 1 }
        #expect(held?.type == .response && status(of: held)?.code == .ok, "\(Self.describe(frames))")
        let late = frames.first { $0.streamID == next }
        #expect(late?.type == .response && status(of: late)?.code == .unavailable, "frames before the close: \(Self.describe(frames))")
        await shutdown.value
        await fixture.finish()
    }

    @Test("a Request that arrives once shutdown has begun, while the listener is still closing, is answered UNAVAILABLE")
    func requestAsShutdownBegins() async throws {
        let fixture = try await Fixture(threads: 2)
        let raw = try RawConnection(path: fixture.path)
        await raw.write(try requestFrame(streamID: 1, method: Self.hold.descriptor, payload: try echoRequest("held").serializedBytes()))
        #expect(await eventually { fixture.server.startedHandlerCount == 1 })
        var stopping: Task<Void, Never>?
        // The listener's loop is held, so closing it takes as long as the test wants.
        try await fixture.withLoopHeld(0) {
            // The connection is on the other loop: it is served meanwhile.
            await raw.write(try requestFrame(streamID: 3, method: SalusMethods.Diagnostics.echo.descriptor, payload: try echoRequest("a").serializedBytes()))
            let served = await raw.readFrame()
            try #require(served?.streamID == 3 && status(of: served)?.code == .ok, "\(served.map { Self.describe([$0]) } ?? "no frame")")
            stopping = Task { await fixture.server.shutdown(gracePeriod: .seconds(20)) }
            #expect(await eventually { fixture.server.isShuttingDown })
            await raw.write(try requestFrame(streamID: 5, method: SalusMethods.Diagnostics.echo.descriptor, payload: try echoRequest("b").serializedBytes()))
            let answer = await raw.readFrame()
            #expect(answer?.streamID == 5 && status(of: answer)?.code == .unavailable, "\(answer.map { Self.describe([$0]) } ?? "no frame")")
        }
        fixture.gate.open()
        let frames = await Self.framesUntilClose(raw)
        let held = frames.first { $0.streamID == 1 }
        #expect(held?.type == .response && status(of: held)?.code == .ok, "\(Self.describe(frames))")
        await stopping?.value
        await fixture.finish()
    }
}
