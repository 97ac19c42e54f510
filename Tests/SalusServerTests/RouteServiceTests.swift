import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusStore
import SalusTestSupport
import SalusWire
import Testing

/// Workout routes through salus.v1.Routes in process: a marathon's route streamed in and out,
/// time-range reads, each refusal naming its field and value, all-or-nothing saves, and routes
/// deleted with their workout.
@Suite("Workout routes through the routes service")
struct RouteServiceTests {
    static let start = Date(timeIntervalSince1970: 1_795_250_000)
    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    /// One location a second from `start` for `count` seconds, every field set and each distinct.
    static func locations(_ count: Int) -> [RouteLocation] {
        (0..<count).map { index in
            let step = Double(index)
            return RouteLocation(
                timestamp: at(step), latitude: 52.5 + step * 1e-5, longitude: 13.4 - step * 2e-5,
                altitude: 34 + (step / 100).rounded(.down), horizontalAccuracy: 3 + Double(index % 7),
                verticalAccuracy: 2 + Double(index % 5), course: Double(index % 360), speed: 2.5 + Double(index % 10) / 10)
        }
    }

    /// A server, an app with open authorization, and a saved workout of `duration` seconds.
    static func workoutFixture(duration: TimeInterval) async throws -> (ServerHarness, HealthStore, UUID) {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.run", name: "Run")
        let workout = Sample(
            type: SampleType.workout.identifier, startDate: start, endDate: at(duration),
            value: .workout(Workout(activityType: WorkoutActivityType.running)), sourceRevision: Sample.unsavedSource)
        let saved = try await store.save(workout)
        return (server, store, saved.uuid)
    }

    static func routes(_ store: HealthStore) async throws -> [Sample] {
        try await SampleQueryDescriptor(type: .workoutRoute).result(for: store)
    }

    @Test("A 15,000-location route streams in and out unchanged; the sample carries its count and interval")
    func marathonRoundTrip() async throws {
        let (server, store, workout) = try await Self.workoutFixture(duration: 15_000)
        defer { Task { await server.stop() } }
        let sent = Self.locations(15_000)
        let builder = WorkoutRouteBuilder(healthStore: store)
        builder.insertRouteData(Array(sent[..<7_000]))
        builder.insertRouteData(Array(sent[7_000...]))
        let route = try await builder.finishRoute(with: workout)

        var chunks = 0
        var received: [RouteLocation] = []
        for try await chunk in store.routeLocations(of: route.uuid) {
            chunks += 1
            received += chunk
        }
        #expect(received == sent)
        #expect(chunks == (15_000 + 1023) / 1024, "one stored block per chunk")

        let stored = try #require(try await Self.routes(store).first)
        #expect(stored.uuid == route.uuid)
        #expect(stored.startDate == sent.first?.timestamp && stored.endDate == sent.last?.timestamp)
        guard case .workoutRoute(let value) = stored.value else {
            Issue.record("not a route: \(stored.value)")
            return
        }
        #expect(value.workoutUUID == workout && value.locationCount == 15_000 && value.locations.isEmpty)
    }

    @Test("A time-range read returns exactly the locations inside the range, ends included")
    func timeRange() async throws {
        let (server, store, workout) = try await Self.workoutFixture(duration: 5_000)
        defer { Task { await server.stop() } }
        // Two fixes share each of some seconds, as in Apple's own exports.
        var sent = Self.locations(4_000)
        sent.insert(sent[2_048], at: 2_049)
        let builder = WorkoutRouteBuilder(healthStore: store)
        builder.insertRouteData(sent)
        let route = try await builder.finishRoute(with: workout)

        for (from, to) in [(1_000.0, 2_500.0), (2_048.0, 2_048.0), (0.0, 0.5), (3_999.5, 9_000.0), (4_500.0, 4_600.0)] {
            let expected = sent.filter { $0.timestamp >= Self.at(from) && $0.timestamp <= Self.at(to) }
            let received = try await store.routeLocations(of: route.uuid, from: Self.at(from), to: Self.at(to)).collect()
            #expect(received == expected, "\(from)...\(to)")
        }
        #expect(try await store.routeLocations(of: route.uuid, from: Self.at(2_048), to: Self.at(2_048)).collect().count == 2)
    }

