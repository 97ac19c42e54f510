import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Workouts as watchOS 10–26 write them: `HKAverageMETs` in `kcal/hr-kg`, and an event that ends
/// half a second after its workout. Apple's own file breaks rules Salus holds apps to; the import
/// keeps the workout, changes the one child, and says so with its line.
@Suite("salus.v1.Import: modern workouts")
struct ImportModernWorkoutTests {
    static let export = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_US">
         <ExportDate value="2025-10-01 09:00:00 +0200"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Anna’s Apple Watch" sourceVersion="11.0" creationDate="2025-09-20 08:31:00 +0200" startDate="2025-09-20 08:00:00 +0200" endDate="2025-09-20 08:30:00 +0200">
          <MetadataEntry key="HKIndoorWorkout" value="0"/>
          <MetadataEntry key="HKAverageMETs" value="9.1945 kcal/hr-kg"/>
          <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2025-09-20 08:00:00 +0200" duration="15" durationUnit="min"/>
          <WorkoutEvent type="HKWorkoutEventTypeSegment" date="2025-09-20 08:15:00 +0200" duration="15.00833333333333" durationUnit="min"/>
          <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2025-09-20 08:00:00 +0200" endDate="2025-09-20 08:30:00 +0200" sum="5.1" unit="km"/>
          <WorkoutRoute sourceName="Anna’s Apple Watch" sourceVersion="11.0" creationDate="2025-09-20 08:31:00 +0200" startDate="2025-09-20 08:00:00 +0200" endDate="2025-09-20 08:30:00 +0200">
           <FileReference path="/workout-routes/route_2025-09-20_8.30am.gpx"/>
          </WorkoutRoute>
         </Workout>
        </HealthData>
        """

    static let gpx = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">
         <trk><trkseg>
          <trkpt lon="13.400000" lat="52.520000"><ele>34.0</ele><time>2025-09-20T06:00:01Z</time></trkpt>
          <trkpt lon="13.401000" lat="52.521000"><ele>34.5</ele><time>2025-09-20T06:29:59Z</time></trkpt>
         </trkseg></trk>
        </gpx>
        """

    @Test("a watchOS workout with HKAverageMETs in kcal/hr-kg and an event 0.5 s past its end is kept whole, the event clamped and reported with its line, its route attached")
    func watchWorkoutKept() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await ImportServiceTests.importExport(
            owner, Data(Self.export.utf8), sideFiles: [("workout-routes/route_2025-09-20_8.30am.gpx", Data(Self.gpx.utf8))])
        #expect(report.skipped == 0, "\(report.problems)")
        #expect(report.notImported["file not referenced by export.xml"] == nil, "\(report.notImported)")

        let workouts = try await ImportOddCaseTests.workouts(HealthStore(client: owner))
        #expect(workouts.count == 1)
        let run = try #require(workouts.first)
        guard case .workout(let workout) = run.value else { throw CancellationError() }
        #expect(workout.events.count == 2)
        let last = try #require(workout.events.max { $0.startDate < $1.startDate })
        #expect(last.endDate == run.endDate, "clamped to the workout's end")
        let mets = try #require(run.metadata["HKAverageMETs"]?.quantityValue)
        #expect(abs(try mets.converted(to: try SalusUnit(parsing: "kcal/(kg*hr)")).value - 9.1945) < 1e-9, "\(mets)")

        // The change is reported with the event's line.
        let change = try #require(report.problems.first { $0.field.contains("WorkoutEvent") }, "\(report.problems)")
        #expect(change.line == 8 && change.element == "Workout", "\(change)")
        #expect(change.expected.contains("clamped"), "\(change)")

