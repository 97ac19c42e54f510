import Foundation
import SalusModel
import SalusStatistics
import SalusStore
import Testing

/// Collections are computed in chunks of intervals; the chunking must not show in the results.
@Suite("Chunked collections")
struct ChunkTests {
    /// Random samples of three sources over `minutes`: spans up to 40 minutes and points, some
    /// placed on hour boundaries and a few minutes before them.
    static func samples(_ type: TypeIdentifier, unit: SalusUnit, minutes: Int, seed: UInt64) -> [(String, Sample)] {
        var generator = RandomMergeTests.Generator(state: seed)
        return (0..<300).map { _ in
            let source = RandomMergeTests.sources[Int.random(in: 0..<3, using: &generator)]
            var start = Double(Int.random(in: 0..<minutes, using: &generator))
            if Bool.random(using: &generator) { start = (start / 60).rounded(.down) * 60 + [0, 55, 58][Int.random(in: 0..<3, using: &generator)] }
            let length = Bool.random(using: &generator) ? Double(Int.random(in: 1...40, using: &generator)) : 0
            let sample = Sample(
                type: type, startDate: Fixture.at(start), endDate: Fixture.at(start + length),
                value: .quantity(Quantity(value: Double(Int.random(in: 40...140, using: &generator)), unit: unit)),
                sourceRevision: SourceRevision(appID: source, name: source))
            return (source, sample)
        }
    }

    static func close(_ a: Quantity?, _ b: Quantity?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.unit == b.unit && abs(a.value - b.value) <= 1e-9 * max(1, abs(b.value))
    }

    @Test(
        "hour-long chunks give the same hourly statistics as one chunk: sums merged and per source, time-weighted averages, min, max, most recent, duration",
        arguments: [
            (Fixture.steps, StatisticsOptions([.cumulativeSum, .duration, .separateBySource])),
            (Fixture.heartRate, StatisticsOptions([.discreteAverage, .discreteMin, .discreteMax, .mostRecent, .duration, .separateBySource])),
            (Fixture.audio, StatisticsOptions([.discreteAverage, .duration])),
            (Fixture.bodyMass, StatisticsOptions([.discreteAverage, .mostRecent])),
        ])
    func chunkingInvisible(type: TypeIdentifier, options: StatisticsOptions) async throws {
        let (store, priorities, folder) = try await EngineTests.open()
        defer { try? FileManager.default.removeItem(at: folder) }
        try priorities.setPriority([RandomMergeTests.sources[2]], for: type)
        let unit = Fixture.catalog.rules(for: type)!.canonicalUnit!
        for (source, sample) in Self.samples(type, unit: unit, minutes: 24 * 60, seed: 7) {
            _ = try await store.save([sample], source: SourceRevision(appID: source, name: source))
        }
        let grid = IntervalGrid(anchor: Fixture.t0, interval: .hour, calendar: Fixture.calendar("UTC"))
        let query = StatisticsCollectionQuery(
            type: type, options: options, grid: grid, from: Fixture.at(0), to: Fixture.at(24 * 60))
        let whole = try await StatisticsEngine(store: store, priorities: priorities, chunkSpan: .infinity).collection(query)
        let hourly = try await StatisticsEngine(store: store, priorities: priorities, chunkSpan: 3600).collection(query)
        let threeHours = try await StatisticsEngine(store: store, priorities: priorities, chunkSpan: 3 * 3600).collection(query)
        #expect(whole.statistics.count == 24)
        #expect(whole.statistics.filter { !$0.values.isEmpty }.count > 12)
        for chunked in [hourly, threeHours] {
            #expect(chunked.statistics.count == whole.statistics.count)
            for (a, b) in zip(chunked.statistics, whole.statistics) {
                #expect(a.startDate == b.startDate && a.endDate == b.endDate)
                #expect(a.sources == b.sources)
                for path in [\StatisticValues.sum, \.average, \.minimum, \.maximum, \.mostRecent, \.duration] {
                    #expect(Self.close(a.values[keyPath: path], b.values[keyPath: path]), "\(a.startDate): \(a.values) vs \(b.values)")
                }
                #expect(a.values.mostRecentInterval == b.values.mostRecentInterval)
                #expect(Set(a.bySource.keys) == Set(b.bySource.keys))
                for (source, values) in a.bySource {
                    #expect(Self.close(values.sum, b.bySource[source]?.sum) && Self.close(values.average, b.bySource[source]?.average))
                }
            }
        }
        await store.close()
    }

    @Test("a collection of more than 100,000 intervals is refused naming to; a day of seconds is computed")
    func intervalLimit() async throws {
        let (store, priorities, folder) = try await EngineTests.open()
        defer { try? FileManager.default.removeItem(at: folder) }
        let engine = StatisticsEngine(store: store, priorities: priorities)
        let seconds = IntervalGrid(anchor: Fixture.t0, interval: try StatisticsInterval(1, .second), calendar: Fixture.calendar("UTC"))
        let tooMany = StatisticsCollectionQuery(
            type: Fixture.steps, options: .cumulativeSum, grid: seconds, from: Fixture.at(0), to: Fixture.at(2 * 24 * 60))
        let error = try await #require(throws: StoreError.self) { _ = try await engine.collection(tooMany) }
        #expect(error.field == "to" && error.message.contains("100000") && error.message.contains("172800"), "\(error.message)")
        var day = tooMany
        day.to = Fixture.at(24 * 60)
        #expect(try await engine.collection(day).statistics.count == 86_400)

        let refused = try #require(throws: ValidationError.self) { _ = try StatisticsInterval(1_201, .month) }
        #expect(refused.field == "interval.count" && refused.expected.contains("1200"))
        await store.close()
    }
}
