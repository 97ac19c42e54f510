import Foundation
import SalusProto
import SalusRPC
import Testing

/// The store over the wire, in process, with the bundled plugins.
@Suite("salus.v1.Store")
struct StoreServiceTests {
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    static let save = SalusMethods.Store.save
    static let delete = SalusMethods.Store.delete
    static let querySamples = SalusMethods.Store.querySamples
    static let queryAnchored = SalusMethods.Store.queryAnchored
    static let observe = SalusMethods.Store.observe
    static let querySources = SalusMethods.Store.querySources

    static func app(_ server: ServerHarness, _ appID: String) async throws -> RPCClient {
        try await server.app(appID, name: "Test \(appID)", version: "2.0")
    }

    static func stepSample(_ count: Double, start: Int64, unit: String = "count", metadata: [String: Salus_V1_MetadataValue] = [:]) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = steps
        sample.startDate = start
        sample.endDate = start + 60_000_000
        sample.quantity.value = count
        sample.quantity.unit = unit
        sample.metadata = metadata
        return sample
    }

    static func saveRequest(_ samples: [Salus_V1_Sample]) -> Salus_V1_SaveRequest {
        var request = Salus_V1_SaveRequest()
        request.samples = samples
        return request
    }

    static func all(_ client: RPCClient, type: String = steps) async throws -> [Salus_V1_Sample] {
        var request = Salus_V1_SampleQueryRequest()
        request.type = type
        var samples: [Salus_V1_Sample] = []
        for try await batch in try client.serverStreaming(querySamples, request: request) {
            samples += batch.samples
        }
        return samples
    }

    static func string(_ value: String) -> Salus_V1_MetadataValue {
        var metadata = Salus_V1_MetadataValue()
        metadata.stringValue = value
        return metadata
    }

    static func number(_ value: Double) -> Salus_V1_MetadataValue {
        var metadata = Salus_V1_MetadataValue()
        metadata.numberValue = value
        return metadata
    }

    @Test("a saved sample comes back with a UUID and the caller's source, not the payload's")
    func saveAndQuery() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await Self.app(server, "org.example.walker")
        var sample = Self.stepSample(120, start: 1_700_000_000_000_000)
        sample.sourceRevision.appID = "org.example.pretender"
        let saved: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest([sample]))
        #expect(saved.results.count == 1)
        #expect(saved.results[0].outcome == .saved)
        #expect(saved.results[0].uuid.count == 16)
        let samples = try await Self.all(client)
        #expect(samples.count == 1)
        #expect(samples[0].uuid == saved.results[0].uuid)
        #expect(samples[0].quantity.value == 120)
        #expect(samples[0].sourceRevision.appID == "org.example.walker")
        #expect(samples[0].sourceRevision.name == "Test org.example.walker")
        #expect(samples[0].sourceRevision.version == "2.0")
        await client.close()
        await server.stop()
    }

    /// The note each of `saveLargeSteps`' samples carries: about 16 KB.
    static let largeNote = String(repeating: "n", count: 16_000)

    /// Saves 300 steps of about 16 KB each (a long note): 4.8 MB, fewer samples than one page
    /// holds by count; 100 at a time, each request under the frame limit itself. Returns their
    /// UUIDs in order.
    static func saveLargeSteps(_ client: RPCClient) async throws -> [Data] {
        let base: Int64 = 1_700_000_000_000_000
        var uuids: [Data] = []
        for first in stride(from: 0, to: 300, by: 100) {
            let batch = (first..<first + 100).map {
                stepSample(Double($0), start: base + Int64($0) * 60_000_000, metadata: ["org.example.note": string(largeNote)])
            }
            let saved: Salus_V1_SaveResponse = try await client.unary(save, request: saveRequest(batch))
            uuids += saved.results.map(\.uuid)
        }
        return uuids
    }

    /// An anchored read of `descriptor` with a limit of 1,000, asked again from each answer's
    /// anchor while it says more changes follow (at most 50 times): what `values` takes from
    /// every batch, and how many reads it took.
    static func limitedPages<Value>(
        _ client: RPCClient, _ descriptor: Salus_V1_TypedPredicate, limit: UInt64 = 1_000,
        _ values: (Salus_V1_AnchoredBatch) -> [Value]
    ) async throws -> ([Value], asks: Int) {
        var anchor: UInt64?
        var collected: [Value] = []
        var asks = 0
        while asks < 50 {
            asks += 1
            var page = Salus_V1_AnchoredQueryRequest()
            page.descriptors = [descriptor]
            page.limit = limit
            if let anchor { page.anchor = anchor }
            var last: Salus_V1_AnchoredBatch?
            for try await batch in try client.serverStreaming(queryAnchored, request: page) {
                collected += values(batch)
                last = batch
            }
            let batch = try #require(last)
            anchor = batch.anchor
            if !batch.moreChanges { break }
        }
        return (collected, asks)
    }

    @Test("a sample query whose samples together pass the 4 MiB frame limit arrives whole and in order, in pages under it")
    func largePages() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await Self.app(server, "org.example.large")
        let note = Self.largeNote
        _ = try await Self.saveLargeSteps(client)
        var request = Salus_V1_SampleQueryRequest()
        request.type = Self.steps
        var values: [Double] = []
        var pages = 0
        for try await batch in try client.serverStreaming(Self.querySamples, request: request) {
            pages += 1
            values += batch.samples.map(\.quantity.value)
            #expect(batch.samples.allSatisfy { $0.metadata["org.example.note"]?.stringValue == note })
        }
        #expect(values == (0..<300).map(Double.init))
        #expect(pages > 1)
        await client.close()
        await server.stop()
    }

    @Test("an anchored read whose changes together pass the 4 MiB frame limit arrives whole and in change order, in batches under it; with a limit, a batch cut by size says more changes follow and the rest comes from its anchor")
    func largeAnchoredBatches() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await Self.app(server, "org.example.large")
        let note = Self.largeNote
        let uuids = try await Self.saveLargeSteps(client)
        // Deletions between the saves' changes: the first ten samples go.
        var delete = Salus_V1_DeleteRequest()
        delete.uuids.uuids = Array(uuids[0..<10])
        let _: Salus_V1_DeleteResponse = try await client.unary(Self.delete, request: delete)

        func descriptor() -> Salus_V1_TypedPredicate {
            var descriptor = Salus_V1_TypedPredicate()
            descriptor.type = Self.steps
            return descriptor
        }
        // The whole feed, no limit.
        var request = Salus_V1_AnchoredQueryRequest()
        request.descriptors = [descriptor()]
        var added: [Double] = []
        var deleted: [Data] = []
        var batches = 0
        var complete = false
        for try await batch in try client.serverStreaming(Self.queryAnchored, request: request) {
            batches += 1
            added += batch.added.map(\.quantity.value)
            deleted += batch.deleted.map(\.uuid)
            complete = complete || batch.initialResultsComplete
        }
        #expect(added == (10..<300).map(Double.init))
        #expect(deleted == Array(uuids[0..<10]), "the deletions come once, after the changes they follow")
        #expect(batches > 1 && complete)

        // With a limit the pages are asked one by one, each from the last one's anchor.
        let (limited, asks) = try await Self.limitedPages(client, descriptor()) { $0.added.map(\.quantity.value) }
        #expect(limited == (10..<300).map(Double.init))
        #expect(asks > 1)
        await client.close()
        await server.stop()
    }

    @Test("an anchored read of workouts whose changes together pass the 4 MiB frame limit arrives whole and in change order, in batches under it; with a limit, a batch cut by size says more changes follow")
    func largeAnchoredWorkouts() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await Self.app(server, "org.example.journal")
        let workout = "HKWorkoutTypeIdentifier"
        // 300 workouts with a 16 KB note each: 4.8 MB, fewer changes than one model page of 500.
        for first in stride(from: 0, to: 300, by: 100) {
            let batch = (first..<first + 100).map { index -> Salus_V1_Sample in
                var sample = Salus_V1_Sample()
                sample.type = workout
                sample.startDate = 1_700_000_000_000_000 + Int64(index) * 3_600_000_000
                sample.endDate = sample.startDate + 1_800_000_000
                sample.workout.activityType = 37
                sample.metadata = ["org.example.note": Self.string(Self.largeNote), "org.example.index": Self.string("\(index)")]
                return sample
            }
            let _: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest(batch))
        }
        func descriptor() -> Salus_V1_TypedPredicate {
            var descriptor = Salus_V1_TypedPredicate()
            descriptor.type = workout
            return descriptor
        }
        var request = Salus_V1_AnchoredQueryRequest()
        request.descriptors = [descriptor()]
        var indexes: [String] = []
        var batches = 0
        var complete = false
        for try await batch in try client.serverStreaming(Self.queryAnchored, request: request) {
            batches += 1
            indexes += batch.added.map { $0.metadata["org.example.index"]?.stringValue ?? "" }
            #expect(batch.added.allSatisfy { $0.metadata["org.example.note"]?.stringValue == Self.largeNote })
            complete = complete || batch.initialResultsComplete
        }
        #expect(indexes == (0..<300).map { "\($0)" })
        #expect(batches > 1 && complete)

        let (limited, asks) = try await Self.limitedPages(client, descriptor()) {
            $0.added.map { $0.metadata["org.example.index"]?.stringValue ?? "" }
        }
        #expect(limited == (0..<300).map { "\($0)" })
        #expect(asks > 1)
        await client.close()
        await server.stop()
    }

    @Test("correlations whose members together pass the 4 MiB frame limit arrive whole and in order from a sample query and an anchored read, with a limit too: the members weigh in the batch's size")
    func largeCorrelationMembers() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await Self.app(server, "org.example.cuff")
        let correlation = "HKCorrelationTypeIdentifierBloodPressure"
        // 40 blood pressures, each member with a 64 KB note: 5.1 MB of members under rows that
        // are small themselves; 10 at a time, each request under the frame limit.
        let note = String(repeating: "m", count: 64_000)
        func member(_ type: String, _ value: Double, start: Int64) -> Salus_V1_Sample {
            var sample = Salus_V1_Sample()
            sample.type = type
            sample.startDate = start
            sample.endDate = start
            sample.quantity.value = value
            sample.quantity.unit = "mmHg"
            sample.metadata = ["org.example.note": Self.string(note)]
            return sample
        }
        for first in stride(from: 0, to: 40, by: 10) {
            let batch = (first..<first + 10).map { index -> Salus_V1_Sample in
                let start = 1_700_000_000_000_000 + Int64(index) * 3_600_000_000
                var sample = Salus_V1_Sample()
                sample.type = correlation
                sample.startDate = start
                sample.endDate = start
                sample.correlation.objects = [
                    member("HKQuantityTypeIdentifierBloodPressureSystolic", 100 + Double(index), start: start),
                    member("HKQuantityTypeIdentifierBloodPressureDiastolic", 60, start: start),
                ]
                sample.metadata = ["org.example.index": Self.string("\(index)")]
                return sample
            }
            let _: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest(batch))
        }
        func descriptor() -> Salus_V1_TypedPredicate {
            var descriptor = Salus_V1_TypedPredicate()
            descriptor.type = correlation
            return descriptor
        }
        func index(_ sample: Salus_V1_Sample) -> String {
            let whole = sample.correlation.objects.count == 2
                && sample.correlation.objects.allSatisfy { $0.metadata["org.example.note"]?.stringValue == note }
            return whole ? sample.metadata["org.example.index"]?.stringValue ?? "" : "members missing"
        }
        let expected = (0..<40).map { "\($0)" }

        var query = Salus_V1_SampleQueryRequest()
        query.type = correlation
        var queried: [String] = []
        for try await batch in try client.serverStreaming(Self.querySamples, request: query) {
            queried += batch.samples.map(index)
        }
        #expect(queried == expected)

        var request = Salus_V1_AnchoredQueryRequest()
        request.descriptors = [descriptor()]
        var indexes: [String] = []
        var batches = 0
        for try await batch in try client.serverStreaming(Self.queryAnchored, request: request) {
            batches += 1
            indexes += batch.added.map(index)
        }
        #expect(indexes == expected)
        #expect(batches > 1)

        let (limited, asks) = try await Self.limitedPages(client, descriptor()) { $0.added.map(index) }
        #expect(limited == expected)
        #expect(asks > 1)
        await client.close()
        await server.stop()
    }

    @Test("an anchored read with a limit above a page's 2,000 changes, over deletions with 1 KiB sync identifiers, comes in batches under the frame limit: deletions weigh in a batch's size")
    func largeDeletionPages() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await Self.app(server, "org.example.sync")
        let identifier = String(repeating: "i", count: 1_000)
        var uuids: [Data] = []
        for first in stride(from: 0, to: 4_000, by: 2_000) {
            let batch = (first..<first + 2_000).map { index in
                Self.stepSample(1, start: 1_700_000_000_000_000 + Int64(index) * 60_000_000, metadata: [
                    "HKMetadataKeySyncIdentifier": Self.string("\(identifier)\(index)"),
                    "HKMetadataKeySyncVersion": { var value = Salus_V1_MetadataValue(); value.numberValue = 1; return value }(),
                ])
            }
            let response: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest(batch))
            uuids += response.results.map(\.uuid)
        }
        var delete = Salus_V1_DeleteRequest()
        delete.uuids.uuids = uuids
        let _: Salus_V1_DeleteResponse = try await client.unary(Self.delete, request: delete)

        var anchor: UInt64?
        var deleted: [Data] = []
        var asks = 0
        while asks < 20 {
            asks += 1
            var request = Salus_V1_AnchoredQueryRequest()
            var descriptor = Salus_V1_TypedPredicate()
            descriptor.type = Self.steps
            request.descriptors = [descriptor]
            request.limit = 10_000
            if let anchor { request.anchor = anchor }
            var last: Salus_V1_AnchoredBatch?
            for try await batch in try client.serverStreaming(Self.queryAnchored, request: request) {
                #expect(batch.added.isEmpty)
                deleted += batch.deleted.map(\.uuid)
                #expect(batch.deleted.allSatisfy { $0.metadata["HKMetadataKeySyncIdentifier"]?.stringValue.hasPrefix(identifier) == true })
                last = batch
            }
            let batch = try #require(last)
            anchor = batch.anchor
            if !batch.moreChanges { break }
        }
        #expect(deleted == uuids)
        #expect(asks > 1)
        await client.close()
        await server.stop()
    }

    @Test("the pages a query reads for a client count against its app's buffered bytes until they are sent: after live feeds' catch-ups of large samples, wire and model, and a query, nothing stays counted while the feeds are open")
    func heldPagesReleased() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let app = "org.example.large"
        let client = try await Self.app(server, app)
        _ = try await Self.saveLargeSteps(client)
        let workouts = (0..<20).map { index -> Salus_V1_Sample in
            var sample = Salus_V1_Sample()
            sample.type = "HKWorkoutTypeIdentifier"
            sample.startDate = 1_700_000_000_000_000 + Int64(index) * 3_600_000_000
            sample.endDate = sample.startDate + 1_800_000_000
            sample.workout.activityType = 37
            sample.metadata = ["org.example.note": Self.string(String(repeating: "w", count: 64_000))]
            return sample
        }
        let _: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest(workouts))
        var iterators: [RPCResponseStream<Salus_V1_AnchoredBatch>.AsyncIterator] = []
        for (type, expected) in [(Self.steps, 300), ("HKWorkoutTypeIdentifier", 20)] {
            var request = Salus_V1_AnchoredQueryRequest()
            var descriptor = Salus_V1_TypedPredicate()
            descriptor.type = type
            request.descriptors = [descriptor]
            request.live = true
            var iterator = try client.serverStreaming(Self.queryAnchored, request: request).makeAsyncIterator()
            var added = 0
            var batches = 0
            while let batch = try await iterator.next() {
                added += batch.added.count
                batches += 1
                if batch.initialResultsComplete { break }
            }
            #expect(added == expected && batches > 1, "\(type)")
            iterators.append(iterator)
        }
        var query = Salus_V1_SampleQueryRequest()
        query.type = Self.steps
        var queried = 0
        for try await batch in try client.serverStreaming(Self.querySamples, request: query) { queried += batch.samples.count }
        #expect(queried == 300)
        try await waitUntil("every page sent is released while the live feeds stay open") {
            server.services.server.bufferedBytes(ofApp: app) == 0
        }
        #expect(iterators.count == 2)
        await client.close()
        await server.stop()
    }

    @Test("a catch-up over the wire comes in batches of up to 2,000 changes, as a sample query's pages do")
    func catchUpBatchSize() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await Self.app(server, "org.example.catchup")
        for first in stride(from: 0, to: 2_500, by: 500) {
            let samples = (first..<first + 500).map { Self.stepSample(Double($0), start: Int64($0) * 60_000_000) }
            let _: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest(samples))
        }
        var request = Salus_V1_AnchoredQueryRequest()
        var descriptor = Salus_V1_TypedPredicate()
        descriptor.type = Self.steps
        request.descriptors = [descriptor]
        var sizes: [Int] = []
        var added: [Double] = []
        for try await batch in try client.serverStreaming(Self.queryAnchored, request: request) {
            sizes.append(batch.added.count)
            added += batch.added.map(\.quantity.value)
        }
        #expect(sizes == [2_000, 500])
        #expect(added == (0..<2_500).map(Double.init))
        await client.close()
        await server.stop()
    }

    @Test("bad samples are refused naming the sample, the field and the value; a bad batch saves nothing")
    func validation() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await Self.app(server, "org.example.walker")

        var unknown = Self.stepSample(1, start: 1_700_000_000_000_000)
        unknown.type = "HKQuantityTypeIdentifierNoSuchThing"
        let wrongUnit = Self.stepSample(1, start: 1_700_000_000_000_000, unit: "kg")
        var backwards = Self.stepSample(1, start: 1_700_000_000_000_000)
        backwards.endDate = backwards.startDate - 1
        var flow = Salus_V1_Sample()
        flow.type = "HKCategoryTypeIdentifierMenstrualFlow"
        flow.startDate = 1_700_000_000_000_000
        flow.endDate = flow.startDate
        flow.category.value = 2
        for (sample, fragment) in [(unknown, "HKQuantityTypeIdentifierNoSuchThing"), (wrongUnit, "kg"), (backwards, "endDate"), (flow, "HKMenstrualCycleStart")] {
            let error = await #expect(throws: RPCError.self) {
                let _: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest([Self.stepSample(5, start: 1_699_000_000_000_000), sample]))
            }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("samples[1]") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "") should name \(fragment)")
        }
        var batch = (0..<1_000).map { Self.stepSample(Double($0), start: 1_600_000_000_000_000 + Int64($0) * 60_000_000) }
        batch[637].quantity.unit = "m"
        let error = await #expect(throws: RPCError.self) {
            let _: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest(batch))
        }
        #expect(error?.message.contains("samples[637]") == true)
        #expect(try await Self.all(client).isEmpty)
        await client.close()
        await server.stop()
    }

    @Test("sync identifier: replay keeps the existing sample; a higher version replaces it and anchored queries see both changes")
    func syncIdentifier() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await Self.app(server, "org.example.sync")
        let keys = { (version: Double) in ["HKMetadataKeySyncIdentifier": Self.string("day-1"), "HKMetadataKeySyncVersion": Self.number(version)] }
        let first: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest([Self.stepSample(100, start: 1_700_000_000_000_000, metadata: keys(1))]))
        let replay: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest([Self.stepSample(100, start: 1_700_000_000_000_000, metadata: keys(1))]))
        #expect(replay.results[0].outcome == .keptExisting)
        #expect(replay.results[0].uuid == first.results[0].uuid)
        let newer: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest([Self.stepSample(150, start: 1_700_000_000_000_000, metadata: keys(2))]))
        #expect(newer.results[0].outcome == .replaced)
        #expect(newer.results[0].replacedUuid == first.results[0].uuid)

        var anchored = Salus_V1_AnchoredQueryRequest()
        var descriptor = Salus_V1_TypedPredicate()
        descriptor.type = Self.steps
        anchored.descriptors = [descriptor]
        anchored.anchor = first.anchor
        var added: [Salus_V1_Sample] = []
        var deleted: [Salus_V1_DeletedObject] = []
        for try await batch in try client.serverStreaming(Self.queryAnchored, request: anchored) {
            added += batch.added
            deleted += batch.deleted
        }
        #expect(added.map(\.uuid) == [newer.results[0].uuid])
        #expect(deleted.map(\.uuid) == [first.results[0].uuid])
        #expect(deleted.first?.metadata["HKMetadataKeySyncIdentifier"]?.stringValue == "day-1")
        let lower: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest([Self.stepSample(90, start: 1_700_000_000_000_000, metadata: keys(1))]))
        #expect(lower.results[0].outcome == .keptExisting)
        #expect(try await Self.all(client).map(\.quantity.value) == [150])
        await client.close()
        await server.stop()
    }

    @Test("an app cannot delete another app's sample, and learns nothing from trying")
    func deleteOwnOnly() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let owner = try await Self.app(server, "org.example.owner")
        let other = try await Self.app(server, "org.example.other")
        let saved: Salus_V1_SaveResponse = try await owner.unary(Self.save, request: Self.saveRequest([Self.stepSample(10, start: 1_700_000_000_000_000)]))
        var request = Salus_V1_DeleteRequest()
        request.uuids.uuids = [saved.results[0].uuid]
        let refused = await #expect(throws: RPCError.self) {
            let _: Salus_V1_DeleteResponse = try await other.unary(Self.delete, request: request)
        }
        var missing = Salus_V1_DeleteRequest()
        missing.uuids.uuids = [Data(repeating: 9, count: 16)]
        let absent = await #expect(throws: RPCError.self) {
            let _: Salus_V1_DeleteResponse = try await other.unary(Self.delete, request: missing)
        }
        #expect(refused?.code == .notFound)
        #expect(refused?.code == absent?.code)
        #expect(refused?.reason == absent?.reason)
        #expect(try await Self.all(owner).count == 1)
        let deleted: Salus_V1_DeleteResponse = try await owner.unary(Self.delete, request: request)
        #expect(deleted.deleted == 1)
        #expect(try await Self.all(owner).isEmpty)
        await owner.close()
        await other.close()
        await server.stop()
    }

    @Test("a live anchored query streams later saves and deletions; an observer hears of them")
    func liveAnchoredAndObserver() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let follower = try await Self.app(server, "org.example.follower")
        let writer = try await Self.app(server, "org.example.writer")
        var request = Salus_V1_AnchoredQueryRequest()
        var descriptor = Salus_V1_TypedPredicate()
        descriptor.type = Self.steps
        request.descriptors = [descriptor]
        request.live = true
        let live = try follower.serverStreaming(Self.queryAnchored, request: request)
        var observerRequest = Salus_V1_ObserverRequest()
        observerRequest.descriptors = [descriptor]
        let observer = try follower.serverStreaming(Self.observe, request: observerRequest)
        var notifications = observer.makeAsyncIterator()
        _ = try await notifications.next()

        var batches = live.makeAsyncIterator()
        let initial = try #require(try await batches.next())
        #expect(initial.initialResultsComplete)
        #expect(initial.added.isEmpty)

        let saved: Salus_V1_SaveResponse = try await writer.unary(Self.save, request: Self.saveRequest([Self.stepSample(42, start: 1_700_000_000_000_000)]))
        let addition = try #require(try await batches.next())
        #expect(addition.added.map(\.uuid) == [saved.results[0].uuid])
        #expect(addition.anchor == saved.anchor)
        let heard = try #require(try await notifications.next())
        #expect(heard.changedTypes == [Self.steps])

        var delete = Salus_V1_DeleteRequest()
        delete.uuids.uuids = [saved.results[0].uuid]
        let _: Salus_V1_DeleteResponse = try await writer.unary(Self.delete, request: delete)
        let deletion = try #require(try await batches.next())
        #expect(deletion.deleted.map(\.uuid) == [saved.results[0].uuid])
        live.cancel()
        observer.cancel()
        await follower.close()
        await writer.close()
        await server.stop()
    }

    @Test("without an app id the store refuses with UNAUTHENTICATED; the owner reads every app's samples and saves only clinical documents and records")
    func identities() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let anonymous = try await server.app(nil)
        let error = await #expect(throws: RPCError.self) {
            let _: Salus_V1_SaveResponse = try await anonymous.unary(Self.save, request: Self.saveRequest([Self.stepSample(1, start: 1_700_000_000_000_000)]))
        }
        #expect(error?.code == .unauthenticated)
        #expect(error?.message.contains("app") == true)
        for app in ["org.example.a", "org.example.b"] {
            let client = try await Self.app(server, app)
            let _: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest([Self.stepSample(1, start: 1_700_000_000_000_000)]))
            await client.close()
        }
        let owner = try await server.owner(clientName: nil)
        #expect(Set(try await Self.all(owner).map(\.sourceRevision.appID)) == ["org.example.a", "org.example.b"])
        var sources = Salus_V1_SourceQueryRequest()
        sources.type = Self.steps
        let listed: Salus_V1_SourceQueryResponse = try await owner.unary(Self.querySources, request: sources)
        #expect(Set(listed.sources.map(\.appID)) == ["org.example.a", "org.example.b"])
        let ownerSave = await #expect(throws: RPCError.self) {
            let _: Salus_V1_SaveResponse = try await owner.unary(Self.save, request: Self.saveRequest([Self.stepSample(1, start: 1_700_000_000_000_000)]))
        }
        #expect(ownerSave?.code == .invalidArgument)
        #expect(ownerSave?.detail?.field == "samples[0].type")
        #expect(ownerSave?.detail?.value == Self.steps)
        #expect(try await Self.all(owner).count == 2)
        await anonymous.close()
        await owner.close()
        await server.stop()
    }

    @Test("an anchor older than the tombstone retention gets ANCHOR_EXPIRED, after a restart too")
    func expiredAnchor() async throws {
        let first = try await ServerHarness.start(openAuthorization: true, tombstoneRetention: .seconds(1))
        let client = try await Self.app(first, "org.example.expiry")
        let saved: Salus_V1_SaveResponse = try await client.unary(Self.save, request: Self.saveRequest([Self.stepSample(1, start: 1_700_000_000_000_000)]))
        var delete = Salus_V1_DeleteRequest()
        delete.uuids.uuids = [saved.results[0].uuid]
        let _: Salus_V1_DeleteResponse = try await client.unary(Self.delete, request: delete)
        await client.close()
        await first.stop()
        // The restarted services use the same data; the tombstone is purged once older than the retention.
        let second = try await first.restart()
        try await waitUntil("the tombstone has expired and is purged") { try await second.services.store.purgeExpiredTombstones().purged > 0 }
        let again = try await Self.app(second, "org.example.expiry")
        var request = Salus_V1_AnchoredQueryRequest()
        var descriptor = Salus_V1_TypedPredicate()
        descriptor.type = Self.steps
        request.descriptors = [descriptor]
        request.anchor = saved.anchor
        let error = await #expect(throws: RPCError.self) {
            for try await _ in try again.serverStreaming(Self.queryAnchored, request: request) {}
        }
        #expect(error?.reason == .anchorExpired)
        await again.close()
        await second.stop()
    }
}
