import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// salus.v1.Replica: what the sync agent brings from the person's other stores keeps its
/// identity, is never sent back, and is refused to every other app.
@Suite("Replica saves and deletions")
struct ReplicaServiceTests {
    static let agentID = "org.salus.sync"
    static let start = Date(timeIntervalSince1970: 1_795_218_600)  // 2026-11-20 21:30 UTC
    static let watch = SourceRevision(appID: "org.example.watch", name: "Watch", version: "11.2", productType: "Watch7,1")

    /// A step sample as another store has it: its own UUID, source, device and creation date.
    static func replica(
        _ value: Double, minute: Int = 0, uuid: UUID = UUID(), source: SourceRevision = watch,
        sync: (String, Double)? = nil
    ) -> Sample {
        var metadata: [String: MetadataValue] = [MetadataKey.wasUserEntered: .bool(false)]
        if let (identifier, version) = sync {
            metadata[MetadataKey.syncIdentifier] = .string(identifier)
            metadata[MetadataKey.syncVersion] = .number(version)
        }
        let from = start.addingTimeInterval(Double(minute) * 60)
        return Sample(
            uuid: uuid, type: TypeIdentifier(rawValue: Authz.steps), startDate: from, endDate: from.addingTimeInterval(60),
            value: .quantity(Quantity(value: value, unit: .count)), sourceRevision: source,
            device: Device(name: "Band", manufacturer: "Acme", model: "B1"), metadata: metadata,
            creationDate: Date(timeIntervalSince1970: 1_795_000_000.25))
    }

    /// A store with the sync agent (read and write steps) and a pedometer app (write steps).
    static func setUp(agent: Bool = true, share: Salus_V1_Decision = .granted) async throws
        -> (ServerHarness, RPCClient, HealthStore, HealthStore)
    {
        let server = try await ServerHarness.start(developmentMode: false)
        let owner = try await server.owner()
        try await Authz.register(owner, agentID, read: .granted, share: share)
        try await Authz.register(owner, "org.example.pedometer", read: nil, share: .granted)
        if agent { try await setAgent(owner, agentID, true) }
        let sync = HealthStore(client: try await server.launchedApp(agentID))
        let pedometer = HealthStore(client: try await server.launchedApp("org.example.pedometer"))
        return (server, owner, sync, pedometer)
    }

