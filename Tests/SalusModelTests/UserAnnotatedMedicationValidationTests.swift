import Foundation
import SalusModel
import Testing

/// The rules of a user-annotated medication: its texts present and bounded, each refusal naming
/// the field, the value and what was expected.
@Suite("User-annotated medications: rules")
struct UserAnnotatedMedicationValidationTests {
    static let catalog = TypeCatalog(types: [
        TypeRules(identifier: "HKDataTypeUserAnnotatedMedicationConcept", kind: .userAnnotatedMedication)
    ])

    static let valid = UserAnnotatedMedication(
        conceptIdentifier: "rxnorm:966224", displayText: "Levothyroxine 50 MCG Oral Tablet", generalForm: "tablet",
        relatedCodings: [.init(system: "http://www.nlm.nih.gov/research/umls/rxnorm", code: "966224")],
        nickname: "Thyroid", hasSchedule: true)

    static func errors(_ value: UserAnnotatedMedication) -> [ValidationError] {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        return catalog.validationErrors(
            of: Sample(
                type: "HKDataTypeUserAnnotatedMedicationConcept", startDate: date, endDate: date,
                value: .userAnnotatedMedication(value), sourceRevision: SourceRevision(appID: "org.example.health", name: "Health")))
    }

    @Test("a medication with its concept, name, form, codings and nickname passes; so does one with only the three texts")
    func valid() {
        #expect(Self.errors(Self.valid) == [])
        #expect(Self.errors(UserAnnotatedMedication(conceptIdentifier: "c", displayText: "Aspirin", generalForm: "unknown")) == [])
    }

    @Test("an empty concept identifier, display text or general form, and a blank nickname, are each refused by field")
    func emptyTexts() {
        var value = Self.valid
        value.conceptIdentifier = ""
        value.displayText = " "
        value.generalForm = ""
        value.nickname = "\n"
        let errors = Self.errors(value)
        #expect(errors.map(\.field) == [
            "sample.userAnnotatedMedication.conceptIdentifier", "sample.userAnnotatedMedication.displayText",
            "sample.userAnnotatedMedication.generalForm", "sample.userAnnotatedMedication.nickname",
        ])
        #expect(errors.allSatisfy { $0.reason == .missingValue })
        #expect(errors[1].value == "\" \"")
        #expect(errors[1].expected == "the medication's name as the concept displays it")
        #expect(errors[3].expected == "a nickname that is not blank, or none")
    }

    @Test("a nickname or display text over 1,024 bytes of UTF-8 is refused with its length; 1,024 passes")
    func textBound() {
        var value = Self.valid
        value.nickname = String(repeating: "é", count: 512)  // 1,024 bytes
        #expect(Self.errors(value) == [])
        value.nickname = String(repeating: "é", count: 512) + "x"
        value.displayText = String(repeating: "a", count: 2000)
        let errors = Self.errors(value)
        #expect(errors.map(\.field) == ["sample.userAnnotatedMedication.displayText", "sample.userAnnotatedMedication.nickname"])
        #expect(errors.map(\.value) == ["2000 bytes", "1025 bytes"])
        #expect(errors.allSatisfy { $0.reason == .invalidValue && $0.expected == "at most 1024 bytes of UTF-8" })
    }

    @Test("a coding without a system or code is refused under relatedCodings[i]")
    func codings() {
        var value = Self.valid
        value.relatedCodings = [.init(system: "", code: "1"), .init(system: "http://snomed.info/sct", version: "", code: "")]
        let errors = Self.errors(value)
        #expect(errors.map(\.field) == [
            "sample.userAnnotatedMedication.relatedCodings[0].system", "sample.userAnnotatedMedication.relatedCodings[1].code",
            "sample.userAnnotatedMedication.relatedCodings[1].version",
        ])
    }

    @Test("a dose event belongs to the medication whose concept identifier it names")
    func doses() {
        let taken = MedicationDoseEvent(logStatus: .taken, scheduleType: .asNeeded, medicationConceptIdentifier: "rxnorm:966224")
        let other = MedicationDoseEvent(logStatus: .taken, scheduleType: .asNeeded, medicationConceptIdentifier: "rxnorm:310965")
        #expect(Self.valid.isDose(taken))
        #expect(!Self.valid.isDose(other))
    }
}
