import SalusPluginKit

/// Clinical: HL7 CDA documents (read authorization per object, as HealthKit's
/// `HKDocumentTypeIdentifierCDA`) and the nine FHIR clinical record types (read authorization
/// per type), all in the "clinical" area. The daemon checks a CDA document's XML and a record's
/// FHIR resource itself; this plugin only declares the types.
enum ClinicalManifest {
    static let cda = "HKDocumentTypeIdentifierCDA"

    /// The clinical record types with their display names.
    static let recordTypes: [(identifier: String, displayName: String)] = [
        ("HKClinicalTypeIdentifierAllergyRecord", "Allergies"),
        ("HKClinicalTypeIdentifierClinicalNoteRecord", "Clinical notes"),
        ("HKClinicalTypeIdentifierConditionRecord", "Conditions"),
        ("HKClinicalTypeIdentifierCoverageRecord", "Insurance coverage"),
        ("HKClinicalTypeIdentifierImmunizationRecord", "Immunizations"),
        ("HKClinicalTypeIdentifierLabResultRecord", "Lab results"),
        ("HKClinicalTypeIdentifierMedicationRecord", "Medications"),
        ("HKClinicalTypeIdentifierProcedureRecord", "Procedures"),
        ("HKClinicalTypeIdentifierVitalSignRecord", "Vital signs"),
    ]

    static let manifest = PluginManifest(
        id: "org.salus.clinical", name: "Salus Clinical Records", version: "1.0.0",
        types: [
            TypeDefinition(identifier: cda, kind: .document, displayName: "Clinical documents")
                .inArea("clinical")
                .readPerObject(),
        ] + recordTypes.map {
            TypeDefinition(identifier: $0.identifier, kind: .clinicalRecord, displayName: $0.displayName).inArea("clinical")
        }
    )
}
