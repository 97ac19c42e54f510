import Foundation
import NIOCore
import SalusProto
import SalusRPC
@testable import SalusServer
import SalusTestSupport
import SwiftProtobuf
import Testing

/// A large batch of quantities and categories is converted and checked in parts while the
/// store's writer saves the parts before (`StoreService.savedInParts`): the same all-or-nothing
/// save, the same errors and results as a batch saved whole.
@Suite("salus.v1.Store save in parts")
struct SavedInPartsTests {
    static let steps = StoreServiceTests.steps
    static let sleep = StoreServiceTests.sleep
    static let base: Int64 = 1_600_000_000_000_000

    /// `count` samples a minute apart: steps, every fifth a sleep analysis category.
    static func batch(_ count: Int) -> [Salus_V1_Sample] {
        (0..<count).map { index in
            let start = base + Int64(index) * 60_000_000
            guard index % 5 == 4 else { return StoreServiceTests.stepSample(Double(index), start: start) }
            var sample = Salus_V1_Sample()
            sample.type = sleep
            sample.startDate = start
            sample.endDate = start + 60_000_000
            sample.category.value = 0
            return sample
        }
    }

    static func save(_ client: RPCClient, _ samples: [Salus_V1_Sample]) async throws -> Salus_V1_SaveResponse {
        try await client.unary(StoreServiceTests.save, request: StoreServiceTests.saveRequest(samples))
    }

    /// Every change of `type` from the start: (added, deleted, the last batch's anchor).
    static func changes(_ client: RPCClient, type: String) async throws -> (added: [Salus_V1_Sample], deleted: [Data], anchor: UInt64) {
        var request = Salus_V1_AnchoredQueryRequest()
        request.descriptors = [Authz.descriptor(type)]
        var added: [Salus_V1_Sample] = []
        var deleted: [Data] = []
        var anchor: UInt64 = 0
        for try await batch in try client.serverStreaming(StoreServiceTests.queryAnchored, request: request) {
            added += batch.added
            deleted += batch.deleted.map(\.uuid)
            anchor = batch.anchor
        }
        return (added, deleted, anchor)
    }

    @Test("a batch of 5,000 steps and sleep samples with an invalid sample in its last part saves nothing, not even the parts before, and names the sample; fixed, it saves whole, in order")
    func allOrNothing() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await StoreServiceTests.app(server, "org.example.parts")
        let before = try await Self.changes(client, type: Self.steps).anchor

        var samples = Self.batch(5_000)
        // A wrong unit, an end before the start, a NaN count, a type left empty, a sleep value
        // no case has: each in a late part, after parts the writer has saved.
        for (bad, field) in [
            (4_321, "quantity.unit"), (4_999, "endDate"), (2_001, "quantity.value"), (3_500, "type"), (1_999, "category.value"),
        ] {
            var broken = samples
            switch bad {
            case 4_321: broken[bad].quantity.unit = "m"
            case 4_999: broken[bad].endDate = broken[bad].startDate - 1
            case 2_001: broken[bad].quantity.value = .nan
            case 3_500: broken[bad].type = ""
            default: broken[bad].category.value = 1_000_000
            }
            let error = await #expect(throws: RPCError.self) { _ = try await Self.save(client, broken) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.detail?.field == "samples[\(bad)].\(field)", "\(error?.message ?? "")")
            #expect(try await StoreServiceTests.all(client).isEmpty)
            #expect(try await StoreServiceTests.all(client, type: Self.sleep).isEmpty)
            #expect(try await Self.changes(client, type: Self.steps).anchor == before)
        }

