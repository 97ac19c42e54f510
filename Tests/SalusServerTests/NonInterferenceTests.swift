import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusServer
import SalusTestSupport
import SalusWire
import SwiftProtobuf
import Testing

/// Non-interference (docs/authorization.md, "Denied read looks like no data"): an app denied a
/// type gets the same bytes from every call of the app socket whether or not the type holds
/// data.
///
/// Two worlds are forked from one data folder after a common setup, so every sample saved before
/// the fork has the same UUID, creation date and anchor in both. Then, in world *with*, another
/// app (and the owner) save data of the denied types; in world *without* the same app saves as
/// many samples (in as many commits, with the same deletions) of a decoy type no reader is asked
/// about. The change sequence thus ends at the same anchor in both worlds, and anchors are
/// compared like everything else: an anchor that moved with the denied type's data, and only with
/// it, would be a leak. (The global anchor itself moves with any write of any app; that an app
/// learns "something was written somewhere" is documented and harmless.)
///
/// Two readers ask every case: one with neither read nor share permission for the denied types,
/// one with share but not read (it sees its own samples only, and has some). The cases are a
/// table of (method, request); ``routerIsCovered()`` fails when a method of the app router has no
/// case and no stated exemption, so a new query kind cannot be added without one.
@Suite("Non-interference: an app denied a type answers the same whether or not it holds data")
struct NonInterferenceTests {
    // MARK: - Cast

    static let writer = "org.example.writer"
    /// Neither read nor share permission for the denied types.
    static let denied = "org.example.denied"
    /// Share but not read permission for the denied types: its own samples only.
    static let own = "org.example.own"
    /// The control: read permission for the denied types (but the per-object ones). Its answers
    /// must differ between the worlds, for every query kind: the proof that the cases reach the
    /// data they say nothing about to the two others.
    static let granted = "org.example.granted"
    static let readers = [denied, own, granted]

    static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    static let activeEnergy = "HKQuantityTypeIdentifierActiveEnergyBurned"
    static let exerciseTime = "HKQuantityTypeIdentifierAppleExerciseTime"
    static let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    static let bloodPressure = "HKCorrelationTypeIdentifierBloodPressure"
    static let systolic = "HKQuantityTypeIdentifierBloodPressureSystolic"
    static let diastolic = "HKQuantityTypeIdentifierBloodPressureDiastolic"
    static let ecg = "HKDataTypeIdentifierElectrocardiogram"
    static let heartbeat = "HKDataTypeIdentifierHeartbeatSeries"
    static let route = "HKWorkoutRouteTypeIdentifier"
    static let vision = "HKVisionPrescriptionTypeIdentifier"
    static let cda = "HKDocumentTypeIdentifierCDA"
    static let allergy = "HKClinicalTypeIdentifierAllergyRecord"
    static let summary = "HKActivitySummaryTypeIdentifier"
    static let workout = "HKWorkoutTypeIdentifier"
    static let steps = "HKQuantityTypeIdentifierStepCount"
    /// Saved in world *without* in place of the denied types' data; never asked about.
    static let decoy = "HKQuantityTypeIdentifierBodyTemperature"

    /// Types authorized object by object: an app's read access is the objects granted to it.
    static let perObject: Set<String> = [vision, cda]
    /// Types only the owner saves (what a clinic sent) or nobody saves (summaries).
    static let notShared: Set<String> = [cda, allergy, summary]

