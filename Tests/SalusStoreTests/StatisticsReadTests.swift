import Foundation
import SalusModel
import Testing

@testable import SalusStore

/// The reads behind statistics: date windows bounded by the longest span, the lean quantity
/// read, and the spans of changes after an anchor.
@Suite("Statistics reads")
struct StatisticsReadTests {
    static func window(_ start: Double, _ end: Double) -> SamplePredicate {
        .dateWindow(DateWindow(start: Fixtures.at(start), end: Fixtures.at(end)))
    }

    @Test("a window inside a sample longer than any saved before it still finds that sample")
    func longSampleFound() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save([Fixtures.quantity(1, start: 0, end: 60)], source: Fixtures.app)
        // Ten days long, saved later in its own transaction.
        _ = try await store.save([Fixtures.quantity(500, start: 120, end: 120 + 864_000)], source: Fixtures.app)
        let middle = 120 + 432_000.0
        let found = try await store.all(Fixtures.steps, Self.window(middle, middle + 3600))
        #expect(found.map(\.endDate) == [Fixtures.at(120 + 864_000)])
        // Reaching back exactly to its start, and just past its end.
        #expect(try await store.count(Fixtures.steps, Self.window(120, 121)) == 1)
        #expect(try await store.count(Fixtures.steps, Self.window(120 + 864_000, 120 + 864_001)) == 1)
        #expect(try await store.count(Fixtures.steps, Self.window(120 + 864_001, 120 + 900_000)) == 0)
        // A longer sample of another type does not widen the steps bound, nor hide anything.
        _ = try await store.save([Fixtures.quantity(Fixtures.distance, 9, "m", start: 0, end: 2_000_000)], source: Fixtures.app)
        #expect(try await store.count(Fixtures.distance, Self.window(1_000_000, 1_000_001)) == 1)
        #expect(try await store.count(Fixtures.steps, Self.window(30, 31)) == 1)
    }

    @Test("the bound survives deleting the longest sample, and rejected saves do not raise it")
    func boundAfterDelete() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let long = try await store.save([Fixtures.quantity(5, start: 0, end: 86_400)], source: Fixtures.app)
        _ = try await store.delete([long.results[0].uuid], requester: .owner)
        _ = try await store.save([Fixtures.quantity(7, start: 1000, end: 4600)], source: Fixtures.app)
        await #expect(throws: StoreError.self) {
            _ = try await store.save(
                [Fixtures.quantity(1, start: 0, end: 10_000_000), Fixtures.quantity(Fixtures.steps, 1, "m")],
                source: Fixtures.app)
        }
        #expect(try await store.count(Fixtures.steps, Self.window(4000, 4001)) == 1)
        let database = try Database(path: temporary.path, create: false, readOnly: true)
        defer { database.close() }
        #expect(try database.scalarInt("SELECT max_span_us FROM type_spans") == 86_400_000_000)
    }

    @Test("the lean read: start order, canonical values, app ids, the predicate applied, one snapshot")
    func reduceQuantities() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save(
            [Fixtures.quantity(Fixtures.distance, 2, "km", start: 300, end: 400),
             Fixtures.quantity(Fixtures.distance, 150, "m", start: 100, end: 200)], source: Fixtures.app)
        _ = try await store.save([Fixtures.quantity(Fixtures.distance, 1, "mi", start: 200, end: 260)], source: Fixtures.otherApp)
        _ = try await store.save([Fixtures.quantity(99, start: 0, end: 10)], source: Fixtures.app)
        let all = try await store.reduceQuantities(type: Fixtures.distance, matching: nil, into: [String]()) {
            seen, row, appIDs in
            let seconds = Double(row.startMicroseconds) / 1_000_000 - 1_700_000_000
            seen.append("\(Int(seconds)) \(row.value.rounded()) \(appIDs[row.appRef] ?? "?")")
        }
        #expect(all == ["100 150.0 org.example.diary", "200 1609.0 org.example.other", "300 2000.0 org.example.diary"])
        let windowed = try await store.reduceQuantities(
            type: Fixtures.distance, matching: .and([Self.window(250, 1000), .sources(["org.example.diary"])]), into: 0
        ) { count, _, _ in count += 1 }
        #expect(windowed == 1)
        let error = try #require(
            await #expect(throws: StoreError.self) {
                _ = try await store.reduceQuantities(
                    type: Fixtures.distance, matching: .quantity(.greaterThan, Quantity(value: 1, unit: .count)), into: 0
                ) { _, _, _ in }
            })
        #expect(error.field == "predicate.quantity.unit")
    }

    @Test("changed spans: added and deleted samples after an anchor, filtered; an expired anchor is refused")
    func changedSpans() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let first = try await store.save([Fixtures.quantity(1, start: 0, end: 60)], source: Fixtures.app)
        let anchor = first.anchor
        _ = try await store.save([Fixtures.quantity(2, start: 7200, end: 7260)], source: Fixtures.otherApp)
        _ = try await store.delete([first.results[0].uuid], requester: .owner)
        let micro: (Double) -> Int64 = { Int64((1_700_000_000 + $0) * 1_000_000) }

        let all = try await store.changedSpans(type: Fixtures.steps, matching: nil, after: anchor)
        #expect(Set(all.spans) == [micro(0)...micro(60), micro(7200)...micro(7260)])
        #expect(all.anchor == (try await store.currentAnchor()))
        let other = try await store.changedSpans(type: Fixtures.steps, matching: .sources(["org.example.other"]), after: anchor)
        #expect(other.spans == [micro(7200)...micro(7260)])
        let deletedOnly = try await store.changedSpans(type: Fixtures.steps, matching: Self.window(0, 100), after: anchor)
        #expect(deletedOnly.spans == [micro(0)...micro(60)])
        #expect(try await store.changedSpans(type: Fixtures.steps, matching: nil, after: all.anchor).spans.isEmpty)

        _ = try await store.purgeTombstones(olderThan: Date().addingTimeInterval(60))
        let error = try #require(
            await #expect(throws: StoreError.self) {
                _ = try await store.changedSpans(type: Fixtures.steps, matching: nil, after: anchor)
            })
        #expect(error.code == .anchorExpired)
    }
}
