import Foundation

/// A clinical record's value, as HealthKit's `HKClinicalRecord`: one FHIR R4 resource (JSON) as a
/// provider sent it, typed by its clinical type (an allergy is an `AllergyIntolerance`, a lab
/// result or a vital sign an `Observation`, ...), with where it came from and when it arrived.
///
/// The resource is kept verbatim; `resourceType` and `resourceID` are read from it, never taken
/// from a client. Read access is granted per type.
public struct ClinicalRecord: Hashable, Sendable {
    /// The FHIR resource's JSON, verbatim.
    public var fhirData: Data
    /// The FHIR release ("4.0.1").
    public var fhirVersion: String
    /// A display name for the record ("Penicillin allergy"); may be empty.
    public var displayName: String
    /// The name of the organization or system that sent the record.
    public var sourceName: String
    /// The FHIR server's base URL, if known.
    public var sourceURL: String?
    /// When the record was received.
    public var receivedDate: Date
    /// The resource's `resourceType` ("AllergyIntolerance"), or empty when `fhirData` is not a
    /// JSON object with one.
    public private(set) var resourceType: String
    /// The resource's `id`, when it has one.
    public private(set) var resourceID: String?

    /// The FHIR release assumed when none is given.
    public static let defaultFHIRVersion = "4.0.1"

    /// Creates a record; `resourceType` and `resourceID` are read from `fhirData`.
    public init(
        fhirData: Data, fhirVersion: String = ClinicalRecord.defaultFHIRVersion, displayName: String = "",
        sourceName: String, sourceURL: String? = nil, receivedDate: Date
    ) {
        self.fhirData = fhirData
        self.fhirVersion = fhirVersion
        self.displayName = displayName
        self.sourceName = sourceName
        self.sourceURL = sourceURL
        self.receivedDate = receivedDate
        let object = (try? JSONSerialization.jsonObject(with: fhirData)) as? [String: Any]
        self.resourceType = object?["resourceType"] as? String ?? ""
        self.resourceID = object?["id"] as? String
    }

    /// The FHIR resource types each HealthKit clinical type holds (HealthKit's documentation of
    /// `HKClinicalTypeIdentifier`); a type not listed here (a third-party clinical type) accepts
    /// any resource type.
    package static let resourceTypes: [TypeIdentifier: [String]] = [
        "HKClinicalTypeIdentifierAllergyRecord": ["AllergyIntolerance"],
        "HKClinicalTypeIdentifierClinicalNoteRecord": ["DocumentReference"],
        "HKClinicalTypeIdentifierConditionRecord": ["Condition"],
        "HKClinicalTypeIdentifierCoverageRecord": ["Coverage"],
        "HKClinicalTypeIdentifierImmunizationRecord": ["Immunization"],
        "HKClinicalTypeIdentifierLabResultRecord": ["Observation"],
        "HKClinicalTypeIdentifierMedicationRecord": ["MedicationStatement", "MedicationRequest", "MedicationOrder"],
        "HKClinicalTypeIdentifierProcedureRecord": ["Procedure"],
        "HKClinicalTypeIdentifierVitalSignRecord": ["Observation"],
    ]
}
