import Foundation
import SalusKit
import SalusModel
import SalusTestSupport
import Testing

/// Odd cases of real exports (shared/data/README.md), each in a small fixture of its own under
/// Tests/Fixtures/apple-health/odd-cases: an iOS 16+ workout whose totals exist only in
/// `WorkoutStatistics`, and the same workout with its metadata block written twice.
@Suite("Apple Health import: odd cases")
struct ImportOddCaseTests {
    static let folder = ImportServiceTests.fixtures.appendingPathComponent("odd-cases")

    static func workouts(_ owner: HealthStore) async throws -> [Sample] {
        try await SampleQueryDescriptor(type: .workout).result(for: owner)
    }

    static func value(_ quantity: Quantity?, _ unit: String) throws -> Double? {
        try quantity.map { (try $0.converted(to: try SalusUnit(parsing: unit)).value * 1e6).rounded() / 1e6 }
    }

    /// What both fixtures hold: a 31.5-minute run with its totals in WorkoutStatistics only.
    static func expectTheRun(_ sample: Sample) throws {
        guard case .workout(let workout) = sample.value else {
            Issue.record("not a workout: \(sample)")
            return
        }
        #expect(workout.activityType == WorkoutActivityType.running)
        #expect(sample.endDate.timeIntervalSince(sample.startDate) == 1890)
        let statistics = workout.statistics
        #expect(try value(statistics[TypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned")], "kcal") == 341.207)
        #expect(try value(statistics[TypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning")], "mi") == 3.10686)
        #expect(try value(statistics[TypeIdentifier("HKQuantityTypeIdentifierHeartRate")], "count/min") == 151.2, "the average")
        #expect(workout.activities.map(\.uuid) == [UUID(uuidString: "6D2C3E1A-7F44-4C1B-9E0F-2B8A1C3D5E70")])
        #expect(workout.events.map(\.type) == [7, 1, 2], "segment, pause, resume")
        #expect(workout.events.first.map { $0.endDate.timeIntervalSince($0.startDate) } == 945)
        let metadata = sample.metadata.filter { !$0.key.hasPrefix("HKMetadataKeySync") }
        #expect(Set(metadata.keys) == ["HKIndoorWorkout", "HKWeatherTemperature", "HKTimeZone"])
        #expect(metadata["HKIndoorWorkout"] == .bool(false))
        #expect(try value(metadata["HKWeatherTemperature"]?.quantityValue, "degF") == 52)
        #expect(metadata["HKTimeZone"] == .string("America/Los_Angeles"))
    }

    @Test("an iOS 16+ workout without totalDistance or totalEnergyBurned takes its totals from WorkoutStatistics")
    func totalsOnlyInStatistics() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let data = try Data(contentsOf: Self.folder.appendingPathComponent("workout-statistics-only.xml"))
        let report = try await ImportServiceTests.importExport(owner, data)
        #expect(report.saved == 1 && report.skipped == 0, "\(report)")
        let saved = try await Self.workouts(HealthStore(client: owner))
        #expect(saved.count == 1)
        try Self.expectTheRun(try #require(saved.first))
        await owner.close()
        await server.stop()
    }

    @Test("a workout whose metadata block is written twice keeps each entry once, and is the same workout")
    func doubledMetadataBlock() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let doubled = try Data(contentsOf: Self.folder.appendingPathComponent("doubled-metadata.xml"))
        let report = try await ImportServiceTests.importExport(owner, doubled)
        #expect(report.saved == 1 && report.skipped == 0, "\(report)")
        try Self.expectTheRun(try #require(try await Self.workouts(HealthStore(client: owner)).first))

        // The block written once names the same workout: nothing new.
        let single = try Data(contentsOf: Self.folder.appendingPathComponent("workout-statistics-only.xml"))
        let again = try await ImportServiceTests.importExport(owner, single)
        #expect(again.saved == 0 && again.keptExisting == 1, "\(again)")
        #expect(try await Self.workouts(HealthStore(client: owner)).count == 1)
        await owner.close()
        await server.stop()
    }
}
