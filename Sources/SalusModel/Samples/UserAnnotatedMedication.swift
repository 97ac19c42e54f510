import Foundation

/// A medication the person added to their list, with their own annotations: HealthKit 26's
/// `HKUserAnnotatedMedication` (type `HKDataTypeIdentifierUserAnnotatedMedicationConcept`, whose
/// string is `HKDataTypeUserAnnotatedMedicationConcept`) and the `HKMedicationConcept` it
/// annotates, flattened into one value.
///
/// HealthKit reads these with `HKUserAnnotatedMedicationQuery`; Salus keeps each as an object of
/// the store of its own kind, saved, queried, deleted and anchored like any other. Its dose
/// events are the `HKMedicationDoseEventTypeIdentifierMedicationDoseEvent` samples whose
/// `medicationConceptIdentifier` equals `conceptIdentifier`.
public struct UserAnnotatedMedication: Hashable, Sendable {
    /// A clinical coding of the medication, as HealthKit's `HKClinicalCoding`: a code in a
    /// coding system (RxNorm, SNOMED CT, ...), the system's version when known.
    public struct Coding: Hashable, Sendable, Comparable {
        /// The coding system, as the exporting system wrote it (a URL such as
        /// `http://www.nlm.nih.gov/research/umls/rxnorm`).
        public var system: String
        /// The system's version, when given.
        public var version: String?
        /// The code in that system.
        public var code: String

        /// Creates a coding.
        public init(system: String, version: String? = nil, code: String) {
            self.system = system
            self.version = version
            self.code = code
        }

        /// Ordered by system, code, then version (none first): the order the wire and the store
        /// write a set of codings in.
        public static func < (lhs: Coding, rhs: Coding) -> Bool {
            (lhs.system, lhs.code, lhs.version == nil ? 0 : 1, lhs.version ?? "")
                < (rhs.system, rhs.code, rhs.version == nil ? 0 : 1, rhs.version ?? "")
        }
    }

    /// The most UTF-8 bytes any of its texts may hold (identifier, display text, general form,
    /// nickname, a coding's fields).
    public static let maximumTextBytes = 1024

    /// The medication concept (`HKMedicationConcept.identifier`, an `HKHealthConceptIdentifier`
    /// whose parts HealthKit does not expose): kept opaque, exactly as dose events keep it in
    /// `MedicationDoseEvent.medicationConceptIdentifier`.
    public var conceptIdentifier: String
    /// The medication's name as the concept displays it (`HKMedicationConcept.displayText`).
    public var displayText: String
    /// The medication's general form (`HKMedicationConcept.generalForm`, an
    /// `HKMedicationGeneralForm`: tablet, capsule, liquid, ...), kept as the text the exporting
    /// system wrote: its raw strings are not published, so Salus checks none.
    public var generalForm: String
    /// Codings of the concept in clinical systems (`HKMedicationConcept.relatedCodings`).
    public var relatedCodings: Set<Coding>
    /// The person's own name for it (`HKUserAnnotatedMedication.nickname`).
    public var nickname: String?
    /// The person archived it: no longer taken (`isArchived`).
    public var isArchived: Bool
    /// The person set up a schedule for it (`hasSchedule`).
    public var hasSchedule: Bool

    /// Creates a user-annotated medication.
    public init(
        conceptIdentifier: String,
        displayText: String,
        generalForm: String,
        relatedCodings: Set<Coding> = [],
        nickname: String? = nil,
        isArchived: Bool = false,
        hasSchedule: Bool = false
    ) {
        self.conceptIdentifier = conceptIdentifier
        self.displayText = displayText
        self.generalForm = generalForm
        self.relatedCodings = relatedCodings
        self.nickname = nickname
        self.isArchived = isArchived
        self.hasSchedule = hasSchedule
    }

    /// Whether `event` is one of this medication's dose events.
    public func isDose(_ event: MedicationDoseEvent) -> Bool {
        event.medicationConceptIdentifier == conceptIdentifier
    }
}

extension UserAnnotatedMedication: SampleKindRules {
    /// Its concept identifier, display text and general form not empty, a nickname not blank
    /// when given, codings with a system and a code, every text at most `maximumTextBytes` UTF-8
    /// bytes.
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        func text(_ text: String?, _ field: String, required: String?) {
            guard let text else { return }
            if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                errors.append(
                    ValidationError(
                        reason: .missingValue, field: "\(path).\(field)", value: "\"\(text)\"",
                        expected: required ?? "a nickname that is not blank, or none"))
            } else if text.utf8.count > UserAnnotatedMedication.maximumTextBytes {
                errors.append(
                    ValidationError(
                        reason: .invalidValue, field: "\(path).\(field)", value: "\(text.utf8.count) bytes",
                        expected: "at most \(UserAnnotatedMedication.maximumTextBytes) bytes of UTF-8"))
            }
        }
        text(conceptIdentifier, "conceptIdentifier", required: "the identifier of the medication concept")
        text(displayText, "displayText", required: "the medication's name as the concept displays it")
        text(generalForm, "generalForm", required: "the medication's general form (HKMedicationGeneralForm) as text, such as tablet")
        text(nickname, "nickname", required: nil)
        for (index, coding) in relatedCodings.sorted().enumerated() {
            text(coding.system, "relatedCodings[\(index)].system", required: "the coding system, such as an RxNorm URL")
            text(coding.code, "relatedCodings[\(index)].code", required: "the code in the coding system")
            text(coding.version, "relatedCodings[\(index)].version", required: "the coding system's version, or none")
        }
        return errors
    }
}
