import Foundation
import Logging
import SalusModel
import SalusStatistics
import SalusStore
import Synchronization
import Testing

/// Live collections send every interval first, then only the intervals that changed.
@Suite("Live collections")
struct LiveCollectionTests {
    @Test("a new sample updates only its interval; a deletion updates only the intervals it changed")
    func onlyChangedIntervals() async throws {
        let (store, priorities, folder) = try await EngineTests.open()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await EngineTests.fixture(store)
        let engine = StatisticsEngine(store: store, priorities: priorities)
        let grid = IntervalGrid(anchor: Fixture.t0, interval: .hour, calendar: Fixture.calendar("UTC"))
        let query = StatisticsCollectionQuery(
            type: Fixture.steps, options: .cumulativeSum, grid: grid, from: Fixture.at(0), to: Fixture.at(240))
        let (updates, continuation) = AsyncStream.makeStream(of: StatisticsEngine.CollectionUpdate.self)
        let task = Task {
            try await engine.liveCollection(query) { update in continuation.yield(update) }
        }
        var iterator = updates.makeAsyncIterator()
        let initial = await iterator.next()!
        #expect(initial.isInitial)
        #expect(initial.statistics.map { $0.sum?.value } == [950, 450, nil, nil])

        let saved = try await store.save(
            [EngineTests.steps(300, 150, 160)], source: SourceRevision(appID: "org.example.phone", name: "Phone"))
        let added = await iterator.next()!
        #expect(!added.isInitial)
        #expect(added.statistics.count == 1)
        #expect(added.statistics.first?.startDate == Fixture.at(120))
        #expect(added.statistics.first?.sum?.value == 300)

        _ = try await store.delete([saved.results[0].uuid], requester: .owner)
        let removed = await iterator.next()!
        #expect(removed.statistics.count == 1)
        #expect(removed.statistics.first?.startDate == Fixture.at(120))
        #expect(removed.statistics.first?.sum == nil)
        task.cancel()
        await store.close()
        _ = await task.result
    }
}