        #expect(try await ImportServiceTests.routes(owner).count == 1, "the route is attached to the kept workout")
        await owner.close()
        await server.stop()
    }

    @Test("a workout whose statistic or event metadata breaks a type's rules keeps everything else; what was dropped is reported with the workout's line")
    func badChildrenDropped() async throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <Workout workoutActivityType="HKWorkoutActivityTypeSwimming" sourceName="Anna’s Apple Watch" startDate="2025-09-21 08:00:00 +0200" endDate="2025-09-21 08:30:00 +0200">
              <WorkoutEvent type="HKWorkoutEventTypeLap" date="2025-09-21 08:00:00 +0200" duration="1" durationUnit="min">
               <MetadataEntry key="HKSwimmingStrokeStyle" value="99"/>
              </WorkoutEvent>
              <WorkoutEvent type="HKWorkoutEventTypeLap" date="2025-09-21 08:01:00 +0200" duration="1" durationUnit="min">
               <MetadataEntry key="HKSwimmingStrokeStyle" value="2"/>
              </WorkoutEvent>
              <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2025-09-21 08:00:00 +0200" endDate="2025-09-21 08:30:00 +0200" average="1e12" unit="count/min"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceSwimming" startDate="2025-09-21 08:00:00 +0200" endDate="2025-09-21 08:30:00 +0200" sum="1000" unit="m"/>
             </Workout>
            </HealthData>
            """
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await ImportServiceTests.importExport(owner, Data(xml.utf8))
        #expect(report.skipped == 0 && report.saved == 1, "\(report.problems)")
        let swim = try #require(try await ImportOddCaseTests.workouts(HealthStore(client: owner)).first)
        guard case .workout(let workout) = swim.value else { throw CancellationError() }
        #expect(workout.events.count == 2, "both laps kept")
        #expect(workout.events.map { $0.metadata["HKSwimmingStrokeStyle"] } == [nil, .number(2)], "the bad stroke style dropped")
        #expect(workout.statistics.keys.map(\.rawValue) == ["HKQuantityTypeIdentifierDistanceSwimming"])
        #expect(report.problems.count == 2 && report.problems.allSatisfy { $0.line == 3 && $0.expected.contains("dropped, the workout kept") }, "\(report.problems)")
        await owner.close()
        await server.stop()
    }

    @Test("the route file of a workout refused for a fault of its own is counted as a route of a workout not imported, not as a file nothing refers to")
    func routeOfRefusedWorkout() async throws {
        let refused = Self.export.replacingOccurrences(of: "HKWorkoutActivityTypeRunning", with: "HKWorkoutActivityTypeNoSuchSport")
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await ImportServiceTests.importExport(
            owner, Data(refused.utf8), sideFiles: [("workout-routes/route_2025-09-20_8.30am.gpx", Data(Self.gpx.utf8))])
        #expect(report.skipped == 1 && report.problems.first?.field == "workoutActivityType", "\(report.problems)")
        #expect(report.notImported == ["route of a workout not imported": 1], "\(report.notImported)")
        await owner.close()
        await server.stop()
    }

    @Test("a workout whose inline route has a location without a latitude is kept; the route is the problem, with its line")
    func unreadableInlineRoute() async throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <Workout workoutActivityType="HKWorkoutActivityTypeWalking" sourceName="Anna’s iPhone" startDate="2016-11-14 06:25:00 -0800" endDate="2016-11-14 06:55:00 -0800">
              <WorkoutRoute sourceName="Anna’s iPhone" startDate="2016-11-14 06:25:00 -0800" endDate="2016-11-14 06:55:00 -0800">
               <Location date="2016-11-14 06:25:44 -0800" longitude="-122.39" altitude="4"/>
              </WorkoutRoute>
             </Workout>
            </HealthData>
            """
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await ImportServiceTests.importExport(owner, Data(xml.utf8))
        #expect(report.saved == 1, "\(report)")
        #expect(report.problems.map(\.element) == ["WorkoutRoute"] && report.problems.first?.line == 5, "\(report.problems)")
        #expect(try await ImportOddCaseTests.workouts(HealthStore(client: owner)).count == 1)
        await owner.close()
        await server.stop()
    }

    @Test("an activity that starts a second before its workout and ends after it is clamped to the workout, reported with its line")
    func activityClamped() async throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <Workout workoutActivityType="HKWorkoutActivityTypeCycling" sourceName="Anna’s Apple Watch" startDate="2025-09-22 08:00:00 +0200" endDate="2025-09-22 09:00:00 +0200">
              <WorkoutActivity uuid="0A1B2C3D-4E5F-4071-8293-A4B5C6D7E8F9" startDate="2025-09-22 07:59:59 +0200" endDate="2025-09-22 09:00:01 +0200"/>
             </Workout>
            </HealthData>
            """
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await ImportServiceTests.importExport(owner, Data(xml.utf8))
        #expect(report.saved == 1 && report.skipped == 0, "\(report.problems)")
        let ride = try #require(try await ImportOddCaseTests.workouts(HealthStore(client: owner)).first)
        guard case .workout(let workout) = ride.value else { throw CancellationError() }
        #expect(workout.activities.first?.startDate == ride.startDate && workout.activities.first?.endDate == ride.endDate)
        #expect(Set(report.problems.map(\.field)) == ["WorkoutActivity.startDate", "WorkoutActivity.endDate"], "\(report.problems)")
        #expect(report.problems.allSatisfy { $0.line == 4 })
        await owner.close()
        await server.stop()
    }
}
