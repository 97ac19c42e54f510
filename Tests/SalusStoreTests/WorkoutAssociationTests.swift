import Foundation
import SalusModel
import SalusStore
import Testing

/// The quantity samples a workout's statistics count (`SampleStore.associatedQuantities`): what
/// they are, and that reading them costs a range of the (type, start) index per type, not a pass
/// over everything the app ever saved. Every workout a reader receives is completed from them.
@Suite("Samples associated with a workout")
struct WorkoutAssociationTests {
    @Test("an app's quantity samples overlapping the interval, of every type, in start order; nothing else")
    func associatedRows() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        // Each row as "type start end value", times in seconds after `Fixtures.base`.
        func described(_ rows: [AssociatedQuantityRow]) -> [String] {
            let base = Int64(Fixtures.base.timeIntervalSince1970) * 1_000_000
            return rows.map {
                "\($0.type.rawValue) \(($0.startMicroseconds - base) / 1_000_000) \(($0.endMicroseconds - base) / 1_000_000) \($0.value)"
            }
        }
        // The interval is [1000, 2000] seconds.
        _ = try await store.save(
            [
                Fixtures.quantity(Fixtures.heartRate, 120, "count/min", start: 1_500),  // inside
                Fixtures.quantity(Fixtures.steps, 40, start: 400, end: 1_010),  // starts long before, ends inside
                Fixtures.quantity(Fixtures.steps, 10, start: 990, end: 1_000),  // ends at the start
                Fixtures.quantity(Fixtures.energy, 5, "kcal", start: 2_000, end: 2_100),  // starts at the end
                Fixtures.quantity(Fixtures.steps, 7, start: 100, end: 999),  // ends before
                Fixtures.quantity(Fixtures.heartRate, 90, "count/min", start: 2_001),  // after
                Fixtures.category(1, start: 1_200, end: 1_300),  // not a quantity
            ], source: Fixtures.app)
        _ = try await store.save(
            [Fixtures.quantity(Fixtures.heartRate, 150, "count/min", start: 1_600)], source: Fixtures.otherApp)

        let rows = try await store.associatedQuantities(appID: Fixtures.app.appID, from: Fixtures.at(1_000), to: Fixtures.at(2_000))
        #expect(
            described(rows) == [
                "HKQuantityTypeIdentifierStepCount 400 1010 40.0",
                "HKQuantityTypeIdentifierStepCount 990 1000 10.0",
                "HKQuantityTypeIdentifierHeartRate 1500 1500 120.0",
                "HKQuantityTypeIdentifierActiveEnergyBurned 2000 2100 5.0",
            ])
        let other = try await store.associatedQuantities(appID: Fixtures.otherApp.appID, from: Fixtures.at(1_000), to: Fixtures.at(2_000))
        #expect(other.map(\.value) == [150])
        #expect(try await store.associatedQuantities(appID: "org.example.none", from: Fixtures.at(0), to: Fixtures.at(3_000)).isEmpty)
    }

    @Test("the read seeks each type's (type, start) range and never walks the app's samples")
    func indexedRead() async throws {
        let temporary = try await TemporaryStore.make()
        _ = try await temporary.store.save([Fixtures.quantity(1)], source: Fixtures.app)
        let database = try Database(path: temporary.directory.appendingPathComponent("salus.sqlite").path)
        defer { database.close() }
        let plan = try RouteStoreTests.plan(database, SampleStore.associatedQuantitiesSQL)
        #expect(plan.contains("SEARCH r USING INDEX samples_type_start (type_id=? AND start_us>? AND start_us<?)"), "\(plan)")
        #expect(!plan.contains("samples_app_type") && !plan.contains("SCAN r"), "\(plan)")
    }

    @Test("a workout statistic in a predicate reads each workout's samples by a (type, start) range", arguments: [
        (WorkoutStatistic.sum, AggregationStyle.cumulative), (.average, .discreteTemporallyWeighted), (.maximum, .discreteArithmetic),
    ])
    func indexedStatistic(statistic: WorkoutStatistic, style: AggregationStyle) async throws {
        let temporary = try await TemporaryStore.make()
        _ = try await temporary.store.save([Fixtures.quantity(1)], source: Fixtures.app)
        let database = try Database(path: temporary.directory.appendingPathComponent("salus.sqlite").path)
        defer { database.close() }
        let computed = try #require(PredicateCompiler.statisticSQL(statistic, style: style, from: "r.start_us", to: "r.end_us", closed: "1"))
        let plan = try RouteStoreTests.plan(database, "SELECT r.id FROM samples r WHERE r.type_id = 1 AND \(computed) > 0")
        #expect(plan.contains("SEARCH q USING INDEX samples_type_start (type_id=? AND start_us>? AND start_us<?)"), "\(plan)")
        #expect(!plan.contains("samples_app_type") && !plan.contains("q USING INDEX samples_type_end") && !plan.contains("SCAN q"), "\(plan)")
    }
}
