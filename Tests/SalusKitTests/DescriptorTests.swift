import Foundation
import SalusModel
import SalusProto
import SalusWire
import Testing
@testable import SalusKit

/// Query descriptors, sample types and samples to save, as the requests they send.
@Suite("Query descriptors and requests")
struct DescriptorTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    @Test("sample types from HealthKit names or any identifier")
    func sampleTypes() {
        #expect(SampleType.quantity(.stepCount).identifier.rawValue == "HKQuantityTypeIdentifierStepCount")
        #expect(SampleType.category(.sleepAnalysis).description == "HKCategoryTypeIdentifierSleepAnalysis")
        #expect(SampleType("org.example.migraine.severity") == "org.example.migraine.severity")
        #expect(SampleType.workout.identifier.rawValue == "HKWorkoutTypeIdentifier")
    }

    @Test("a sample query sends type, predicate, sort and limit")
    func sampleQuery() {
        let descriptor = SampleQueryDescriptor(
            type: .category(.sleepAnalysis),
            predicate: .sleepAnalysis([.asleepREM]),
            sortDescriptors: [.startDate(), .endDate(ascending: false)],
            limit: 10
        )
        let request = descriptor.request
        #expect(request.type == "HKCategoryTypeIdentifierSleepAnalysis")
        #expect(request.predicate.categoryValues.values == [5])
        #expect(request.sort.map(\.key) == [.startDate, .endDate])
        #expect(request.sort.map(\.descending) == [false, true])
        #expect(request.limit == 10)
        let unlimited = SampleQueryDescriptor(.samples(.quantity(.stepCount))).request
        #expect(unlimited.limit == 0)
        #expect(!unlimited.hasPredicate)
        #expect(unlimited.sort.isEmpty)
    }

    @Test("an anchored query sends its descriptors, its anchor only when given, the limit and live")
    func anchoredQuery() {
        let sleep = SampleTypePredicate(.category(.sleepAnalysis), predicate: .sleepAnalysis(.allAsleepValues))
        let fromStart = AnchoredObjectQueryDescriptor(predicates: [sleep, .samples(.quantity(.stepCount))])
        let request = fromStart.request(live: false)
        #expect(request.descriptors.map(\.type) == ["HKCategoryTypeIdentifierSleepAnalysis", "HKQuantityTypeIdentifierStepCount"])
        #expect(request.descriptors[0].predicate.categoryValues.values == [1, 3, 4, 5])
        #expect(!request.descriptors[1].hasPredicate)
        #expect(request.optionalAnchor == nil)
        #expect(!request.live)
        let resumed = AnchoredObjectQueryDescriptor(predicates: [sleep], anchor: QueryAnchor(rawValue: 0), limit: 5).request(live: true)
        #expect(resumed.optionalAnchor == .anchor(0))
        #expect(resumed.limit == 5)
        #expect(resumed.live)
    }

    @Test("observer and source queries")
    func observerAndSources() {
        let observer = ObserverQueryDescriptor(predicates: [.samples(.category(.sleepAnalysis))]).request
        #expect(observer.descriptors.map(\.type) == ["HKCategoryTypeIdentifierSleepAnalysis"])
        let sources = SourceQueryDescriptor(type: .quantity(.stepCount), predicate: .sources(["org.a"])).request
        #expect(sources.type == "HKQuantityTypeIdentifierStepCount")
        #expect(sources.predicate.sources.appIds == ["org.a"])
    }

    @Test("a sample to save leaves UUID, source and creation date to the daemon")
    func savingForm() {
        let sample = Sample.sleepAnalysis(
            .asleepDeep, start: Self.start, end: Self.start + 1800,
            metadata: [MetadataKey.timeZone: .string("Europe/Paris")]
        )
        let wire = sample.wireForSaving
        #expect(wire.uuid.isEmpty)
        #expect(!wire.hasSourceRevision)
        #expect(wire.creationDate == 0)
        #expect(wire.type == "HKCategoryTypeIdentifierSleepAnalysis")
        #expect(wire.category.value == 4)
        #expect(wire.endDate - wire.startDate == 1_800_000_000)
        #expect(wire.metadata["HKTimeZone"]?.stringValue == "Europe/Paris")
        let steps = Sample.quantity(.stepCount, Quantity(value: 12, unit: .count), start: Self.start)
        #expect(steps.startDate == steps.endDate)
        #expect(steps.wireForSaving.quantity.unit == "count")
    }

    @Test("a received sample keeps its UUID, source revision and creation date")
    func received() throws {
        var wire = Sample.sleepAnalysis(.asleepREM, start: Self.start, end: Self.start + 60).wire
        let uuid = UUIDv7.make()
        wire.uuid = WireUUID.bytes(uuid)
        wire.sourceRevision.appID = "org.example.sleepdiary"
        wire.sourceRevision.name = "Sleep diary"
        wire.creationDate = 1_795_000_100_000_000
        let sample = try Sample(received: wire, path: "samples[0]")
        #expect(sample.uuid == uuid)
        #expect(sample.sourceRevision.appID == "org.example.sleepdiary")
        #expect(sample.creationDate == Date(timeIntervalSince1970: 1_795_000_100))
        #expect(sample.sleepAnalysisValue == .asleepREM)
    }

    @Test("a received sample without a 16-byte UUID is a malformed message naming the field")
    func malformed() {
        var wire = Sample.sleepAnalysis(.asleepREM, start: Self.start, end: Self.start + 60).wire
        wire.uuid = Data([1, 2, 3])
        #expect {
            try Sample(received: wire, path: "samples[7]")
        } throws: { error in
            guard let error = error as? SalusError else { return false }
            return error.code == .malformedMessage && error.field == "samples[7].uuid" && error.value == "3 bytes"
                && error.expected == "16 bytes"
        }
        var bad = wire
        bad.uuid = WireUUID.bytes(UUIDv7.make())
        bad.value = nil
        #expect {
            try Sample(received: bad, path: "samples[1]")
        } throws: { error in
            (error as? SalusError)?.field == "samples[1].value"
        }
    }

    @Test("deleted objects keep only the sync keys")
    func deleted() throws {
        var wire = Salus_V1_DeletedObject()
        let uuid = UUIDv7.make()
        wire.uuid = WireUUID.bytes(uuid)
        wire.type = "HKQuantityTypeIdentifierStepCount"
        wire.metadata = [MetadataKey.syncIdentifier: MetadataValue.string("a").wire, "other": MetadataValue.number(1).wire]
        let object = try DeletedObject(received: wire, path: "deleted[0]")
        #expect(object.uuid == uuid)
        #expect(object.metadata == [MetadataKey.syncIdentifier: .string("a")])
    }

    @Test("save results: saved, kept existing, replaced; a bad outcome names the field")
    func saveResults() throws {
        let uuid = UUIDv7.make()
        let old = UUIDv7.make()
        var wire = Salus_V1_SaveResult()
        wire.uuid = WireUUID.bytes(uuid)
        wire.outcome = .replaced
        wire.replacedUuid = WireUUID.bytes(old)
        let result = try SaveResult(wire: wire, path: "results[0]", anchor: QueryAnchor(rawValue: 9))
        #expect(result.outcome == .replaced(old))
        #expect(result.anchor.rawValue == 9)
        wire.outcome = .unspecified
        #expect {
            try SaveResult(wire: wire, path: "results[2]", anchor: QueryAnchor(rawValue: 9))
        } throws: { error in
            (error as? SalusError)?.field == "results[2].outcome"
        }
    }

    @Test("anchors order and encode as their number")
    func anchors() throws {
        #expect(QueryAnchor(rawValue: 3) < QueryAnchor(rawValue: 10))
        let data = try JSONEncoder().encode(QueryAnchor(rawValue: 42))
        #expect(String(decoding: data, as: UTF8.self) == "42")
        #expect(try JSONDecoder().decode(QueryAnchor.self, from: data) == QueryAnchor(rawValue: 42))
    }
}
