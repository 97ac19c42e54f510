import Foundation
import SalusDocuments
import SalusModel

/// What the daemon does to clinical documents on their way in and out.
///
/// **In** (``read(_:at:)``, after `TypeCatalog.check` and the app's share permission, so an app
/// that may not save never has its bytes parsed): each `HKDocumentTypeIdentifierCDA`
/// sample's XML is checked with ``CDADocument/parse(_:field:)`` and its title, patient, author,
/// custodian and effective time replace whatever the client sent, so an app cannot make a
/// document appear to be about someone it is not. As in HealthKit, the sample's start and end
/// become the document's effective time. With those fields the document is held again to
/// `Validation.maximumSampleBytes`, as it will be read back. A document of another document type
/// keeps its bytes and loses any extracted fields the client sent: no one has read them from the
/// bytes.
///
/// **Out** (``withoutData(_:)``): a sample query returns a document's bytes only when it asks for
/// them (HKDocumentQuery's includeDocumentData), so listing a person's documents does not send
/// every document whole.
enum ClinicalDocumentIntake {
    /// HealthKit's CDA document type.
    static let cdaType: TypeIdentifier = "HKDocumentTypeIdentifierCDA"

    /// `samples` with each document's extracted fields read from its bytes; the first document
    /// refused throws, naming `path[index].document.data`.
    static func read(_ samples: [Sample], at path: String = "samples") throws(ValidationError) -> [Sample] {
        var read = samples
        for index in read.indices {
            guard case .document(var document) = read[index].value else { continue }
            guard read[index].type == cdaType else {
                read[index].value = .document(ClinicalDocument(contentType: document.contentType, data: document.data))
                continue
            }
            let parsed = try CDADocument.parse(document.data, field: "\(path)[\(index)].document.data")
            document.title = parsed.title
            document.patientName = parsed.patientName
            document.authorName = parsed.authorName
            document.custodianName = parsed.custodianName
            document.effectiveTime = parsed.effectiveTime
            read[index].value = .document(document)
            read[index].startDate = parsed.effectiveTime
            read[index].endDate = parsed.effectiveTime
            // The fields read from the bytes are sent with them: the document as it will be read
            // back is held to the bound the check held the document as sent to.
            if let error = SampleSize.error(of: read[index], at: "\(path)[\(index)]") { throw error }
        }
        return read
    }

    /// `sample` without its document bytes (other kinds unchanged).
    static func withoutData(_ sample: Sample) -> Sample {
        guard case .document(var document) = sample.value else { return sample }
        document.data = Data()
        var stripped = sample
        stripped.value = .document(document)
        return stripped
    }
}
