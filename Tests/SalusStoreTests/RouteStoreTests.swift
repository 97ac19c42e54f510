import Foundation
import SalusModel
import SalusStore
import Testing

/// Workout routes in the store: reads by time range go through indexes, never a scan of the
/// route's blocks.
@Suite("Workout routes in the store")
struct RouteStoreTests {
    /// SQLite's plan for `sql`, its detail lines joined.
    static func plan(_ database: Database, _ sql: String) throws -> String {
        let statement = try database.prepare("EXPLAIN QUERY PLAN " + sql, cached: false)
        var details: [String] = []
        while try statement.step() { details.append(statement.text(3) ?? "") }
        return details.joined(separator: "; ")
    }

    @Test("a time-range read seeks the (route, last timestamp) index and reads blocks by primary key")
    func indexedReads() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("routes.sqlite").path
        let store = try await SampleStore.open(path: path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        await store.close()
        let database = try Database(path: path)
        defer { database.close() }
        let first = try Self.plan(database, RouteLocationPages.firstBlockSQL)
        #expect(first.contains("USING COVERING INDEX route_locations_time (route_id=? AND last_us>?)"), "\(first)")
        let block = try Self.plan(database, RouteLocationPages.blockSQL)
        #expect(block.contains("USING PRIMARY KEY (route_id=? AND block=?)"), "\(block)")
        #expect(!first.contains("SCAN route_locations") && !block.contains("SCAN route_locations"), "\(first) / \(block)")
    }

    @Test("a workout replaced by sync identifier takes its route with it, leaving the route's tombstone")
    func replacedWorkout() async throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SampleStore.open(
            path: directory.appendingPathComponent("routes.sqlite").path, catalog: Fixtures.catalog, logger: Fixtures.quietLogger)
        func workout(version: Double) -> Sample {
            Sample(
                type: Fixtures.workout, startDate: Fixtures.at(0), endDate: Fixtures.at(600),
                value: .workout(Workout(activityType: 37).withDefaultActivity(start: Fixtures.at(0), end: Fixtures.at(600))),
                sourceRevision: Fixtures.app,
                metadata: [MetadataKey.syncIdentifier: .string("run-1"), MetadataKey.syncVersion: .number(version)])
        }
        let first = try await store.save([workout(version: 1)], source: Fixtures.app).results[0].uuid
        let locations = (0..<2_000).map { RouteLocation(timestamp: Fixtures.at(Double($0) * 0.25), latitude: 1, longitude: 2) }
        let route = Sample(
            type: "HKWorkoutRouteTypeIdentifier", startDate: Fixtures.at(0), endDate: Fixtures.at(499.75),
            value: .workoutRoute(WorkoutRouteValue(workoutUUID: first, locations: locations)), sourceRevision: Fixtures.app)
        let routeUUID = try await store.save([route], source: Fixtures.app).results[0].uuid
        #expect(try await store.routeLocations(of: routeUUID).collect() == locations)
        let anchor = try await store.currentAnchor()

        _ = try await store.save([workout(version: 2)], source: Fixtures.app)
        #expect(try await store.sample(uuid: routeUUID) == nil)
        #expect(try await store.routeLocations(of: routeUUID).collect().isEmpty)
        let changes = try await store.anchoredQuery([QueryDescriptor(type: "HKWorkoutRouteTypeIdentifier")], anchor: anchor)
        #expect(changes.deleted.map(\.uuid) == [routeUUID])
        await store.close()
    }
}
