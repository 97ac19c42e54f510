import Foundation
import Logging
import NIOCore
import SalusProto
import SalusRPC
import SalusServer
import Synchronization
import Testing

/// The caps per app (docs/reliability.md, "Connections and streams have caps"): one app never
/// takes every connection, call or buffered byte, and the owner's admin socket is always served.
@Suite("Caps per app")
struct AppCapsTests {
    /// Gathers every message of a client stream, counting each against the app's buffered
    /// bytes as SaveRoute counts its locations, and answers with how many it gathered.
    static let gather = ClientStreamingMethod<Salus_V1_EchoRequest, Salus_V1_EchoResponse>(service: "test.Probe", method: "Gather")

    /// Holds a query request until cancelled, as a handler holds its request for its call.
    static let holdQuery = UnaryMethod<Salus_V1_SampleQueryRequest, Salus_V1_EchoResponse>(service: "test.Probe", method: "HoldQuery")

    /// A server with the test router of `TestServer` plus `Gather` and `HoldQuery`, and a listener per caller:
    /// the owner's admin socket, app A's and app B's own sockets.
    struct Fixture {
        let server: RPCServer
        let router: RPCRouter
        let probe: TestServer

        init(_ configure: (inout RPCServer.Configuration) -> Void) async throws {
            var configuration = RPCServer.Configuration()
            configure(&configuration)
            var logger = Logger(label: "app-caps")
            logger.logLevel = .critical
            server = RPCServer(configuration: configuration, logger: logger)
            probe = try await TestServer.start()
            var router = probe.router()
            router.registerClientStreaming(AppCapsTests.gather) {
                (messages: RPCRequestStream<Salus_V1_EchoRequest>, context) -> Salus_V1_EchoResponse in
                var gathered: [Data] = []
                for try await message in messages {
                    try context.reserveBuffer(message.payload.count, for: "gathered payloads")
                    gathered.append(message.payload)
                }
                var response = Salus_V1_EchoResponse()
                response.sequence = UInt64(gathered.count)
                return response
            }
            let probe = self.probe.probe
            router.registerUnary(AppCapsTests.holdQuery) { (request: Salus_V1_SampleQueryRequest, context) -> Salus_V1_EchoResponse in
                probe.didStart(context.peer)
                try await Task.sleep(for: .seconds(60))
                return withExtendedLifetime(request) { Salus_V1_EchoResponse() }
            }
            self.router = router
        }

        func connect(_ listener: ListenerInfo, hello: Bool = true) async throws -> RPCClient {
            var configuration = RPCClient.Configuration()
            configuration.hello = hello
            return try await server.connectInProcess(router: router, listener: listener, configuration: configuration)
        }

        func stop() async {
            await server.shutdown(gracePeriod: .seconds(2))
            await probe.stop()
        }
    }

    static let owner = ListenerInfo(label: "admin", accounting: .owner)
    static let appA = ListenerInfo(label: "app", accounting: .app("org.example.a"))
    static let appB = ListenerInfo(label: "app", accounting: .app("org.example.b"))

    static func echo(_ client: RPCClient, _ text: String) async throws -> String {
        let response: Salus_V1_EchoResponse = try await client.unary(SalusMethods.Diagnostics.echo, request: echoRequest(text))
        return response.text
    }

    /// The error of an echo on a new connection to `listener` that must be refused. A refused
    /// connection is closed after its linger; on a loaded machine the client's own setup may
    /// find it closed already (a channel error, not the refusal), and then it connects again.
    static func refusal(of fixture: Fixture, _ listener: ListenerInfo) async -> RPCError? {
        for _ in 0..<5 {
            guard let client = try? await fixture.connect(listener, hello: false) else { continue }
            let error = await refusal(client)
            await client.close()
            return error
        }
        return nil
    }

    /// The error of an echo that must be refused.
    static func refusal(_ client: RPCClient) async -> RPCError? {
        do {
            _ = try await echo(client, "refused?")
            return nil
        } catch {
            return error as? RPCError
        }
    }

