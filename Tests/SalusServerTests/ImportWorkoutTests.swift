import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// iOS 16+ workouts in an export (Tests/Fixtures/apple-health/odd-cases/ios16-workouts.xml).
@Suite("salus.v1.Import: iOS 16+ workouts")
struct ImportWorkoutTests {
    @Test("totals found only in WorkoutStatistics are kept, per workout and per activity; a doubled metadata block counts once; swimBikeRun legs are told by their distance")
    func statisticsOnlyWorkouts() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let data = try Data(contentsOf: ImportServiceTests.fixtures.appendingPathComponent("odd-cases/ios16-workouts.xml"))
        let report = try await ImportServiceTests.importExport(owner, data)
        #expect(report.saved == 2 && report.skipped == 0, "\(report.problems)")

        let workouts = try await ImportServiceTests.samples(owner, "HKWorkoutTypeIdentifier").sorted { $0.startDate < $1.startDate }
        #expect(workouts.count == 2)
        let run = try #require(workouts.first)
        #expect(run.workout.activityType == 37)
        let distance = try #require(run.workout.statistics["HKQuantityTypeIdentifierDistanceWalkingRunning"])
        #expect(distance.unit == "km" && distance.value == 5.2, "kept as the export wrote it: \(distance)")
        let energy = try #require(run.workout.statistics["HKQuantityTypeIdentifierActiveEnergyBurned"])
        #expect(energy.unit == "kJ" && energy.value == 1400, "\(energy)")
        // The doubled block: each key once, typed.
        #expect(run.metadata.count == 4, "two keys plus the import's sync identifier and version: \(run.metadata.keys.sorted())")
        #expect(run.metadata["HKIndoorWorkout"]?.boolValue == false)
        #expect(run.metadata["HKElevationAscended"]?.quantityValue.value == 5348)
        // The segment listed at workout level and again inside its activity is one event.
        #expect(run.workout.events.count == 1 && run.workout.events.first?.type == 7)
        let leg = try #require(run.workout.activities.first)
        #expect(run.workout.activities.count == 1 && leg.activityType == 37)
        #expect(leg.statistics["HKQuantityTypeIdentifierHeartRate"]?.value == 152)

        let triathlon = try #require(workouts.last?.workout)
        #expect(triathlon.activityType == 82)
        #expect(triathlon.activities.map(\.activityType) == [46, 83, 13, 83, 37], "swim, transition, bike, transition, run")
        #expect(triathlon.activities.first?.statistics["HKQuantityTypeIdentifierDistanceSwimming"]?.value == 750)
        await owner.close()
        await server.stop()
    }
}
