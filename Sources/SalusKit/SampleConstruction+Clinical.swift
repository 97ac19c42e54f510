import Foundation
import SalusModel

/// Clinical documents (HL7 CDA) and clinical records (FHIR resources): making them to save, and
/// reading their values from query results.
extension Sample {
    /// A CDA document to save, as HealthKit's `HKCDADocumentSample(data:start:end:metadata:)`.
    /// The daemon checks the XML and refuses it with the reason; it reads the title, patient,
    /// author, custodian and effective time from it itself, and dates the sample by the effective
    /// time (`start` and `end` stand only until then).
    public static func cdaDocument(
        _ data: Data,
        start: Date = Date(),
        end: Date? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        Sample(
            type: SampleType.cdaDocument.identifier, startDate: start, endDate: end ?? start,
            value: .document(ClinicalDocument(data: data)), sourceRevision: unsavedSource, metadata: metadata)
    }

    /// A clinical record to save: one FHIR resource of a type `type` holds (an
    /// `AllergyIntolerance` for ``SampleType/allergyRecord``), dated by when it was received.
    public static func clinicalRecord(
        _ value: ClinicalRecord,
        type: SampleType,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        Sample(
            type: type.identifier, startDate: value.receivedDate, endDate: value.receivedDate,
            value: .clinicalRecord(value), sourceRevision: unsavedSource, metadata: metadata)
    }

    /// The clinical document, when the sample is one. Its `data` is empty unless the query asked
    /// for it (``SampleQueryDescriptor/includeDocumentData``).
    public var clinicalDocument: ClinicalDocument? {
        if case .document(let value) = value { value } else { nil }
    }

    /// The clinical record, when the sample is one.
    public var clinicalRecord: ClinicalRecord? {
        if case .clinicalRecord(let value) = value { value } else { nil }
    }
}

extension SampleType {
    /// Clinical documents (`HKDocumentTypeIdentifierCDA`), read per object.
    public static let cdaDocument = SampleType("HKDocumentTypeIdentifierCDA")
    /// Allergy records (`HKClinicalTypeIdentifierAllergyRecord`): FHIR AllergyIntolerance.
    public static let allergyRecord = SampleType("HKClinicalTypeIdentifierAllergyRecord")
    /// Clinical notes (`HKClinicalTypeIdentifierClinicalNoteRecord`): FHIR DocumentReference.
    public static let clinicalNoteRecord = SampleType("HKClinicalTypeIdentifierClinicalNoteRecord")
    /// Conditions (`HKClinicalTypeIdentifierConditionRecord`): FHIR Condition.
    public static let conditionRecord = SampleType("HKClinicalTypeIdentifierConditionRecord")
    /// Insurance coverage (`HKClinicalTypeIdentifierCoverageRecord`): FHIR Coverage.
    public static let coverageRecord = SampleType("HKClinicalTypeIdentifierCoverageRecord")
    /// Immunizations (`HKClinicalTypeIdentifierImmunizationRecord`): FHIR Immunization.
    public static let immunizationRecord = SampleType("HKClinicalTypeIdentifierImmunizationRecord")
    /// Lab results (`HKClinicalTypeIdentifierLabResultRecord`): FHIR Observation.
    public static let labResultRecord = SampleType("HKClinicalTypeIdentifierLabResultRecord")
    /// Medications (`HKClinicalTypeIdentifierMedicationRecord`): FHIR MedicationStatement,
    /// MedicationRequest or MedicationOrder.
    public static let medicationRecord = SampleType("HKClinicalTypeIdentifierMedicationRecord")
    /// Procedures (`HKClinicalTypeIdentifierProcedureRecord`): FHIR Procedure.
    public static let procedureRecord = SampleType("HKClinicalTypeIdentifierProcedureRecord")
    /// Vital signs (`HKClinicalTypeIdentifierVitalSignRecord`): FHIR Observation.
    public static let vitalSignRecord = SampleType("HKClinicalTypeIdentifierVitalSignRecord")
}