        samples[2_500].quantity.value = 2_500.5
        let saved = try await Self.save(client, samples)
        #expect(saved.results.count == 5_000)
        #expect(saved.results.allSatisfy { $0.outcome == .saved })
        #expect(Set(saved.results.map(\.uuid)).count == 5_000)
        let steps = try await StoreServiceTests.all(client)
        let sleeps = try await StoreServiceTests.all(client, type: Self.sleep)
        #expect(steps.count == 4_000)
        #expect(sleeps.count == 1_000)
        // Each result is its own sample's: the UUID the query gives for it.
        let uuidsByStart = Dictionary(uniqueKeysWithValues: (steps + sleeps).map { ($0.startDate, $0.uuid) })
        for (index, result) in saved.results.enumerated() where index % 997 == 0 || index == 2_500 {
            #expect(uuidsByStart[samples[index].startDate] == result.uuid, "samples[\(index)]")
        }
        #expect(steps.first { $0.startDate == samples[2_500].startDate }?.quantity.value == 2_500.5)
        #expect(steps.map(\.startDate) == samples.filter { $0.type == Self.steps }.map(\.startDate))
        // The save's anchor is the last change's.
        let after = try await Self.changes(client, type: Self.sleep)
        #expect(after.added.count == 1_000)
        #expect(saved.anchor == after.anchor)
        await client.close()
        await server.stop()
    }

    @Test("parts start small, for the writer to start early, and grow by half each up to 1,000: a 10,000-sample batch goes in 14 parts, every sample in one")
    func partSizes() {
        var sizes: [Int] = []
        var covered = 0
        while covered < 10_000 {
            let size = StoreService.partSize(after: sizes.last)
            sizes.append(size)
            covered += size
        }
        #expect(sizes.first == 100)
        #expect(sizes.max() == StoreService.feedPart)
        #expect(zip(sizes, sizes.dropFirst()).allSatisfy { $1 <= $0 + $0 / 2 && $1 >= $0 })
        #expect(sizes.count == 14)
    }

    @Test("which batches are saved in parts: quantities and categories of an app, at least two parts; any other batch, and one that fails, is left whole to the batch path with nothing saved")
    func whichBatches() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let services = server.services
        let service = StoreService(
            store: services.store, registry: services.plugins.registry, authorization: services.authorization,
            accessLog: services.accessLog)
        func caller(_ source: Caller.AppIDSource) -> Caller {
            Caller(peer: PeerCredentials(pid: 1, uid: 1000, gid: 1000), appID: "org.example.parts", appIDSource: source, appName: "Parts", appVersion: nil)
        }
        func payload(_ samples: [Salus_V1_Sample]) throws -> ByteBuffer {
            ByteBuffer(bytes: try StoreServiceTests.saveRequest(samples).serializedBytes() as [UInt8])
        }
        let samples = Self.batch(2 * StoreService.feedPart)
        let ranges = try #require(StoreService.sampleRanges(try payload(samples)))
        #expect(ranges.count == samples.count)
        let anchor = try await services.store.currentAnchor()

        #expect(await service.savedInParts(try payload(Array(samples.dropLast())), caller: caller(.launcher)) == nil)
        #expect(await service.savedInParts(try payload(samples), caller: caller(.owner)) == nil)
        var workout = samples
        workout[1_500] = Salus_V1_Sample()
        workout[1_500].type = "HKWorkoutTypeIdentifier"
        workout[1_500].startDate = Self.base
        workout[1_500].endDate = Self.base + 60_000_000
        workout[1_500].workout.activityType = 37
        #expect(await service.savedInParts(try payload(workout), caller: caller(.launcher)) == nil)
        var invalid = samples
        invalid[1_999].quantity.unit = "kg"
        #expect(await service.savedInParts(try payload(invalid), caller: caller(.launcher)) == nil)
        #expect(try await services.store.currentAnchor() == anchor)

        let saved = try #require(await service.savedInParts(try payload(samples), caller: caller(.launcher)))
        #expect(saved.results.count == samples.count)
        #expect(saved.anchor.rawValue == anchor.rawValue + UInt64(samples.count))
        await server.stop()
    }

    @Test("a large batch whose last sample does not decode is refused as a request that does not decode, before an invalid sample earlier in it, as any batch is; nothing is saved")
    func undecodableLastSample() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await StoreServiceTests.app(server, "org.example.parts")
        var samples = Self.batch(3_000)
        samples[10].quantity.unit = "kg"
        // A sample field whose contents end inside a varint; the request is sent as the unknown
        // fields of an empty message, which carries them as they are.
        let payload: [UInt8] = try StoreServiceTests.saveRequest(samples).serializedBytes() + [0x0A, 0x02, 0x08, 0xFF]
        let request = try Google_Protobuf_Empty(serializedBytes: payload)
        let error = await #expect(throws: RPCError.self) {
            _ = try await client.rawUnary(
                StoreServiceTests.save.descriptor, request: request, responseType: Salus_V1_SaveResponse.self)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.reason == .malformedMessage, "\(String(describing: error))")
        #expect(try await StoreServiceTests.all(client).isEmpty)

        // The same request without its last sample is refused for samples[10].
        let valid = try Google_Protobuf_Empty(serializedBytes: Array(payload.dropLast(4)))
        let named = await #expect(throws: RPCError.self) {
            _ = try await client.rawUnary(
                StoreServiceTests.save.descriptor, request: valid, responseType: Salus_V1_SaveResponse.self)
        }
        #expect(named?.detail?.field == "samples[10].quantity.unit", "\(String(describing: named))")
        #expect(try await StoreServiceTests.all(client).isEmpty)
        await client.close()
        await server.stop()
    }

    @Test("in a batch saved in parts, a later sample replaces an earlier one of the same batch by sync identifier across parts; a replay keeps what is there")
    func syncIdentifierAcrossParts() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await StoreServiceTests.app(server, "org.example.parts")
        let keys = { (version: Double) in
            ["HKMetadataKeySyncIdentifier": StoreServiceTests.string("day-1"), "HKMetadataKeySyncVersion": StoreServiceTests.number(version)]
        }
        var samples = Self.batch(3_000)
        samples[10].metadata = keys(1)
        samples[2_600].metadata = keys(2)
        let saved = try await Self.save(client, samples)
        #expect(saved.results[10].outcome == .saved)
        #expect(saved.results[2_600].outcome == .replaced)
        #expect(saved.results[2_600].replacedUuid == saved.results[10].uuid)
        let changes = try await Self.changes(client, type: Self.steps)
        #expect(changes.added.count == 2_399)
        #expect(!changes.added.contains { $0.uuid == saved.results[10].uuid })
        #expect(changes.deleted == [saved.results[10].uuid])

        // Only the two with the identifier repeat nothing.
        let replay = try await Self.save(client, samples)
        #expect(replay.results[10].outcome == .keptExisting)
        #expect(replay.results[10].uuid == saved.results[2_600].uuid)
        #expect(replay.results[2_600].outcome == .keptExisting)
        #expect(try await StoreServiceTests.all(client).count == 2 * 2_399 - 1)
        await client.close()
        await server.stop()
    }

    @Test("a batch in parts naming a type the app may not write saves nothing and is refused for that type; an invalid sample in it is named first, as for any batch")
    func authorization() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        let appID = "org.example.parts"
        try await Authz.register(owner, appID)
        try await Authz.grant(owner, appID, Self.steps, read: .granted, share: .granted)
        let app = try await Authz.app(server, appID)

        // Sleep is not allowed: nothing is saved, steps included.
        let mixed = Self.batch(3_000)
        let denied = await Authz.error { _ = try await Self.save(app, mixed) }
        #expect(denied?.code == .permissionDenied, "\(String(describing: denied))")
        #expect(denied?.message.contains(Self.sleep) == true, "\(denied?.message ?? "")")
        #expect(try await StoreServiceTests.all(app).isEmpty)

        var invalid = mixed
        invalid[2_998].quantity.unit = "kg"
        let named = await Authz.error { _ = try await Self.save(app, invalid) }
        #expect(named?.code == .invalidArgument)
        #expect(named?.detail?.field == "samples[2998].quantity.unit", "\(named?.message ?? "")")

        let onlySteps = mixed.filter { $0.type == Self.steps } + mixed.filter { $0.type == Self.steps }.map {
            var later = $0
            later.startDate += 1_000_000_000_000
            later.endDate += 1_000_000_000_000
            return later
        }
        let saved = try await Self.save(app, onlySteps)
        #expect(saved.results.count == 4_800)
        #expect(try await StoreServiceTests.all(app).count == 4_800)
        await app.close()
        await owner.close()
        await server.stop()
    }
}
