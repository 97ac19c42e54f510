import Foundation
import SalusModel
import SalusProto
import SalusWire
import Testing

@Suite("Correlations between the wire and the model")
struct CorrelationConversionTests {
    static let source = SourceRevision(appID: "org.example.cuff", name: "Cuff", version: "2.0")
    static let start = Date(timeIntervalSince1970: 1_700_000_000.25)
    static let created = Date(timeIntervalSince1970: 1_700_000_100)

    static func reading(_ type: TypeIdentifier, _ value: Double) -> Sample {
        Sample(
            type: type, startDate: start, endDate: start,
            value: .quantity(Quantity(value: value, unit: .millimeterOfMercury)), sourceRevision: source,
            device: Device(name: "Cuff", manufacturer: "Acme"), metadata: ["HKWasUserEntered": .bool(false)],
            creationDate: created)
    }

    @Test("a correlation survives the wire with its members, each with its own UUID, device and metadata")
    func roundTrip() throws {
        let correlation = Sample(
            type: "HKCorrelationTypeIdentifierBloodPressure", startDate: Self.start, endDate: Self.start,
            value: .correlation(Correlation(objects: [
                Self.reading("HKQuantityTypeIdentifierBloodPressureSystolic", 118),
                Self.reading("HKQuantityTypeIdentifierBloodPressureDiastolic", 76),
            ])),
            sourceRevision: Self.source, metadata: ["org.example.arm": .string("left")], creationDate: Self.created)
        let wire = correlation.wire
        #expect(wire.correlation.objects.count == 2)
        #expect(wire.correlation.objects[1].quantity.value == 76)
        #expect(wire.correlation.objects[0].uuid.count == 16)
        let back = try Sample(wire: wire, path: "samples[0]", source: Self.source, creationDate: Self.created)
        #expect(back == correlation)
        let bytes: [UInt8] = try wire.serializedBytes()
        #expect(try Salus_V1_Sample(serializedBytes: bytes) == wire)
    }

    @Test("members sent without UUID or source get the daemon's, as any sample")
    func membersAssigned() throws {
        var member = Salus_V1_Sample()
        member.type = "HKQuantityTypeIdentifierDietaryEnergyConsumed"
        member.quantity.value = 90
        member.quantity.unit = "kcal"
        member.sourceRevision.appID = "org.attacker.app"
        var wire = Salus_V1_Sample()
        wire.type = "HKCorrelationTypeIdentifierFood"
        wire.correlation.objects = [member]
        let sample = try Sample(wire: wire, path: "samples[0]", source: Self.source, creationDate: Self.created)
        guard case .correlation(let correlation) = sample.value else {
            Issue.record("not a correlation: \(sample.value)")
            return
        }
        #expect(correlation.objects[0].sourceRevision == Self.source)
        #expect(correlation.objects[0].creationDate == Self.created)
        #expect(correlation.objects[0].uuid != sample.uuid)
    }

    @Test("a bad member is named by its path under correlation.objects[i]", arguments: [
        ("unit", "samples[1].correlation.objects[1].quantity.unit"),
        ("value", "samples[1].correlation.objects[1].value"),
        ("uuid", "samples[1].correlation.objects[1].uuid"),
        ("metadata", "samples[1].correlation.objects[1].metadata.HKWasUserEntered"),
    ])
    func memberErrors(kind: String, field: String) throws {
        var good = Salus_V1_Sample()
        good.type = "HKQuantityTypeIdentifierBloodPressureSystolic"
        good.quantity.value = 120
        good.quantity.unit = "mmHg"
        var bad = good
        bad.type = "HKQuantityTypeIdentifierBloodPressureDiastolic"
        switch kind {
        case "unit": bad.quantity.unit = "furlong"
        case "value": bad.value = nil
        case "uuid": bad.uuid = Data([1])
        default: bad.metadata["HKWasUserEntered"] = Salus_V1_MetadataValue()
        }
        var wire = Salus_V1_Sample()
        wire.type = "HKCorrelationTypeIdentifierBloodPressure"
        wire.correlation.objects = [good, bad]
        let error = try #require(throws: ValidationError.self) {
            try Sample(wire: wire, path: "samples[1]", source: Self.source)
        }
        #expect(error.field == field)
    }
}
