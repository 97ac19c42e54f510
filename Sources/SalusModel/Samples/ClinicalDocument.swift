import Foundation

/// A clinical document sample's value (a CDA document), as HealthKit's `HKCDADocument`.
///
/// Read access to documents is granted per object. When saving, only `contentType` and `data`
/// count: the daemon checks the document and fills `title`, `patientName`, `authorName`,
/// `custodianName` and `effectiveTime` from it, so a client cannot make them say something the
/// document does not. A sample query returns `data` only when it asks for it; without it `data`
/// is empty and the extracted fields are all there is.
public struct ClinicalDocument: Hashable, Sendable {
    /// The media type of `data` ("application/xml" for CDA).
    public var contentType: String
    /// The document's bytes; empty in a query result that did not ask for them.
    public var data: Data
    /// The document title (`ClinicalDocument/title`), if known.
    public var title: String?
    /// The patient's name, given names first, if known.
    public var patientName: String?
    /// The author's name (a person, else the authoring device or organization), if known.
    public var authorName: String?
    /// The custodian organization's name, if known.
    public var custodianName: String?
    /// The document's effective time (`ClinicalDocument/effectiveTime`), if known.
    public var effectiveTime: Date?

    /// Creates a document value; the extracted fields are what the daemon read from `data`.
    public init(
        contentType: String = "application/xml", data: Data, title: String? = nil, patientName: String? = nil,
        authorName: String? = nil, custodianName: String? = nil, effectiveTime: Date? = nil
    ) {
        self.contentType = contentType
        self.data = data
        self.title = title
        self.patientName = patientName
        self.authorName = authorName
        self.custodianName = custodianName
        self.effectiveTime = effectiveTime
    }
}
