import Foundation
import Logging
import SalusModel
import SalusStatistics
import SalusStore
import Testing

/// The engine over a real store: priorities from the priority store, the visibility hook,
/// windows and collections.
@Suite("Statistics engine over a store")
struct EngineTests {
    static func open() async throws -> (SampleStore, SourcePriorityStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("salus-stats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let store = try await SampleStore.open(
            path: folder.appendingPathComponent("salus.db").path, catalog: Fixture.catalog, logger: logger)
        let priorities = try SourcePriorityStore(path: folder.appendingPathComponent("source-priority.json").path)
        return (store, priorities, folder)
    }

    static func steps(_ count: Double, _ start: Double, _ end: Double) -> Sample {
        Sample(
            type: Fixture.steps, startDate: Fixture.at(start), endDate: Fixture.at(end),
            value: .quantity(Quantity(value: count, unit: .count)), sourceRevision: SourceRevision(appID: "x", name: "x"))
    }

    /// Phone 1000 steps over [0, 60) and the watch 900 over [30, 90), saved phone first.
    static func fixture(_ store: SampleStore) async throws {
        _ = try await store.save([steps(1000, 0, 60)], source: SourceRevision(appID: "org.example.phone", name: "Phone"))
        _ = try await store.save([steps(900, 30, 90)], source: SourceRevision(appID: "org.example.watch", name: "Watch"))
    }

    @Test("merged totals follow the stored priority, per source on request, visibility filters")
    func priorities() async throws {
        let (store, priorities, folder) = try await Self.open()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.fixture(store)
        let engine = StatisticsEngine(store: store, priorities: priorities)
        let query = StatisticsQuery(type: Fixture.steps, options: [.cumulativeSum, .separateBySource])
        // No priority: the watch was saved last, so it wins [30, 60): phone 500 + watch 900.
        var statistics = try await engine.statistics(query)
        #expect(statistics.sum?.value == 1400)
        #expect(statistics.bySource["org.example.phone"]?.sum?.value == 1000)
        #expect(statistics.bySource["org.example.watch"]?.sum?.value == 900)
        try priorities.setPriority(["org.example.phone", "org.example.watch"], for: Fixture.steps)
        // Phone first: phone 1000 + watch [60, 90) 450.
        statistics = try await engine.statistics(query)
        #expect(statistics.sum?.value == 1450)
        // The visibility hook: a caller that may read only the watch's samples.
        statistics = try await engine.statistics(query, visibility: .sources(["org.example.watch"]))
        #expect(statistics.sum?.value == 900)
        #expect(statistics.sources == ["org.example.watch"])
        #expect(statistics.bySource.keys.sorted() == ["org.example.watch"])
        // The priorities survive reopening the file.
        let reopened = try SourcePriorityStore(path: priorities.path)
        #expect(reopened.priority(for: Fixture.steps).appIDs == ["org.example.phone", "org.example.watch"])
        await store.close()
    }

    @Test("a window pro-rates sums; a collection gives every interval; an empty query is empty")
    func windowsAndCollections() async throws {
        let (store, priorities, folder) = try await Self.open()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.fixture(store)
        try priorities.setPriority(["org.example.watch"], for: Fixture.steps)
        let engine = StatisticsEngine(store: store, priorities: priorities)
        let window = DateInterval(start: Fixture.at(15), end: Fixture.at(45))
        let windowed = try await engine.statistics(StatisticsQuery(type: Fixture.steps, window: window, options: .cumulativeSum))
        // phone [15, 30) 250 + watch [30, 45) 225.
        #expect(windowed.sum?.value == 475)
        #expect(windowed.startDate == Fixture.at(15))
        let grid = IntervalGrid(anchor: Fixture.t0, interval: .hour, calendar: Fixture.calendar("UTC"))
        let collection = try await engine.collection(
            StatisticsCollectionQuery(
                type: Fixture.steps, options: .cumulativeSum, grid: grid, from: Fixture.at(-60), to: Fixture.at(180)))
        // Hour 0: phone [0, 30) 500 + watch [30, 60) 450; hour 1: watch 450; others empty.
        #expect(collection.statistics.map { $0.sum?.value } == [nil, 950, 450, nil])
        let empty = try await engine.statistics(
            StatisticsQuery(type: Fixture.steps, window: DateInterval(start: Fixture.at(1000), duration: 60), options: .cumulativeSum))
        #expect(empty.isEmpty)
        #expect(empty.sum == nil)
        await store.close()
    }

    @Test("unknown and non-quantity types, and incompatible units, are refused naming the field")
    func refusals() async throws {
        let (store, priorities, folder) = try await Self.open()
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = StatisticsEngine(store: store, priorities: priorities)
        for type in [Fixture.sleep, TypeIdentifier("org.example.unknown")] {
            let error = await #expect(throws: StoreError.self) {
                try await engine.statistics(StatisticsQuery(type: type, options: .cumulativeSum))
            }
            #expect(error?.field == "type")
            #expect(error?.value == type.rawValue)
        }
        let error = await #expect(throws: StoreError.self) {
            try await engine.statistics(StatisticsQuery(type: Fixture.steps, options: .cumulativeSum, unit: Fixture.kilogram))
        }
        #expect(error?.field == "unit")
        await store.close()
    }
}