    /// A refused route: a change to one location (or to the header) and the field and value the
    /// error must name.
    struct Refusal: Sendable, CustomTestStringConvertible {
        var name: String
        var change: @Sendable (inout [RouteLocation]) -> Void
        var field: String
        var value: String
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "latitude above 90", change: { $0[3].latitude = 91 }, field: "locations[3].latitude", value: "91.0"),
        Refusal(name: "longitude below -180", change: { $0[1500].longitude = -180.5 }, field: "locations[1500].longitude", value: "-180.5"),
        Refusal(name: "negative horizontal accuracy", change: { $0[7].horizontalAccuracy = -1 }, field: "locations[7].horizontalAccuracy", value: "-1.0"),
        Refusal(name: "negative vertical accuracy", change: { $0[8].verticalAccuracy = -2 }, field: "locations[8].verticalAccuracy", value: "-2.0"),
        Refusal(name: "negative speed", change: { $0[9].speed = -0.5 }, field: "locations[9].speed", value: "-0.5"),
        Refusal(name: "CoreLocation's invalid course -1", change: { $0[10].course = -1 }, field: "locations[10].course", value: "-1.0"),
        Refusal(name: "course 360", change: { $0[11].course = 360 }, field: "locations[11].course", value: "360.0"),
        Refusal(name: "timestamps going back", change: { $0[12].timestamp = RouteServiceTests.at(5) }, field: "locations[12].timestamp", value: "2026-11-21T08:"),
        Refusal(
            name: "a location after the workout's end and its minute of slack",
            change: { $0[1999].timestamp = RouteServiceTests.at(2_000 + 61) }, field: "locations[1999].timestamp",
            value: "2026-11-21T09:07:41"),
    ]

    @Test("Each refused location is named with its value, and nothing is saved", arguments: refusals)
    func refusedLocation(_ refusal: Refusal) async throws {
        let (server, store, workout) = try await Self.workoutFixture(duration: 2_000)
        defer { Task { await server.stop() } }
        var locations = Self.locations(2_000)
        refusal.change(&locations)
        let builder = WorkoutRouteBuilder(healthStore: store)
        builder.insertRouteData(locations)
        do {
            try await builder.finishRoute(with: workout)
            Issue.record("saved a route with \(refusal.name)")
        } catch {
            #expect(error.code == .invalidArgument)
            #expect(error.field == refusal.field, "\(error)")
            #expect(error.value?.hasPrefix(refusal.value) == true, "\(error)")
        }
        #expect(try await Self.routes(store).isEmpty)
    }

    @Test("A route needs a workout the app may read: another kind is refused, an unknown UUID is not found")
    func workoutReference() async throws {
        let (server, store, _) = try await Self.workoutFixture(duration: 600)
        defer { Task { await server.stop() } }
        let rate = try await store.save(
            .quantity(.heartRate, Quantity(value: 120, unit: SalusUnit.count.divided(by: .minute)), start: Self.at(10)))
        let builder = WorkoutRouteBuilder(healthStore: store)
        builder.insertRouteData(Self.locations(10))
        do {
            try await builder.finishRoute(with: rate.uuid)
            Issue.record("attached a route to a heart-rate sample")
        } catch {
            #expect(error.code == .invalidArgument && error.field == "header.sample.workoutRoute.workoutUuid", "\(error)")
            #expect(error.value == rate.uuid.uuidString)
        }
        let unknown = UUID()
        builder.insertRouteData(Self.locations(10))
        do {
            try await builder.finishRoute(with: unknown)
            Issue.record("attached a route to no workout")
        } catch {
            #expect(error.code == .notFound && error.field == "header.sample.workoutRoute.workoutUuid", "\(error)")
            #expect(error.value == unknown.uuidString)
        }
        #expect(try await Self.routes(store).isEmpty)
    }

    @Test("A workout whose row is damaged on disk is not found by an app that may not read it, and refused naming the row to one that may")
    func damagedWorkout() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let owner = try await Authz.owner(server)
        let workoutType = SampleType.workout.description
        for app in ["org.example.watch", "org.example.maps"] { _ = try await Authz.register(owner, app) }
        try await Authz.grant(owner, "org.example.watch", workoutType, read: nil, share: .granted)
        try await Authz.grant(owner, "org.example.maps", SampleType.workoutRoute.description, read: nil, share: .granted)
        let watch = HealthStore(client: try await Authz.app(server, "org.example.watch"))
        let maps = HealthStore(client: try await Authz.app(server, "org.example.maps"))
        let workout = try await watch.save(
            Sample(
                type: SampleType.workout.identifier, startDate: Self.start, endDate: Self.at(600),
                value: .workout(Workout(activityType: WorkoutActivityType.running)), sourceRevision: Sample.unsavedSource,
                metadata: ["org.example.note": .string("secret")]))
        // The workout's metadata cut short, as an edit of the file or a flipped bit leaves it.
        try Self.damageWorkouts(server.dataDirectory.appendingPathComponent("salus.sqlite").path)
        let builder = WorkoutRouteBuilder(healthStore: maps)
        builder.insertRouteData(Self.locations(10))
        do {
            try await builder.finishRoute(with: workout.uuid)
            Issue.record("attached a route to a damaged workout the app may not read")
        } catch {
            #expect(error.code == .notFound && error.value == workout.uuid.uuidString, "\(error)")
            #expect(!error.message.contains("metadata") && !error.message.contains("secret"), "\(error)")
        }
        try await Authz.grant(owner, "org.example.maps", workoutType, read: .granted, share: nil)
        builder.insertRouteData(Self.locations(10))
        do {
            try await builder.finishRoute(with: workout.uuid)
            Issue.record("attached a route to a damaged workout")
        } catch {
            #expect(error.code == .databaseInaccessible && error.message.contains("metadata") && !error.message.contains("secret"), "\(error)")
        }
    }

    /// Cuts the metadata of every workout row of the store at `path` short.
    static func damageWorkouts(_ path: String) throws {
        let database = try Database(path: path, create: false)
        defer { database.close() }
        try database.execute("UPDATE samples SET metadata = metadata || X'62' WHERE kind = 2")
        #expect(try database.scalarInt("SELECT count(*) FROM samples WHERE kind = 2 AND metadata IS NOT NULL") == 1)
    }

    @Test("Attaching to another app's workout needs read permission for workouts; without it the workout is not found")
    func otherAppsWorkout() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let owner = try await Authz.owner(server)
        let workoutType = SampleType.workout.description
        let routeType = SampleType.workoutRoute.description
        for app in ["org.example.watch", "org.example.maps"] { _ = try await Authz.register(owner, app) }
        try await Authz.grant(owner, "org.example.watch", workoutType, read: nil, share: .granted)
        try await Authz.grant(owner, "org.example.maps", routeType, read: nil, share: .granted)
        let watch = HealthStore(client: try await Authz.app(server, "org.example.watch"))
        let maps = HealthStore(client: try await Authz.app(server, "org.example.maps"))
        let workout = try await watch.save(
            Sample(
                type: SampleType.workout.identifier, startDate: Self.start, endDate: Self.at(600),
                value: .workout(Workout(activityType: WorkoutActivityType.running)), sourceRevision: Sample.unsavedSource))
        let builder = WorkoutRouteBuilder(healthStore: maps)
        builder.insertRouteData(Self.locations(600))
        do {
            try await builder.finishRoute(with: workout.uuid)
            Issue.record("attached a route to a workout the app may not read")
        } catch {
            #expect(error.code == .notFound && error.value == workout.uuid.uuidString, "\(error)")
        }
        try await Authz.grant(owner, "org.example.maps", workoutType, read: .granted, share: nil)
        builder.insertRouteData(Self.locations(600))
        let route = try await builder.finishRoute(with: workout.uuid)
        #expect(try await maps.routeLocations(of: route.uuid).collect().count == 600)
        // The owner reads every route, and saves none.
        let ownerStore = HealthStore(client: owner)
        #expect(try await ownerStore.routeLocations(of: route.uuid).collect().count == 600)
        let ownerBuilder = WorkoutRouteBuilder(healthStore: ownerStore)
        ownerBuilder.insertRouteData(Self.locations(10))
        do {
            try await ownerBuilder.finishRoute(with: workout.uuid)
            Issue.record("the owner saved a route")
        } catch {
            #expect(error.code == .invalidArgument && error.field == "header.sample.type", "\(error)")
        }
    }

    @Test("A cancelled save leaves nothing, and the next save works")
    func cancelledSave() async throws {
        let (server, store, workout) = try await Self.workoutFixture(duration: 2_000)
        defer { Task { await server.stop() } }
        let client = try await server.app("org.example.run")
        struct Abandoned: Error {}
        var header = Salus_V1_SaveRouteMessage()
        header.header.sample = Sample(
            type: SampleType.workoutRoute.identifier, startDate: Self.start, endDate: Self.start,
            value: .workoutRoute(WorkoutRouteValue(workoutUUID: workout, locationCount: 0)),
            sourceRevision: Sample.unsavedSource
        ).wire
        header.header.sample.uuid = Data()
        let sent = Self.locations(2_000)
        await #expect(throws: Abandoned.self) {
            let _: Salus_V1_SaveRouteResponse = try await client.clientStreaming(SalusMethods.Routes.saveRoute) {
                (writer: RPCClientWriter<Salus_V1_SaveRouteMessage>) in
                try await writer.write(header)
                for offset in stride(from: 0, to: 1_500, by: 500) {
                    var chunk = Salus_V1_SaveRouteMessage()
                    chunk.locations.locations = sent[offset..<offset + 500].map(\.wire)
                    try await writer.write(chunk)
                }
                throw Abandoned()
            }
        }
        #expect(try await Self.routes(store).isEmpty)
        let builder = WorkoutRouteBuilder(healthStore: store)
        builder.insertRouteData(sent)
        let route = try await builder.finishRoute(with: workout)
        #expect(try await Self.routes(store).map(\.uuid) == [route.uuid])
        #expect(try await store.routeLocations(of: route.uuid).collect().count == 2_000)
    }

    @Test("Store/Save takes a small route inline and refuses more than 1,000 locations there")
    func inlineRoute() async throws {
        let (server, store, workout) = try await Self.workoutFixture(duration: 2_000)
        defer { Task { await server.stop() } }
        func route(_ count: Int) -> Sample {
            Sample(
                type: SampleType.workoutRoute.identifier, startDate: Self.start, endDate: Self.start,
                value: .workoutRoute(WorkoutRouteValue(workoutUUID: workout, locations: Self.locations(count))),
                sourceRevision: Sample.unsavedSource)
        }
        let saved = try await store.save(route(3))
        #expect(try await store.routeLocations(of: saved.uuid).collect() == Self.locations(3))
        let stored = try #require(try await Self.routes(store).first)
        #expect(stored.endDate == Self.at(2), "the route's interval is its locations'")
        do {
            _ = try await store.save(route(1_001))
            Issue.record("saved 1,001 locations inline")
        } catch {
            #expect(error.field == "samples[0].workoutRoute.locations" && error.value == "1001 locations", "\(error)")
        }
    }

    @Test("Deleting a workout deletes its route; anchored queries report both tombstones")
    func deletedWithWorkout() async throws {
        let (server, store, workout) = try await Self.workoutFixture(duration: 2_000)
        defer { Task { await server.stop() } }
        let builder = WorkoutRouteBuilder(healthStore: store)
        builder.insertRouteData(Self.locations(1_500))
        let route = try await builder.finishRoute(with: workout)
        let before = try await AnchoredObjectQueryDescriptor(predicates: [.samples(.workout), .samples(.workoutRoute)])
            .result(for: store)
        #expect(Set(before.addedSamples.map(\.uuid)) == [workout, route.uuid])

        #expect(try await store.delete(uuids: [workout]) == 2)
        let after = try await AnchoredObjectQueryDescriptor(
            predicates: [.samples(.workout), .samples(.workoutRoute)], anchor: before.newAnchor
        ).result(for: store)
        #expect(after.addedSamples.isEmpty)
        #expect(
            Set(after.deletedObjects.map { [$0.uuid.uuidString, $0.type.rawValue] })
                == [[workout.uuidString, "HKWorkoutTypeIdentifier"], [route.uuid.uuidString, "HKWorkoutRouteTypeIdentifier"]])
        #expect(try await Self.routes(store).isEmpty)
        do {
            _ = try await store.routeLocations(of: route.uuid).collect()
            Issue.record("read the locations of a deleted route")
        } catch {
            #expect(error.code == .notFound)
        }
    }
}
