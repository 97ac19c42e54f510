import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusServer
import Testing

/// The owner's preferred units as SalusKit reads them: set on the admin router, and the unit of
/// statistics that name none.
@Suite("Preferred units in SalusKit")
struct PreferredUnitKitTests {
    @Test("SalusKit: preferredUnits(for:) gives the chosen unit or the canonical one; statistics without a unit come in it")
    func salusKit() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await HealthStoreTests.store(server, "org.example.walk")
        let distance = SampleType.quantity(.distanceWalkingRunning)
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        try await store.save(
            Sample(
                type: distance.identifier, startDate: start, endDate: start.addingTimeInterval(600),
                value: .quantity(Quantity(value: 1609.344, unit: .meter)),
                sourceRevision: SourceRevision(appID: "org.example.walk", name: "Walk")))
        #expect(try await store.preferredUnits(for: [distance, .quantity(.stepCount)]) == [distance: .meter, .quantity(.stepCount): .count])

        // As `salusctl units set … mi` does.
        let owner = try await server.owner()
        let set: Salus_V1_PreferredUnits = try await owner.unary(
            SalusMethods.Statistics.setPreferredUnit, request: Salus_V1_PreferredUnit.with { $0.type = distance.identifier.rawValue; $0.unit = "mi" })
        #expect(set.units.contains { $0.type == distance.identifier.rawValue && $0.unit == "mi" })
        await owner.close()
        let miles = try SalusUnit(parsing: "mi")
        #expect(try await store.preferredUnits(for: [distance]) == [distance: miles])
        let total = try await StatisticsQueryDescriptor(predicate: .quantitySample(type: .distanceWalkingRunning), options: .cumulativeSum)
            .result(for: store)
        #expect(total.unit == miles)
        #expect(abs((total.sumQuantity()?.value ?? 0) - 1) < 1e-9)

        let error = await #expect(throws: SalusError.self) {
            _ = try await store.preferredUnits(for: [distance, SampleType("HKNope")])
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.field == "types[0]", "\(String(describing: error))")
        await store.close()
        await server.stop()
    }
}
