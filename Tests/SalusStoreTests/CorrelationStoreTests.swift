import Foundation
import SalusModel
import SalusStore
import Testing

/// Correlations in the store: saved with their members in one transaction, read back with them,
/// deleted with them; the members are ordinary samples of their own types.
@Suite("Correlations in the store")
struct CorrelationStoreTests {
    static func members(_ sample: Sample) -> [Sample] {
        guard case .correlation(let correlation) = sample.value else { return [] }
        return correlation.objects
    }

    static func values(_ samples: [Sample]) -> [Double] {
        samples.compactMap { sample in
            guard case .quantity(let quantity) = sample.value else { return nil }
            return quantity.value
        }
    }

    @Test("a blood pressure reading is saved as one object and its members are samples of their own types")
    func saveAndQuery() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let response = try await store.save([Fixtures.bloodPressure(121, 79, start: 60)], source: Fixtures.app)
        let result = try #require(response.results.first)
        #expect(result.outcome == .saved)
        #expect(result.objects.map(\.outcome) == [.saved, .saved])

        let readings = try await store.all(Fixtures.bloodPressure)
        #expect(readings.count == 1)
        let reading = try #require(readings.first)
        #expect(reading.uuid == result.uuid)
        #expect(reading.sourceRevision == Fixtures.app)
        #expect(reading.startDate == Fixtures.at(60))
        let members = Self.members(reading)
        #expect(members.map(\.uuid) == result.objects.map(\.uuid))
        #expect(members.map(\.type) == [Fixtures.systolic, Fixtures.diastolic])
        #expect(Self.values(members) == [121, 79])
        #expect(members.allSatisfy { $0.sourceRevision == Fixtures.app })

        let systolic = try await store.all(Fixtures.systolic)
        #expect(systolic.map(\.uuid) == [result.objects[0].uuid])
        #expect(Self.values(systolic) == [121])
        #expect(try await store.all(Fixtures.diastolic).map(\.uuid) == [result.objects[1].uuid])

