import Foundation

/// A clinical document sample's value (a CDA document), as HealthKit's `HKCDADocument`.
///
/// Read access to documents is granted per object.
public struct ClinicalDocument: Hashable, Sendable {
    /// The media type of `data` ("application/xml" for CDA).
    public var contentType: String
    /// The document's bytes.
    public var data: Data
    /// The document title, if known.
    public var title: String?

    /// Creates a document value.
    public init(contentType: String = "application/xml", data: Data, title: String? = nil) {
        self.contentType = contentType
        self.data = data
        self.title = title
    }
}
