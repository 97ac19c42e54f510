import Foundation
import SalusProto
import SalusRPC
import Synchronization
import SalusTestSupport
import Testing

@testable import SalusServer

/// An app allowed to write a type but not to read it sees its own samples of that type, and
/// only those, on every kind of query: the writer of each commit travels in the commit event.
@Suite("Own samples on live feeds")
struct OwnSamplesTests {
    typealias S = Authz

    /// Follows an observer stream in the background, recording the anchor of each
    /// notification that names `type`.
    static func follow(_ client: RPCClient, type: String = S.steps, into waiter: AnchorWaiter, notifications: Recorded<Salus_V1_ObserverNotification>? = nil) async throws -> (Task<Void, any Error>, UInt64) {
        var request = Salus_V1_ObserverRequest()
        request.descriptors = [S.descriptor(type)]
        let stream = try client.serverStreaming(SalusMethods.Store.observe, request: request)
        let started = AnchorWaiter()
        let task = Task {
            var first = true
            for try await notification in stream {
                if first {
                    first = false
                    await started.record(notification.anchor + 1)
                    continue
                }
                guard notification.changedTypes.contains(type) else { continue }
                notifications?.append(notification)
                await waiter.record(notification.anchor)
            }
        }
        // The first message is the anchor when the stream started.
        #expect(await started.wait(for: 1))
        return (task, await started.highest - 1)
    }

    @Test("a share-only app is notified of every one of its own saves on an observer stream")
    func observerSeesEveryOwnSave() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let owner = try await server.owner()
        try await S.register(owner, "org.example.writer", read: .denied, share: .granted)
        let app = try await server.launchedApp("org.example.writer")
        let waiter = AnchorWaiter()
        let (follower, _) = try await Self.follow(app, into: waiter)

        var missed: [UInt64] = []
        for index in 0..<100 {
            let saved = try await S.save(app, [S.sample(value: Double(index), start: 1_700_000_000_000_000 + Int64(index) * 60_000_000)])
            if !(await waiter.wait(for: saved.anchor)) {
                missed.append(saved.anchor)
                if missed.count >= 3 { break }
            }
        }
        #expect(missed.isEmpty, "no notification covered the app's own saves at anchors \(missed)")

        follower.cancel()
        await app.close()
        await owner.close()
        await server.stop()
    }

    @Test("a share-only app sees every one of its own saves on a live anchored query, and no other app's")
    func anchoredSeesEveryOwnSave() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let owner = try await server.owner()
        try await S.register(owner, "org.example.writer", read: .denied, share: .granted)
        try await S.register(owner, "org.example.other", read: nil, share: .granted)
        let app = try await server.launchedApp("org.example.writer")
        let other = try await server.launchedApp("org.example.other")

        var request = Salus_V1_AnchoredQueryRequest()
        request.descriptors = [S.descriptor()]
        request.live = true
        let stream = try app.serverStreaming(SalusMethods.Store.queryAnchored, request: request)
        let waiter = AnchorWaiter()
        let added = Recorded<Salus_V1_Sample>()
        let follower = Task {
            for try await batch in stream {
                added.append(contentsOf: batch.added)
                await waiter.record(batch.initialResultsComplete ? max(batch.anchor, 1) : batch.anchor)
            }
        }
        #expect(await waiter.wait(for: 1))

        for index in 0..<50 {
            let start = 1_700_000_000_000_000 + Int64(index) * 60_000_000
            _ = try await S.save(other, [S.sample(value: 1, start: start)])
            let saved = try await S.save(app, [S.sample(value: Double(index), start: start)])
            #expect(await waiter.wait(for: saved.anchor), "no batch covered the app's own save at anchor \(saved.anchor)")
        }
        let seen = added.items
        #expect(seen.count == 50)
        #expect(seen.allSatisfy { $0.sourceRevision.appID == "org.example.writer" })

        follower.cancel()
        await app.close()
        await other.close()
        await owner.close()
        await server.stop()
    }

    @Test("more than 1,024 commits of other apps do not hide a share-only app's own saves, nor show theirs")
    func busyStoreKeepsOwnSamples() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let owner = try await server.owner()
        try await S.register(owner, "org.example.writer", read: .denied, share: .granted)
        try await S.register(owner, "org.example.busy", read: nil, share: .granted)
        let app = try await server.launchedApp("org.example.writer")
        let busy = try await server.launchedApp("org.example.busy")
        let waiter = AnchorWaiter()
        let notifications = Recorded<Salus_V1_ObserverNotification>()
        let (follower, _) = try await Self.follow(app, into: waiter, notifications: notifications)

        let base: Int64 = 1_700_000_000_000_000
        let first = try await S.save(app, [S.sample(value: 1, start: base)])
        for index in 0..<1_030 {
            _ = try await S.save(busy, [S.sample(value: 2, start: base + Int64(index + 1) * 60_000_000)])
        }
        let second = try await S.save(app, [S.sample(value: 3, start: base + 2_000 * 60_000_000)])
        #expect(await waiter.wait(for: second.anchor))

        // One notification per own save, or one for both when the stream coalesced them; none
        // for the other app's commits alone.
        let received = notifications.items
        #expect((1...2).contains(received.count), "\(received.count) notifications: \(received.map(\.anchor))")
        #expect(received.first.map { $0.anchor >= first.anchor } == true)
        if received.count == 2 {
            #expect(received[0].anchor < second.anchor)
        }

        // Its own samples, and only those, on a sample query and an anchored query.
        var query = Salus_V1_SampleQueryRequest()
        query.type = S.steps
        var values: [Double] = []
        for try await batch in try app.serverStreaming(SalusMethods.Store.querySamples, request: query) {
            values += batch.samples.map(\.quantity.value)
        }
        #expect(values.sorted() == [1, 3])
        var anchored = Salus_V1_AnchoredQueryRequest()
        anchored.descriptors = [S.descriptor()]
        var added: [Double] = []
        for try await batch in try app.serverStreaming(SalusMethods.Store.queryAnchored, request: anchored) {
            added += batch.added.map(\.quantity.value)
        }
        #expect(added.sorted() == [1, 3])

        follower.cancel()
        await app.close()
        await busy.close()
        await owner.close()
        await server.stop()
    }
}

