import Foundation
import SalusImport
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Salus's own Apple Health export imported again, and what the report counts: the same store
/// takes its own export back without a copy of anything, routes included, and the report counts
/// the same unit on every run.
@Suite("salus.v1.Import: Salus's own export, and the report's counts")
struct ImportOwnExportTests {
    /// 2026-11-21 08:33:20 UTC.
    static let morning = Date(timeIntervalSince1970: 1_795_250_000)

    /// A run at Greenwich whose inline route has what does not survive GPX's text unchanged: a
    /// longitude written `-0.000000` (read as -0.0, written back as 0) and a latitude with more
    /// decimals than GPX keeps.
    static let greenwich = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <HealthData locale="en_GB">
         <ExportDate value="2026-11-22 10:00:00 +0000"/>
         <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Ada’s Apple Watch" sourceVersion="11.1" unit="count/min" startDate="2026-11-21 08:40:00 +0000" endDate="2026-11-21 08:40:00 +0000" value="121"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Ada’s Apple Watch" sourceVersion="11.1" creationDate="2026-11-21 09:05:00 +0000" startDate="2026-11-21 08:33:20 +0000" endDate="2026-11-21 09:03:20 +0000">
          <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2026-11-21 08:33:20 +0000" endDate="2026-11-21 09:03:20 +0000" sum="5.01" unit="km"/>
          <WorkoutRoute sourceName="Ada’s Apple Watch" sourceVersion="11.1" startDate="2026-11-21 08:33:21 +0000" endDate="2026-11-21 09:03:19 +0000">
           <Location date="2026-11-21 08:33:21 +0000" latitude="51.477928" longitude="-0.000000" altitude="46" horizontalAccuracy="4" verticalAccuracy="3" course="-1" speed="2.9"/>
           <Location date="2026-11-21 09:03:19 +0000" latitude="51.47812345678912" longitude="-0.00151" altitude="44" horizontalAccuracy="4" verticalAccuracy="3" course="271.5" speed="3.1"/>
          </WorkoutRoute>
         </Workout>
        </HealthData>
        """.utf8)

    static let types = ["HKQuantityTypeIdentifierHeartRate", "HKWorkoutTypeIdentifier", "HKWorkoutRouteTypeIdentifier"]

    /// How many samples of each of `types` the store holds.
    static func counts(_ owner: RPCClient) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for type in types { counts[type] = try await ImportServiceTests.samples(owner, type).count }
        return counts
    }

    /// What `salusctl export --format apple-health` writes, in process: export.xml with each
    /// workout naming its routes, and each route's GPX under the name the writer gives it.
    static func exportAgain(_ server: ServerHarness, _ owner: RPCClient) async throws -> (xml: Data, files: [(String, Data)]) {
        let store = HealthStore(client: owner)
        let path = server.directory.appendingPathComponent("own-\(UUID().uuidString).xml").path
        let writer = try AppleHealthWriter(
            path: path, names: ExportNames(catalog: server.services.plugins.registry.catalog), timeZone: TimeZone(identifier: "Europe/London")!)
        try writer.begin(exportDate: Date(), locale: "en_GB", characteristics: [])
        var files: [(String, Data)] = []
        for route in try await SampleQueryDescriptor(type: .workoutRoute, sortDescriptors: [.startDate()]).result(for: store) {
            guard case .workoutRoute(let value) = route.value else { continue }
            let file = writer.routePath(of: route)
            writer.routes[value.workoutUUID, default: []].append((route, file))
            files.append((file, GPX.write(try await store.routeLocations(of: route.uuid).collect(), name: "Route")))
        }
        for type in ["HKQuantityTypeIdentifierHeartRate", "HKWorkoutTypeIdentifier"] {
            for sample in try await SampleQueryDescriptor(type: SampleType(type), sortDescriptors: [.startDate()]).result(for: store) {
                #expect(try writer.write(sample))
            }
        }
        try writer.finish()
        return (try Data(contentsOf: URL(fileURLWithPath: path)), files)
    }

    @Test("a store's own export imported back into it adds nothing, routes included, though GPX writes -0.000000 as 0 and keeps 9 decimals")
    func ownExportAddsNothing() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let first = try await ImportServiceTests.importExport(owner, Self.greenwich)
        #expect(first.skipped == 0 && first.saved == 3, "\(first)")
        let before = try await Self.counts(owner)
        #expect(before == ["HKQuantityTypeIdentifierHeartRate": 1, "HKWorkoutTypeIdentifier": 1, "HKWorkoutRouteTypeIdentifier": 1])
        let stored = try #require(try await ImportServiceTests.routes(owner).first?.0.syncIdentifier)

        let (xml, files) = try await Self.exportAgain(server, owner)
        // The route's identity is written with it, so the import need not recompute it from
        // coordinates that GPX text changes.
        #expect(String(decoding: xml, as: UTF8.self).contains("value=\"\(stored)\""), "\(String(decoding: xml, as: UTF8.self))")
        let gpx = String(decoding: try #require(files.first?.1), as: UTF8.self)
        #expect(gpx.contains("lon=\"0\"") && gpx.contains("lat=\"51.478123457\""), "\(gpx)")

        let again = try await ImportServiceTests.importExport(owner, xml, sideFiles: files)
        #expect(again.skipped == 0 && again.problems.isEmpty, "\(again)")
        #expect(again.saved == 0 && again.keptExisting == 3, "\(again)")
        #expect(try await Self.counts(owner) == before)
        #expect(try await ImportServiceTests.routes(owner).map(\.0.syncIdentifier) == [stored])
        await owner.close()
        await server.stop()
    }

    @Test("a correlation counts as itself and its members on every run: saved 3 the first time, already there 3 the second")
    func correlationCountsAlike() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let pressure = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" startDate="2026-11-21 08:00:00 +0100" endDate="2026-11-21 08:00:00 +0100">
              <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="2026-11-21 08:00:00 +0100" endDate="2026-11-21 08:00:00 +0100" value="79"/>
              <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="2026-11-21 08:00:00 +0100" endDate="2026-11-21 08:00:00 +0100" value="121"/>
             </Correlation>
            </HealthData>
            """.utf8)
        let first = try await ImportServiceTests.importExport(owner, pressure)
        #expect(first.saved == 3 && first.keptExisting == 0, "\(first)")
        let second = try await ImportServiceTests.importExport(owner, pressure)
        #expect(second.saved == 0 && second.keptExisting == 3, "\(second)")
        let dry = try await ImportServiceTests.importExport(owner, pressure, dryRun: true)
        #expect(dry.saved == 3, "a dry run counts what it would save the same way: \(dry)")

        // Apple lists the members at top level too: whatever the order, both runs count the same
        // samples in all.
        let merged = try await ImportServiceTests.importExport(server.owner(), ImportMergeTests.export(offset: 7200, device: ImportMergeTests.watch))
        let repeated = try await ImportServiceTests.importExport(server.owner(), ImportMergeTests.export(offset: 7200, device: ImportMergeTests.watch))
        #expect(repeated.saved == 0 && repeated.keptExisting == merged.saved + merged.keptExisting, "first \(merged), then \(repeated)")
        await owner.close()
        await server.stop()
    }

    @Test("two routes whose files share a name (exports before names held the whole UUID) each take their own file, in order; none is already there")
    func routeFilesSharingAName() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        func workout(_ start: String, _ end: String) -> String {
            """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Runs" startDate="2026-11-21 \(start) +0000" endDate="2026-11-21 \(end) +0000">
              <WorkoutRoute sourceName="Runs" startDate="2026-11-21 \(start) +0000" endDate="2026-11-21 \(end) +0000">
               <FileReference path="/workout-routes/route_2026-11-21_8.33am_01a21e16.gpx"/>
              </WorkoutRoute>
             </Workout>
            """
        }
        let xml = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_GB">
            \(workout("08:33:20", "09:03:20"))
            \(workout("08:33:40", "09:03:40"))
            </HealthData>
            """.utf8)
        func gpx(_ longitude: Double) -> Data {
            GPX.write([
                RouteLocation(timestamp: Self.morning.addingTimeInterval(60), latitude: 47, longitude: longitude),
                RouteLocation(timestamp: Self.morning.addingTimeInterval(1700), latitude: 47.01, longitude: longitude),
            ], name: "Route")
        }
        // The zip held two entries of one name; salusctl sends each, one after the other.
        let path = "workout-routes/route_2026-11-21_8.33am_01a21e16.gpx"
        let report = try await ImportServiceTests.importExport(owner, xml, sideFiles: [(path, gpx(8.5)), (path, gpx(8.6))])
        #expect(report.problems.isEmpty && report.notImported.isEmpty, "\(report)")
        #expect(report.saved == 4 && report.keptExisting == 0, "\(report)")
        let routes = try await ImportServiceTests.routes(owner)
        #expect(Set(routes.compactMap { $0.1.first?.longitude }) == [8.5, 8.6], "\(routes.map(\.1))")
        await owner.close()
        await server.stop()
    }

    @Test("two routes of one minute, each its workout's, import into an empty store as two routes saved, none already there")
    func routesOfOneMinute() async throws {
        let source = try await ServerHarness.start(openAuthorization: true)
        let app = try await source.healthStore("org.example.runs", name: "Runs", version: "1")
        var workouts: [Sample] = []
        for offset in [0.0, 20] {
            workouts.append(Sample(
                type: "HKWorkoutTypeIdentifier", startDate: Self.morning.addingTimeInterval(offset), endDate: Self.morning.addingTimeInterval(1800),
                value: .workout(Workout(activityType: WorkoutActivityType.running)), sourceRevision: Sample.unsavedSource))
        }
        let saved = try await app.save(workouts)
        for workout in saved {
            // The same path, run twice: two routes alike but for their workout.
            let builder = WorkoutRouteBuilder(healthStore: app)
            builder.insertRouteData((0..<3).map { step in
                RouteLocation(timestamp: Self.morning.addingTimeInterval(30 + Double(step) * 60), latitude: 47 + Double(step) * 0.001, longitude: 8.5)
            })
            _ = try await builder.finishRoute(with: try #require(workout.uuid))
        }
        let owner = try await source.owner()
        let (xml, files) = try await Self.exportAgain(source, owner)
        #expect(files.count == 2 && Set(files.map(\.0)).count == 2, "\(files.map(\.0))")

        let target = try await ServerHarness.start()
        let targetOwner = try await target.owner()
        let report = try await ImportServiceTests.importExport(targetOwner, xml, sideFiles: files)
        #expect(report.problems.isEmpty && report.notImported.isEmpty, "\(report)")
        #expect(report.saved == 4 && report.keptExisting == 0, "\(report)")
        #expect(try await ImportServiceTests.routes(targetOwner).count == 2)
        await targetOwner.close()
        await owner.close()
        await target.stop()
        await source.stop()
    }
}
