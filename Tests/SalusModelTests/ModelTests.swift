import Foundation
import Testing

@testable import SalusModel

@Suite("Domain model values")
struct ModelTests {
    @Test("Aggregation styles keep HealthKit's raw values")
    func aggregationStyles() {
        #expect(AggregationStyle.cumulative.rawValue == 0)
        #expect(AggregationStyle.discreteArithmetic.rawValue == 1)
        #expect(AggregationStyle.discreteTemporallyWeighted.rawValue == 2)
        #expect(AggregationStyle.discreteEquivalentContinuousLevel.rawValue == 3)
        #expect(AggregationStyle.cumulative.isCumulative)
        #expect(!AggregationStyle.discreteArithmetic.isCumulative)
    }

    @Test("Object kinds cover every kind of object")
    func objectKinds() {
        #expect(ObjectKind.allCases.map(\.rawValue) == [
            "quantity", "category", "characteristic", "workout", "visionPrescription", "document", "correlation",
            "electrocardiogram", "audiogram", "heartbeatSeries", "stateOfMind", "medicationDoseEvent", "scoredAssessment",
            "activitySummary", "clinicalRecord", "workoutRoute", "userAnnotatedMedication",
        ])
        #expect(SampleValue.category(5).kind == .category)
        #expect(SampleValue.quantity(Quantity(value: 1, unit: .count)).kind == .quantity)
        #expect(SampleValue.workout(Workout(activityType: 37)).kind == .workout)
        #expect(SampleValue.document(ClinicalDocument(data: Data())).kind == .document)
        #expect(SampleValue.clinicalRecord(ClinicalRecord(fhirData: Data(), sourceName: "Clinic", receivedDate: Date())).kind == .clinicalRecord)
        #expect(SampleValue.electrocardiogram(Electrocardiogram(classification: .notSet)).kind == .electrocardiogram)
        #expect(SampleValue.stateOfMind(StateOfMind(kind: .dailyMood, valence: 0)).kind == .stateOfMind)
        #expect(SampleValue.scoredAssessment(ScoredAssessment(instrument: .gad7, answers: [])).kind == .scoredAssessment)
        #expect(SampleValue.correlation(Correlation(objects: [])).kind == .correlation)
    }

    @Test("Metadata values report their type and payload")
    func metadataValues() {
        let date = Date(timeIntervalSince1970: 0)
        let quantity = Quantity(value: 25, unit: .meter)
        let values: [(MetadataValue, MetadataValueType)] = [
            (.string("Europe/Vilnius"), .string), (.number(2), .number), (.bool(true), .bool),
            (.date(date), .date), (.quantity(quantity), .quantity),
        ]
        for (value, type) in values {
            #expect(value.type == type)
        }
        #expect(MetadataValue.string("a").stringValue == "a")
        #expect(MetadataValue.number(2).numberValue == 2)
        #expect(MetadataValue.bool(true).boolValue == true)
        #expect(MetadataValue.date(date).dateValue == date)
        #expect(MetadataValue.quantity(quantity).quantityValue == quantity)
        #expect(MetadataValue.string("a").numberValue == nil)
        #expect(MetadataValue.quantity(quantity).description == "25 m")
        #expect(MetadataValue.date(date).description == "1970-01-01T00:00:00.000Z")
    }

    @Test("Well-known metadata keys are HealthKit's raw strings")
    func metadataKeys() {
        #expect(MetadataKey.syncIdentifier == "HKMetadataKeySyncIdentifier")
        #expect(MetadataKey.syncVersion == "HKMetadataKeySyncVersion")
        #expect(MetadataKey.externalUUID == "HKExternalUUID")
        #expect(MetadataKey.timeZone == "HKTimeZone")
        #expect(MetadataKey.wasUserEntered == "HKWasUserEntered")
        #expect(MetadataKey.menstrualCycleStart == "HKMenstrualCycleStart")
        #expect(MetadataKey.deviceName == "HKDeviceName")
        #expect(MetadataKey.udiDeviceIdentifier == "HKUDIDeviceIdentifier")
        #expect(MetadataKey.heartRateMotionContext == "HKMetadataKeyHeartRateMotionContext")
        #expect(MetadataKey.averageMETs == "HKAverageMETs")
        #expect(MetadataKey.waterSalinity == "HKMetadataKeyWaterSalinity")
    }

    @Test("A deleted object keeps only the sync keys")
    func deletedObject() {
        let sample = makeStepSample(metadata: [
            MetadataKey.syncIdentifier: .string("walk-1"), MetadataKey.syncVersion: .number(3),
            MetadataKey.timeZone: .string("UTC"), "org.example.note": .string("private"),
        ])
        let deleted = DeletedObject(deleting: sample)
        #expect(deleted.uuid == sample.uuid)
        #expect(deleted.type == sample.type)
        #expect(deleted.metadata == [
            MetadataKey.syncIdentifier: .string("walk-1"), MetadataKey.syncVersion: .number(3),
        ])
    }

    @Test("Samples expose their sync keys and get time-ordered ids")
    func sampleBasics() throws {
        let sample = makeStepSample(metadata: [
            MetadataKey.syncIdentifier: .string("walk-1"), MetadataKey.syncVersion: .number(3),
        ])
        #expect(sample.syncIdentifier == "walk-1")
        #expect(sample.syncVersion == 3)
        #expect(sample.kind == .quantity)
        #expect(UUIDv7.date(of: sample.uuid) != nil)
    }

    @Test(
        "Quantities parse and print as exports write them",
        arguments: ["5348 cm", "91.4 degF", "4.85252 kcal/hr·kg"])
    func quantityText(text: String) throws {
        let quantity = try Quantity(parsing: text)
        #expect(quantity.description == text)
    }

    @Test("Malformed quantities are refused", arguments: ["", "5348", "5348  cm", "x cm", "inf cm", "1 fathom"])
    func malformedQuantity(text: String) {
        #expect(throws: UnitError.self) { try Quantity(parsing: text) }
    }

    @Test("Type identifiers compare and encode as strings")
    func typeIdentifiers() throws {
        let identifier: TypeIdentifier = "HKQuantityTypeIdentifierStepCount"
        #expect(identifier.rawValue == "HKQuantityTypeIdentifierStepCount")
        let data = try JSONEncoder().encode(identifier)
        #expect(String(decoding: data, as: UTF8.self) == "\"HKQuantityTypeIdentifierStepCount\"")
        #expect(try JSONDecoder().decode(TypeIdentifier.self, from: data) == identifier)
    }

    @Test("a device or source changed through a copy leaves the original; equality, hashing and JSON go by the fields")
    func sharedFieldsCopyOnWrite() throws {
        let watch = Device(name: "Apple Watch", manufacturer: "Apple Inc.", hardwareVersion: "Watch5,4")
        var changed = watch
        changed.name = "Pixel Watch"
        changed.localIdentifier = "AA:BB"
        #expect(watch.name == "Apple Watch" && watch.localIdentifier == nil)
        #expect(changed.name == "Pixel Watch" && changed.manufacturer == "Apple Inc." && changed.localIdentifier == "AA:BB")
        #expect(watch != changed)
        // Built apart, the same fields: equal, one hash.
        let again = Device(name: "Apple Watch", manufacturer: "Apple Inc.", hardwareVersion: "Watch5,4")
        #expect(again == watch && again.hashValue == watch.hashValue)
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(watch)) as? [String: String]
        #expect(json == ["name": "Apple Watch", "manufacturer": "Apple Inc.", "hardwareVersion": "Watch5,4"])
        #expect(try JSONDecoder().decode(Device.self, from: JSONEncoder().encode(changed)) == changed)

        let source = SourceRevision(appID: "org.example.diary", name: "Diary", version: "2.1")
        var other = source
        other.osVersion = "6.1.0"
        other.appID = "org.example.other"
        #expect(source.appID == "org.example.diary" && source.osVersion == nil)
        #expect(other.appID == "org.example.other" && other.name == "Diary" && other.osVersion == "6.1.0")
        #expect(Set([source, other, SourceRevision(appID: "org.example.diary", name: "Diary", version: "2.1")]).count == 2)
        let sourceJSON = try JSONSerialization.jsonObject(with: JSONEncoder().encode(other)) as? [String: String]
        #expect(sourceJSON == ["appID": "org.example.other", "name": "Diary", "version": "2.1", "osVersion": "6.1.0"])
    }

    @Test("a sample of any kind is no larger than its fixed fields and a quantity: large kinds are boxed, every kind round-trips")
    func sampleStaysSmall() {
        // Arrays of samples are copied and grown by the million (a catch-up); a large kind's
        // value stored inline would make every sample as large as it.
        let fixed = MemoryLayout<UUID>.stride + MemoryLayout<TypeIdentifier>.stride + 3 * MemoryLayout<Date>.stride
            + MemoryLayout<SourceRevision>.stride + MemoryLayout<Device?>.stride + MemoryLayout<[String: MetadataValue]>.stride
        #expect(MemoryLayout<SampleValue>.stride <= MemoryLayout<Quantity>.stride + 8)
        #expect(MemoryLayout<Sample>.stride <= fixed + MemoryLayout<Quantity>.stride + 8)
        // The source and the device are one shared pointer each, not 5 and 8 strings.
        #expect(MemoryLayout<SourceRevision>.stride == MemoryLayout<UnsafeRawPointer>.stride)
        #expect(MemoryLayout<Device?>.stride == MemoryLayout<UnsafeRawPointer>.stride)
        var sample = VisionPrescriptionValidationTests.sample(VisionPrescription(
            prescriptionType: .glasses, dateIssued: VisionPrescriptionValidationTests.issued,
            rightEye: VisionPrescriptionValidationTests.glassesLens))
        let copy = sample
        guard case .visionPrescription(let prescription) = copy.value else {
            Issue.record("the prescription did not survive a copy")
            return
        }
        #expect(prescription.rightEye == VisionPrescriptionValidationTests.glassesLens)
        sample.value = .quantity(Quantity(value: 3, unit: .count))
        #expect(sample.value == .quantity(Quantity(value: 3, unit: .count)))
        #expect(copy.value == .visionPrescription(prescription))
    }
}
