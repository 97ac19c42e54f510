import Foundation

/// One immutable sample of health data: a value of one type over a time span, with where it
/// came from.
///
/// An edit is a delete plus a new sample. The store assigns `uuid` (time-ordered, `UUIDv7`),
/// `sourceRevision` and `creationDate` on save and replaces whatever a client sent.
public struct Sample: Hashable, Sendable, Identifiable {
    /// The sample's identifier.
    public var uuid: UUID
    /// The data type.
    public var type: TypeIdentifier
    /// When the sample starts.
    public var startDate: Date
    /// When it ends; equal to `startDate` for instantaneous samples, never earlier.
    public var endDate: Date
    /// The value, whose kind must match the type's kind.
    public var value: SampleValue
    /// The app that saved it.
    public var sourceRevision: SourceRevision
    /// The device that measured it, if known.
    public var device: Device?
    /// Metadata by key; see `MetadataKey` for HealthKit's keys.
    public var metadata: [String: MetadataValue]
    /// When it was saved.
    public var creationDate: Date

    /// Creates a sample.
    public init(
        uuid: UUID = UUIDv7.make(),
        type: TypeIdentifier,
        startDate: Date,
        endDate: Date,
        value: SampleValue,
        sourceRevision: SourceRevision,
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:],
        creationDate: Date = Date()
    ) {
        self.uuid = uuid
        self.type = type
        self.startDate = startDate
        self.endDate = endDate
        self.value = value
        self.sourceRevision = sourceRevision
        self.device = device
        self.metadata = metadata
        self.creationDate = creationDate
    }

    /// The sample's identifier (`uuid`).
    public var id: UUID { uuid }

    /// The object kind of the value.
    public var kind: ObjectKind { value.kind }

    /// The sync identifier, if the metadata holds a string for `MetadataKey.syncIdentifier`.
    public var syncIdentifier: String? { metadata[MetadataKey.syncIdentifier]?.stringValue }

    /// The sync version, if the metadata holds a number for `MetadataKey.syncVersion`.
    public var syncVersion: Double? { metadata[MetadataKey.syncVersion]?.numberValue }
}
