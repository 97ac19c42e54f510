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
    public var device: Device? {
        get { measuringDevice }
        set { measuringDevice = newValue }
    }
    /// `device`, stored under another name so that the initializer below can build the sample
    /// with the memberwise initializer this gives the file (see there).
    private var measuringDevice: Device?
    /// Metadata by key; see `MetadataKey` for HealthKit's keys.
    public var metadata: [String: MetadataValue]
    /// When it was saved.
    public var creationDate: Date

    /// The sample's identifier (`uuid`).
    public var id: UUID { uuid }

    /// The object kind of the value.
    public var kind: ObjectKind { value.kind }

    /// The sync identifier, if the metadata holds a string for `MetadataKey.syncIdentifier`.
    public var syncIdentifier: String? { metadata[MetadataKey.syncIdentifier]?.stringValue }

    /// The sync version, if the metadata holds a number for `MetadataKey.syncVersion`.
    public var syncVersion: Double? { metadata[MetadataKey.syncVersion]?.numberValue }
}

extension Sample {
    /// Creates a sample.
    ///
    /// It hands its arguments to the memberwise initializer, which builds the sample as one
    /// value. Assigned one by one to `self`, as an initializer in the struct's body does, they
    /// went through a temporary the optimizer does not take apart for a type this large: the
    /// sample was copied out of it and the temporary destroyed, a retain and a release of every
    /// reference it holds (`SampleVWOc`, `SampleVWOh`), on every sample SalusKit decodes.
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
        self.init(
            uuid: uuid, type: type, startDate: startDate, endDate: endDate, value: value, sourceRevision: sourceRevision,
            measuringDevice: device, metadata: metadata, creationDate: creationDate)
    }
}
