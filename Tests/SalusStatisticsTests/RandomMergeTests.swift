import Foundation
import SalusModel
import SalusStatistics
import SalusStore
import SalusTestSupport
import Testing

/// The sweep against a brute-force merge on random overlapping samples, and the store's lean
/// read against samples read whole.
@Suite("Merged sums on random fixtures")
struct RandomMergeTests {
    typealias Generator = SeededGenerator

    struct Item {
        var source: Int
        var start: Double
        var end: Double
        var value: Double
        var created: Double
    }

    static let sources = ["org.example.a", "org.example.b", "org.example.c"]

    static func items(seed: UInt64, count: Int) -> [Item] {
        var generator = Generator(state: seed)
        return (0..<count).map { _ in
            let start = Double(Int.random(in: 0..<3600, using: &generator))
            let length = Bool.random(using: &generator) ? Double(Int.random(in: 1...900, using: &generator)) : 0
            return Item(
                source: Int.random(in: 0..<3, using: &generator), start: start, end: start + length,
                value: Double(Int.random(in: 1...100, using: &generator)),
                created: Double(Int.random(in: 0..<5, using: &generator)))
        }
    }

    /// Every elementary piece between consecutive sample edges and boundaries: the
    /// highest-ranked open sample's source counts, each of its open samples pro-rated; point
    /// samples count whole.
    static func bruteForce(_ items: [Item], priority: [String], boundaries: [Double]) -> [Double] {
        var sums = Array(repeating: 0.0, count: boundaries.count - 1)
        func bucket(_ time: Double) -> Int? {
            guard time >= boundaries.first!, time < boundaries.last! else { return nil }
            return boundaries.lastIndex { $0 <= time }
        }
        let rank = { (source: Int) in priority.firstIndex(of: sources[source]) ?? Int.max }
        let edges = Set(items.flatMap { [$0.start, $0.end] } + boundaries).sorted()
        for (t0, t1) in zip(edges, edges.dropFirst()) {
            guard let index = bucket(t0) else { continue }
            let open = items.indices.filter { items[$0].end > items[$0].start && items[$0].start <= t0 && items[$0].end >= t1 }
            guard let winner = open.min(by: { a, b in
                let x = items[a], y = items[b]
                return (rank(x.source), -x.created, x.start, x.end, -x.value, a) < (rank(y.source), -y.created, y.start, y.end, -y.value, b)
            }) else { continue }
            for member in open where items[member].source == items[winner].source {
                sums[index] += items[member].value * (t1 - t0) / (items[member].end - items[member].start)
            }
        }
        for item in items where item.end == item.start {
            if let index = bucket(item.start) { sums[index] += item.value }
        }
        return sums
    }

    @Test("the sweep equals a brute-force merge on random overlapping samples of three sources", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func sweepMatchesBruteForce(seed: UInt64) throws {
        let items = Self.items(seed: seed, count: 80)
        // b listed; a and c unlisted, so save time and the later tie-breakers decide between them.
        let priority = [Self.sources[1]]
        var calculator = try StatisticsCalculator(
            type: Fixture.steps, style: .cumulative, canonicalUnit: .count, options: .cumulativeSum,
            priority: SourcePriority(priority))
        for item in items {
            calculator.add(
                start: Fixture.at(item.start), end: Fixture.at(item.end), value: item.value, source: Self.sources[item.source],
                created: Fixture.at(item.created))
        }
        let boundaries = stride(from: 0.0, through: 4800, by: 600).map { $0 }
        let computed = try calculator.compute(boundaries: boundaries.map { Fixture.at($0).timeIntervalSinceReferenceDate })
            .map { $0.sum?.value ?? 0 }
        let expected = Self.bruteForce(items, priority: priority, boundaries: boundaries)
        #expect(computed.count == expected.count)
        for (got, want) in zip(computed, expected) {
            #expect(abs(got - want) <= 1e-9 * max(1, want), "got \(computed), expected \(expected)")
        }
    }

    @Test("statistics from the store's lean read equal those from whole samples, in any unit saved")
    func leanReadMatchesSamples() async throws {
        let (store, priorities, folder) = try await EngineTests.open()
        defer { try? FileManager.default.removeItem(at: folder) }
        try priorities.setPriority([Self.sources[2]], for: Fixture.distance)
        var generator = Generator(state: 42)
        for (index, source) in Self.sources.enumerated() {
            let samples = Self.items(seed: UInt64(10 + index), count: 60).map { item in
                let unit = ["m", "km", "mi", "ft"].randomElement(using: &generator)!
                return Sample(
                    type: Fixture.distance, startDate: Fixture.at(item.start), endDate: Fixture.at(item.end),
                    value: .quantity(Quantity(value: item.value, unit: try! SalusUnit(parsing: unit))),
                    sourceRevision: SourceRevision(appID: source, name: source))
            }
            _ = try await store.save(samples, source: SourceRevision(appID: source, name: source))
        }
        let engine = StatisticsEngine(store: store, priorities: priorities)
        let grid = IntervalGrid(anchor: Fixture.t0, interval: try StatisticsInterval(10, .hour), calendar: Fixture.calendar("UTC"))
        let query = StatisticsCollectionQuery(
            type: Fixture.distance, options: [.cumulativeSum, .duration, .separateBySource], grid: grid,
            from: Fixture.at(0), to: Fixture.at(4800))
        let lean = try await engine.collection(query)

        var calculator = try StatisticsCalculator(
            type: Fixture.distance, style: .cumulative, canonicalUnit: .meter, options: query.options,
            priority: priorities.priority(for: Fixture.distance))
        for sample in try await store.samples(SampleQuery(type: Fixture.distance)).collect() { try calculator.add(sample) }
        let whole = try calculator.compute(
            boundaries: grid.boundaries(from: query.from, to: query.to).map(\.timeIntervalSinceReferenceDate))
        #expect(lean.statistics.count == whole.count)
        #expect(lean.statistics.contains { ($0.sum?.value ?? 0) > 0 })
        for (a, b) in zip(lean.statistics, whole) {
            #expect(abs((a.sum?.value ?? 0) - (b.sum?.value ?? 0)) <= 1e-6 * max(1, b.sum?.value ?? 0))
            #expect(a.sources == b.sources)
            #expect(a.values.duration == b.values.duration)
            #expect(Set(a.bySource.keys) == Set(b.bySource.keys))
        }
        await store.close()
    }
}
