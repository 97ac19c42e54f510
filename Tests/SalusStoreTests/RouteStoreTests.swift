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
}
