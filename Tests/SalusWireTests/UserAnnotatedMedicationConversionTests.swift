import Foundation
import SalusModel
import SalusProto
import SalusWire
import SwiftProtobuf
import Testing

/// A user-annotated medication (HKUserAnnotatedMedication with its HKMedicationConcept) between
/// the wire and the model, both ways.
@Suite("User-annotated medications between the wire and the model")
struct UserAnnotatedMedicationConversionTests {
    static let rxnorm = "http://www.nlm.nih.gov/research/umls/rxnorm"

    static let medication = UserAnnotatedMedication(
        conceptIdentifier: "rxnorm:966224", displayText: "Levothyroxine Sodium 50 MCG Oral Tablet", generalForm: "tablet",
        relatedCodings: [
            .init(system: rxnorm, code: "966224"),
            .init(system: "http://snomed.info/sct", version: "2024-09", code: "126202002"),
        ],
        nickname: "Thyroid", isArchived: true, hasSchedule: true)

    static func sample(_ value: UserAnnotatedMedication) -> Sample {
        Sample(
            type: "HKDataTypeUserAnnotatedMedicationConcept", startDate: Date(timeIntervalSince1970: 1_700_000_000.25),
            endDate: Date(timeIntervalSince1970: 1_700_000_000.25), value: .userAnnotatedMedication(value),
            sourceRevision: SourceRevision(appID: "org.example.app", name: "Example"),
            creationDate: Date(timeIntervalSince1970: 1_700_000_100))
    }

    @Test("a medication with codings, nickname and both flags survives model → bytes → model")
    func roundTrip() throws {
        let sample = Self.sample(Self.medication)
        let bytes: [UInt8] = try sample.wire.serializedBytes()
        let back = try Sample(
            wire: Salus_V1_Sample(serializedBytes: bytes), path: "sample", source: sample.sourceRevision,
            creationDate: sample.creationDate)
        #expect(back == sample)
        #expect(back.type == "HKDataTypeUserAnnotatedMedicationConcept")
    }

    @Test("the wire form: field 23 of Sample, codings ordered by system then code, no version or nickname when none")
    func wireForm() throws {
        let wire = Self.medication.wire
        #expect(wire.conceptIdentifier == "rxnorm:966224")
        #expect(wire.displayText == "Levothyroxine Sodium 50 MCG Oral Tablet")
        #expect(wire.generalForm == "tablet")
        #expect(wire.relatedCodings.map(\.system) == ["http://snomed.info/sct", Self.rxnorm])
        #expect(wire.relatedCodings[0].version == "2024-09")
        #expect(wire.relatedCodings[1].optionalVersion == nil)
        #expect(wire.nickname == "Thyroid")
        #expect(wire.isArchived && wire.hasSchedule_p)
        guard case .userAnnotatedMedication = Self.sample(Self.medication).wire.value else {
            Issue.record("the sample's value is not user_annotated_medication")
            return
        }

        let plain = UserAnnotatedMedication(conceptIdentifier: "c-1", displayText: "Aspirin", generalForm: "tablet")
        #expect(plain.wire.optionalNickname == nil)
        #expect(plain.wire.relatedCodings.isEmpty)
        #expect(!plain.wire.isArchived && !plain.wire.hasSchedule_p)
    }

    @Test("from the wire: an unset nickname is nil, an empty one is kept (validation refuses it), a version only when set")
    func fromWire() {
        var wire = Salus_V1_UserAnnotatedMedication()
        wire.conceptIdentifier = "c-2"
        wire.displayText = "Ibuprofen 200 MG Oral Capsule"
        wire.generalForm = "capsule"
        var coding = Salus_V1_ClinicalCoding()
        coding.system = Self.rxnorm
        coding.code = "310965"
        wire.relatedCodings = [coding, coding]
        let model = UserAnnotatedMedication(wire: wire)
        #expect(model.nickname == nil)
        #expect(model.relatedCodings == [.init(system: Self.rxnorm, code: "310965")])
        #expect(model.relatedCodings.first?.version == nil)

        wire.nickname = ""
        #expect(UserAnnotatedMedication(wire: wire).nickname == "")
    }

    @Test("a medicationConcepts predicate goes to the wire sorted and comes back equal, inside a compound too")
    func predicate() throws {
        let predicate = SamplePredicate.and([.medicationConcepts(["b", "a"]), .medicationConcept("c")])
        let wire = predicate.wire
        #expect(wire.and.predicates[0].medicationConcepts.identifiers == ["a", "b"])
        let bytes: [UInt8] = try wire.serializedBytes()
        #expect(try SamplePredicate(wire: Salus_V1_Predicate(serializedBytes: bytes)) == predicate)
    }
}
