import Foundation
import SalusModel
import SalusPluginHost
import SalusProto
import SalusRPC
import SalusStore
import SalusWire

/// salus.v1.Replica: samples and deletions from the person's other stores, brought by the app the
/// owner made the store's sync agent (`salusctl apps sync-agent`).
///
/// **Rule: only the sync agent keeps another store's UUIDs and sources.** An app's saves get a
/// new UUID and the app's own source revision (StoreService); a replica keeps the UUID, source
/// revision, device and creation date it has on the other machine, so the same sample is the
/// same on both and statistics, which rank sources and break ties by creation date, come out
/// equal. Why only the agent: an app that could choose a source could save in any other app's
/// name. Each type still needs the agent's share permission, as any write does.
///
/// **Rule: replicas are marked, and a sync agent reads local changes only.** The changes these
/// calls make are left out of an anchored query with `local_changes_only`, so the agent never
/// sends back to the server what it brought from there (no echo, no loop).
package struct ReplicaService: Sendable {
    let store: SampleStore
    let registry: TypeRegistry
    let authorization: AuthorizationEngine

    /// A service over `store`, checked by `authorization`.
    package init(store: SampleStore, registry: TypeRegistry, authorization: AuthorizationEngine) {
        self.store = store
        self.registry = registry
        self.authorization = authorization
    }

    /// Adds the service's methods to `router` (app sockets).
    package func register(into router: inout RPCRouter) {
        router.registerUnary(SalusMethods.Replica.save, onEventLoop: false) { (request: Salus_V1_ReplicaSaveRequest, context) in
            try await self.save(request, caller: try Caller.resolve(context))
        }
        router.registerUnary(SalusMethods.Replica.delete, onEventLoop: false) { (request: Salus_V1_UUIDList, context) in
            try await self.delete(request, caller: try Caller.resolve(context))
        }
    }

    /// Refuses a caller that is not the store's sync agent.
    func checkAgent(_ caller: Caller) throws(RPCError) {
        guard caller.isVerified, caller.appIDSource != .owner, authorization.grants(caller)?.isSyncAgent == true else {
            throw RPCError(
                code: .permissionDenied,
                message: "\(caller.label) is not this store's sync agent; the owner makes an app the sync agent with "
                    + "`salusctl apps sync-agent \(caller.appID)`, and it must connect through its own socket (salusctl launch)",
                reason: .permissionDenied, field: "appId", value: caller.label,
                expected: "the app the owner made the sync agent, launched with salusctl launch")
        }
    }

    func save(_ request: Salus_V1_ReplicaSaveRequest, caller: Caller) async throws -> Salus_V1_ReplicaSaveResponse {
        try checkAgent(caller)
        guard !request.samples.isEmpty else {
            throw RPCError.invalidArgument(field: "samples", value: "0 samples", expected: "at least one sample")
        }
        var samples: [Sample] = []
        samples.reserveCapacity(request.samples.count)
        do throws(ValidationError) {
            for (index, wire) in request.samples.enumerated() {
                let path = "samples[\(index)]"
                guard wire.uuid.count == 16 else {
                    throw ValidationError(
                        reason: .missingValue, field: "\(path).uuid", value: "\(wire.uuid.count) bytes",
                        expected: "the 16-byte UUID the sample has in the other store")
                }
                guard wire.hasSourceRevision, !wire.sourceRevision.appID.isEmpty else {
                    throw ValidationError(
                        reason: .missingValue, field: "\(path).sourceRevision.appId", value: "",
                        expected: "the source revision the sample has in the other store")
                }
                guard wire.creationDate != 0 else {
                    throw ValidationError(
                        reason: .missingValue, field: "\(path).creationDate", value: "0",
                        expected: "the creation date the sample has in the other store")
                }
                samples.append(
                    try Sample(
                        wire: wire, path: path, source: SourceRevision(wire: wire.sourceRevision),
                        creationDate: WireDate.date(wire.creationDate)))
            }
            samples = try registry.catalog.prepareForSaving(samples)
        } catch {
            throw RPCError.from(error)
        }
        try await authorizationCall { try authorization.checkShare(caller, types: StoreService.typesWritten(by: samples)) }
        let response = try await storeCall { try await store.saveReplicas(samples) }
        var reply = Salus_V1_ReplicaSaveResponse()
        reply.anchor = response.anchor.rawValue
        reply.results = zip(request.samples, response.results).map { sent, result in
            var wire = Salus_V1_ReplicaSaveResult()
            wire.uuid = sent.uuid
            switch result.outcome {
            case .saved: wire.outcome = .saved
            case .present: wire.outcome = .present
            case .deletedHere: wire.outcome = .deletedHere
            case .keptExisting:
                // The result names this store's sample, which was kept.
                wire.outcome = .keptLocal
                wire.localUuid = WireUUID.bytes(result.uuid)
            case .replaced(let local):
                wire.outcome = .replaced
                wire.localUuid = WireUUID.bytes(local)
            }
            return wire
        }
        return reply
    }

    func delete(_ request: Salus_V1_UUIDList, caller: Caller) async throws -> Salus_V1_ReplicaDeleteResponse {
        try checkAgent(caller)
        let uuids = try request.checkedUUIDs()
        // Each deleted sample's type needs the agent's write permission; a UUID's type never
        // changes, so it is looked up before the deletion's transaction.
        let types = try await storeCall { try await store.types(of: uuids) }
        try await authorizationCall { try authorization.checkShare(caller, types: types.map(\.rawValue).sorted()) }
        let response = try await storeCall { try await store.deleteReplicas(uuids, agent: caller.appID) }
        var reply = Salus_V1_ReplicaDeleteResponse()
        reply.deleted = UInt64(response.deleted)
        reply.anchor = response.anchor.rawValue
        return reply
    }
}
