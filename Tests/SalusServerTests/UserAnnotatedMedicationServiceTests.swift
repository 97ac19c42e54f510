import Foundation
import SalusKit
import SalusModel
import SalusTestSupport
import Testing

/// User-annotated medications (HKDataTypeIdentifierUserAnnotatedMedicationConcept), registered by
/// the bundled Lab plugin, through the store service in process with SalusKit: saved, queried,
/// followed by an anchored query and deleted like any object; their dose events found by concept.
@Suite("User-annotated medications through the store service")
struct UserAnnotatedMedicationServiceTests {
    static let morning = Date(timeIntervalSince1970: 1_795_250_000)

    static let levothyroxine = UserAnnotatedMedication(
        conceptIdentifier: "rxnorm:966224", displayText: "Levothyroxine Sodium 50 MCG Oral Tablet", generalForm: "tablet",
        relatedCodings: [.init(system: "http://www.nlm.nih.gov/research/umls/rxnorm", code: "966224")],
        nickname: "Thyroid", hasSchedule: true)

    static let ibuprofen = UserAnnotatedMedication(
        conceptIdentifier: "rxnorm:310965", displayText: "Ibuprofen 200 MG Oral Capsule", generalForm: "capsule",
        isArchived: true)

    @Test("save, query, anchored query, delete: the medication comes back whole and its deletion is reported")
    func roundTrip() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.meds")
        let start = try await AnchoredObjectQueryDescriptor(predicates: [.samples(.userAnnotatedMedication)]).result(for: store)

        let saved = try await store.save([
            .userAnnotatedMedication(Self.levothyroxine, date: Self.morning),
            .userAnnotatedMedication(Self.ibuprofen, date: Self.morning.addingTimeInterval(60)),
        ])
        #expect(saved.map(\.outcome) == [.saved, .saved])

        let found = try await SampleQueryDescriptor(type: .userAnnotatedMedication, sortDescriptors: [.startDate()]).result(for: store)
        #expect(found.map(\.uuid) == saved.map(\.uuid))
        #expect(found.map(\.userAnnotatedMedication) == [Self.levothyroxine, Self.ibuprofen])
        #expect(found.first?.type == SampleType.userAnnotatedMedication.identifier)

        let added = try await AnchoredObjectQueryDescriptor(predicates: [.samples(.userAnnotatedMedication)], anchor: start.newAnchor)
            .result(for: store)
        #expect(added.addedSamples.map(\.userAnnotatedMedication) == [Self.levothyroxine, Self.ibuprofen])
        #expect(added.deletedObjects.isEmpty)

