import Foundation
import SalusAdmin
import SalusExport
import SalusKit
import SalusModel
import SalusTestSupport
import Testing

/// The same workout from two sources (a watch's FIT file, and the GPX Strava makes of it) through
/// the owner's client, against the daemon's services in process: one workout by default, the
/// second source's figures reported as an alternate of it; two workouts when they differ in
/// activity type or time, or when the person asks to keep both.
@Suite("AdminClient: the same workout from two sources imported once")
struct WorkoutDuplicateImportTests {
    static let run = "dtcooper-python-fitparse/garmin-fenix-5-run.fit"

    static func report(_ admin: AdminClient, _ files: [(String, Data)], keepDuplicates: Bool = false) async throws -> ImportReport {
        var last: ImportReport?
        let options = ImportOptions(keepDuplicates: keepDuplicates)
        for try await event in admin.importFiles(FileImportServiceTests.chunks(files), options: options) {
            if case .report(let report) = event { last = report }
        }
        return try #require(last)
    }

    /// The FIT run imported; its stored workout and the GPX a service exporting it would write
    /// from its route (every location with its time and elevation, a heart rate of 150 on each),
    /// as `sport`, `shift` seconds later.
    static func fitAndGPX(_ admin: AdminClient) async throws -> (fit: (String, Data), workout: ImportedWorkout, gpx: (String, Double) -> (String, Data)) {
        let fit = try FileImportServiceTests.file(run)
        let report = try await report(admin, [fit])
        let workout = try #require(report.files.first?.workouts.first)
        let routes = try await admin.routes(of: try #require(UUID(uuidString: workout.uuid)))
        let locations = try #require(routes.first?.locations)
        try #require(locations.count > 10)
        let utc = Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!)
        func gpx(_ sport: String, _ shift: Double) -> (String, Data) {
            var text = """
                <?xml version="1.0" encoding="UTF-8"?>
                <gpx creator="StravaGPX" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" \
                xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
                <trk><name>Morning Run</name><type>\(sport)</type><trkseg>

                """
            for location in locations {
                text += "<trkpt lat=\"\(location.latitude)\" lon=\"\(location.longitude)\">"
                if let altitude = location.altitude { text += "<ele>\(altitude)</ele>" }
                text += "<time>\(location.timestamp.addingTimeInterval(shift).formatted(utc))</time>"
                text += "<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>150</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>\n"
            }
            text += "</trkseg></trk></gpx>\n"
            return ("strava/\(sport)-\(Int(shift)).gpx", Data(text.utf8))
        }
        return (fit, workout, gpx)
    }

    @Test("a run from the watch's FIT file and the same run as Strava's GPX: one workout, the GPX reported as its alternate with its figures, its heart rates saved under its own source, no second route; importing either again adds nothing")
    func sameRunTwoSources() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (fit, stored, gpx) = try await Self.fitAndGPX(admin)
        let strava = gpx("running", 0)

