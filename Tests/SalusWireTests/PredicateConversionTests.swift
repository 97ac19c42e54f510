import Foundation
import SalusModel
import SalusProto
import Testing

@testable import SalusWire

/// The one predicate vocabulary crosses the wire both ways unchanged.
@Suite("Predicates between the wire and the model")
struct PredicateConversionTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static let nodes: [SamplePredicate] = [
        .date(start: start, end: nil, options: [.strictStartDate]),
        .sources(["org.example.a", "org.example.b"]),
        .sourceRevisions([SourceRevisionMatch(appID: "org.example.a", version: "2.0"), SourceRevisionMatch(appID: "org.example.b")]),
        .devices([Device(name: "Watch", manufacturer: "Example")]),
        .deviceProperty(.model, allowedValues: ["W1"]),
        .uuids([UUID(), UUID()]),
        .metadata(key: MetadataKey.timeZone, .exists),
        .metadata(key: MetadataKey.timeZone, .absent),
        .metadata(key: "org.example.score", .allowedValues([.number(1), .string("high")])),
        .metadata(key: MetadataKey.wasUserEntered, equalTo: .bool(true)),
        .quantity(.greaterThanOrEqual, Quantity(value: 60, unit: try! SalusUnit(parsing: "count/min"))),
        .categoryValues([3, 4], valueGroups: ["allAsleep"]),
        .workoutActivityType(37),
        .workoutDuration(.lessThan, 1800),
        .workoutStatistic(TypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning"), .sum, .greaterThan, Quantity(value: 5, unit: .meter)),
        .prescription(.prescriptionType(.contacts)),
        .prescription(.dateIssued(start: start, end: nil)),
        .prescription(.expirationDate(start: nil, end: start)),
        .prescription(.validAt(start)),
        .and([]),
        .or([]),
    ]

    @Test("every node, nested in and/or/not, decodes to what was encoded", arguments: nodes)
    func roundTrip(_ node: SamplePredicate) throws {
        let tree: SamplePredicate = !(node && .sources(["org.example.c"])) || node
        #expect(try SamplePredicate(wire: tree.wire) == tree)
        #expect(try SamplePredicate(wire: node.wire) == node)
    }

    @Test("sort descriptors round-trip; an unset key is refused naming sort[i].key")
    func sort() throws {
        for descriptor in [SampleSortDescriptor.startDate(), .endDate(ascending: false)] {
            #expect(try SampleSortDescriptor(wire: descriptor.wire, path: "sort[0]") == descriptor)
        }
        let error = #expect(throws: ValidationError.self) {
            try SampleSortDescriptor(wire: Salus_V1_SortDescriptor(), path: "sort[2]")
        }
        #expect(error?.field == "sort[2].key")
    }

    @Test("malformed nodes are refused by their path")
    func refusals() {
        var empty = Salus_V1_Predicate()
        var list = Salus_V1_PredicateList()
        list.predicates = [SamplePredicate.sources([]).wire, empty]
        empty.and = list
        #expect((#expect(throws: ValidationError.self) { try SamplePredicate(wire: empty) })?.field == "predicate.and[1]")

        var uuids = Salus_V1_Predicate()
        uuids.uuids.uuids = [Data(count: 16), Data(count: 3)]
        let badUUID = #expect(throws: ValidationError.self) { try SamplePredicate(wire: uuids, path: "descriptors[0].predicate") }
        #expect(badUUID?.field == "descriptors[0].predicate.uuids[1]" && badUUID?.value == "3 bytes")

        var comparison = Salus_V1_Predicate()
        comparison.quantity.quantity.value = 1
        comparison.quantity.quantity.unit = "count"
        #expect((#expect(throws: ValidationError.self) { try SamplePredicate(wire: comparison) })?.field == "predicate.quantity.operator")

        var prescription = Salus_V1_Predicate()
        prescription.prescription.prescriptionType = 3
        let badType = #expect(throws: ValidationError.self) { try SamplePredicate(wire: prescription) }
        #expect(badType?.field == "predicate.prescription.prescriptionType" && badType?.value == "3")
        prescription.prescription = Salus_V1_PrescriptionPredicate()
        #expect((#expect(throws: ValidationError.self) { try SamplePredicate(wire: prescription) })?.field == "predicate.prescription.test")
    }
}
