import Foundation

/// What remains of a deleted sample in the change feed, as HealthKit's `HKDeletedObject`.
///
/// Only the sync identifier and sync version survive, so a client can map a deletion back to its
/// own record.
public struct DeletedObject: Hashable, Sendable, Identifiable {
    /// The deleted sample's identifier.
    public var uuid: UUID
    /// The deleted sample's type.
    public var type: TypeIdentifier
    /// The metadata kept: at most `MetadataKey.syncIdentifier` and `MetadataKey.syncVersion`.
    public var metadata: [String: MetadataValue]

    /// Creates a deleted object; metadata other than the sync keys is dropped.
    public init(uuid: UUID, type: TypeIdentifier, metadata: [String: MetadataValue] = [:]) {
        self.uuid = uuid
        self.type = type
        self.metadata = metadata.filter { MetadataKey.keptOnDeletion.contains($0.key) }
    }

    /// The tombstone of `sample`.
    public init(deleting sample: Sample) {
        self.init(uuid: sample.uuid, type: sample.type, metadata: sample.metadata)
    }

    /// The deleted sample's identifier (`uuid`).
    public var id: UUID { uuid }
}