        let report = try await Self.report(admin, [strava])
        let file = try #require(report.files.first)
        #expect(file.format == "gpx" && file.source.hasPrefix("gpx."), "\(file)")
        let alternate = try #require(file.workouts.first)
        let fitSource = try #require(try await admin.samples(SampleQueryDescriptor(type: .workout)).first?.sourceRevision.appID)
        #expect(fitSource.hasPrefix("fit."))
        #expect(alternate.alternateOf == "\(fitSource) \(stored.uuid)")
        #expect(alternate.uuid == stored.uuid && !alternate.keptExisting)
        #expect(alternate.activityType == 37 && alternate.distance > 0 && alternate.routeLocations == 0)
        // Its heart rates are saved under its own source; no workout or route of it.
        #expect(file.saved >= UInt64(10), "\(file)")
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.count == 1 && workouts[0].uuid.uuidString == stored.uuid)
        #expect(try await admin.routes(of: workouts[0].uuid).count == 1)
        let heartRates = try await admin.samples(SampleQueryDescriptor(type: SampleType("HKQuantityTypeIdentifierHeartRate")))
        #expect(heartRates.contains { $0.sourceRevision.appID == file.source })
        #expect(heartRates.contains { $0.sourceRevision.appID == fitSource })
        // The alternate is kept in the store beside the workout, with the GPX's source and its
        // own figures (from its heart rates), and said so by salusctl workouts and the report.
        let detail = try #require(try await admin.workout(workouts[0].uuid))
        let kept = try #require(detail.alternates.first, "no alternate kept")
        #expect(detail.alternates.count == 1 && kept.sample.uuid.uuidString == alternate.alternateUUID)
        #expect(kept.sample.sourceRevision.appID == file.source && kept.alternateOf == workouts[0].uuid)
        #expect(kept.workout.activityType == 37 && abs(kept.sample.startDate.timeIntervalSince(alternate.start)) < 0.001)
        let heartRate = kept.figures.first { $0.type.rawValue == "HKQuantityTypeIdentifierHeartRate" }
        #expect(heartRate.flatMap { try? $0.statistics.average?.converted(to: SalusUnit.count.divided(by: .minute)) }.map { abs($0.value - 150) < 1e-9 } == true,
                "\(kept.figures.map { "\($0.type) \($0.statistics) \($0.origin)" })")
        #expect(kept.choice(kept: workouts[0]).hasPrefix("the workout from \(fitSource) was stored first"))
        #expect(try await admin.workoutAlternates()[workouts[0].uuid]?.map(\.sample.uuid) == [kept.sample.uuid])
        let day = Calendar(identifier: .gregorian).startOfDay(for: workouts[0].startDate)
        let page = try await admin.reportData(from: day, to: day.addingTimeInterval(86_400), timeZone: TimeZone(identifier: "UTC")!, stepGoal: 10_000)
        #expect(page.workouts.first?.alternates.count == 1)
        #expect(page.workouts.first?.alternates.first?.hasPrefix("also recorded by \(file.source)") == true, "\(page.workouts)")

        // Again, either file: nothing is added, and the GPX is still the alternate.
        let again = try await Self.report(admin, [fit, strava])
        #expect(again.saved == 0 && again.keptExisting > 0, "\(again)")
        #expect(again.files[0].workouts.first?.keptExisting == true && again.files[0].workouts.first?.alternateOf == "")
        #expect(again.files[1].workouts.first?.alternateOf == alternate.alternateOf)
        #expect(again.files[1].workouts.first?.alternateUUID == alternate.alternateUUID)
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).count == 1)
        #expect(try await admin.workout(workouts[0].uuid)?.alternates.count == 1)

        // An Apple Health export holds the run once: the alternate is Salus's record of the other
        // source, not a second workout for a tool that reads the export.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("alternates-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let zip = folder.appendingPathComponent("export.zip")
        _ = try await admin.export(ExportRequest(format: .appleHealth, output: zip.path))
        let xml = String(decoding: try AdminClientExportTests.unzip(zip).xml, as: UTF8.self)
        #expect(xml.components(separatedBy: "<Workout ").count - 1 == 1, "workouts in export.xml")
    }

    static func exportReport(_ admin: AdminClient, _ xml: String) async throws -> ImportReport {
        var last: ImportReport?
        for try await event in admin.importAppleHealth(AdminClientImportTests.chunks(Data(xml.utf8), sideFiles: [])) {
            if case .report(let report) = event { last = report }
        }
        return try #require(last)
    }

    /// An Apple Health export holding the run `workout` spans as the Watch recorded it (whole
    /// seconds, a second later each end), with an inline route and a heart rate; with `strava`,
    /// the same run synced from Strava as well.
    static func export(of workout: ImportedWorkout, strava: Bool = false) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        let start = formatter.string(from: workout.start.addingTimeInterval(1))
        let end = formatter.string(from: workout.end.addingTimeInterval(1))
        let middle = formatter.string(from: workout.start.addingTimeInterval(workout.end.timeIntervalSince(workout.start) / 2))
        func element(_ source: String) -> String {
            """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="\(source)" startDate="\(start)" endDate="\(end)">
              <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="\(start)" endDate="\(end)" sum="5.1" unit="km"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="\(start)" endDate="\(end)" sum="312" unit="kcal"/>
              <WorkoutRoute sourceName="\(source)" startDate="\(start)" endDate="\(end)">
               <Location date="\(middle)" latitude="47.1" longitude="8.5" altitude="400"/>
              </WorkoutRoute>
             </Workout>

            """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_CH">
             <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Anna’s Apple Watch" unit="count/min" startDate="\(middle)" endDate="\(middle)" value="151"/>
            \(strava ? element("Strava") : "")\(element("Anna’s Apple Watch"))</HealthData>

            """
    }

    @Test("an Apple Health export imported after the watch's FIT file: the export's workout of the same run is an alternate of the FIT one, not a second workout and no second route; its heart rate saved under its source; imported again, nothing is added")
    func appleHealthAfterFile() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (_, stored, _) = try await Self.fitAndGPX(admin)
        let fitSource = try #require(try await admin.samples(SampleQueryDescriptor(type: .workout)).first?.sourceRevision.appID)

        let report = try await Self.exportReport(admin, Self.export(of: stored))
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.map(\.uuid.uuidString) == [stored.uuid], "\(workouts.map(\.sourceRevision.appID))")
        #expect(try await admin.routes(of: try #require(workouts.first).uuid).count == 1)
        let alternate = try #require(report.alternates.first, "\(report)")
        #expect(report.alternates.count == 1)
        #expect(alternate.alternateOf == "\(fitSource) \(stored.uuid)" && alternate.activityType == 37)
        #expect(alternate.source == report.sources["Anna’s Apple Watch"] && alternate.statistics["HKQuantityTypeIdentifierActiveEnergyBurned"] == "312 kcal")
        // Its distance, as a file's workout gives it: the export's 5.1 km in metres.
        #expect(abs(alternate.distance - 5100) < 1e-6, "\(alternate)")
        let heartRates = try await admin.samples(SampleQueryDescriptor(type: SampleType("HKQuantityTypeIdentifierHeartRate")))
        #expect(heartRates.contains { $0.sourceRevision.appID == alternate.source })
        let kept = try #require(try await admin.workout(workouts[0].uuid)?.alternates.first)
        #expect(kept.sample.uuid.uuidString == alternate.alternateUUID && kept.sample.sourceRevision.appID == alternate.source)
        #expect(kept.figures.contains { $0.type.rawValue == "HKQuantityTypeIdentifierActiveEnergyBurned" && $0.statistics.sum?.value == 312 }, "\(kept.figures)")

        let again = try await Self.exportReport(admin, Self.export(of: stored))
        #expect(again.saved == 0 && again.alternates.map(\.alternateOf) == [alternate.alternateOf], "\(again)")
        #expect(again.alternates.map(\.alternateUUID) == [alternate.alternateUUID])
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).count == 1)
        #expect(try await admin.workout(workouts[0].uuid)?.alternates.count == 1)
    }

    @Test("the export first, then the FIT file: the FIT workout is the alternate of the export's; an export holding the run from the Watch and from Strava gives one workout, the other source's an alternate")
    func appleHealthFirst() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        // Where the FIT run lies: imported into another store first.
        let other = try await ServerHarness.start()
        let (fit, stored, _) = try await Self.fitAndGPX(AdminClient(rpc: try await other.owner(clientName: "salusctl")))

        let exported = try await Self.exportReport(admin, Self.export(of: stored, strava: true))
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.count == 1, "\(workouts.map(\.sourceRevision.appID))")
        let kept = try #require(workouts.first)
        #expect(exported.alternates.map(\.alternateOf) == ["\(kept.sourceRevision.appID) \(kept.uuid.uuidString)"], "\(exported)")

        let report = try await Self.report(admin, [fit])
        #expect(report.files.first?.workouts.first?.alternateOf == "\(kept.sourceRevision.appID) \(kept.uuid.uuidString)")
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).map(\.uuid) == [kept.uuid])
    }

    @Test("the same track as a ride, or two hours later: a workout of its own each, neither an alternate")
    func otherActivityOrTime() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (_, _, gpx) = try await Self.fitAndGPX(admin)
        let report = try await Self.report(admin, [gpx("cycling", 0), gpx("running", 7200)])
        #expect(report.files.map { $0.workouts.first?.alternateOf } == ["", ""], "\(report.files)")
        #expect(report.files.map { $0.workouts.first?.activityType } == [13, 37])
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.count == 3)
        for workout in workouts { #expect(try await admin.routes(of: workout.uuid).count == 1) }
    }

    @Test("asked to keep duplicates, the same run from FIT and GPX is two workouts, each with its route; imported again, still two")
    func keepDuplicates() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (fit, _, gpx) = try await Self.fitAndGPX(admin)
        let strava = gpx("running", 0)
        let report = try await Self.report(admin, [strava], keepDuplicates: true)
        #expect(report.files.first?.workouts.first?.alternateOf == "" && report.files.first?.workouts.first?.keptExisting == false)
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).count == 2)
        let again = try await Self.report(admin, [fit, strava])
        #expect(again.saved == 0, "\(again)")
        #expect(again.files.map { $0.workouts.first?.alternateOf } == ["", ""] && again.files.allSatisfy { $0.workouts.first?.keptExisting == true })
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.count == 2)
        for workout in workouts { #expect(try await admin.routes(of: workout.uuid).count == 1) }
    }

    static let alternates = SampleType(WorkoutAlternate.type.rawValue)

    @Test("the kept workout deleted: its alternate goes with it in the same transaction, leaving a tombstone; the files imported again bring the workout and its alternate back once")
    func keptWorkoutDeleted() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let (fit, stored, gpx) = try await Self.fitAndGPX(admin)
        let strava = gpx("running", 0)
        _ = try await Self.report(admin, [strava])
        let alternate = try #require(try await admin.samples(SampleQueryDescriptor(type: Self.alternates)).first)
        let start = try await AnchoredObjectQueryDescriptor(predicates: [.samples(Self.alternates)]).result(for: admin.store)

        // The workout and its route are the samples deleted; the alternate follows them.
        let deleted = try await admin.store.delete(uuids: [try #require(UUID(uuidString: stored.uuid))])
        #expect(deleted == 2)
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).isEmpty)
        #expect(try await admin.samples(SampleQueryDescriptor(type: Self.alternates)).isEmpty)
        #expect(try await admin.workoutAlternates().isEmpty)
        // Its tombstone is what a replica and an anchored reader of alternates see.
        let changes = try await AnchoredObjectQueryDescriptor(predicates: [.samples(Self.alternates)], anchor: start.newAnchor).result(for: admin.store)
        #expect(changes.deletedObjects.map(\.uuid) == [alternate.uuid] && changes.addedSamples.isEmpty)
        // The GPX's heart rates are samples of their source, as the FIT's are: they stay.
        let heartRates = try await admin.samples(SampleQueryDescriptor(type: SampleType("HKQuantityTypeIdentifierHeartRate")))
        #expect(heartRates.contains { $0.sourceRevision.appID == alternate.sourceRevision.appID })

        // Imported again: the workout once, with its route, and the GPX its alternate once.
        let again = try await Self.report(admin, [fit, strava])
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        try #require(workouts.count == 1)
        #expect(again.files[0].workouts.first?.uuid == workouts[0].uuid.uuidString && again.files[0].workouts.first?.keptExisting == false)
        #expect(again.files[1].workouts.first?.alternateOf.hasSuffix(workouts[0].uuid.uuidString) == true, "\(again.files[1])")
        #expect(try await admin.routes(of: workouts[0].uuid).count == 1)
        #expect(try await admin.workout(workouts[0].uuid)?.alternates.count == 1)
        let third = try await Self.report(admin, [fit, strava])
        #expect(third.saved == 0, "\(third)")
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).count == 1)
        #expect(try await admin.samples(SampleQueryDescriptor(type: Self.alternates)).count == 1)
    }

    @Test("an app's workout kept with a file's as its alternate: the app deletes its workout and learns nothing of the alternate (its count is its own samples'), which goes with it; the file imported again is the workout, once")
    func appWorkoutDeleted() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let owner = try await Authz.owner(server)
        // The FIT run read for its times, then deleted: the app's recording of the run comes first.
        let (fit, stored, _) = try await Self.fitAndGPX(admin)
        let fitWorkout = try #require(try await admin.samples(SampleQueryDescriptor(type: .workout)).first)
        _ = try await admin.store.delete(uuids: [try #require(UUID(uuidString: stored.uuid))])
        try await Authz.register(owner, "org.example.runner")
        try await Authz.grant(owner, "org.example.runner", "HKWorkoutTypeIdentifier", read: .granted, share: .granted)
        let runner = try await server.healthStore("org.example.runner")
        let saved = try await runner.save(Sample(
            type: "HKWorkoutTypeIdentifier", startDate: fitWorkout.startDate, endDate: fitWorkout.endDate,
            value: .workout(Workout(activityType: WorkoutActivityType.running)), sourceRevision: Sample.unsavedSource))
        let file = try #require(try await Self.report(admin, [fit]).files.first?.workouts.first)
        #expect(file.alternateOf == "org.example.runner \(saved.uuid.uuidString)", "\(file)")
        #expect(try await admin.samples(SampleQueryDescriptor(type: Self.alternates)).count == 1)
        let start = try await AnchoredObjectQueryDescriptor(predicates: [.samples(.workout)]).result(for: runner)

        // The app deletes its workout: one sample deleted, as for any workout of its own.
        #expect(try await runner.delete(uuids: [saved.uuid]) == 1)
        let changes = try await AnchoredObjectQueryDescriptor(predicates: [.samples(.workout)], anchor: start.newAnchor).result(for: runner)
        #expect(changes.deletedObjects.map(\.uuid) == [saved.uuid] && changes.addedSamples.isEmpty)
        // Alternates stay read-only and unreadable for it.
        await #expect(throws: SalusError.self) {
            _ = try await runner.save(Sample(
                type: TypeIdentifier(WorkoutAlternate.type.rawValue), startDate: fitWorkout.startDate, endDate: fitWorkout.endDate,
                value: .workout(Workout(activityType: WorkoutActivityType.running)), sourceRevision: Sample.unsavedSource,
                metadata: [WorkoutAlternate.alternateOf: .string(saved.uuid.uuidString)]))
        }
        #expect(try await admin.samples(SampleQueryDescriptor(type: Self.alternates)).isEmpty)

        // The FIT file again: now the workout, with its route, once however often.
        let again = try #require(try await Self.report(admin, [fit]).files.first?.workouts.first)
        #expect(again.alternateOf == "" && !again.keptExisting && again.routeLocations > 0, "\(again)")
        let workouts = try await admin.samples(SampleQueryDescriptor(type: .workout))
        #expect(workouts.map(\.uuid.uuidString) == [again.uuid])
        #expect(try await Self.report(admin, [fit]).saved == 0)
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).count == 1)
    }

    @Test("the kept workout deleted by the sync agent (another device deleted it): its alternate goes with it here too")
    func keptWorkoutDeletedByReplica() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let owner = try await server.owner()
        try await Authz.register(owner, ReplicaServiceTests.agentID, type: "HKWorkoutTypeIdentifier", read: .granted, share: .granted)
        try await ReplicaServiceTests.setAgent(owner, ReplicaServiceTests.agentID, true)
        let sync = HealthStore(client: try await server.launchedApp(ReplicaServiceTests.agentID))
        let (_, stored, gpx) = try await Self.fitAndGPX(admin)
        _ = try await Self.report(admin, [gpx("running", 0)])
        #expect(try await admin.samples(SampleQueryDescriptor(type: Self.alternates)).count == 1)
        #expect(try await sync.deleteReplicas(uuids: [try #require(UUID(uuidString: stored.uuid))]) == 2)
        #expect(try await admin.samples(SampleQueryDescriptor(type: .workout)).isEmpty)
        #expect(try await admin.samples(SampleQueryDescriptor(type: Self.alternates)).isEmpty)
        await sync.close()
    }
}
