import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire

/// What became of one sample of a replica save (``HealthStore/saveReplicas(_:)``).
public enum ReplicaOutcome: Hashable, Sendable {
    /// Saved with its UUID, source revision and creation date.
    case saved
    /// A sample with this UUID is in the store already: nothing changed.
    case present
    /// This store deleted the sample with this UUID: it stays deleted.
    case deletedHere
    /// This store has a sample of the same app, type and sync identifier with a higher version,
    /// which was kept (its UUID); the replica was not saved.
    case keptLocal(UUID)
    /// It replaced this store's sample (its UUID) of the same app, type and sync identifier with
    /// an equal or lower version.
    case replaced(UUID)
}

extension HealthStore {
    /// Saves samples from the person's other stores, in one transaction, each with the UUID,
    /// source revision, device and creation date it has there; returns one outcome per sample,
    /// in order. Only the app the owner made the store's sync agent may call it
    /// (``SalusError/Code/permissionDenied`` otherwise), and each type needs its share
    /// permission. The changes are replicas: an anchored query with `localChangesOnly` leaves
    /// them out.
    public func saveReplicas(_ samples: [Sample]) async throws(SalusError) -> [ReplicaOutcome] {
        var request = Salus_V1_ReplicaSaveRequest()
        request.samples = samples.map(\.wire)
        let response: Salus_V1_ReplicaSaveResponse = try await mappingErrors {
            try await client.unary(SalusMethods.Replica.save, request: request)
        }
        guard response.results.count == samples.count else {
            throw SalusError.malformed(field: "results", value: "\(response.results.count)", expected: "\(samples.count) results")
        }
        return try response.results.enumerated().map { (index, result) throws(SalusError) -> ReplicaOutcome in
            func local() throws(SalusError) -> UUID {
                guard let uuid = WireUUID.uuid(result.localUuid) else {
                    throw SalusError.malformed(
                        field: "results[\(index)].localUuid", value: "\(result.localUuid.count) bytes", expected: "16 bytes")
                }
                return uuid
            }
            switch result.outcome {
            case .saved: return .saved
            case .present: return .present
            case .deletedHere: return .deletedHere
            case .keptLocal: return .keptLocal(try local())
            case .replaced: return .replaced(try local())
            case .unspecified, .UNRECOGNIZED:
                throw SalusError.malformed(
                    field: "results[\(index)].outcome", value: "\(result.outcome.rawValue)",
                    expected: "SAVED, PRESENT, DELETED_HERE, KEPT_LOCAL or REPLACED")
            }
        }
    }

    /// Deletes the samples with these UUIDs that the store has, whichever app saved them, in one
    /// transaction, as deletions from the person's other stores (skipping UUIDs the store does
    /// not have); returns how many were deleted. Sync agent only, as ``saveReplicas(_:)``.
    @discardableResult
    public func deleteReplicas(uuids: [UUID]) async throws(SalusError) -> Int {
        var request = Salus_V1_UUIDList()
        request.uuids = uuids.map(WireUUID.bytes)
        let response: Salus_V1_ReplicaDeleteResponse = try await mappingErrors {
            try await client.unary(SalusMethods.Replica.delete, request: request)
        }
        return Int(clamping: response.deleted)
    }
}
