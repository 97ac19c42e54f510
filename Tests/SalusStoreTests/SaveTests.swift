import Foundation
import SalusModel
import SalusStore
import Testing

@Suite("Save")
struct SaveTests {
    @Test("a saved sample reads back with the caller's source, a UUIDv7 and the app's unit")
    func roundTrip() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let device = Device(name: "Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch5,4")
        let sample = Fixtures.quantity(
            Fixtures.heartRate, 1.2, "count/s", start: 10, end: 20,
            metadata: [MetadataKey.timeZone: .string("Europe/Paris"), "org.example.flag": .bool(true)], device: device)
        let response = try await store.save([sample], source: Fixtures.app)
        #expect(response.results.count == 1)
        #expect(response.results[0].outcome == .saved)
        #expect(response.anchor == Anchor(1))
        let uuid = response.results[0].uuid
        #expect(uuid != sample.uuid)
        #expect(UUIDv7.date(of: uuid) != nil)

        let read = try await store.all(Fixtures.heartRate)
        #expect(read.count == 1)
        let saved = try #require(read.first)
        #expect(saved.uuid == uuid)
        #expect(saved.sourceRevision == Fixtures.app)
        #expect(saved.device == device)
        #expect(saved.startDate == Fixtures.at(10))
        #expect(saved.endDate == Fixtures.at(20))
        #expect(saved.value == .quantity(Quantity(value: 1.2, unit: try SalusUnit(parsing: "count/s"))))
        #expect(saved.metadata == sample.metadata)
    }

    @Test("every kind round-trips: category, workout, prescription, document")
    func kinds() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let workout = Workout(
            activityType: 37,
            events: [WorkoutEvent(type: 3, startDate: Fixtures.at(60), metadata: ["HKSWOLFScore": .number(3)])],
            activities: [
                WorkoutActivity(
                    activityType: 37, startDate: Fixtures.at(0), endDate: Fixtures.at(600),
                    statistics: [Fixtures.distance: Quantity(value: 2000, unit: .meter)])
            ],
            statistics: [Fixtures.distance: Quantity(value: 2, unit: .kilometer)])
        let prescription = VisionPrescription(
            prescriptionType: .glasses, dateIssued: Fixtures.at(0), expirationDate: Fixtures.at(86_400),
            rightEye: LensSpecification(sphere: -1.25, cylinder: -0.5, axis: 90, prism: VisionPrism(amount: 1, angle: 90, eye: 2)),
            leftEye: LensSpecification(sphere: -1))
        let samples = [
            Fixtures.category(3, start: 0, end: 60),
            Sample(
                type: Fixtures.workout, startDate: Fixtures.at(0), endDate: Fixtures.at(600), value: .workout(workout),
                sourceRevision: Fixtures.app),
            Sample(
                type: Fixtures.prescription, startDate: Fixtures.at(0), endDate: Fixtures.at(0),
                value: .visionPrescription(prescription), sourceRevision: Fixtures.app),
            Sample(
                type: Fixtures.document, startDate: Fixtures.at(0), endDate: Fixtures.at(0),
                value: .document(ClinicalDocument(data: Data("<ClinicalDocument/>".utf8), title: "Visit")),
                sourceRevision: Fixtures.app),
        ]
        _ = try await store.save(samples, source: Fixtures.app)
        #expect(try await store.all(Fixtures.sleep).map(\.value) == [.category(3)])
        #expect(try await store.all(Fixtures.workout).map(\.value) == [.workout(workout)])
        #expect(try await store.all(Fixtures.prescription).map(\.value) == [.visionPrescription(prescription)])
        #expect(try await store.all(Fixtures.document).map(\.value) == [samples[3].value])
    }

    struct RefusedCase: CustomTestStringConvertible, Sendable {
        var name: String
        var sample: Sample
        var field: String
        var value: String

        var testDescription: String { name }
    }

    static let refused: [RefusedCase] = [
        RefusedCase(
            name: "start after end", sample: Fixtures.quantity(5, start: 10, end: 5),
            field: "samples[1].endDate", value: "2023-11-14T22:13:25.000Z"),
        RefusedCase(
            name: "unknown type", sample: Fixtures.quantity("org.example.unknown", 1),
            field: "samples[1].type", value: "\"org.example.unknown\""),
        RefusedCase(
            name: "wrong kind", sample: Fixtures.category(Fixtures.steps, 1), field: "samples[1].value",
            value: "a category value"),
        RefusedCase(
            name: "unit of the wrong dimension", sample: Fixtures.quantity(Fixtures.steps, 1, "m"),
            field: "samples[1].quantity.unit", value: "m"),
        RefusedCase(
            name: "value out of range", sample: Fixtures.quantity(Fixtures.heartRate, 500, "count/min"),
            field: "samples[1].quantity.value", value: "500 count/min"),
        RefusedCase(
            name: "category value not in the enumeration", sample: Fixtures.category(9),
            field: "samples[1].category.value", value: "9"),
        RefusedCase(
            name: "missing required metadata", sample: Fixtures.category(Fixtures.menstrualFlow, 2),
            field: "samples[1].metadata.HKMenstrualCycleStart", value: "nil"),
        RefusedCase(
            name: "metadata of the wrong type",
            sample: Fixtures.category(3, metadata: [MetadataKey.timeZone: .number(1)]),
            field: "samples[1].metadata.HKTimeZone", value: "1 (number)"),
        RefusedCase(
            name: "read-only type", sample: Fixtures.quantity(Fixtures.steadiness, 50, "%"),
            field: "samples[1].type", value: "\"HKQuantityTypeIdentifierAppleWalkingSteadiness\""),
        RefusedCase(
            name: "characteristic as a sample",
            sample: Fixtures.category(Fixtures.wheelchairUse, 1), field: "samples[1].value", value: "a category value"),
        RefusedCase(
            name: "sync identifier without version",
            sample: Fixtures.quantity(1, metadata: [MetadataKey.syncIdentifier: .string("a")]),
            field: "samples[1].metadata.HKMetadataKeySyncVersion", value: "nil"),
        RefusedCase(
            name: "sync version without identifier",
            sample: Fixtures.quantity(1, metadata: [MetadataKey.syncVersion: .number(1)]),
            field: "samples[1].metadata.HKMetadataKeySyncIdentifier", value: "nil"),
        RefusedCase(
            name: "non-finite value", sample: Fixtures.quantity(.infinity), field: "samples[1].quantity.value",
            value: "inf"),
    ]

    /// What the services do before a save: the one check, then the store.
    static func checkedSave(_ samples: [Sample], into store: SampleStore, allowReadOnly: Bool = false) async throws {
        try Fixtures.catalog.check(samples, allowReadOnly: allowReadOnly)
        _ = try await store.save(samples, source: Fixtures.app)
    }

    @Test("a refused sample names its index, field and value, and nothing is saved", arguments: refused)
    func refusedSample(_ refused: RefusedCase) async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let error = try #require(
            await #expect(throws: ValidationError.self) {
                try await Self.checkedSave([Fixtures.quantity(1), refused.sample], into: store)
            })
        #expect(error.field == refused.field)
        #expect(error.value == refused.value)
        #expect(error.expected.isEmpty == false)
        #expect(error.description.contains(refused.field))
        #expect(try await store.count(Fixtures.steps) == 0)
        #expect(try await store.currentAnchor() == .zero)
    }

    @Test("a read-only type is accepted for the owner's imports")
    func readOnlyForOwner() async throws {
        let temporary = try await TemporaryStore.make()
        try await Self.checkedSave([Fixtures.quantity(Fixtures.steadiness, 50, "%")], into: temporary.store, allowReadOnly: true)
        #expect(try await temporary.store.count(Fixtures.steadiness) == 1)
    }

    @Test("kept UUIDs: saved as given; a UUID already present (live, deleted, or earlier in the batch) is refused")
    func keptUUIDs() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let keep = SaveOptions(uuidPolicy: .keep)
        let sample = Fixtures.quantity(1)
        let saved = try await store.save([sample], source: Fixtures.app, options: keep)
        #expect(saved.results[0].uuid == sample.uuid)

        let again = try #require(
            await #expect(throws: StoreError.self) {
                try await store.save([Fixtures.quantity(2), sample], source: Fixtures.app, options: keep)
            })
        #expect(again.field == "samples[1].uuid")
        #expect(again.value == sample.uuid.uuidString)

        _ = try await store.delete([sample.uuid], requester: .app(Fixtures.app.appID))
        let deleted = try #require(
            await #expect(throws: StoreError.self) {
                try await store.save([sample], source: Fixtures.app, options: keep)
            })
        #expect(deleted.field == "samples[0].uuid")

        let twin = Fixtures.quantity(3)
        let twice = try #require(
            await #expect(throws: StoreError.self) {
                try await store.save([twin, twin], source: Fixtures.app, options: keep)
            })
        #expect(twice.field == "samples[1].uuid")
        #expect(try await store.count(Fixtures.steps) == 0)
    }

    @Test("one bad sample among 1,000 saves nothing")
    func batchAtomicity() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        var samples = (0..<1000).map { Fixtures.quantity(Double($0), start: Double($0)) }
        samples[737] = Fixtures.quantity(1, start: 10, end: 0)
        let invalid = try #require(
            await #expect(throws: ValidationError.self) { try await Self.checkedSave(samples, into: store) })
        #expect(invalid.field == "samples[737].endDate")
        // A refusal only the database can decide, late in the batch, rolls back all of it.
        samples[737] = samples[736]
        let error = try #require(
            await #expect(throws: StoreError.self) {
                try await store.save(samples, source: Fixtures.app, options: SaveOptions(uuidPolicy: .keep))
            })
        #expect(error.sampleIndex == 737)
        #expect(error.field == "samples[737].uuid")
        #expect(try await store.count(Fixtures.steps) == 0)
        #expect(try await store.currentAnchor() == .zero)

        samples[737] = Fixtures.quantity(737, start: 737)
        let response = try await store.save(samples, source: Fixtures.app)
        #expect(response.anchor == Anchor(1000))
        #expect(try await store.count(Fixtures.steps) == 1000)
    }

    /// Plain samples wait and go in 256 rows to a statement; anything else has the waiting rows
    /// inserted first. A batch that mixes them, across several statements, must read back as if
    /// each sample were inserted alone, in the batch's order.
    @Test("a batch of 700 mixing plain samples with metadata, a correlation and a sync replacement reads back whole, in order")
    func mixedLargeBatch() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let samples: [Sample] = (0..<700).map { index in
            let start = Double(index)
            switch index {
            case 300: return Fixtures.synced("kept-once", version: 1, value: 300)
            case 400: return Fixtures.bloodPressure(120, 80, start: start)
            case 600: return Fixtures.synced("kept-once", version: 2, value: 600)
            case _ where index % 97 == 5:
                return Fixtures.quantity(Double(index), start: start, metadata: ["org.example.index": .number(Double(index))])
            case _ where index % 101 == 7: return Fixtures.category(1, start: start)
            default: return Fixtures.quantity(Double(index), start: start)
            }
        }
        let response = try await store.save(samples, source: Fixtures.app)
        #expect(response.results.count == 700)
        #expect(response.results[600].outcome == .replaced(response.results[300].uuid))
        #expect(response.results[400].objects.count == 2)

        // Every change from the start, in change order: the batch's order, with the two members
        // before their correlation and the sample replaced at 600 gone.
        let changes = try await store.anchoredQuery(
            [QueryDescriptor(type: Fixtures.steps), QueryDescriptor(type: Fixtures.sleep),
             QueryDescriptor(type: Fixtures.bloodPressure)], anchor: nil)
        var expected = response.results.map(\.uuid)
        expected.remove(at: 300)
        #expect(changes.added.map(\.uuid) == expected)
        #expect(changes.deleted.map(\.uuid) == [response.results[300].uuid])
        let systolic = try await store.all(Fixtures.systolic)
        #expect(systolic.map(\.uuid) == [response.results[400].objects[0].uuid])

        let byUUID = Dictionary(uniqueKeysWithValues: changes.added.map { ($0.uuid, $0) })
        for (index, sample) in samples.enumerated() where index != 300 && index != 400 {
            let saved = try #require(byUUID[response.results[index].uuid], "samples[\(index)]")
            #expect(saved.value == sample.value, "samples[\(index)]")
            #expect(saved.startDate == sample.startDate, "samples[\(index)]")
            #expect(saved.metadata == sample.metadata, "samples[\(index)]")
        }
        #expect(try await store.count(Fixtures.steps) == 700 - 1 - 1 - 7)
    }
}
