import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import SalusWire
import Testing

/// Apple Health imports through salus.v1.Import, in process, on third-party exports.
@Suite("salus.v1.Import")
struct ImportServiceTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/apple-health")

    /// Streams `data` in chunks of `chunk` bytes.
    static func importExport(
        _ owner: RPCClient, _ data: Data, chunk: Int = 4096, characteristics: Bool = false, dryRun: Bool = false
    ) async throws -> Salus_V1_ImportReport {
        try await owner.clientStreaming(SalusMethods.Import.importAppleHealth) { writer in
            var offset = 0
            repeat {
                var message = Salus_V1_ImportChunk()
                if offset == 0 {
                    message.options.characteristics = characteristics
                    message.options.dryRun = dryRun
                }
                let end = min(offset + chunk, data.count)
                message.data = data.subdata(in: offset..<end)
                try await writer.write(message)
                offset = end
            } while offset < data.count
        }
    }

    static func samples(_ client: RPCClient, _ type: String) async throws -> [Salus_V1_Sample] {
        try await Authz.batches(client, type: type).flatMap(\.samples)
    }

    /// `importExport`, then each side file in chunks of `chunk` bytes under its path.
    static func importExport(
        _ owner: RPCClient, _ data: Data, sideFiles: [(String, Data)], chunk: Int = 4096
    ) async throws -> Salus_V1_ImportReport {
        try await owner.clientStreaming(SalusMethods.Import.importAppleHealth) { writer in
            try await writer.write(Salus_V1_ImportChunk.with { $0.data = data })
            for (path, file) in sideFiles {
                var offset = 0
                repeat {
                    let end = min(offset + chunk, file.count)
                    try await writer.write(Salus_V1_ImportChunk.with {
                        $0.path = path
                        $0.data = file.subdata(in: offset..<end)
                        $0.endOfFile = end == file.count
                    })
                    offset = end
                } while offset < file.count
            }
        }
    }

    /// The route samples in the store, each with its locations.
    static func routes(_ owner: RPCClient) async throws -> [(Sample, [RouteLocation])] {
        let store = HealthStore(client: owner)
        var routes: [(Sample, [RouteLocation])] = []
        for sample in try await SampleQueryDescriptor(type: .workoutRoute).result(for: store) {
            routes.append((sample, try await store.routeLocations(of: sample.uuid).collect()))
        }
        return routes
    }

    @Test("an inline Location list imports as the workout's route; -1 course reads as absent; re-import adds nothing")
    func inlineRoute() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("dogsheep-healthkit-to-sqlite/export.xml"))
        let inline = String(decoding: data, as: UTF8.self).components(separatedBy: "<Location ").count - 1
        _ = try await Self.importExport(owner, data)
        let workout = try #require(try await Self.samples(owner, "HKWorkoutTypeIdentifier").first)
        let routes = try await Self.routes(owner)
        #expect(routes.count == 1)
        let (route, locations) = try #require(routes.first)
        #expect(locations.count == inline && inline == 2)
        guard case .workoutRoute(let value) = route.value else {
            Issue.record("not a route: \(route.value)")
            return
        }
        #expect(WireUUID.bytes(value.workoutUUID) == workout.uuid)
        #expect(route.sourceRevision.name == "Simon’s iPhone")
        #expect(locations[0].latitude == 37.7777 && locations[0].speed == 2.48034 && locations[0].course == nil)
        #expect(locations[0].timestamp == Date(timeIntervalSince1970: 1_479_133_544))

        let again = try await Self.importExport(owner, data)
        #expect(again.saved == 0, "\(again)")
        #expect(try await Self.routes(owner).count == 1)
        await owner.close()
        await server.stop()
    }

    @Test("a FileReference route takes its GPX from a side file; without the file it is a problem, not an abort")
    func sideFileRoute() async throws {
        let folder = Self.fixtures.appendingPathComponent("dogsheep-healthkit-to-sqlite/zip_contents/apple_health_export")
        let data = try Data(contentsOf: folder.appendingPathComponent("export.xml"))
        let path = "workout-routes/route_2019-06-11_3.00pm.gpx"
        let gpx = try Data(contentsOf: folder.appendingPathComponent(path))
        let points = String(decoding: gpx, as: UTF8.self).components(separatedBy: "<trkpt ").count - 1

        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let missing = try await Self.importExport(owner, data, sideFiles: [])
        #expect(missing.problems.map(\.field) == ["FileReference.path"] && missing.problems.first?.value == path, "\(missing)")
        #expect(missing.problems.first?.line == 18, "the WorkoutRoute element's line")
        #expect(try await Self.routes(owner).isEmpty)

        let report = try await Self.importExport(
            owner, data, sideFiles: [("workout-routes/unrelated.gpx", gpx), (path, gpx)], chunk: 300)
        #expect(report.problems.isEmpty, "\(report)")
        #expect(report.notImported["file not referenced by export.xml"] == 1)
        let routes = try await Self.routes(owner)
        #expect(routes.count == 1 && routes.first?.1.count == points && points == 3)
        #expect(routes.first?.1.first?.horizontalAccuracy == 8.063116)
        await owner.close()
        await server.stop()
    }

    @Test("an iOS 17 export: every record saved under its source's app id, once however often imported")
    func iOS17Export() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("alxdrcirilo-apple-health-parser/export.xml"))
        let report = try await Self.importExport(owner, data)
        #expect(report.saved == 8 && report.keptExisting == 0 && report.skipped == 0, "\(report)")
        #expect(report.elements["Record"] == 8 && report.elements["Me"] == 1)
        #expect(report.sources["Alexandre's Apple Watch"] == "applehealth.alexandres-apple-watch")
        #expect(report.bytesRead == UInt64(data.count))

        let heart = try await Self.samples(owner, "HKQuantityTypeIdentifierHeartRate")
        #expect(heart.map(\.quantity.value).sorted() == [74, 75])
        #expect(heart.allSatisfy { $0.sourceRevision.appID == "applehealth.alexandres-apple-watch" && $0.sourceRevision.version == "10.2" })
        #expect(heart.first?.device.name == "Apple Watch")
        let sleep = try await Self.samples(owner, "HKCategoryTypeIdentifierSleepAnalysis")
        #expect(sleep.map(\.category.value).sorted() == [0, 3])

        let again = try await Self.importExport(owner, data, chunk: 977)
        #expect(again.saved == 0 && again.keptExisting == 8, "\(again)")
        #expect(try await Self.samples(owner, "HKQuantityTypeIdentifierHeartRate").count == 2)

        // Characteristics only when asked; "not set" values are left out.
        let before: Salus_V1_CharacteristicsResponse = try await owner.unary(
            SalusMethods.Person.getCharacteristics, request: Salus_V1_CharacteristicsRequest())
        #expect(before.characteristics.allSatisfy { $0.value == nil })
        let withMe = try await Self.importExport(owner, data, characteristics: true)
        #expect(Set(withMe.characteristicsSet) == [
            "HKCharacteristicTypeIdentifierDateOfBirth", "HKCharacteristicTypeIdentifierBiologicalSex",
            "HKCharacteristicTypeIdentifierBloodType",
        ])
        let after: Salus_V1_CharacteristicsResponse = try await owner.unary(
            SalusMethods.Person.getCharacteristics, request: Salus_V1_CharacteristicsRequest())
        let values = Dictionary(uniqueKeysWithValues: after.characteristics.map { ($0.type, $0) })
        #expect(values["HKCharacteristicTypeIdentifierBloodType"]?.enumValue == 2, "aNegative")
        #expect(values["HKCharacteristicTypeIdentifierBiologicalSex"]?.enumValue == 2, "male")
        #expect(values["HKCharacteristicTypeIdentifierDateOfBirth"]?.dateValue.year == 1990)
        await owner.close()
        await server.stop()
    }

    @Test("activity summaries give the goal history: one entry for each day the goals changed")
    func activitySummaryGoals() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("dogsheep-healthkit-to-sqlite/export.xml"))
        let report = try await Self.importExport(owner, data)
        #expect(report.elements["ActivitySummary"] == 2)
        #expect(report.notImported["ActivitySummary"] == nil && report.notImported["Workout"] == nil)
        #expect(report.notImported.isEmpty, "\(report.notImported)")
        // The workout: running, its default activity, the totals of a pre-iOS 16 export.
        let workouts = try await Self.samples(owner, "HKWorkoutTypeIdentifier")
        let workout = try #require(workouts.first?.workout)
        #expect(workouts.count == 1 && workout.activityType == 37)
        #expect(workout.activities.count == 1 && workout.activities.first?.activityType == 37)
        #expect(workouts.first?.metadata["HKWeatherTemperature"]?.quantityValue.unit == "degF")
        #expect(report.goalsSet == 1, "both days have the same goals: \(report)")
        let settings: Salus_V1_ActivitySettings = try await owner.unary(
            SalusMethods.Person.getActivitySettings, request: Salus_V1_ActivitySettingsRequest())
        let goals = try #require(settings.goals.first)
        #expect(goals.from.year == 2016 && goals.from.month == 11 && goals.from.day == 15)
        #expect(goals.activeEnergyBurned == 630 && goals.appleExerciseTime == 30 && goals.appleStandHours == 12)
        await owner.close()
        await server.stop()
    }

    static let bloodPressure = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout)*)
        ]>
        <HealthData locale="en_GB">
         <ExportDate value="2024-06-01 08:10:05 +0100"/>
         <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="2024-05-01 08:00:00 +0100" endDate="2024-05-01 08:00:00 +0100" value="121"/>
         <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" startDate="2024-05-01 08:00:00 +0100" endDate="2024-05-01 08:00:00 +0100">
          <MetadataEntry key="HKWasUserEntered" value="0"/>
          <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="2024-05-01 08:00:00 +0100" endDate="2024-05-01 08:00:00 +0100" value="79"/>
          <Record type="HKQuantityTypeIdentifierBloodPressureSystolic" sourceName="Omron" unit="mmHg" startDate="2024-05-01 08:00:00 +0100" endDate="2024-05-01 08:00:00 +0100" value="121"/>
         </Correlation>
         <Record type="HKQuantityTypeIdentifierBloodPressureDiastolic" sourceName="Omron" unit="mmHg" startDate="2024-05-01 08:00:00 +0100" endDate="2024-05-01 08:00:00 +0100" value="79"/>
         <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Omron" unit="parsecs" startDate="2024-05-01 08:00:00 +0100" endDate="2024-05-01 08:00:00 +0100" value="1"/>
         <Record type="HKQuantityTypeIdentifierNoSuchThing" sourceName="Omron" unit="count" startDate="2024-05-01 08:00:00 +0100" endDate="2024-05-01 08:00:00 +0100" value="1"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeWalking" sourceName="Omron" startDate="2024-05-01 09:00:00 +0100" endDate="2024-05-01 10:00:00 +0100"/>
        </HealthData>
        """

    @Test("a correlation's members, also listed at top level, count once; bad records are skipped with their line; the rest is counted")
    func correlationsAndProblems() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await Self.importExport(owner, Data(Self.bloodPressure.utf8), chunk: 50)
        // The first systolic record, then the correlation and its new diastolic member, and the
        // workout; the repeats are kept, not saved twice.
        #expect(report.saved == 4, "\(report)")
        #expect(report.keptExisting == 2, "\(report)")
        #expect(report.skipped == 2)
        #expect(report.problems.map(\.field) == ["unit", "type"])
        #expect(report.problems.map(\.line) == [14, 15])
        #expect(report.notImported["Workout"] == nil)
        #expect(try await Self.samples(owner, "HKWorkoutTypeIdentifier").first?.workout.activityType == 52, "walking")
        #expect(try await Self.samples(owner, "HKQuantityTypeIdentifierBloodPressureSystolic").count == 1)
        #expect(try await Self.samples(owner, "HKQuantityTypeIdentifierBloodPressureDiastolic").count == 1)
        let correlations = try await Self.samples(owner, "HKCorrelationTypeIdentifierBloodPressure")
        #expect(correlations.count == 1)
        #expect(correlations.first?.correlation.objects.map(\.quantity.value).sorted() == [79, 121])
        await owner.close()
        await server.stop()
    }

    @Test("a dry run saves nothing; a damaged export is refused naming its line; apps cannot import")
    func dryRunAndRefusals() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let dry = try await Self.importExport(owner, Data(Self.bloodPressure.utf8), dryRun: true)
        #expect(dry.dryRun && dry.saved == 6)
        #expect(try await Self.samples(owner, "HKQuantityTypeIdentifierBloodPressureSystolic").isEmpty)

        let broken = Data("<HealthData>\n<Record type=\"x\">\n</HealthData>".utf8)
        let refused = await Authz.error { _ = try await Self.importExport(owner, broken) }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.detail?.value == "export.xml line 3", "\(String(describing: refused))")
        let html = await Authz.error { _ = try await Self.importExport(owner, Data("<html><body/></html>".utf8)) }
        #expect(html?.detail?.value == "a root element <html>")

        let app = try await server.app("org.example.app")
        let denied = await Authz.error { _ = try await Self.importExport(app, Data(Self.bloodPressure.utf8)) }
        #expect(denied?.code == .unimplemented || denied?.code == .notFound || denied?.code == .permissionDenied, "\(String(describing: denied))")
        await app.close()
        await owner.close()
        await server.stop()
    }
}