    static let t0 = Date(timeIntervalSince1970: 1_795_250_000)
    static func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }
    static func microseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1e6).rounded()) }
    static let perMinute = SalusUnit.count.divided(by: .minute)
    static let strap = Device(name: "Strap", manufacturer: "Acme")

    // MARK: - Scenarios

    /// Which types are denied.
    struct Scenario: Sendable, CustomTestStringConvertible {
        /// Whether workouts are denied too (and the writer's workout is among the denied data);
        /// otherwise the readers read workouts, whose statistics come from denied types.
        var workoutsDenied: Bool

        var testDescription: String { workoutsDenied ? "workouts denied too" : "workouts readable" }

        /// The denied types, each asked about by every query kind that takes a type.
        var deniedTypes: [String] {
            [
                heartRate, activeEnergy, exerciseTime, sleep, bloodPressure, systolic, diastolic, ecg, heartbeat, route, vision,
                cda, allergy,
            ] + (workoutsDenied ? [workout] : [])
        }

        /// The types a sample, anchored or sources query asks about.
        var queriedTypes: [String] { deniedTypes + (workoutsDenied ? [] : [workout]) }
    }

    static let scenarios = [Scenario(workoutsDenied: false), Scenario(workoutsDenied: true)]

    // MARK: - Worlds

    /// One world's clients.
    struct World: Sendable {
        let server: ServerHarness
        let owner: RPCClient
        let writer: HealthStore
        let writerClient: RPCClient
        let readers: [String: RPCClient]
        let readerStores: [String: HealthStore]

        static func connect(_ server: ServerHarness) async throws -> World {
            var readers: [String: RPCClient] = [:]
            var stores: [String: HealthStore] = [:]
            for reader in NonInterferenceTests.readers {
                readers[reader] = try await server.app(reader)
                stores[reader] = try await server.healthStore(reader)
            }
            return World(
                server: server, owner: try await server.owner(), writer: try await server.healthStore(NonInterferenceTests.writer),
                writerClient: try await server.app(NonInterferenceTests.writer), readers: readers, readerStores: stores)
        }

        func close() async {
            for client in readers.values { await client.close() }
            await writerClient.close()
            await owner.close()
            await server.stop()
        }
    }

    /// What the cases refer to: UUIDs saved in world *with* (unknown in world *without*, and
    /// asked about there all the same) and before the fork (the same in both).
    struct Fixture: Sendable {
        var writerWorkout = UUID()
        var heartRates: [UUID] = []
        var deletedHeartRate = UUID()
        var sleep = UUID()
        var bloodPressure = UUID()
        var bloodPressureMembers: [UUID] = []
        var ecg = UUID()
        var heartbeat = UUID()
        var prescription = UUID()
        var route = UUID()
        var document = UUID()
        var allergy = UUID()
        var energy: [UUID] = []
        var attachment = UUID()
        /// Each reader's own samples saved before the fork, deleted after the writes to end the
        /// live streams (steps) and change the own reader's live heart rate statistics.
        var sentinels: [String: UUID] = [:]
        var ownHeartRate = UUID()
        var ownWorkout = UUID()

        var deniedUUIDs: Set<UUID> {
            Set(heartRates + [deletedHeartRate, sleep, bloodPressure, ecg, heartbeat, prescription, route, document, allergy] + energy
                + bloodPressureMembers)
        }
    }

    /// Registers the apps and sets their decisions.
    static func authorize(_ owner: RPCClient, _ scenario: Scenario) async throws {
        for app in [writer] + readers {
            try await Authz.register(owner, app)
        }
        let shared = scenario.deniedTypes.filter { !notShared.contains($0) } + [decoy, steps, workout, "HKCategoryTypeIdentifierAppleStandHour"]
        for type in Set(shared).sorted() {
            try await Authz.grant(owner, writer, type, read: nil, share: .granted)
        }
        for type in scenario.deniedTypes where type != workout {
            let read: Salus_V1_Decision? = perObject.contains(type) ? nil : .denied
            let share: Salus_V1_Decision? = notShared.contains(type) ? nil : .denied
            try await Authz.grant(owner, denied, type, read: read, share: share)
            try await Authz.grant(owner, own, type, read: read, share: notShared.contains(type) ? nil : .granted)
        }
        try await Authz.grant(owner, denied, summary, read: .denied, share: nil)
        try await Authz.grant(owner, own, summary, read: .denied, share: nil)
        for type in scenario.deniedTypes + [summary, workout] where !perObject.contains(type) {
            try await Authz.grant(owner, granted, type, read: .granted, share: nil)
        }
        for reader in readers {
            try await Authz.grant(owner, reader, steps, read: .granted, share: .granted)
            // Per-object requests are answered at once, with nothing granted.
            try await Authz.policy(owner, reader, .denyAll)
        }
        if scenario.workoutsDenied {
            try await Authz.grant(owner, denied, workout, read: .denied, share: .denied)
            try await Authz.grant(owner, own, workout, read: .denied, share: .granted)
        } else {
            try await Authz.grant(owner, denied, workout, read: .granted, share: .granted)
            try await Authz.grant(owner, own, workout, read: .granted, share: .granted)
        }
    }

    static func running(from start: Date, to end: Date, metadata: [String: MetadataValue] = [:]) -> Sample {
        Sample(
            type: TypeIdentifier(rawValue: workout), startDate: start, endDate: end,
            value: .workout(Workout(activityType: WorkoutActivityType.running)), sourceRevision: Sample.unsavedSource,
            device: strap, metadata: metadata)
    }

    static let tagged: [String: MetadataValue] = ["org.example.tag": .string("run"), "org.example.level": .number(3)]

    /// What is saved before the fork, the same in both worlds.
    static func commonData(_ world: World, _ scenario: Scenario, into fixture: inout Fixture) async throws {
        _ = try await world.writer.save(.quantity(.stepCount, Quantity(value: 500, unit: .count), start: at(-3600), end: at(-3000)))
        if !scenario.workoutsDenied {
            fixture.writerWorkout = try await world.writer.save(running(from: t0, to: at(1800), metadata: tagged)).uuid
        }
        for reader in readers {
            fixture.sentinels[reader] = try await world.readerStores[reader]!.save(
                .quantity(.stepCount, Quantity(value: 10, unit: .count), start: at(-7200), end: at(-7100))).uuid
        }
        // The reader with share permission has samples of its own, some in the writer's workout.
        let ownStore = world.readerStores[own]!
        _ = try await ownStore.save(.quantity(.heartRate, Quantity(value: 150, unit: perMinute), start: at(300), device: strap, metadata: tagged))
        fixture.ownHeartRate = try await ownStore.save(.quantity(.heartRate, Quantity(value: 140, unit: perMinute), start: at(4200))).uuid
        _ = try await ownStore.save(.sleepAnalysis(.asleepCore, start: at(-20_000), end: at(-10_000)))
        fixture.ownWorkout = try await ownStore.save(running(from: at(3600), to: at(5400))).uuid
        _ = try await ownStore.save(.quantity(.heartRate, Quantity(value: 120, unit: perMinute), start: at(4000)))
    }

    /// The denied types' data, in world *with* (`real`), or as many decoy samples in as many
    /// commits in world *without*. Returns the fixture's UUIDs of world *with*.
    static func deniedData(_ world: World, _ scenario: Scenario, real: Bool, fixture: inout Fixture) async throws {
        var decoys = 0
        func decoy(_ count: Int) async throws -> [UUID] {
            let samples = (0..<count).map { index in
                Sample.quantity(
                    .bodyTemperature, Quantity(value: 37, unit: .degreeCelsius), start: at(-200_000 + Double(decoys + index) * 60))
            }
            decoys += count
            return try await world.writer.save(samples).map(\.uuid)
        }
        let writer = world.writer
        // A workout of the writer's, when workouts are denied too.
        if scenario.workoutsDenied {
            if real {
                fixture.writerWorkout = try await writer.save(running(from: t0, to: at(1800), metadata: tagged)).uuid
            } else {
                _ = try await decoy(1)
            }
        }
        // 172 bpm during the writer's workout: what the finding bisected.
        if real {
            fixture.heartRates = try await writer.save((1...3).map {
                .quantity(.heartRate, Quantity(value: 172, unit: perMinute), start: at(Double($0) * 300), device: strap, metadata: tagged)
            }).map(\.uuid)
        } else {
            _ = try await decoy(3)
        }
        if real {
            fixture.energy = try await writer.save([
                .quantity(.activeEnergyBurned, Quantity(value: 250, unit: .kilocalorie), start: t0, end: at(1800), device: strap),
                .quantity("HKQuantityTypeIdentifierAppleExerciseTime", Quantity(value: 30, unit: .minute), start: t0, end: at(1800)),
            ]).map(\.uuid)
        } else {
            _ = try await decoy(2)
        }
        if real {
            fixture.sleep = try await writer.save(.sleepAnalysis(.asleepDeep, start: at(-30_000), end: at(-3_600), metadata: tagged)).uuid
        } else {
            _ = try await decoy(1)
        }
        if real {
            let saved = try await writer.save(.bloodPressure(systolic: 128, diastolic: 84, start: at(2000), device: strap))
            fixture.bloodPressure = saved.uuid
            fixture.bloodPressureMembers = saved.objects.map(\.uuid)
        } else {
            _ = try await decoy(3)
        }
        if real {
            let saved = try await writer.save([
                OtherKindsServiceTests.ecg,
                .heartbeatSeries(
                    HeartbeatSeries(beats: [Heartbeat(timeSinceSeriesStart: 0.4), Heartbeat(timeSinceSeriesStart: 1.2)]),
                    start: at(600), end: at(660)),
            ])
            fixture.ecg = saved[0].uuid
            fixture.heartbeat = saved[1].uuid
        } else {
            _ = try await decoy(2)
        }
        if real {
            let saved = try await Authz.save(world.writerClient, [AuthorizationRequestTests.prescription(start: microseconds(at(-86_400)))])
            fixture.prescription = try #require(WireUUID.uuid(saved.results[0].uuid))
        } else {
            _ = try await decoy(1)
        }
        if real {
            let builder = WorkoutRouteBuilder(healthStore: writer)
            builder.insertRouteData(RouteServiceTests.locations(20).map {
                var location = $0
                location.timestamp = at(60 + $0.timestamp.timeIntervalSince(RouteServiceTests.start))
                return location
            })
            fixture.route = try await builder.finishRoute(with: fixture.writerWorkout).uuid
        } else {
            _ = try await decoy(1)
        }
        // A sample saved and deleted: its tombstone is data too.
        if real {
            fixture.deletedHeartRate = try await writer.save(
                .quantity(.heartRate, Quantity(value: 99, unit: perMinute), start: at(1200), device: strap)).uuid
            _ = try await writer.delete(uuids: [fixture.deletedHeartRate])
        } else {
            let saved = try await decoy(1)
            _ = try await writer.delete(uuids: saved)
        }
        // What a clinic sent, saved by the owner.
        if real {
            let saved = try await Authz.save(
                world.owner,
                [
                    ClinicalDocumentServiceTests.document(
                        try ClinicalDocumentServiceTests.file("valid-hl7-examples", "CCD_1.xml"), start: microseconds(at(-50_000))),
                    ClinicalRecordServiceTests.record(allergy, ClinicalRecordServiceTests.penicillin, received: microseconds(at(-60_000))),
                ])
            fixture.document = try #require(WireUUID.uuid(saved.results[0].uuid))
            fixture.allergy = try #require(WireUUID.uuid(saved.results[1].uuid))
        } else {
            _ = try await decoy(2)
        }
        // An attachment takes no place in the change sequence.
        if real {
            let attachment = try await AttachmentsServiceTests.add(
                world.writerClient, to: WireUUID.bytes(fixture.prescription), name: "scan.png", content: AttachmentsServiceTests.png)
            fixture.attachment = try #require(WireUUID.uuid(attachment.uuid))
        }
    }

    /// The setup, forked: world *with* and world *without*, and the fixture of world *with*.
    static func worlds(_ scenario: Scenario) async throws -> (with: World, without: World, fixture: Fixture) {
        let base = try await ServerHarness.start(additionalTypes: OtherKindsServiceTests.types)
        var fixture = Fixture()
        let setup = try await World.connect(base)
        try await authorize(setup.owner, scenario)
        try await commonData(setup, scenario, into: &fixture)
        await setup.close()
        // The fork: a second server over a copy of the closed data folder.
        let other = try await ServerHarness.start(additionalTypes: OtherKindsServiceTests.types)
        await other.stop()
        try FileManager.default.removeItem(at: other.dataDirectory)
        try FileManager.default.copyItem(at: base.dataDirectory, to: other.dataDirectory)
        let with = try await World.connect(try await base.restart())
        let without = try await World.connect(try await other.restart())
        return (with, without, fixture)
    }

    // MARK: - Answers

    /// A response as the bytes compared: the message serialized (maps in key order).
    static func bytes(_ message: some SwiftProtobuf.Message) -> Data {
        var options = BinaryEncodingOptions()
        options.useDeterministicOrdering = true
        return (try? message.serializedData(options: options)) ?? Data("unserializable".utf8)
    }

    /// A call's error as the bytes compared: its whole status (code, message, details).
    static func bytes(error: any Error) -> Data {
        if let error = error as? RPCError { return Data("error:".utf8) + bytes(error.status) }
        if let error = error as? SalusError { return Data("error:\(error.code) \(error.message)".utf8) }
        return Data("error:\(error)".utf8)
    }

    /// One call of the table: its method, a name, and how to make it (given the fixture).
    struct Case: Sendable {
        var method: MethodDescriptor
        var name: String
        var call: @Sendable (RPCClient, Fixture) async -> [Data]
    }

    static func unary<Request, Response>(
        _ method: UnaryMethod<Request, Response>, _ name: String, _ request: @escaping @Sendable (Fixture) -> Request
    ) -> Case {
        Case(method: method.descriptor, name: "\(method) \(name)") { client, fixture in
            do {
                let response: Response = try await client.unary(method, request: request(fixture))
                return [bytes(response)]
            } catch {
                return [bytes(error: error)]
            }
        }
    }

    static func streaming<Request, Response>(
        _ method: ServerStreamingMethod<Request, Response>, _ name: String, _ request: @escaping @Sendable (Fixture) -> Request
    ) -> Case {
        Case(method: method.descriptor, name: "\(method) \(name)") { client, fixture in
            var answers: [Data] = []
            do {
                for try await response in try client.serverStreaming(method, request: request(fixture)) {
                    answers.append(bytes(response))
                }
            } catch {
                answers.append(bytes(error: error))
            }
            return answers
        }
    }

    static func clientStreaming<Request, Response>(
        _ method: ClientStreamingMethod<Request, Response>, _ name: String, _ messages: @escaping @Sendable (Fixture) -> [Request]
    ) -> Case {
        Case(method: method.descriptor, name: "\(method) \(name)") { client, fixture in
            do {
                let response: Response = try await client.clientStreaming(method) { (writer: RPCClientWriter<Request>) in
                    for message in messages(fixture) { try await writer.write(message) }
                }
                return [bytes(response)]
            } catch {
                return [bytes(error: error)]
            }
        }
    }

    // MARK: - Predicates

    /// Every kind of predicate, each made from the fixture (UUIDs of world *with*).
    static let predicates: [(name: String, make: @Sendable (Fixture) -> SamplePredicate?)] = {
        let hr = TypeIdentifier(rawValue: heartRate)
        let statistic = SamplePredicate.workout(.statistic(quantityType: hr, .average, .greaterThan, Quantity(value: 171, unit: perMinute)))
        let window = SamplePredicate.dateWindow(DateWindow(start: at(-3600), end: at(7200)))
        return [
            ("none", { _ in nil }),
            ("date window", { _ in window }),
            ("strict date window", { _ in .dateWindow(DateWindow(start: t0, end: at(960), strictStartDate: true, strictEndDate: true)) }),
            ("sources", { _ in .sources([writer]) }),
            ("source revisions", { _ in .sourceRevisions([SourceRevisionMatch(appID: writer)]) }),
            ("devices", { _ in .devices([strap]) }),
            ("device property", { _ in .deviceProperty(.manufacturer, allowedValues: ["Acme"]) }),
            ("UUIDs", { .uuids($0.deniedUUIDs.union([$0.writerWorkout])) }),
            ("one UUID", { .uuids([$0.heartRates.first ?? UUID()]) }),
            ("workout UUID", { .uuids([$0.writerWorkout]) }),
            ("metadata exists", { _ in .metadata(key: "org.example.tag", test: .exists) }),
            ("metadata absent", { _ in .metadata(key: "org.example.tag", test: .absent) }),
            ("metadata value", { _ in .metadata(key: "org.example.tag", test: .allowedValues([.string("run")])) }),
            ("metadata comparison", { _ in .metadata(key: "org.example.level", test: .comparison(.greaterThan, .number(2))) }),
            ("quantity", { _ in .quantity(.greaterThan, Quantity(value: 171, unit: perMinute)) }),
            ("category values", { _ in .categoryValues([4]) }),
            ("category value group", { _ in .categoryValues([], valueGroups: ["allAsleep"]) }),
            ("workout activity type", { _ in .workout(.activityType(WorkoutActivityType.running)) }),
            ("workout duration", { _ in .workout(.duration(.greaterThan, seconds: 600)) }),
            ("workout statistic", { _ in statistic }),
            (
                "workout energy statistic",
                { _ in
                    .workout(.statistic(
                        quantityType: TypeIdentifier(rawValue: activeEnergy), .sum, .greaterThan, Quantity(value: 1, unit: .kilocalorie)))
                }
            ),
            (
                "workout activity statistic",
                { _ in
                    .workout(.activity(WorkoutActivityTest(
                        activityType: WorkoutActivityType.running,
                        statistic: WorkoutStatisticTest(hr, .maximum, .greaterThan, Quantity(value: 171, unit: perMinute)))))
                }
            ),
            ("workout activity duration", { _ in .workout(.activity(WorkoutActivityTest(duration: (.greaterThan, 600)))) }),
            ("prescription type", { _ in .prescription(.prescriptionType(.glasses)) }),
            ("prescription valid at", { _ in .prescription(.validAt(t0)) }),
            ("and", { _ in .and([window, .sources([writer]), statistic]) }),
            ("or", { .or([.uuids([$0.writerWorkout]), .quantity(.greaterThan, Quantity(value: 171, unit: perMinute)), statistic]) }),
            ("not", { _ in .not(statistic) }),
            ("not not", { _ in .not(.not(statistic)) }),
            ("not of and", { _ in .not(.and([.workout(.duration(.greaterThan, seconds: 0)), statistic])) }),
        ]
    }()

    // MARK: - The table

    /// The methods of the app router that take no case, and why.
    static let exempt: [String: String] = [
        "salus.v1.Diagnostics/Echo": "transport checks: no stored data",
        "salus.v1.Diagnostics/Generate": "transport checks: no stored data",
        "salus.v1.Diagnostics/Collect": "transport checks: no stored data",
        "salus.v1.Diagnostics/EchoStream": "transport checks: no stored data",
        "salus.v1.Diagnostics/Sleep": "transport checks: no stored data",
        "salus.v1.Catalogue/Get": "units and registered types, built from the plugins at start: no stored data",
        "salus.v1.Catalogue/DescribeUnits": "the unit strings asked for, parsed by the unit grammar: no stored data",
    ].merging(
        ([
            SalusMethods.WorkoutBuilder.begin, SalusMethods.WorkoutBuilder.get, SalusMethods.WorkoutBuilder.list,
            SalusMethods.WorkoutBuilder.addSamples, SalusMethods.WorkoutBuilder.addEvents, SalusMethods.WorkoutBuilder.addMetadata,
            SalusMethods.WorkoutBuilder.beginActivity, SalusMethods.WorkoutBuilder.endActivity,
            SalusMethods.WorkoutBuilder.endCollection, SalusMethods.WorkoutBuilder.finish, SalusMethods.WorkoutBuilder.discard,
            SalusMethods.WorkoutBuilder.elapsedTime, SalusMethods.WorkoutSession.create, SalusMethods.WorkoutSession.change,
            SalusMethods.WorkoutSession.get, SalusMethods.WorkoutSession.observe,
        ] as [any RPCMethod]).map {
            (
                "\($0.service)/\($0.method)",
                "reads and writes only the caller's own builders and sessions and the samples it added to them"
            )
        }, uniquingKeysWith: { first, _ in first })

    /// The methods the live cases call (``live(_:_:_:)``).
    static let liveMethods: [any RPCMethod] = [
        SalusMethods.Store.queryAnchored, SalusMethods.Store.observe, SalusMethods.Statistics.queryCollection,
        SalusMethods.Person.queryActivitySummaries,
    ]

    /// Every case, in order (writes last: they change what later cases see, the same in both worlds).
    static func cases(_ scenario: Scenario) -> [Case] {
        var cases: [Case] = []
        let types = scenario.queriedTypes
        let quantityTypes = [heartRate, activeEnergy, systolic]
        for type in types {
            for predicate in predicates {
                cases.append(streaming(SalusMethods.Store.querySamples, "\(type) \(predicate.name)") {
                    var request = Salus_V1_SampleQueryRequest()
                    request.type = type
                    if let made = predicate.make($0) { request.predicate = made.wire }
                    return request
                })
                cases.append(unary(SalusMethods.Store.querySources, "\(type) \(predicate.name)") {
                    var request = Salus_V1_SourceQueryRequest()
                    request.type = type
                    if let made = predicate.make($0) { request.predicate = made.wire }
                    return request
                })
                cases.append(streaming(SalusMethods.Store.queryAnchored, "\(type) \(predicate.name)") {
                    var request = Salus_V1_AnchoredQueryRequest()
                    var descriptor = Salus_V1_TypedPredicate()
                    descriptor.type = type
                    if let made = predicate.make($0) { descriptor.predicate = made.wire }
                    request.descriptors = [descriptor]
                    return request
                })
            }
            // Limits, sorts, anchors, documents' data.
            cases.append(streaming(SalusMethods.Store.querySamples, "\(type) limit 1 descending") { _ in
                var request = Salus_V1_SampleQueryRequest()
                request.type = type
                request.limit = 1
                request.sort = [Salus_V1_SortDescriptor.with { $0.key = .endDate; $0.descending = true }]
                request.includeData = true
                return request
            })
            cases.append(streaming(SalusMethods.Store.queryAnchored, "\(type) limit 2") { _ in
                var request = Salus_V1_AnchoredQueryRequest()
                request.descriptors = [Authz.descriptor(type)]
                request.limit = 2
                request.countInitialAdded = true
                return request
            })
            cases.append(streaming(SalusMethods.Store.queryAnchored, "\(type) from anchor 3") { _ in
                var request = Salus_V1_AnchoredQueryRequest()
                request.descriptors = [Authz.descriptor(type), Authz.descriptor(steps)]
                request.anchor = 3
                request.countInitialAdded = true
                return request
            })
        }
        // Correlations by their members.
        for predicate in predicates {
            cases.append(streaming(SalusMethods.Store.querySamples, "\(bloodPressure) members \(predicate.name)") {
                var request = Salus_V1_SampleQueryRequest()
                request.type = bloodPressure
                var member = Salus_V1_TypedPredicate()
                member.type = systolic
                if let made = predicate.make($0) { member.predicate = made.wire }
                request.samplePredicates = [member]
                return request
            })
        }
        // Statistics and collections.
        for type in quantityTypes {
            let options: [Salus_V1_StatisticsOption] =
                type == activeEnergy
                ? [.cumulativeSum, .mostRecent, .duration, .separateBySource]
                : [.discreteAverage, .discreteMin, .discreteMax, .mostRecent, .separateBySource]
            for predicate in predicates {
                cases.append(unary(SalusMethods.Statistics.query, "\(type) \(predicate.name)") {
                    var request = Salus_V1_StatisticsRequest()
                    request.type = type
                    request.options = options
                    if let made = predicate.make($0) { request.predicate = made.wire }
                    return request
                })
                cases.append(streaming(SalusMethods.Statistics.queryCollection, "\(type) \(predicate.name)") {
                    collection(type, options: options, predicate: predicate.make($0))
                })
            }
            cases.append(unary(SalusMethods.Statistics.query, "\(type) window") { _ in
                var request = Salus_V1_StatisticsRequest()
                request.type = type
                request.options = options
                request.windowStart = microseconds(at(-3600))
                request.windowEnd = microseconds(at(3600))
                return request
            })
        }
        cases.append(streaming(SalusMethods.Person.queryActivitySummaries, "the day") { _ in
            activitySummaries(live: false)
        })
        // Series, routes and attachments by UUID: of world *with*, unknown in world *without*.
        let uuids: [(String, @Sendable (Fixture) -> UUID)] = [
            ("ECG", \.ecg), ("route", \.route), ("prescription", \.prescription), ("heart rate", { $0.heartRates.first ?? UUID() }),
            ("deleted", \.deletedHeartRate), ("workout", \.writerWorkout), ("attachment", \.attachment),
            ("document", \.document), ("unknown", { _ in UUID(uuidString: "00000000-0000-7000-8000-000000000001")! }),
        ]
        for (name, uuid) in uuids {
            cases.append(streaming(SalusMethods.Store.queryElectrocardiogramVoltages, name) { fixture in
                Salus_V1_ElectrocardiogramVoltageQueryRequest.with { $0.uuid = WireUUID.bytes(uuid(fixture)) }
            })
            cases.append(streaming(SalusMethods.Routes.readRoute, name) { fixture in
                Salus_V1_ReadRouteRequest.with { $0.uuid = WireUUID.bytes(uuid(fixture)) }
            })
            cases.append(unary(SalusMethods.Attachments.list, name) { fixture in
                Salus_V1_ListAttachmentsRequest.with { $0.objectUuid = WireUUID.bytes(uuid(fixture)) }
            })
            cases.append(streaming(SalusMethods.Attachments.read, name) { fixture in
                Salus_V1_ReadAttachmentRequest.with { $0.uuid = WireUUID.bytes(uuid(fixture)) }
            })
            cases.append(clientStreaming(SalusMethods.Attachments.add, name) { fixture in
                [
                    Salus_V1_AddAttachmentMessage.with {
                        $0.header.objectUuid = WireUUID.bytes(uuid(fixture))
                        $0.header.name = "scan.png"
                    },
                    Salus_V1_AddAttachmentMessage.with { $0.chunk = Data(AttachmentsServiceTests.png) },
                ]
            })
            cases.append(unary(SalusMethods.Attachments.remove, name) { fixture in
                Salus_V1_RemoveAttachmentRequest.with { $0.uuid = WireUUID.bytes(uuid(fixture)) }
            })
            // A route for a workout (the writer's: readable or not, present or not), whose
            // locations lie outside it: refused whichever way, and never saved.
            let routeSample: @Sendable (Fixture) -> Salus_V1_Sample = { fixture in
                var sample = Salus_V1_Sample()
                sample.type = route
                sample.startDate = microseconds(at(-90_000))
                sample.endDate = microseconds(at(-89_990))
                sample.workoutRoute.workoutUuid = WireUUID.bytes(uuid(fixture))
                sample.workoutRoute.locations = RouteServiceTests.locations(3).map {
                    var location = $0
                    location.timestamp = at(-90_000 + $0.timestamp.timeIntervalSince(RouteServiceTests.start))
                    return location.wire
                }
                sample.workoutRoute.locationCount = 3
                return sample
            }
            cases.append(unary(SalusMethods.Store.save, "route to \(name)") { fixture in
                Salus_V1_SaveRequest.with { $0.samples = [routeSample(fixture)] }
            })
            cases.append(clientStreaming(SalusMethods.Routes.saveRoute, "to \(name)") { fixture in
                var sample = routeSample(fixture)
                let locations = sample.workoutRoute.locations
                sample.workoutRoute.locations = []
                sample.workoutRoute.locationCount = 0
                return [
                    Salus_V1_SaveRouteMessage.with { $0.header.sample = sample },
                    Salus_V1_SaveRouteMessage.with { $0.locations.locations = locations },
                ]
            })
            cases.append(unary(SalusMethods.Replica.delete, name) { fixture in
                Salus_V1_UUIDList.with { $0.uuids = [WireUUID.bytes(uuid(fixture))] }
            })
        }
        // Authorization: what the app may ask about its permissions.
        for type in scenario.deniedTypes + [summary, steps] + (scenario.workoutsDenied ? [] : [workout]) {
            cases.append(unary(SalusMethods.Authorization.authorizationStatus, type) { _ in
                Salus_V1_AuthorizationStatusRequest.with { $0.type = type }
            })
            cases.append(unary(SalusMethods.Authorization.requestStatus, type) { _ in
                Salus_V1_AuthorizationRequest.with {
                    $0.read = perObject.contains(type) ? [] : [type]
                    $0.share = notShared.contains(type) ? [] : [type]
                }
            })
            cases.append(unary(SalusMethods.Authorization.requestAuthorization, type) { _ in
                Salus_V1_AuthorizationRequest.with {
                    $0.read = perObject.contains(type) ? [] : [type]
                    $0.share = notShared.contains(type) ? [] : [type]
                }
            })
        }
        for type in [vision, cda] {
            for predicate in predicates {
                cases.append(
                    unary(SalusMethods.Authorization.requestPerObjectReadAuthorization, "\(type) \(predicate.name)") {
                        var request = Salus_V1_PerObjectReadRequest()
                        request.type = type
                        if let made = predicate.make($0) { request.predicate = made.wire }
                        return request
                    })
            }
        }
        // The person's settings and the owner's preferences.
        cases.append(unary(SalusMethods.Person.getCharacteristics, "all") { _ in
            Salus_V1_CharacteristicsRequest()
        })
        cases.append(unary(SalusMethods.Person.setCharacteristics, "clear") { _ in
            Salus_V1_SetCharacteristicsRequest.with { $0.clear = ["HKCharacteristicTypeIdentifierBiologicalSex"] }
        })
        cases.append(unary(SalusMethods.Person.getActivitySettings, "") { _ in
            Salus_V1_ActivitySettingsRequest()
        })
        cases.append(unary(SalusMethods.Person.setActivitySettings, "") { _ in
            Salus_V1_SetActivitySettingsRequest()
        })
        cases.append(unary(SalusMethods.Statistics.getPreferredUnits, "") { _ in
            Salus_V1_PreferredUnitsRequest.with { $0.types = quantityTypes }
        })
        cases.append(unary(SalusMethods.Replica.save, "heart rate") { fixture in
            var sample = Authz.sample(heartRate, value: 172, start: microseconds(at(300)))
            sample.uuid = WireUUID.bytes(fixture.heartRates.first ?? UUID())
            return Salus_V1_ReplicaSaveRequest.with { $0.samples = [sample] }
        })
        // Deletions last: they change what the own reader has, the same way in both worlds.
        for (name, uuid) in uuids {
            cases.append(unary(SalusMethods.Store.delete, name) { fixture in
                Salus_V1_DeleteRequest.with { $0.uuids.uuids = [WireUUID.bytes(uuid(fixture))] }
            })
        }
        for type in types {
            for predicate in predicates where ["workout statistic", "not", "UUIDs", "quantity", "sources"].contains(predicate.name) {
                cases.append(unary(SalusMethods.Store.delete, "\(type) \(predicate.name)") {
                    var matching = Salus_V1_TypedPredicate()
                    matching.type = type
                    if let made = predicate.make($0) { matching.predicate = made.wire }
                    return Salus_V1_DeleteRequest.with { $0.matching = matching }
                })
            }
        }
        return cases
    }

    static func collection(_ type: String, options: [Salus_V1_StatisticsOption], predicate: SamplePredicate?, live: Bool = false)
        -> Salus_V1_StatisticsCollectionRequest
    {
        var request = Salus_V1_StatisticsCollectionRequest()
        request.type = type
        request.options = options
        request.anchorDate = microseconds(t0)
        request.intervalCount = 1
        request.intervalUnit = .hour
        request.timeZone = "UTC"
        request.from = microseconds(at(-86_400))
        request.to = microseconds(at(86_400))
        request.live = live
        if let predicate { request.predicate = predicate.wire }
        return request
    }

    static func activitySummaries(live: Bool) -> Salus_V1_ActivitySummaryRequest {
        var request = Salus_V1_ActivitySummaryRequest()
        request.firstDay = Salus_V1_CalendarDate.with { $0.year = 2026; $0.month = 11; $0.day = 20 }
        request.lastDay = Salus_V1_CalendarDate.with { $0.year = 2026; $0.month = 11; $0.day = 23 }
        request.timeZone = "UTC"
        request.live = live
        return request
    }

    // MARK: - Live calls

    /// A live call's messages as they arrive.
    final class LiveCall<Response: SwiftProtobuf.Message>: Sendable {
        let name: String
        let stream: RPCResponseStream<Response>
        let received: Recorded<Response>
        let failure: Recorded<String>
        let task: Task<Void, Never>
        /// When the call has delivered what its sentinel makes it deliver; nil: it must stay quiet.
        let done: (@Sendable ([Response]) -> Bool)?

        init(_ name: String, _ stream: RPCResponseStream<Response>, done: (@Sendable ([Response]) -> Bool)?) {
            self.name = name
            self.stream = stream
            self.done = done
            let received = Recorded<Response>()
            let failure = Recorded<String>()
            self.received = received
            self.failure = failure
            task = Task {
                do {
                    for try await message in stream { received.append(message) }
                } catch {
                    failure.append("\(error)")
                }
            }
        }

        /// Waits until the call has delivered its initial results (a live anchored query's batch
        /// that completes them, a collection's or summaries' first batch), so that nothing written
        /// afterwards can be folded into them.
        func ready() async throws {
            let initial: ([Response]) -> Bool
            switch Response.self {
            case is Salus_V1_AnchoredBatch.Type:
                initial = { ($0 as! [Salus_V1_AnchoredBatch]).contains { $0.initialResultsComplete } }
            case is Salus_V1_ObserverNotification.Type:
                return
            default:
                initial = { !$0.isEmpty }
            }
            try await waitUntil(timeout: .seconds(30), "\(name) delivers its initial results") {
                initial(received.items) || !failure.items.isEmpty
            }
        }

        /// The messages, once the sentinel's have arrived; then the call is cancelled. Updates are
        /// merged into one message: how commits made close together are grouped into batches
        /// depends on the moment each is read (under load, two deletions may arrive as one batch or
        /// two), not on data; what they hold, in order, and the last anchor are compared.
        func finish() async throws -> [Data] {
            if let done {
                try await waitUntil(timeout: .seconds(30), "\(name) delivers its sentinel") { done(received.items) || !failure.items.isEmpty }
            }
            stream.cancel()
            await task.value
            return Self.mergingUpdates(received.items).map { NonInterferenceTests.bytes($0) }
                + failure.items.filter { !$0.contains("cancel") }.map { Data($0.utf8) }
        }

        static func mergingUpdates(_ messages: [Response]) -> [any SwiftProtobuf.Message] {
            if let batches = messages as? [Salus_V1_AnchoredBatch],
                let last = batches.lastIndex(where: { $0.initialResultsComplete }), last + 1 < batches.count
            {
                var merged = Salus_V1_AnchoredBatch()
                for batch in batches[(last + 1)...] {
                    merged.added += batch.added
                    merged.deleted += batch.deleted
                    merged.anchor = batch.anchor
                }
                return Array(batches[...last]) + [merged]
            }
            if let notifications = messages as? [Salus_V1_ObserverNotification], notifications.count > 1 {
                var merged = Salus_V1_ObserverNotification()
                for notification in notifications {
                    for type in notification.changedTypes where !merged.changedTypes.contains(type) {
                        merged.changedTypes.append(type)
                    }
                    merged.anchor = notification.anchor
                }
                return [merged]
            }
            return messages
        }
    }

    /// Live calls started before the denied data is written, by `reader`, each named, with how
    /// it ends.
    static func live(
        _ client: RPCClient, _ reader: String, _ fixture: Fixture, _ scenario: Scenario
    ) throws -> [(String, @Sendable () async throws -> [Data], @Sendable () async throws -> Void)] {
        let sentinel = WireUUID.bytes(fixture.sentinels[reader]!)
        let ownHeartRate = WireUUID.bytes(fixture.ownHeartRate)
        let isOwn = reader == own
        var calls: [(String, @Sendable () async throws -> [Data], @Sendable () async throws -> Void)] = []
        func anchored(_ name: String, _ descriptors: [Salus_V1_TypedPredicate], until uuid: Data?) throws {
            var request = Salus_V1_AnchoredQueryRequest()
            request.descriptors = descriptors
            request.live = true
            var done: (@Sendable ([Salus_V1_AnchoredBatch]) -> Bool)?
            if let uuid {
                done = { batches in batches.contains { batch in batch.deleted.contains { $0.uuid == uuid } } }
            }
            let call = LiveCall(
                "live anchored \(name)",
                try client.serverStreaming(SalusMethods.Store.queryAnchored, request: request),
                done: done)
            calls.append((call.name, call.finish, call.ready))
        }
        func typed(_ type: String, _ predicate: SamplePredicate? = nil) -> Salus_V1_TypedPredicate {
            var descriptor = Authz.descriptor(type)
            if let predicate { descriptor.predicate = predicate.wire }
            return descriptor
        }
        let statistic = SamplePredicate.workout(
            .statistic(quantityType: TypeIdentifier(rawValue: heartRate), .average, .greaterThan, Quantity(value: 171, unit: perMinute)))
        // The lean path (quantities and categories) and the model path (workouts, correlations).
        try anchored("quantities", [typed(heartRate), typed(sleep), typed(activeEnergy), typed(steps)], until: sentinel)
        try anchored(
            "objects", scenario.deniedTypes.filter { ![heartRate, sleep, activeEnergy].contains($0) }.map { typed($0) } + [typed(steps)],
            until: sentinel)
        try anchored("workout statistic", [typed(workout, statistic), typed(steps)], until: sentinel)
        try anchored("not workout statistic", [typed(workout, .not(statistic)), typed(steps)], until: sentinel)
        try anchored(
            "heart rate above 100", [typed(heartRate, .quantity(.greaterThan, Quantity(value: 100, unit: perMinute)))],
            until: isOwn ? ownHeartRate : nil)

        var observe = Salus_V1_ObserverRequest()
        observe.descriptors = (scenario.deniedTypes + [steps]).map { typed($0) }
        let observer = LiveCall(
            "observer", try client.serverStreaming(SalusMethods.Store.observe, request: observe),
            done: { (notifications: [Salus_V1_ObserverNotification]) in notifications.contains { $0.changedTypes.contains(steps) } })
        calls.append((observer.name, observer.finish, observer.ready))

        // The own reader's heart rate deleted changes its statistics: a second batch.
        var collectionDone: (@Sendable ([Salus_V1_StatisticsCollectionBatch]) -> Bool)?
        if isOwn { collectionDone = { batches in batches.count >= 2 } }
        let collection = LiveCall<Salus_V1_StatisticsCollectionBatch>(
            "live heart rate collection",
            try client.serverStreaming(
                SalusMethods.Statistics.queryCollection,
                request: Self.collection(heartRate, options: [.discreteAverage, .discreteMax], predicate: nil, live: true)),
            done: collectionDone)
        calls.append((collection.name, collection.finish, collection.ready))
        let energy = LiveCall<Salus_V1_StatisticsCollectionBatch>(
            "live energy collection",
            try client.serverStreaming(
                SalusMethods.Statistics.queryCollection,
                request: Self.collection(activeEnergy, options: [.cumulativeSum], predicate: nil, live: true)),
            done: nil)
        calls.append((energy.name, energy.finish, energy.ready))
        let summaries = LiveCall<Salus_V1_ActivitySummaryBatch>(
            "live activity summaries",
            try client.serverStreaming(
                SalusMethods.Person.queryActivitySummaries, request: Self.activitySummaries(live: true)),
            done: nil)
        calls.append((summaries.name, summaries.finish, summaries.ready))
        return calls
    }

    // MARK: - Tests

    /// One world's answers, by case (and live call) name.
    static func answers(_ world: World, _ scenario: Scenario, real: Bool, fixture: inout Fixture) async throws -> [String: [Data]] {
        var live: [String: [(String, @Sendable () async throws -> [Data], @Sendable () async throws -> Void)]] = [:]
        for reader in readers {
            live[reader] = try Self.live(world.readers[reader]!, reader, fixture, scenario)
        }
        // Each live call delivers its initial results before anything is written.
        for reader in readers {
            for (_, _, ready) in live[reader]! { try await ready() }
        }
        try await Task.sleep(for: .milliseconds(100))
        try await deniedData(world, scenario, real: real, fixture: &fixture)
        // The own reader's deletion first, and time for every live call to deliver it, then the
        // sentinels: a live call reads the changes a commit event finds, so a deletion right
        // after a sentinel's came in the sentinel's batch or in one after it, as the two commits
        // and the feed's read fell, in either world.
        _ = try await world.readerStores[own]!.delete(uuids: [fixture.ownHeartRate])
        try await Task.sleep(for: .milliseconds(150))
        for reader in readers {
            _ = try await world.readerStores[reader]!.delete(uuids: [fixture.sentinels[reader]!])
        }
        var answers: [String: [Data]] = [:]
        var quiet = false
        for reader in readers {
            for (name, finish, _) in live[reader]! {
                if !quiet {
                    // The calls with no sentinel get as long as the others took, and a little more.
                    try await Task.sleep(for: .milliseconds(150))
                    quiet = true
                }
                answers["\(reader) \(name)"] = try await finish()
            }
        }
        // The readers ask at once; the deletions come after, one reader at a time, since the own
        // reader's change what the others see.
        let fixed = fixture
        let all = cases(scenario)
        let deletes = all.filter { $0.method == SalusMethods.Store.delete.descriptor }
        let reads = all.filter { $0.method != SalusMethods.Store.delete.descriptor }
        try await withThrowingTaskGroup(of: [String: [Data]].self) { group in
            for reader in readers {
                let client = world.readers[reader]!
                group.addTask {
                    var part: [String: [Data]] = [:]
                    for item in reads { part["\(reader) \(item.name)"] = await item.call(client, fixed) }
                    return part
                }
            }
            for try await part in group { answers.merge(part) { first, _ in first } }
        }
        for reader in readers {
            for item in deletes {
                answers["\(reader) \(item.name)"] = await item.call(world.readers[reader]!, fixed)
            }
        }
        return answers
    }

    @Test("every call of a denied app answers the same bytes whether or not the denied types hold data", arguments: scenarios)
    func deniedTypesLookEmpty(_ scenario: Scenario) async throws {
        let (with, without, setupFixture) = try await Self.worlds(scenario)
        var fixture = setupFixture
        let withAnswers = try await Self.answers(with, scenario, real: true, fixture: &fixture)
        var unused = fixture
        let withoutAnswers = try await Self.answers(without, scenario, real: false, fixture: &unused)
        await with.close()
        await without.close()

        #expect(withAnswers.count == withoutAnswers.count)
        let differing = withAnswers.keys.sorted().filter { withAnswers[$0] != withoutAnswers[$0] }
        for name in differing where !name.hasPrefix(Self.granted) {
            let shown = { (answers: [Data]?) in
                (answers ?? []).map { String(decoding: $0.prefix(300).map { (32...126).contains($0) ? $0 : 46 }, as: UTF8.self) }
            }
            Issue.record("\(name): with data \(shown(withAnswers[name])), without \(shown(withoutAnswers[name]))")
        }
        // The control: a reader allowed the same types is told of the data by every query kind.
        let told = Set(differing.filter { $0.hasPrefix(Self.granted) }.map { $0.split(separator: " ")[1] })
        let kinds: Set<Substring> = [
            "salus.v1.Store/QuerySamples", "salus.v1.Store/QueryAnchored", "salus.v1.Store/QuerySources",
            "salus.v1.Store/QueryElectrocardiogramVoltages", "salus.v1.Statistics/Query", "salus.v1.Statistics/QueryCollection",
            "salus.v1.Routes/ReadRoute", "salus.v1.Person/QueryActivitySummaries", "live", "observer",
        ]
        #expect(kinds.subtracting(told).isEmpty, "query kinds that did not show the data to a reader allowed it: \(kinds.subtracting(told).sorted())")
        #expect(fixture.heartRates.count == 3)
    }

    @Test("every method of the app socket has non-interference cases or a stated exemption")
    func routerIsCovered() async throws {
        for scenario in Self.scenarios {
            let names = Self.cases(scenario).map(\.name)
            #expect(Set(names).count == names.count, "case names must be unique: \(names.count - Set(names).count) repeated")
        }
        let server = try await ServerHarness.start(additionalTypes: OtherKindsServiceTests.types)
        let served = Set(server.services.appRouter.methods.flatMap { service in service.methods.map { "\(service.service)/\($0.name)" } })
        await server.stop()
        var covered = Set(Self.liveMethods.map { "\($0.service)/\($0.method)" })
        for scenario in Self.scenarios {
            covered.formUnion(Self.cases(scenario).map { "\($0.method.service)/\($0.method.method)" })
        }
        let missing = served.subtracting(covered).subtracting(Self.exempt.keys)
        #expect(missing.isEmpty, "methods of the app router without a non-interference case: \(missing.sorted())")
        let stale = Set(Self.exempt.keys).subtracting(served)
        #expect(stale.isEmpty, "exemptions of methods the app router does not serve: \(stale.sorted())")
        #expect(covered.intersection(Self.exempt.keys).isEmpty, "methods both covered and exempt")
    }
}