        #expect(try await store.delete(uuids: [saved[1].uuid]) == 1)
        let deleted = try await AnchoredObjectQueryDescriptor(predicates: [.samples(.userAnnotatedMedication)], anchor: added.newAnchor)
            .result(for: store)
        #expect(deleted.addedSamples.isEmpty)
        #expect(deleted.deletedObjects.map(\.uuid) == [saved[1].uuid])
        #expect(deleted.deletedObjects.first?.type == SampleType.userAnnotatedMedication.identifier)
        let left = try await SampleQueryDescriptor(type: .userAnnotatedMedication).result(for: store)
        #expect(left.map(\.userAnnotatedMedication) == [Self.levothyroxine])
        await store.close()
        await server.stop()
    }

    @Test("a medication's dose events are the dose event samples of its concept identifier: a medicationConcept predicate finds them")
    func doseEvents() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.meds")
        let dose = { (concept: String, minutes: Double) -> Sample in
            .medicationDoseEvent(
                MedicationDoseEvent(logStatus: .taken, scheduleType: .asNeeded, medicationConceptIdentifier: concept, doseQuantity: 1),
                start: Self.morning.addingTimeInterval(minutes * 60))
        }
        let saved = try await store.save([
            .userAnnotatedMedication(Self.levothyroxine, date: Self.morning),
            .userAnnotatedMedication(Self.ibuprofen, date: Self.morning),
            dose("rxnorm:966224", 10), dose("rxnorm:310965", 20), dose("rxnorm:966224", 30),
        ])
        let medication = try #require(
            try await SampleQueryDescriptor(type: .userAnnotatedMedication, predicate: .medicationConcept("rxnorm:966224"))
                .result(for: store).first?.userAnnotatedMedication)
        #expect(medication == Self.levothyroxine)

        let doses = try await SampleQueryDescriptor(
            type: .medicationDoseEvent, predicate: .medicationConcept(medication.conceptIdentifier), sortDescriptors: [.startDate()]
        ).result(for: store)
        #expect(doses.map(\.uuid) == [saved[2].uuid, saved[4].uuid])
        #expect(doses.allSatisfy { $0.medicationDoseEvent.map(medication.isDose) == true })
        let either = try await SampleQueryDescriptor(type: .medicationDoseEvent, predicate: .medicationConcepts(["rxnorm:966224", "rxnorm:310965"]))
            .result(for: store)
        #expect(either.count == 3)
        #expect(try await SampleQueryDescriptor(type: .medicationDoseEvent, predicate: .medicationConcepts([])).result(for: store).isEmpty)

        // Anchored: the concept's doses only; a deleted dose is reported (a tombstone may match).
        let anchored = try await AnchoredObjectQueryDescriptor(
            predicates: [.samples(.medicationDoseEvent, predicate: .medicationConcept("rxnorm:966224"))]
        ).result(for: store)
        #expect(Set(anchored.addedSamples.map(\.uuid)) == [saved[2].uuid, saved[4].uuid])
        #expect(try await store.delete(uuids: [saved[2].uuid]) == 1)
        let after = try await AnchoredObjectQueryDescriptor(
            predicates: [.samples(.medicationDoseEvent, predicate: .medicationConcept("rxnorm:966224"))], anchor: anchored.newAnchor
        ).result(for: store)
        #expect(after.deletedObjects.map(\.uuid) == [saved[2].uuid])

        let wrongKind = try await #require(throws: SalusError.self) {
            try await SampleQueryDescriptor(type: .quantity(.stepCount), predicate: .medicationConcept("rxnorm:966224")).result(for: store)
        }
        #expect(wrongKind.code == .invalidArgument)
        #expect(wrongKind.field == "predicate.medicationConcepts")
        #expect(wrongKind.expected == "a medicationDoseEvent or userAnnotatedMedication type")
        await store.close()
        await server.stop()
    }

    @Test("concept predicates past SQLite's bound-value limit (4 nodes of 10,000 identifiers) get a precise refusal or the right answer, and the store serves on")
    func manyConceptIdentifiers() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.meds")
        _ = try await store.save([
            .medicationDoseEvent(
                MedicationDoseEvent(logStatus: .taken, scheduleType: .asNeeded, medicationConceptIdentifier: "rxnorm:966224", doseQuantity: 1),
                start: Self.morning)
        ])
        var nodes: [SamplePredicate] = []
        for node in 0..<4 {
            var identifiers = Set<String>()
            for index in 0..<9_999 { identifiers.insert("c\(node)-\(index)") }
            identifiers.insert(node == 3 ? "rxnorm:966224" : "c\(node)-last")
            nodes.append(.medicationConcepts(identifiers))
        }
        do {
            let found = try await SampleQueryDescriptor(type: .medicationDoseEvent, predicate: .or(nodes)).result(for: store)
            #expect(found.count == 1, "the one dose of rxnorm:966224 in the last node")
        } catch let error as SalusError {
            #expect(error.code == .invalidArgument, "\(error)")
            #expect(error.field?.hasPrefix("predicate") == true, "\(error)")
        }
        // The store still answers.
        #expect(try await SampleQueryDescriptor(type: .medicationDoseEvent, predicate: .medicationConcept("rxnorm:966224")).result(for: store).count == 1)
        await store.close()
        await server.stop()
    }

    @Test("a medication without a display text, or with a nickname over 1,024 bytes, is refused by field and nothing is saved")
    func refusals() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.meds")
        var unnamed = Self.ibuprofen
        unnamed.displayText = ""
        let error = try await #require(throws: SalusError.self) {
            try await store.save([.userAnnotatedMedication(Self.levothyroxine, date: Self.morning), .userAnnotatedMedication(unnamed, date: Self.morning)])
        }
        #expect(error.code == .invalidArgument)
        #expect(error.field == "samples[1].userAnnotatedMedication.displayText")
        #expect(error.value == "\"\"")

        var long = Self.levothyroxine
        long.nickname = String(repeating: "n", count: 1025)
        let longError = try await #require(throws: SalusError.self) { try await store.save(.userAnnotatedMedication(long, date: Self.morning)) }
        #expect(longError.field == "samples[0].userAnnotatedMedication.nickname")
        #expect(longError.value == "1025 bytes")
        #expect(longError.expected == "at most 1024 bytes of UTF-8")
        #expect(try await SampleQueryDescriptor(type: .userAnnotatedMedication).result(for: store).isEmpty)
        await store.close()
        await server.stop()
    }
}