    @Test("an app at its connection cap is refused naming connectionsPerApp and the cap; other apps and the owner are still served, its refused connections take no place, and a freed place serves again")
    func connectionsPerApp() async throws {
        let fixture = try await Fixture {
            $0.maxConnectionsPerApp = 3
            $0.maxConnections = 4
            $0.maxOwnerConnections = 2
            // Long enough that a refused connection is set up on both sides before it is closed,
            // on a loaded machine too.
            $0.refusedConnectionLinger = .seconds(5)
        }
        var ownA: [RPCClient] = []
        for _ in 0..<3 { ownA.append(try await fixture.connect(Self.appA)) }
        // Twenty more of A's, idle: each refused, none counted.
        var refused: [RPCClient] = []
        for _ in 0..<20 { if let client = try? await fixture.connect(Self.appA, hello: false) { refused.append(client) } }
        let overA = await Self.refusal(of: fixture, Self.appA)
        #expect(overA?.code == .resourceExhausted && overA?.detail?.field == "connectionsPerApp" && overA?.detail?.value == "4", "\(String(describing: overA))")
        #expect(overA?.detail?.expected.contains("at most 3") == true, "\(String(describing: overA))")
        // B takes the last place of the four over every app, although A asked for 23.
        let b = try await fixture.connect(Self.appB)
        #expect(try await Self.echo(b, "b") == "b")
        let overAll = await Self.refusal(of: fixture, Self.appB)
        #expect(overAll?.code == .resourceExhausted && overAll?.detail?.field == "connections", "\(String(describing: overAll))")
        // The owner has its reserve, whatever the apps hold.
        let owner = try await fixture.connect(Self.owner)
        #expect(try await Self.echo(owner, "owner") == "owner")
        let owner2 = try await fixture.connect(Self.owner)
        let overOwner = await Self.refusal(of: fixture, Self.owner)
        #expect(overOwner?.detail?.field == "ownerConnections", "\(String(describing: overOwner))")
        // A refused connection is closed once it has been told, or after the linger if it never
        // calls: what is left open is the places given.
        #expect(await eventually(timeout: .seconds(30)) { fixture.server.connectionCount == 3 + 1 + 2 })
        for client in refused { await client.close() }
        // A freed place of A's serves a new connection of A's.
        await ownA.removeLast().close()
        var served: String?
        for _ in 0..<100 where served == nil {
            if let again = try? await fixture.connect(Self.appA) {
                served = try? await Self.echo(again, "again")
                await again.close()
            }
            if served == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(served == "again")
        for client in ownA + [b, owner, owner2] { await client.close() }
        await fixture.stop()
    }

    @Test("streams an app never reads count against its call cap: beyond it a call is refused naming callsPerApp, on any of its connections; another app is served, and an ended stream frees a place")
    func unreadStreams() async throws {
        let fixture = try await Fixture { $0.maxCallsPerApp = 4 }
        let first = try await fixture.connect(Self.appA)
        let second = try await fixture.connect(Self.appA)
        var unread: [RPCResponseStream<Salus_V1_EchoResponse>] = []
        for client in [first, first, second, second] {
            unread.append(try client.serverStreaming(TestServer.infinite, request: echoRequest("never read")))
        }
        #expect(await eventually(timeout: .seconds(10)) { fixture.server.openCalls(ofApp: "org.example.a") == 4 })
        let third = try await fixture.connect(Self.appA)
        let over = await Self.refusal(third)
        #expect(over?.code == .resourceExhausted && over?.detail?.field == "callsPerApp" && over?.detail?.value == "5", "\(String(describing: over))")
        let b = try await fixture.connect(Self.appB)
        #expect(try await Self.echo(b, "b") == "b")
        unread.removeFirst().cancel()
        var served: String?
        for _ in 0..<100 where served == nil {
            served = try? await Self.echo(third, "again")
            if served == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(served == "again")
        for stream in unread { stream.cancel() }
        #expect(await eventually(timeout: .seconds(10)) { fixture.server.openCalls(ofApp: "org.example.a") == 0 })
        for client in [first, second, third, b] { await client.close() }
        await fixture.stop()
    }

    @Test("a client stream whose gathered input passes the buffered-bytes cap ends with RESOURCE_EXHAUSTED naming bufferedBytesPerApp; what it held is released and the app saves again")
    func gatheredInput() async throws {
        let fixture = try await Fixture { $0.maxBufferedBytesPerApp = 64 * 1024 }
        let client = try await fixture.connect(Self.appA)
        do {
            let _: Salus_V1_EchoResponse = try await client.clientStreaming(Self.gather) {
                (writer: RPCClientWriter<Salus_V1_EchoRequest>) in
                for index in 0..<200 { try await writer.write(echoRequest("\(index)", payload: 1024)) }
            }
            Issue.record("200 KiB gathered under a cap of 64 KiB")
        } catch let error as RPCError {
            #expect(error.code == .resourceExhausted && error.detail?.field == "bufferedBytesPerApp", "\(error)")
            #expect(error.detail?.expected.contains("at most 65536") == true, "\(error)")
        }
        #expect(await eventually(timeout: .seconds(10)) { fixture.server.bufferedBytes(ofApp: "org.example.a") == 0 })
        let fits: Salus_V1_EchoResponse = try await client.clientStreaming(Self.gather) {
            (writer: RPCClientWriter<Salus_V1_EchoRequest>) in
            for index in 0..<32 { try await writer.write(echoRequest("\(index)", payload: 1024)) }
        }
        #expect(fits.sequence == 32)
        #expect(fixture.server.bufferedBytes(ofApp: "org.example.a") == 0)
        await client.close()
        await fixture.stop()
    }

    @Test("requests their handlers hold count against the app's buffered bytes by what they take decoded: two queries of 10,000 predicates (about 3 MB each decoded, 20 KB sent) held, a third gets RESOURCE_EXHAUSTED naming bufferedBytesPerApp; another app is served; ended calls give their bytes back")
    func decodedRequestsCounted() async throws {
        let fixture = try await Fixture { $0.maxBufferedBytesPerApp = 8 << 20 }
        let client = try await fixture.connect(Self.appA)
        var query = Salus_V1_SampleQueryRequest()
        query.predicate.or.predicates = Array(repeating: Salus_V1_Predicate(), count: 10_000)
        let request = query
        let held = (0..<2).map { _ in
            Task { let _: Salus_V1_EchoResponse = try await client.unary(Self.holdQuery, request: request) }
        }
        #expect(await eventually { fixture.probe.probe.started == 2 })
        let third = await #expect(throws: RPCError.self) {
            let _: Salus_V1_EchoResponse = try await client.unary(Self.holdQuery, request: request)
        }
        #expect(third?.code == .resourceExhausted && third?.detail?.field == "bufferedBytesPerApp", "\(String(describing: third))")
        #expect(fixture.probe.probe.started == 2)
        // Another app's own budget.
        let other = try await fixture.connect(Self.appB)
        let otherCall = Task { let _: Salus_V1_EchoResponse = try await other.unary(Self.holdQuery, request: request) }
        #expect(await eventually { fixture.probe.probe.started == 3 })
        for task in held + [otherCall] { task.cancel() }
        for task in held + [otherCall] { _ = await task.result }
        // The ended calls' bytes are back: two more are held.
        let again = (0..<2).map { _ in
            Task { let _: Salus_V1_EchoResponse = try await client.unary(Self.holdQuery, request: request) }
        }
        #expect(await eventually { fixture.probe.probe.started == 5 })
        for task in again { task.cancel() }
        for task in again { _ = await task.result }
        await client.close()
        await other.close()
        await fixture.stop()
    }
}
