import Foundation
import SalusModel
import SalusProto
import SalusWire
import Testing

@Suite("Samples between the wire and the model")
struct SampleConversionTests {
    static let source = SourceRevision(appID: "org.example.app", name: "Example", version: "1.2", productType: "x86_64", osVersion: "6.1.0")

    static func roundTrip(_ sample: Sample) throws -> Sample {
        try Sample(wire: sample.wire, path: "sample", source: sample.sourceRevision, creationDate: sample.creationDate)
    }

    @Test("every kind of sample survives the wire unchanged", arguments: [
        SampleValue.quantity(Quantity(value: 72.5, unit: try! SalusUnit(parsing: "count/min"))),
        .category(5),
        .workout(Workout(
            activityType: 82,
            events: [WorkoutEvent(type: 3, startDate: Date(timeIntervalSince1970: 1_700_000_100), metadata: ["HKLapLength": .quantity(Quantity(value: 25, unit: try! SalusUnit(parsing: "m")))])],
            activities: [WorkoutActivity(activityType: 46, startDate: Date(timeIntervalSince1970: 1_700_000_000), endDate: Date(timeIntervalSince1970: 1_700_000_900))],
            statistics: ["HKQuantityTypeIdentifierDistanceSwimming": Quantity(value: 750, unit: try! SalusUnit(parsing: "m"))]
        )),
        .visionPrescription(VisionPrescription(
            prescriptionType: .contacts,
            dateIssued: Date(timeIntervalSince1970: 1_600_000_000),
            expirationDate: Date(timeIntervalSince1970: 1_700_000_000),
            rightEye: LensSpecification(sphere: -2.25, cylinder: -0.5, axis: 90, baseCurve: 8.6, diameter: 14.2),
            leftEye: LensSpecification(sphere: -2.0),
            brand: "Acme"
        )),
        .document(ClinicalDocument(data: Data("<ClinicalDocument/>".utf8), title: "Summary")),
    ])
    func roundTrips(value: SampleValue) throws {
        let sample = Sample(
            type: "HKExampleType",
            startDate: Date(timeIntervalSince1970: 1_700_000_000.123456),
            endDate: Date(timeIntervalSince1970: 1_700_000_900.5),
            value: value,
            sourceRevision: Self.source,
            device: Device(name: "Watch", manufacturer: "Acme", localIdentifier: ""),
            metadata: [
                MetadataKey.syncIdentifier: .string("abc"),
                MetadataKey.syncVersion: .number(3),
                "HKWasUserEntered": .bool(true),
                "when": .date(Date(timeIntervalSince1970: 1_650_000_000)),
            ],
            creationDate: Date(timeIntervalSince1970: 1_700_001_000)
        )
        #expect(try Self.roundTrip(sample) == sample)
    }

    @Test("the daemon's source replaces the payload's, and a missing UUID is assigned")
    func sourceAndUUID() throws {
        var wire = Salus_V1_Sample()
        wire.type = "HKQuantityTypeIdentifierStepCount"
        wire.quantity.value = 10
        wire.quantity.unit = "count"
        wire.sourceRevision.appID = "org.attacker.app"
        let sample = try Sample(wire: wire, path: "samples[0]", source: Self.source)
        #expect(sample.sourceRevision == Self.source)
        #expect(sample.uuid.uuidString.dropFirst(14).first == "7")
        #expect(sample.device == nil)
    }

    @Test("unset device fields stay nil; set empty ones stay empty")
    func deviceNils() throws {
        var device = Salus_V1_Device()
        device.name = ""
        let model = Device(wire: device)
        #expect(model.name == "")
        #expect(model.manufacturer == nil)
        #expect(model.wire == device)
    }

    @Test("bad wire values are named by their field path", arguments: [
        ("uuid", "samples[2].uuid"),
        ("unit", "samples[2].quantity.unit"),
        ("value", "samples[2].value"),
        ("type", "samples[2].type"),
        ("prescription", "samples[2].visionPrescription.prescriptionType"),
        ("metadata", "samples[2].metadata.HKLapLength.unit"),
        ("nan", "samples[2].quantity.value"),
    ])
    func errors(kind: String, field: String) throws {
        var wire = Salus_V1_Sample()
        wire.type = "HKQuantityTypeIdentifierStepCount"
        wire.quantity.value = 1
        wire.quantity.unit = "count"
        switch kind {
        case "uuid": wire.uuid = Data([1, 2, 3])
        case "unit": wire.quantity.unit = "fathom"
        case "value": wire.value = nil
        case "type": wire.type = ""
        case "prescription": wire.visionPrescription.prescriptionType = 7
        case "metadata":
            var value = Salus_V1_MetadataValue()
            value.quantityValue.value = 1
            value.quantityValue.unit = "parsecs"
            wire.metadata["HKLapLength"] = value
        default: wire.quantity.value = .nan
        }
        do {
            _ = try Sample(wire: wire, path: "samples[2]", source: Self.source)
            Issue.record("\(kind) was accepted")
        } catch {
            #expect(error.field == field)
        }
    }

    @Test("dates keep microseconds")
    func dates() {
        for microseconds: Int64 in [0, 1, -1, 1_700_000_000_123_456, -62_135_596_800_000_000] {
            #expect(WireDate.microseconds(WireDate.date(microseconds)) == microseconds)
        }
    }
}