/// The count an anchored catch-up's first batch gives the reader to size its buffer.
@Suite("The initial added hint of an anchored catch-up")
struct InitialAddedHintTests {
    typealias S = Authz

    static func batches(_ client: RPCClient, _ request: Salus_V1_AnchoredQueryRequest) async throws -> [Salus_V1_AnchoredBatch] {
        var batches: [Salus_V1_AnchoredBatch] = []
        for try await batch in try client.serverStreaming(SalusMethods.Store.queryAnchored, request: request) {
            batches.append(batch)
        }
        return batches
    }

    @Test("asked for, the whole history of one type: the first batch counts every sample of it, later ones count nothing; an anchor, a condition or a narrowed read gets no count")
    func hint() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let owner = try await server.owner()
        try await S.register(owner, "org.example.reader", read: .granted, share: .granted)
        try await S.grant(owner, "org.example.reader", S.heartRate, read: .granted, share: .granted)
        try await S.register(owner, "org.example.writer", read: .denied, share: .granted)
        let reader = try await server.launchedApp("org.example.reader")
        let writer = try await server.launchedApp("org.example.writer")
        // More than one page of steps (2,000 changes a page over the wire), and samples of
        // another type.
        let steps = (0..<2_203).map { S.sample(value: Double($0), start: 1_700_000_000_000_000 + Int64($0) * 60_000_000) }
        let first = try await S.save(reader, Array(steps[..<1_700]))
        _ = try await S.save(writer, Array(steps[1_700...]))
        _ = try await S.save(reader, [S.sample(S.heartRate, value: 61, start: 1_700_000_000_000_000)])

        var whole = Salus_V1_AnchoredQueryRequest()
        whole.descriptors = [S.descriptor()]
        // Not asked for: not counted.
        #expect(try await Self.batches(reader, whole).allSatisfy { $0.initialAddedHint == 0 })
        whole.countInitialAdded = true
        let batches = try await Self.batches(reader, whole)
        #expect(batches.count > 1)
        #expect(batches.first?.initialAddedHint == 2_203)
        #expect(batches.dropFirst().allSatisfy { $0.initialAddedHint == 0 })
        #expect(batches.reduce(0) { $0 + $1.added.count } == 2_203)

        var resumed = whole
        resumed.anchor = first.anchor
        #expect(try await Self.batches(reader, resumed).allSatisfy { $0.initialAddedHint == 0 })

        var conditioned = whole
        conditioned.descriptors[0].predicate.quantity.operator = .greaterThan
        conditioned.descriptors[0].predicate.quantity.quantity.value = 2_000
        conditioned.descriptors[0].predicate.quantity.quantity.unit = "count"
        let some = try await Self.batches(reader, conditioned)
        #expect(some.allSatisfy { $0.initialAddedHint == 0 })
        #expect(some.reduce(0) { $0 + $1.added.count } == 202)

        // The writer may not read steps: it sees its own 503 and no count that would tell it
        // how many the store holds.
        let own = try await Self.batches(writer, whole)
        #expect(own.reduce(0) { $0 + $1.added.count } == 503)
        #expect(own.allSatisfy { $0.initialAddedHint == 0 })
        await reader.close()
        await writer.close()
        await owner.close()
        await server.stop()
    }
}
