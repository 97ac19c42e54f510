import Foundation
import SalusModel
import SalusProto
import SalusWire
import Testing
@testable import SalusKit

/// Correlation queries and correlations to save, as the requests they send.
@Suite("Correlation descriptors and samples")
struct CorrelationDescriptorTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("a correlation query sends its type, predicate, sample predicates (ordered by type) and limit")
    func request() {
        let energy = SamplePredicate.quantity(.greaterThanOrEqual, Quantity(value: 800, unit: .kilocalorie))
        let sugar = SamplePredicate.quantity(.lessThan, Quantity(value: 10, unit: .gram))
        let descriptor = CorrelationQueryDescriptor(
            type: .food,
            predicate: .date(start: Self.start, end: nil),
            samplePredicates: [.quantity("HKQuantityTypeIdentifierDietarySugar"): sugar, .quantity(.dietaryEnergyConsumed): energy],
            limit: 20
        )
        let request = descriptor.request
        #expect(request.type == "HKCorrelationTypeIdentifierFood")
        #expect(request.hasPredicate)
        #expect(request.samplePredicates.map(\.type) == [
            "HKQuantityTypeIdentifierDietaryEnergyConsumed", "HKQuantityTypeIdentifierDietarySugar",
        ])
        #expect(request.samplePredicates[0].predicate == energy.wire)
        #expect(request.samplePredicates[1].predicate == sugar.wire)
        #expect(request.limit == 20)

        let all = CorrelationQueryDescriptor(type: .bloodPressure).request
        #expect(all.type == "HKCorrelationTypeIdentifierBloodPressure")
        #expect(!all.hasPredicate)
        #expect(all.samplePredicates.isEmpty)
        #expect(all.limit == 0)
        #expect(SampleType.correlation(.bloodPressure).identifier.rawValue == "HKCorrelationTypeIdentifierBloodPressure")
    }

    @Test("a blood pressure reading to save: two mmHg members over the correlation's span, nothing the daemon assigns")
    func bloodPressure() throws {
        let cuff = Device(name: "Cuff")
        let reading = Sample.bloodPressure(
            systolic: 121, diastolic: 79, start: Self.start, end: Self.start + 30, device: cuff,
            metadata: ["org.example.arm": .string("left")])
        #expect(reading.type.rawValue == "HKCorrelationTypeIdentifierBloodPressure")
        let members = try #require(reading.correlationValue).objects
        #expect(members.map(\.type.rawValue) == [
            "HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic",
        ])
        #expect(members.map(\.value) == [
            .quantity(Quantity(value: 121, unit: .millimeterOfMercury)), .quantity(Quantity(value: 79, unit: .millimeterOfMercury)),
        ])
        #expect(members.allSatisfy { $0.startDate == Self.start && $0.endDate == Self.start + 30 && $0.device == cuff })
        #expect(members.allSatisfy { $0.metadata.isEmpty })

        let wire = reading.wireForSaving
        #expect(wire.uuid.isEmpty)
        #expect(wire.metadata["org.example.arm"]?.stringValue == "left")
        #expect(wire.correlation.objects.count == 2)
        #expect(wire.correlation.objects.allSatisfy { $0.uuid.isEmpty && !$0.hasSourceRevision && $0.creationDate == 0 })
        #expect(wire.correlation.objects[0].quantity.unit == "mmHg")
        #expect(Sample.quantity(.stepCount, Quantity(value: 1, unit: .count), start: Self.start).correlationValue == nil)
    }

    @Test("a received correlation keeps each member's own UUID, source and creation date")
    func received() throws {
        var wire = Sample.bloodPressure(systolic: 120, diastolic: 80, start: Self.start).wire
        wire.uuid = WireUUID.bytes(UUIDv7.make())
        wire.sourceRevision.appID = "org.example.cuff"
        wire.creationDate = 1_795_000_100_000_000
        let replacement = UUIDv7.make()
        wire.correlation.objects[0].uuid = WireUUID.bytes(replacement)
        wire.correlation.objects[0].sourceRevision.appID = "org.example.cuff"
        wire.correlation.objects[0].creationDate = 1_795_000_200_000_000
        let sample = try Sample(received: wire, path: "samples[0]")
        let member = try #require(sample.correlationValue?.objects.first)
        #expect(member.uuid == replacement)
        #expect(member.creationDate == Date(timeIntervalSince1970: 1_795_000_200))
        #expect(sample.creationDate == Date(timeIntervalSince1970: 1_795_000_100))

        wire.correlation.objects[1].uuid = Data([9])
        #expect {
            try Sample(received: wire, path: "samples[3]")
        } throws: { error in
            (error as? SalusError)?.field == "samples[3].correlation.objects[1].uuid"
        }
    }

    @Test("save results carry the members' results")
    func saveResult() throws {
        var member = Salus_V1_SaveResult()
        member.uuid = WireUUID.bytes(UUIDv7.make())
        member.outcome = .keptExisting
        var wire = Salus_V1_SaveResult()
        wire.uuid = WireUUID.bytes(UUIDv7.make())
        wire.outcome = .saved
        wire.objects = [member]
        let result = try SaveResult(wire: wire, path: "results[0]", anchor: QueryAnchor(rawValue: 7))
        #expect(result.objects.map(\.outcome) == [.keptExisting])
        #expect(result.objects.first?.uuid == WireUUID.uuid(member.uuid))
        wire.objects[0].outcome = .unspecified
        #expect {
            try SaveResult(wire: wire, path: "results[0]", anchor: QueryAnchor(rawValue: 7))
        } throws: { error in
            (error as? SalusError)?.field == "results[0].objects[0].outcome"
        }
    }
}