    static func setAgent(_ owner: RPCClient, _ appID: String, _ agent: Bool) async throws {
        var request = Salus_V1_SetSyncAgentRequest()
        request.appID = appID
        request.syncAgent = agent
        let info: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.setSyncAgent, request: request)
        #expect(info.syncAgent == agent)
    }

    static func changes(_ store: HealthStore, localOnly: Bool) async throws -> (added: [UUID], deleted: [UUID]) {
        let result = try await AnchoredObjectQueryDescriptor(
            predicates: [.samples(.quantity(.stepCount))], localChangesOnly: localOnly
        ).result(for: store)
        return (result.addedSamples.map(\.uuid), result.deletedObjects.map(\.uuid))
    }

    @Test("a replica keeps its UUID, source, device, metadata and creation date; a repeat is present, a deleted one stays deleted")
    func replicaKeepsIdentity() async throws {
        let (server, _, sync, _) = try await Self.setUp()
        let sample = Self.replica(1234)
        #expect(try await sync.saveReplicas([sample]) == [.saved])
        #expect(try await sync.saveReplicas([sample]) == [.present])

        let found = try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: sync)
        #expect(found == [sample], "the store holds the sample exactly as the other store had it")

        let unknown = UUID()
        #expect(try await sync.deleteReplicas(uuids: [sample.uuid, unknown]) == 1, "a UUID the store lacks is skipped")
        #expect(try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: sync).isEmpty)
        #expect(try await sync.saveReplicas([sample]) == [.deletedHere], "a deletion here wins over a late copy")
        #expect(try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: sync).isEmpty)
        await sync.close()
        await server.stop()
    }

    @Test("a replica goes through the same save step as an app's save: a workout without activities gets one spanning it")
    func replicaIsNormalisedLikeASave() async throws {
        let (server, owner, sync, _) = try await Self.setUp()
        let workoutType = "HKWorkoutTypeIdentifier"
        try await Authz.register(owner, Self.agentID, type: workoutType, read: .granted, share: .granted)
        let end = Self.start.addingTimeInterval(1800)
        let bare = Sample(
            uuid: UUID(), type: TypeIdentifier(rawValue: workoutType), startDate: Self.start, endDate: end,
            value: .workout(Workout(activityType: 37)), sourceRevision: Self.watch,
            creationDate: Date(timeIntervalSince1970: 1_795_000_000.25))
        #expect(try await sync.saveReplicas([bare]) == [.saved])
        let stored = try await SampleQueryDescriptor(type: .workout).result(for: sync)
        #expect(stored.count == 1)
        guard case .workout(let workout)? = stored.first?.value else {
            Issue.record("no workout stored: \(stored)")
            return
        }
        #expect(workout.activities.count == 1, "an app's save adds the spanning activity; a replica must be stored the same way")
        #expect(workout.activities.first?.startDate == Self.start)
        #expect(workout.activities.first?.endDate == end)
        await sync.close()
        await server.stop()
    }

    @Test("an anchored query for local changes only leaves out replicas and their deletions, and moves past them")
    func localChangesOnly() async throws {
        let (server, _, sync, pedometer) = try await Self.setUp()
        let own = try await pedometer.save(.quantity(.stepCount, Quantity(value: 10, unit: .count), start: Self.start, end: Self.start.addingTimeInterval(60)))
        let brought = Self.replica(20, minute: 5)
        _ = try await sync.saveReplicas([brought])
        let other = Self.replica(30, minute: 6)
        _ = try await sync.saveReplicas([other])
        try await sync.deleteReplicas(uuids: [other.uuid])

        let local = try await Self.changes(sync, localOnly: true)
        #expect(local.added == [own.uuid])
        #expect(local.deleted.isEmpty)
        let all = try await Self.changes(sync, localOnly: false)
        #expect(Set(all.added) == [own.uuid, brought.uuid])
        #expect(all.deleted == [other.uuid])

        // The local feed's anchor is past the replicas: nothing comes after it.
        let first = try await AnchoredObjectQueryDescriptor(predicates: [.samples(.quantity(.stepCount))], localChangesOnly: true).result(for: sync)
        let again = try await AnchoredObjectQueryDescriptor(
            predicates: [.samples(.quantity(.stepCount))], anchor: first.newAnchor, localChangesOnly: true
        ).result(for: sync)
        #expect(again.addedSamples.isEmpty && again.deletedObjects.isEmpty)

        // An app's own deletion is a local change: it is sent.
        let deleted = try await pedometer.delete(uuids: [own.uuid])
        #expect(deleted == 1)
        let after = try await AnchoredObjectQueryDescriptor(
            predicates: [.samples(.quantity(.stepCount))], anchor: first.newAnchor, localChangesOnly: true
        ).result(for: sync)
        #expect(after.deletedObjects.map(\.uuid) == [own.uuid])
        await sync.close()
        await pedometer.close()
        await server.stop()
    }

    @Test("sync identifiers: a replica replaces an equal or lower version here and leaves a higher one")
    func syncIdentifiers() async throws {
        let (server, _, sync, pedometer) = try await Self.setUp()
        let pedometerSource = SourceRevision(appID: "org.example.pedometer", name: "Pedometer")
        let local = try await pedometer.save(
            .quantity(
                .stepCount, Quantity(value: 100, unit: .count), start: Self.start, end: Self.start.addingTimeInterval(60),
                metadata: [MetadataKey.syncIdentifier: .string("walk-1"), MetadataKey.syncVersion: .number(2)]))

        let equal = Self.replica(200, source: pedometerSource, sync: ("walk-1", 2))
        #expect(try await sync.saveReplicas([equal]) == [.replaced(local.uuid)], "the server's order decided equal versions")
        let lower = Self.replica(300, source: pedometerSource, sync: ("walk-1", 1))
        #expect(try await sync.saveReplicas([lower]) == [.keptLocal(equal.uuid)])
        let otherApp = Self.replica(400, sync: ("walk-1", 1))
        #expect(try await sync.saveReplicas([otherApp]) == [.saved], "identifiers are per app")

        let values = try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: sync)
            .compactMap { sample -> Double? in
                if case .quantity(let quantity) = sample.value { return quantity.value }
                return nil
            }.sorted()
        #expect(values == [200, 400])
        // The replaced local sample's deletion came from elsewhere: the local feed does not send it.
        let localChanges = try await Self.changes(sync, localOnly: true)
        #expect(localChanges.added.isEmpty && localChanges.deleted.isEmpty)
        await sync.close()
        await pedometer.close()
        await server.stop()
    }

    @Test("only the sync agent may save or delete replicas, each type needs its write permission, and bad input names the field")
    func refusals() async throws {
        let (server, owner, sync, pedometer) = try await Self.setUp(agent: false)
        let sample = Self.replica(1)

        let notAgent = await #expect(throws: SalusError.self) { try await sync.saveReplicas([sample]) }
        #expect(notAgent?.code == .permissionDenied)
        #expect(notAgent?.field == "appId")
        let notAgentDelete = await #expect(throws: SalusError.self) { try await pedometer.deleteReplicas(uuids: [sample.uuid]) }
        #expect(notAgentDelete?.code == .permissionDenied)

        try await Self.setAgent(owner, Self.agentID, true)
        // A type the agent may not write.
        var heart = Self.replica(60)
        heart.type = TypeIdentifier(rawValue: "HKQuantityTypeIdentifierHeartRate")
        heart.value = .quantity(Quantity(value: 60, unit: try SalusUnit(parsing: "count/min")))
        let denied = await #expect(throws: SalusError.self) { try await sync.saveReplicas([sample, heart]) }
        #expect(denied?.code == .authorizationNotDetermined, "the owner never decided heart rate for the agent")
        #expect(denied?.value?.contains("HKQuantityTypeIdentifierHeartRate") == true)
        #expect(try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: sync).isEmpty, "the batch saved nothing")

        // A sample without its UUID or creation date.
        var wire = Salus_V1_ReplicaSaveRequest()
        wire.samples = [sample.wire]
        wire.samples[0].uuid = Data()
        let missing = await #expect(throws: RPCError.self) {
            let _: Salus_V1_ReplicaSaveResponse = try await server.launchedApp(Self.agentID).unary(SalusMethods.Replica.save, request: wire)
        }
        #expect(missing?.detail?.field == "samples[0].uuid")
        wire.samples = [sample.wire]
        wire.samples[0].creationDate = 0
        let undated = await #expect(throws: RPCError.self) {
            let _: Salus_V1_ReplicaSaveResponse = try await server.launchedApp(Self.agentID).unary(SalusMethods.Replica.save, request: wire)
        }
        #expect(undated?.detail?.field == "samples[0].creationDate")

        // A deletion naming a malformed UUID, or none, is refused naming the entry.
        var badDelete = Salus_V1_UUIDList()
        badDelete.uuids = [Data(count: 16), Data(count: 15)]
        let malformed = await #expect(throws: RPCError.self) {
            let _: Salus_V1_ReplicaDeleteResponse = try await server.launchedApp(Self.agentID).unary(SalusMethods.Replica.delete, request: badDelete)
        }
        #expect(malformed?.detail?.field == "uuids[1]")
        #expect(malformed?.detail?.value == "15 bytes")
        badDelete.uuids = []
        let none = await #expect(throws: RPCError.self) {
            let _: Salus_V1_ReplicaDeleteResponse = try await server.launchedApp(Self.agentID).unary(SalusMethods.Replica.delete, request: badDelete)
        }
        #expect(none?.detail?.field == "uuids")

        // The agent deletes another app's sample only when it may write the type.
        let own = try await pedometer.save(.quantity(.stepCount, Quantity(value: 5, unit: .count), start: Self.start, end: Self.start.addingTimeInterval(60)))
        try await Authz.grant(owner, Self.agentID, Authz.steps, read: .granted, share: .denied)
        let deleteDenied = await #expect(throws: SalusError.self) { try await sync.deleteReplicas(uuids: [own.uuid]) }
        #expect(deleteDenied?.code == .authorizationDenied)
        #expect(try await SampleQueryDescriptor(type: .quantity(.stepCount)).result(for: pedometer).count == 1)

        // An agent no longer: refused again, and the mark survives a restart.
        try await Self.setAgent(owner, Self.agentID, false)
        await #expect(throws: SalusError.self) { try await sync.deleteReplicas(uuids: [own.uuid]) }
        try await Self.setAgent(owner, Self.agentID, true)
        await sync.close()
        await pedometer.close()
        await server.stop()
        let restarted = try await server.restart()
        var show = Salus_V1_AppRequest()
        show.appID = Self.agentID
        let info: Salus_V1_AppInfo = try await restarted.owner().unary(SalusMethods.Consent.showApp, request: show)
        #expect(info.syncAgent)
        await restarted.stop()
    }
}
