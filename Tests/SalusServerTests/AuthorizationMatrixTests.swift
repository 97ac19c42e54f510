import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Every combination of read and share decisions against every store operation, with two
/// other apps writing the same type.
@Suite("Authorization matrix: apps × read × share × operations")
struct AuthorizationMatrixTests {
    static let decisions: [Salus_V1_Decision?] = [.granted, .denied, nil]

    static func name(_ decision: Salus_V1_Decision?) -> String {
        switch decision {
        case .granted: "granted"
        case .denied: "denied"
        default: "notDetermined"
        }
    }

    @Test("exact visibility for save, sample query, anchored query, sources, delete own and delete other's")
    func matrix() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        // Two writers of the same type.
        var writerSamples: [String: Data] = [:]
        for (index, writer) in ["org.example.writer-a", "org.example.writer-b"].enumerated() {
            try await Authz.register(owner, writer)
            try await Authz.grant(owner, writer, Authz.steps, read: nil, share: .granted)
            let client = try await Authz.app(server, writer)
            let saved = try await Authz.save(client, [Authz.sample(value: Double(100 + index), start: 1_700_000_000_000_000 + Int64(index) * 60_000_000)])
            writerSamples[writer] = saved.results[0].uuid
            await client.close()
        }
        for read in Self.decisions {
            for share in Self.decisions {
                let appID = "org.example.read-\(Self.name(read)).share-\(Self.name(share))"
                let label = "read \(Self.name(read)), share \(Self.name(share))"
                try await Authz.register(owner, appID)
                try await Authz.grant(owner, appID, Authz.steps, read: read, share: share)
                let app = try await Authz.app(server, appID)

                // Save.
                var own: Data?
                let saveError = await Authz.error {
                    own = try await Authz.save(app, [Authz.sample(value: 7, start: 1_700_000_600_000_000)]).results[0].uuid
                }
                switch share {
                case .granted:
                    #expect(saveError == nil, "\(label): save")
                case .denied:
                    #expect(saveError?.reason == .authorizationDenied, "\(label): save")
                default:
                    #expect(saveError?.reason == .authorizationNotDetermined, "\(label): save")
                }

                // What the app may see.
                var expected = Set<String>()
                if read == .granted { expected = ["org.example.writer-a", "org.example.writer-b"] }
                if share == .granted { expected.insert(appID) }

                let queried = try await Authz.batches(app).flatMap(\.samples)
                #expect(Set(queried.map(\.sourceRevision.appID)) == expected, "\(label): sample query")
                #expect(queried.count == expected.count, "\(label): sample query count")
                let anchored = try await Authz.anchored(app).flatMap(\.added)
                #expect(Set(anchored.map(\.sourceRevision.appID)) == expected, "\(label): anchored query")
                #expect(anchored.count == expected.count, "\(label): anchored query count")
                let sources = try await Authz.sources(app)
                #expect(Set(sources.sources.map(\.appID)) == expected, "\(label): sources")

                // Delete another app's sample: never allowed, and says nothing about it.
                let other = await Authz.error { _ = try await Authz.delete(app, writerSamples["org.example.writer-a"]!) }
                switch share {
                case .granted: #expect(other?.code == .notFound, "\(label): delete other's")
                case .denied: #expect(other?.reason == .authorizationDenied, "\(label): delete other's")
                default: #expect(other?.reason == .authorizationNotDetermined, "\(label): delete other's")
                }

                // Delete its own: only while it may share.
                if let own {
                    let deleted = try await Authz.delete(app, own)
                    #expect(deleted.deleted == 1, "\(label): delete own")
                    #expect(try await Authz.batches(app).flatMap(\.samples).contains { $0.uuid == own } == false)
                }
                await app.close()
            }
        }
        // The writers' samples are untouched.
        let all = try await Authz.batches(owner).flatMap(\.samples)
        #expect(Set(all.map(\.sourceRevision.appID)) == ["org.example.writer-a", "org.example.writer-b"])
        await owner.close()
        await server.stop()
    }

    @Test("after share is revoked the app can no longer delete its own samples, but still sees them until read rules say otherwise")
    func revokedShareCannotDelete() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.logger")
        try await Authz.grant(owner, "org.example.logger", Authz.steps, read: .granted, share: .granted)
        let app = try await Authz.app(server, "org.example.logger")
        let saved = try await Authz.save(app, [Authz.sample(value: 3, start: 1_700_000_000_000_000)])
        try await Authz.grant(owner, "org.example.logger", Authz.steps, read: nil, share: .denied)
        let error = await Authz.error { _ = try await Authz.delete(app, saved.results[0].uuid) }
        #expect(error?.reason == .authorizationDenied)
        #expect(try await Authz.batches(app).flatMap(\.samples).count == 1)
        await app.close()
        await owner.close()
        await server.stop()
    }

    @Test("a live anchored query stops delivering other apps' samples the moment read is revoked; the app's own still arrive, and what was read for it unsent is not kept counted")
    func liveRevocation() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.writer")
        try await Authz.grant(owner, "org.example.writer", Authz.steps, read: nil, share: .granted)
        try await Authz.register(owner, "org.example.follower")
        try await Authz.grant(owner, "org.example.follower", Authz.steps, read: .granted, share: .granted)
        let writer = try await Authz.app(server, "org.example.writer")
        let follower = try await Authz.app(server, "org.example.follower")

        var request = Salus_V1_AnchoredQueryRequest()
        var descriptor = Salus_V1_TypedPredicate()
        descriptor.type = Authz.steps
        request.descriptors = [descriptor]
        request.live = true
        let stream = try follower.serverStreaming(StoreServiceTests.queryAnchored, request: request)
        var iterator = stream.makeAsyncIterator()
        let initial = try await iterator.next()
        #expect(initial?.initialResultsComplete == true)
        #expect(initial?.added.isEmpty == true)

        _ = try await Authz.save(writer, [Authz.sample(value: 1, start: 1_700_000_000_000_000)])
        let first = try await iterator.next()
        #expect(first?.added.map(\.quantity.value) == [1])

        try await Authz.grant(owner, "org.example.follower", Authz.steps, read: .denied, share: nil)
        _ = try await Authz.save(writer, [Authz.sample(value: 2, start: 1_700_000_060_000_000)])
        _ = try await Authz.save(follower, [Authz.sample(value: 3, start: 1_700_000_120_000_000)])
        let next = try await iterator.next()
        // The writer's second sample never arrives; the follower's own does.
        #expect(next?.added.map(\.quantity.value) == [3])
        #expect(next?.added.map(\.sourceRevision.appID) == ["org.example.follower"])
        // The pages read for the feed and left unsent by the revocation (the wire page it found,
        // the writer's changes filtered to nothing) are not kept counted while the feed stays open.
        _ = try await Authz.save(writer, [Authz.sample(value: 4, start: 1_700_000_180_000_000)])
        try await waitUntil("the revoked feed's unsent pages released while it stays open") {
            server.services.server.bufferedBytes(ofApp: "org.example.follower") == 0
        }
        stream.cancel()
        await writer.close()
        await follower.close()
        await owner.close()
        await server.stop()
    }

    @Test("denied read and no data give byte-identical replies")
    func deniedLooksLikeEmpty() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.writer")
        try await Authz.grant(owner, "org.example.writer", Authz.steps, read: nil, share: .granted)
        let writer = try await Authz.app(server, "org.example.writer")
        _ = try await Authz.save(writer, (0..<20).map { Authz.sample(value: Double($0), start: 1_700_000_000_000_000 + Int64($0) * 60_000_000) })
        // The reader is denied steps (which hold data) and allowed heart rate (which holds none).
        try await Authz.register(owner, "org.example.reader")
        try await Authz.grant(owner, "org.example.reader", Authz.steps, read: .denied, share: nil)
        try await Authz.grant(owner, "org.example.reader", Authz.heartRate, read: .granted, share: nil)
        let reader = try await Authz.app(server, "org.example.reader")

        let denied = try await Authz.batches(reader, type: Authz.steps).map { try $0.serializedData() }
        let empty = try await Authz.batches(reader, type: Authz.heartRate).map { try $0.serializedData() }
        #expect(denied == empty)
        let deniedAnchored = try await Authz.anchored(reader, type: Authz.steps).map { try $0.serializedData() }
        let emptyAnchored = try await Authz.anchored(reader, type: Authz.heartRate).map { try $0.serializedData() }
        #expect(deniedAnchored == emptyAnchored)
        #expect(try await Authz.sources(reader, type: Authz.steps).serializedData() == (try await Authz.sources(reader, type: Authz.heartRate).serializedData()))
        // Read status is never disclosed: both report sharing only.
        #expect(try await Authz.sharingStatus(reader, Authz.steps) == .notDetermined)
        #expect(try await Authz.sharingStatus(reader, Authz.heartRate) == .notDetermined)
        await reader.close()
        await writer.close()
        await owner.close()
        await server.stop()
    }
}