        let changes = try await store.anchoredQuery([QueryDescriptor(type: Fixtures.bloodPressure)], anchor: nil)
        #expect(changes.added.map(\.uuid) == [result.uuid])
        #expect(Self.members(changes.added[0]).map(\.uuid) == result.objects.map(\.uuid))
        #expect(response.anchor == Anchor(3))
    }

    @Test("a food with five nutrients comes back whole, in a page of several foods")
    func food() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let meals = [
            Fixtures.food(105, grams: [1.3, 27, 0.4, 14], start: 0),
            Fixtures.food(650, grams: [30, 70, 25, 9], start: 3_600),
            Fixtures.food(320, grams: [12, 40, 11, 20], start: 7_200),
        ]
        _ = try await store.save(meals, source: Fixtures.app)
        let pages = try store.samples(SampleQuery(type: Fixtures.food), pageSize: 2)
        var read: [Sample] = []
        for try await page in pages { read += page }
        #expect(read.count == 3)
        for (saved, back) in zip(meals, read) {
            #expect(Self.members(back).map(\.type) == Self.members(saved).map(\.type))
            #expect(Self.values(Self.members(back)) == Self.values(Self.members(saved)))
        }
        #expect(try await store.count(Fixtures.dietaryEnergy) == 3)
        #expect(try await store.count(Fixtures.nutrients[3]) == 3)
    }

    @Test("members' metadata and devices come back with the correlation")
    func memberDetails() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        var reading = Fixtures.bloodPressure(
            130, 85, metadata: ["org.example.arm": .string("left")], memberMetadata: ["HKWasUserEntered": .bool(true)])
        var members = Self.members(reading)
        members[1].device = Device(name: "Cuff", manufacturer: "Acme")
        reading.value = .correlation(Correlation(objects: members))
        _ = try await store.save([reading], source: Fixtures.app)
        let back = try #require(try await store.all(Fixtures.bloodPressure).first)
        #expect(back.metadata == ["org.example.arm": .string("left")])
        #expect(Self.members(back)[0].metadata == ["HKWasUserEntered": .bool(true)])
        #expect(Self.members(back)[1].device == Device(name: "Cuff", manufacturer: "Acme"))
        #expect(Self.members(back)[0].device == nil)
    }

    @Test("a batch that fails on a member saves nothing: not the correlation, not the other members")
    func atomic() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        var reading = Fixtures.bloodPressure(120, 80)
        var members = Self.members(reading)
        members[1].uuid = members[0].uuid
        reading.value = .correlation(Correlation(objects: members))
        let error = try await #require(throws: StoreError.self) {
            try await store.save([Fixtures.quantity(10), reading], source: Fixtures.app, options: SaveOptions(uuidPolicy: .keep))
        }
        #expect(error.field == "samples[1].correlation.objects[1].uuid")
        #expect(try await store.count(Fixtures.steps) == 0)
        #expect(try await store.count(Fixtures.bloodPressure) == 0)
        #expect(try await store.count(Fixtures.systolic) == 0)
        #expect(try await store.currentAnchor() == .zero)
    }

    @Test("deleting the correlation deletes its members and leaves a tombstone for each")
    func deleteCorrelation() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let saved = try await store.save([Fixtures.bloodPressure(120, 80), Fixtures.bloodPressure(140, 90, start: 60)], source: Fixtures.app)
        let first = saved.results[0]
        let deleted = try await store.delete([first.uuid], requester: .app(Fixtures.app.appID))
        #expect(deleted.deleted == 3)
        #expect(try await store.all(Fixtures.bloodPressure).map(\.uuid) == [saved.results[1].uuid])
        #expect(Self.values(try await store.all(Fixtures.systolic)) == [140])
        #expect(Self.values(try await store.all(Fixtures.diastolic)) == [90])

        let everything = [Fixtures.bloodPressure, Fixtures.systolic, Fixtures.diastolic].map { QueryDescriptor(type: $0) }
        let changes = try await store.anchoredQuery(everything, anchor: saved.anchor)
        #expect(changes.added.isEmpty)
        #expect(changes.deleted.map(\.uuid) == [first.uuid] + first.objects.map(\.uuid))
        #expect(changes.deleted.map(\.type) == [Fixtures.bloodPressure, Fixtures.systolic, Fixtures.diastolic])
        let correlationsOnly = try await store.anchoredQuery([QueryDescriptor(type: Fixtures.bloodPressure)], anchor: saved.anchor)
        #expect(correlationsOnly.deleted.map(\.uuid) == [first.uuid])
        #expect(deleted.anchor == Anchor(saved.anchor.rawValue + 3))

        // By predicate too, and a member listed with its correlation counts once.
        let second = saved.results[1]
        let again = try await store.delete([second.uuid, second.objects[0].uuid], requester: .owner)
        #expect(again.deleted == 3)
        #expect(try await store.count(Fixtures.systolic) == 0)
        _ = try await store.save([Fixtures.bloodPressure(110, 70)], source: Fixtures.app)
        let byPredicate = try await store.delete(type: Fixtures.bloodPressure, matching: nil, requester: .app(Fixtures.app.appID))
        #expect(byPredicate.deleted == 3)
        #expect(try await store.count(Fixtures.diastolic) == 0)
    }

    @Test("deleting a member alone removes it from its correlation, which stays")
    func deleteMember() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let saved = try await store.save([Fixtures.bloodPressure(120, 80)], source: Fixtures.app)
        let diastolic = saved.results[0].objects[1].uuid
        #expect(try await store.delete([diastolic], requester: .app(Fixtures.app.appID)).deleted == 1)
        let reading = try #require(try await store.all(Fixtures.bloodPressure).first)
        #expect(Self.members(reading).map(\.uuid) == [saved.results[0].objects[0].uuid])
        #expect(try await store.count(Fixtures.diastolic) == 0)
    }

    @Test("a member replaced by its sync identifier: the new sample takes its place in the correlation")
    func memberReplaced() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let sync: (Double) -> [String: MetadataValue] = {
            [MetadataKey.syncIdentifier: .string("cuff-7-systolic"), MetadataKey.syncVersion: .number($0)]
        }
        let saved = try await store.save([Fixtures.bloodPressure(120, 80, memberMetadata: sync(1))], source: Fixtures.app)
        let old = saved.results[0].objects[0].uuid

        let corrected = Fixtures.quantity(Fixtures.systolic, 122, "mmHg", metadata: sync(2))
        let replaced = try await store.save([corrected], source: Fixtures.app)
        #expect(replaced.results[0].outcome == .replaced(old))
        let reading = try #require(try await store.all(Fixtures.bloodPressure).first)
        #expect(reading.uuid == saved.results[0].uuid)
        #expect(Self.members(reading).map(\.uuid) == [saved.results[0].objects[1].uuid, replaced.results[0].uuid])
        #expect(Self.values(Self.members(reading)).sorted() == [80, 122])
        let changes = try await store.anchoredQuery([QueryDescriptor(type: Fixtures.systolic)], anchor: saved.anchor)
        #expect(changes.deleted.map(\.uuid) == [old])

        // A correlation whose member is not newer keeps the existing sample as its member.
        let replay = try await store.save([Fixtures.bloodPressure(119, 81, start: 60, memberMetadata: sync(2))], source: Fixtures.app)
        #expect(replay.results[0].outcome == .saved)
        #expect(replay.results[0].objects[0] == SaveResult(uuid: replaced.results[0].uuid, outcome: .keptExisting))
        let second = try #require(try await store.all(Fixtures.bloodPressure).last)
        #expect(Self.values(Self.members(second)).sorted() == [81, 122])
        #expect(try await store.count(Fixtures.systolic) == 1)
    }

    @Test("a correlation replaced by its sync identifier takes its members with it")
    func correlationReplaced() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let sync: (Double) -> [String: MetadataValue] = {
            [MetadataKey.syncIdentifier: .string("reading-1"), MetadataKey.syncVersion: .number($0)]
        }
        let first = try await store.save([Fixtures.bloodPressure(120, 80, metadata: sync(1))], source: Fixtures.app)
        let kept = try await store.save([Fixtures.bloodPressure(125, 85, metadata: sync(1))], source: Fixtures.app)
        #expect(kept.results == [SaveResult(uuid: first.results[0].uuid, outcome: .keptExisting)])
        #expect(try await store.count(Fixtures.systolic) == 1)

        let second = try await store.save([Fixtures.bloodPressure(118, 78, metadata: sync(2))], source: Fixtures.app)
        #expect(second.results[0].outcome == .replaced(first.results[0].uuid))
        #expect(Self.values(try await store.all(Fixtures.systolic)) == [118])
        #expect(Self.values(try await store.all(Fixtures.diastolic)) == [78])
        let everything = [Fixtures.bloodPressure, Fixtures.systolic, Fixtures.diastolic].map { QueryDescriptor(type: $0) }
        let changes = try await store.anchoredQuery(everything, anchor: first.anchor)
        #expect(Set(changes.deleted.map(\.uuid)) == Set([first.results[0].uuid] + first.results[0].objects.map(\.uuid)))
    }

    @Test("member predicates: a correlation matches when it holds a member of each type matching its predicate")
    func memberPredicates() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save(
            [Fixtures.food(105, start: 0), Fixtures.food(900, grams: [40, 90, 35, 5], start: 60), Fixtures.food(850, grams: [5, 120, 30, 60], start: 120)],
            source: Fixtures.app)
        let hearty = QueryDescriptor(
            type: Fixtures.dietaryEnergy, predicate: .quantity(.greaterThanOrEqual, Quantity(value: 800, unit: .kilocalorie)))
        let found = try await store.samples(SampleQuery(type: Fixtures.food, memberPredicates: [hearty])).collect()
        #expect(found.map { Self.values(Self.members($0))[0] } == [900, 850])
        // Every member predicate must match: hearty and low in sugar.
        let lowSugar = QueryDescriptor(type: Fixtures.nutrients[3], predicate: .quantity(.lessThan, Quantity(value: 10, unit: .gram)))
        let both = try await store.samples(SampleQuery(type: Fixtures.food, memberPredicates: [hearty, lowSugar])).collect()
        #expect(both.map { Self.values(Self.members($0))[0] } == [900])
        // With the correlation's own predicate.
        let late = try await store.samples(
            SampleQuery(type: Fixtures.food, predicate: .date(start: Fixtures.at(100), end: nil), memberPredicates: [hearty])
        ).collect()
        #expect(late.map { Self.values(Self.members($0))[0] } == [850])
        // A member predicate over the member's own dates.
        let earlyEnergy = QueryDescriptor(type: Fixtures.dietaryEnergy, predicate: .date(start: nil, end: Fixtures.at(90)))
        let early = try await store.samples(SampleQuery(type: Fixtures.food, memberPredicates: [earlyEnergy])).collect()
        #expect(early.map { Self.values(Self.members($0))[0] } == [105, 900])
        // Only on correlation types, with predicates valid for the member type.
        #expect(throws: StoreError.self) {
            _ = try store.samples(SampleQuery(type: Fixtures.steps, memberPredicates: [hearty]))
        }
        let wrongUnit = QueryDescriptor(type: Fixtures.dietaryEnergy, predicate: .quantity(.greaterThan, Quantity(value: 1, unit: .meter)))
        let error = try #require(throws: StoreError.self) {
            _ = try store.samples(SampleQuery(type: Fixtures.food, memberPredicates: [hearty, wrongUnit]))
        }
        #expect(error.field == "samplePredicates[1].predicate.quantity.unit")
    }
}
