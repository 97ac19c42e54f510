import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Correlations through the services and SalusKit, with the bundled plugins: blood pressure and
/// food saved, queried and deleted as one object, their members samples of their own types, and
/// each member type's permissions applied to the members.
@Suite("Correlations through the services")
struct CorrelationTests {
    static let morning = Date(timeIntervalSince1970: 1_795_250_000)
    static let bloodPressure = CorrelationTypeIdentifier.bloodPressure.rawValue
    static let systolic = QuantityTypeIdentifier.bloodPressureSystolic.rawValue
    static let diastolic = QuantityTypeIdentifier.bloodPressureDiastolic.rawValue
    static let food = CorrelationTypeIdentifier.food.rawValue
    static let nutrients: [(QuantityTypeIdentifier, SalusUnit)] = [
        (.dietaryEnergyConsumed, .kilocalorie), ("HKQuantityTypeIdentifierDietaryProtein", .gram),
        ("HKQuantityTypeIdentifierDietaryCarbohydrates", .gram), ("HKQuantityTypeIdentifierDietaryFatTotal", .gram),
        ("HKQuantityTypeIdentifierDietarySugar", .gram),
    ]

    /// A food of the five nutrients, in the order of `nutrients`.
    static func meal(_ amounts: [Double], at offset: TimeInterval) -> Sample {
        let time = morning.addingTimeInterval(offset)
        return .correlation(
            .food, start: time,
            objects: zip(nutrients, amounts).map { nutrient, amount in
                .quantity(nutrient.0, Quantity(value: amount, unit: nutrient.1), start: time)
            },
            metadata: ["org.example.meal.name": .string("meal at \(Int(offset))")])
    }

    static func values(_ sample: Sample) -> [Double] {
        (sample.correlationValue?.objects ?? []).compactMap { member in
            guard case .quantity(let quantity) = member.value else { return nil }
            return quantity.value
        }
    }

    /// Registers `appID` and grants it `share` and `read` for `types`.
    static func app(
        _ server: ServerHarness, _ owner: RPCClient, _ appID: String, types: [String], share: Bool, read: Bool
    ) async throws -> HealthStore {
        try await Authz.register(owner, appID)
        for type in types {
            try await Authz.grant(owner, appID, type, read: read ? .granted : nil, share: share ? .granted : nil)
        }
        return try await server.healthStore(appID)
    }

    @Test("blood pressure is saved, queried and deleted as one object; its members are visible alone")
    func bloodPressureLifecycle() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        let store = try await Self.app(
            server, owner, "org.example.cuff", types: [Self.bloodPressure, Self.systolic, Self.diastolic], share: true, read: true)
        let cuff = Device(name: "Cuff", manufacturer: "Acme")
        let saved = try await store.save(.bloodPressure(systolic: 128, diastolic: 84, start: Self.morning, device: cuff))
        #expect(saved.outcome == .saved)
        #expect(saved.objects.count == 2)
        #expect(Set(saved.objects.map(\.uuid)).count == 2)
        #expect(!saved.objects.map(\.uuid).contains(saved.uuid))

        let readings = try await CorrelationQueryDescriptor(type: .bloodPressure).result(for: store)
        #expect(readings.count == 1)
        let reading = try #require(readings.first)
        #expect(reading.uuid == saved.uuid)
        #expect(reading.device == cuff)
        let members = try #require(reading.correlationValue).objects
        #expect(members.map(\.uuid) == saved.objects.map(\.uuid))
        #expect(members.map(\.type.rawValue) == [Self.systolic, Self.diastolic])
        #expect(Self.values(reading) == [128, 84])
        #expect(members.allSatisfy { $0.sourceRevision.appID == "org.example.cuff" && $0.device == cuff })

        // The members alone, in queries of their own types.
        let systolic = try await SampleQueryDescriptor(type: .quantity(.bloodPressureSystolic)).result(for: store)
        #expect(systolic.map(\.uuid) == [saved.objects[0].uuid])
        #expect(systolic.first?.value == .quantity(Quantity(value: 128, unit: .millimeterOfMercury)))
        let diastolic = try await SampleQueryDescriptor(type: .quantity(.bloodPressureDiastolic)).result(for: store)
        #expect(diastolic.map(\.uuid) == [saved.objects[1].uuid])

