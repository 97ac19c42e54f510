import Foundation

/// A file attached to an object, as HealthKit's `HKAttachment`: the scan of a paper vision
/// prescription, say. The content itself is read separately, in chunks.
public struct Attachment: Hashable, Sendable {
    /// The attachment's UUID, assigned by the daemon.
    public var uuid: UUID
    /// The object (sample) it is attached to.
    public var objectUUID: UUID
    /// The file name, for people.
    public var name: String
    /// The media type found from the content's bytes ("application/pdf", "image/png").
    public var contentType: String
    /// The content's size in bytes.
    public var size: Int64
    /// When it was added.
    public var creationDate: Date
    /// The app that added it; nil for the owner (and in what apps receive).
    public var appID: String?
    /// Free-form string metadata.
    public var metadata: [String: String]

    /// Creates an attachment description.
    public init(
        uuid: UUID, objectUUID: UUID, name: String, contentType: String, size: Int64, creationDate: Date,
        appID: String? = nil, metadata: [String: String] = [:]
    ) {
        self.uuid = uuid
        self.objectUUID = objectUUID
        self.name = name
        self.contentType = contentType
        self.size = size
        self.creationDate = creationDate
        self.appID = appID
        self.metadata = metadata
    }
}