        // Deleting the correlation deletes the members, and the change feed has a tombstone for each.
        #expect(try await store.delete(uuids: [saved.uuid]) == 3)
        #expect(try await CorrelationQueryDescriptor(type: .bloodPressure).result(for: store).isEmpty)
        #expect(try await SampleQueryDescriptor(type: .quantity(.bloodPressureSystolic)).result(for: store).isEmpty)
        #expect(try await SampleQueryDescriptor(type: .quantity(.bloodPressureDiastolic)).result(for: store).isEmpty)
        let changes = try await AnchoredObjectQueryDescriptor(
            predicates: [.samples(.correlation(.bloodPressure)), .samples(.quantity(.bloodPressureSystolic)), .samples(.quantity(.bloodPressureDiastolic))],
            anchor: saved.anchor
        ).result(for: store)
        #expect(changes.addedSamples.isEmpty)
        #expect(changes.deletedObjects.map(\.uuid) == [saved.uuid] + saved.objects.map(\.uuid))
        await store.close()
        await server.stop()
    }

    @Test("a food with five nutrients; the correlation query's sample predicates pick by nutrient")
    func foodWithFiveNutrients() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        let types = [Self.food] + Self.nutrients.map(\.0.rawValue)
        let store = try await Self.app(server, owner, "org.example.diet", types: types, share: true, read: true)
        let saved = try await store.save([
            Self.meal([105, 1.3, 27, 0.4, 14], at: 0),
            Self.meal([920, 45, 85, 40, 6], at: 3_600),
            Self.meal([840, 10, 110, 35, 55], at: 7_200),
        ])
        #expect(saved.map(\.objects.count) == [5, 5, 5])

        let meals = try await CorrelationQueryDescriptor(type: .food).result(for: store)
        #expect(meals.map(Self.values) == [[105, 1.3, 27, 0.4, 14], [920, 45, 85, 40, 6], [840, 10, 110, 35, 55]])
        #expect(meals[0].correlationValue?.objects.map(\.type.rawValue) == Self.nutrients.map(\.0.rawValue))
        #expect(meals[0].metadata["org.example.meal.name"] == .string("meal at 0"))

        let hearty: [SampleType: SamplePredicate] = [
            .quantity(.dietaryEnergyConsumed): .quantity(.greaterThanOrEqual, Quantity(value: 800, unit: .kilocalorie)),
        ]
        let heartyMeals = try await CorrelationQueryDescriptor(type: .food, samplePredicates: hearty).result(for: store)
        #expect(heartyMeals.map(\.uuid) == [saved[1].uuid, saved[2].uuid])
        var heartyAndLowSugar = hearty
        heartyAndLowSugar[.quantity("HKQuantityTypeIdentifierDietarySugar")] = .quantity(.lessThan, Quantity(value: 0.01, unit: .kilogram))
        let both = try await CorrelationQueryDescriptor(
            type: .food, predicate: .date(start: Self.morning, end: Self.morning.addingTimeInterval(86_400)),
            samplePredicates: heartyAndLowSugar
        ).result(for: store)
        #expect(both.map(\.uuid) == [saved[1].uuid])
        #expect(try await CorrelationQueryDescriptor(type: .food, limit: 2).result(for: store).map(\.uuid) == [saved[0].uuid, saved[1].uuid])

        // Each nutrient is a sample of its own type.
        let sugar = try await SampleQueryDescriptor(type: .quantity("HKQuantityTypeIdentifierDietarySugar")).result(for: store)
        #expect(sugar.map(\.uuid) == saved.map { $0.objects[4].uuid })
        await store.close()
        await server.stop()
    }

    @Test("an app without read permission on one member type sees the correlation without that member")
    func readPermissionPerMember() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        let writer = try await Self.app(
            server, owner, "org.example.cuff", types: [Self.bloodPressure, Self.systolic, Self.diastolic], share: true, read: false)
        let saved = try await writer.save(.bloodPressure(systolic: 135, diastolic: 88, start: Self.morning))

        let reader = try await Self.app(
            server, owner, "org.example.reader", types: [Self.bloodPressure, Self.systolic], share: false, read: true)
        let seen = try await CorrelationQueryDescriptor(type: .bloodPressure).result(for: reader)
        #expect(seen.map(\.uuid) == [saved.uuid])
        #expect(seen.first?.correlationValue?.objects.map(\.uuid) == [saved.objects[0].uuid])
        // A member predicate on the hidden type matches nothing; on a readable one, it works.
        let byDiastolic = try await CorrelationQueryDescriptor(
            type: .bloodPressure, samplePredicates: [.quantity(.bloodPressureDiastolic): .all]
        ).result(for: reader)
        #expect(byDiastolic.isEmpty)
        let bySystolic = try await CorrelationQueryDescriptor(
            type: .bloodPressure,
            samplePredicates: [.quantity(.bloodPressureSystolic): .quantity(.greaterThan, Quantity(value: 130, unit: .millimeterOfMercury))]
        ).result(for: reader)
        #expect(bySystolic.map(\.uuid) == [saved.uuid])
        // The anchored feed narrows the same way.
        let feed = try await AnchoredObjectQueryDescriptor(predicates: [.samples(.correlation(.bloodPressure))]).result(for: reader)
        #expect(feed.addedSamples.first?.correlationValue?.objects.map(\.uuid) == [saved.objects[0].uuid])

        // Read on the correlation type alone: no member to show, so no correlation, as HealthKit.
        let blind = try await Self.app(server, owner, "org.example.blind", types: [Self.bloodPressure], share: false, read: true)
        #expect(try await CorrelationQueryDescriptor(type: .bloodPressure).result(for: blind).isEmpty)
        // Without read on the correlation type, members alone are still visible by their types.
        let membersOnly = try await Self.app(server, owner, "org.example.members", types: [Self.systolic, Self.diastolic], share: false, read: true)
        #expect(try await CorrelationQueryDescriptor(type: .bloodPressure).result(for: membersOnly).isEmpty)
        #expect(try await SampleQueryDescriptor(type: .quantity(.bloodPressureDiastolic)).result(for: membersOnly).count == 1)
        // The writer reads back its own, members included, with share only.
        #expect(try await CorrelationQueryDescriptor(type: .bloodPressure).result(for: writer).first.map(Self.values) == [135, 88])
        for store in [writer, reader, blind, membersOnly] { await store.close() }
        await server.stop()
    }

    @Test("saving needs share permission for the correlation type and every member type; nothing is saved otherwise")
    func sharePermission() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        let partial = try await Self.app(server, owner, "org.example.partial", types: [Self.bloodPressure, Self.systolic], share: true, read: true)
        let refused = await #expect(throws: SalusError.self) {
            try await partial.save(.bloodPressure(systolic: 120, diastolic: 80, start: Self.morning))
        }
        #expect(refused?.code == .authorizationNotDetermined)
        #expect(refused?.value == Self.diastolic)

        let membersOnly = try await Self.app(server, owner, "org.example.members", types: [Self.systolic, Self.diastolic], share: true, read: true)
        let noCorrelation = await #expect(throws: SalusError.self) {
            try await membersOnly.save(.bloodPressure(systolic: 120, diastolic: 80, start: Self.morning))
        }
        #expect(noCorrelation?.code == .authorizationNotDetermined)
        #expect(noCorrelation?.value == Self.bloodPressure)
        #expect(try await SampleQueryDescriptor(type: .quantity(.bloodPressureSystolic)).result(for: membersOnly).isEmpty)
        await partial.close()
        await membersOnly.close()
        await server.stop()
    }

    @Test("refusals name the member's field: a second systolic reading, a wrong unit, a step count in a food; member predicates only for correlations")
    func refusals() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.cuff")
        let twice = Sample.correlation(.bloodPressure, start: Self.morning, objects: [
            .quantity(.bloodPressureSystolic, Quantity(value: 120, unit: .millimeterOfMercury), start: Self.morning),
            .quantity(.bloodPressureSystolic, Quantity(value: 121, unit: .millimeterOfMercury), start: Self.morning),
        ])
        let error = await #expect(throws: SalusError.self) { try await store.save([Self.meal([100, 1, 2, 3, 4], at: 0), twice]) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == "samples[1].correlation.objects[1].type")
        #expect(error?.value == "\"\(Self.systolic)\"")
        #expect(try await CorrelationQueryDescriptor(type: .food).result(for: store).isEmpty, "a refused batch saves nothing")

        let wrongUnit = Sample.bloodPressure(systolic: 120, diastolic: 80, start: Self.morning)
        var members = try #require(wrongUnit.correlationValue).objects
        members[1].value = .quantity(Quantity(value: 80, unit: .meter))
        var broken = wrongUnit
        broken.value = .correlation(Correlation(objects: members))
        let unit = await #expect(throws: SalusError.self) { try await store.save(broken) }
        #expect(unit?.field == "samples[0].correlation.objects[1].quantity.unit")

        let steps = Sample.correlation(.food, start: Self.morning, objects: [
            .quantity(.stepCount, Quantity(value: 100, unit: .count), start: Self.morning),
        ])
        let stranger = await #expect(throws: SalusError.self) { try await store.save(steps) }
        #expect(stranger?.field == "samples[0].correlation.objects[0].type")

        let notCorrelation = await #expect(throws: SalusError.self) {
            var request = SampleQueryDescriptor(type: .quantity(.stepCount)).request
            request.samplePredicates = [SampleTypePredicate(.quantity(.bloodPressureSystolic)).wire]
            let _: [Salus_V1_SampleBatch] = try await Self.collect(store, request)
        }
        #expect(notCorrelation?.field == "samplePredicates")
        let wrongMember = await #expect(throws: SalusError.self) {
            try await CorrelationQueryDescriptor(type: .food, samplePredicates: [.workout: .all]).result(for: store)
        }
        #expect(wrongMember?.field == "samplePredicates[0].type")
        await store.close()
        await server.stop()
    }

    static func collect(_ store: HealthStore, _ request: Salus_V1_SampleQueryRequest) async throws(SalusError) -> [Salus_V1_SampleBatch] {
        do {
            var batches: [Salus_V1_SampleBatch] = []
            let stream = try store.client.serverStreaming(
                SalusMethods.Store.querySamples, request: request)
            for try await batch in stream { batches.append(batch) }
            return batches
        } catch {
            throw SalusError.from(error)
        }
    }
}
