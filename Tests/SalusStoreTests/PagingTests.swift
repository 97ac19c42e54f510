import Foundation
import NIOCore
import SalusModel
import SalusStore
import Testing

@Suite("Sample query paging")
struct PagingTests {
    @Test("100,000 rows in bounded pages, in order, each once")
    func hundredThousand() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let total = 100_000
        // Samples share their start in pairs, so ties need the row id.
        for batch in stride(from: 0, to: total, by: 10_000) {
            let samples = (batch..<(batch + 10_000)).map { (index: Int) -> Sample in
                let start = Double(index / 2)
                return Fixtures.quantity(Double(index), start: start, end: start + 60)
            }
            _ = try await store.save(samples, source: Fixtures.app)
        }
        let pageSize = 1000
        var count = 0
        var pages = 0
        var seen = Set<UUID>()
        var previous: (Date, Double)?
        for try await page in try store.samples(SampleQuery(type: Fixtures.steps), pageSize: pageSize) {
            #expect(!page.isEmpty && page.count <= pageSize)
            pages += 1
            for sample in page {
                count += 1
                seen.insert(sample.uuid)
                let key = (sample.startDate, sample.value.quantityValue ?? -1)
                if let previous {
                    #expect(previous.0 < key.0 || (previous.0 == key.0 && previous.1 < key.1))
                }
                previous = key
            }
        }
        #expect(count == total)
        #expect(seen.count == total)
        #expect(pages == total / pageSize)

        // Descending by end date with a limit that is not a multiple of the page size.
        let latest = try await store.samples(
            SampleQuery(type: Fixtures.steps, sort: [SampleSortDescriptor(.endDate, ascending: false)], limit: 2_500),
            pageSize: 1000
        ).collect()
        #expect(latest.count == 2_500)
        #expect(latest.first?.value.quantityValue == Double(total - 1))
        #expect(latest.map(\.endDate) == latest.map(\.endDate).sorted(by: >))
    }

    @Test(
        "a date-window query's later pages cost what its first pages do",
        arguments: [SampleSortDescriptor.Key.startDate, .endDate], [true, false])
    func laterPagesCostTheirOwnRows(key: SampleSortDescriptor.Key, ascending: Bool) async throws {
        let temporary = try await TemporaryStore.make()
        // Samples on both sides of the window, so its bounds are not the type's first and last.
        let samples = (0..<3_400).map { (index: Int) -> Sample in
            Fixtures.quantity(Double(index), start: Double(index * 20), end: Double(index * 20 + 10))
        }
        _ = try await temporary.store.save(samples, source: Fixtures.app)
        let window = DateWindow(start: Fixtures.at(4_000), end: Fixtures.at(64_000))
        let pages = try temporary.store.samples(
            SampleQuery(
                type: Fixtures.steps, predicate: .dateWindow(window),
                sort: [SampleSortDescriptor(key, ascending: ascending)]),
            pageSize: 100)
        let database = try Database(path: temporary.path, create: false, readOnly: true)
        defer { database.close() }
        var cursor: [Int64]?
        var work: [Int] = []
        var values: [Double] = []
        while true {
            let statement = try SamplePages.pageStatement(database, plan: pages.plan, after: cursor, size: 100)
            let before = statement.instructionsRun
            var last: (id: Int64, start: Int64, end: Int64)?
            var rows = 0
            while try statement.step() {
                rows += 1
                values.append(statement.double(6))
                // Column 5 is the span (`SampleRows.columns`); these rows' ends are start + span.
                last = (statement.int64(0), statement.int64(4), statement.int64(4) + statement.int64(5))
            }
            work.append(statement.instructionsRun - before)
            statement.reset()
            guard let last, rows == 100 else { break }
            cursor = SamplePages.cursor(pages.plan, id: last.id, start: last.start, end: last.end)
        }
        // The window holds samples 200 to 3,199 (the one ending at 4,000 included).
        let expected = (200..<3_200).map(Double.init)
        #expect(values == (ascending ? expected : expected.reversed()))
        // Pages 2 and 30 run the same statement on 100 rows each; with the window's bound
        // seeking the index instead of the cursor, page 30 steps over 2,800 earlier rows.
        #expect(work.count == 31)
        #expect(work[29] < work[1] * 3 / 2, "instructions per page: \(work)")
    }

    @Test("a date window read in two halves: neither half's pages step over the other half's rows", arguments: [true, false])
    func halvesCostTheirOwnRows(ascending: Bool) async throws {
        let temporary = try await TemporaryStore.make()
        let samples = (0..<3_400).map { (index: Int) -> Sample in
            Fixtures.quantity(Double(index), start: Double(index * 20), end: Double(index * 20 + 10))
        }
        _ = try await temporary.store.save(samples, source: Fixtures.app)
        let window = DateWindow(start: Fixtures.at(4_000), end: Fixtures.at(64_000))
        let plan = try temporary.store.samples(
            SampleQuery(type: Fixtures.steps, predicate: .dateWindow(window), sort: [SampleSortDescriptor(.startDate, ascending: ascending)]),
            pageSize: 100
        ).plan
        #expect(plan.split != nil)
        let database = try Database(path: temporary.path, create: false, readOnly: true)
        defer { database.close() }
        var values: [Double] = []
        var work: [[Int]] = []
        for part in [plan.part(0), plan.part(1)] {
            var cursor: [Int64]?
            var pages: [Int] = []
            while true {
                let statement = try SamplePages.pageStatement(database, plan: part, after: cursor, size: 100)
                let before = statement.instructionsRun
                var last: (id: Int64, start: Int64)?
                var rows = 0
                while try statement.step() {
                    rows += 1
                    values.append(statement.double(6))
                    last = (statement.int64(0), statement.int64(4))
                }
                pages.append(statement.instructionsRun - before)
                statement.reset()
                guard let last, rows == 100 else { break }
                cursor = SamplePages.cursor(part, id: last.id, start: last.start, end: 0)
            }
            work.append(pages)
        }
        let expected = (200..<3_200).map(Double.init)
        #expect(values == (ascending ? expected : expected.reversed()))
        // Each half holds 1,500 rows: 15 full pages and an empty one. A first page that stepped
        // over the other half's rows, or a last page that did, costs as much as ten pages.
        #expect(work.map(\.count) == [16, 16])
        let page = work[0][1]
        #expect(work[1][0] < page * 3 / 2, "the second half's first page: \(work)")
        #expect(work[0][15] < page / 2, "the first half's last page: \(work)")
        #expect(work[1][15] < page / 2, "the second half's last page: \(work)")
    }

    @Test("an anchored catch-up walks the table by row id: its pages are the change index's, and rows out of change order are read along that index")
    func anchoredWalk() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        // Two types taking turns, in several saves, with deletions between them.
        var saved: [UUID] = []
        for batch in 0..<6 {
            let samples = (0..<100).flatMap { (offset: Int) -> [Sample] in
                let index = Double(batch * 100 + offset)
                return [
                    Fixtures.quantity(index, start: index),
                    Fixtures.quantity(Fixtures.heartRate, 60 + index, "count/min", start: index),
                ]
            }
            saved += try await store.save(samples, source: Fixtures.app).results.map(\.uuid)
            _ = try await store.delete(Array(saved.suffix(7).prefix(3)), requester: .owner)
        }
        let steps = [QueryDescriptor(type: Fixtures.steps)]
        func pages(_ walk: AnchoredWalk) async throws -> [[UInt8]] {
            var anchor: Anchor?
            var pages: [[UInt8]] = []
            repeat {
                let page = try await store.anchoredWire(steps, anchor: anchor, limit: 50, encoder: WireEncodingTests.encoder, walk: walk)
                pages.append(Array(page.changes.bytes.readableBytesView) + Array("\(page.anchor.rawValue) \(page.hasMore)".utf8))
                anchor = page.anchor
                if !page.hasMore { break }
            } while true
            return pages
        }
        let byIndex = try await pages(.sequence)
        #expect(byIndex.count > 10)
        #expect(try await pages(.rowID) == byIndex)

        let database = try Database(path: temporary.path, create: false)
        defer { database.close() }
        let plan = try RouteStoreTests.plan(
            database, StoreReads.anchoredSampleSQL(matching: "+r.type_id = 1 AND r.replica IS NULL", wire: true, walk: .rowID))
        #expect(plan.contains("SEARCH r USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"), "\(plan)")

        // A sample's row id is its change position (schema 15): no row shares one with a
        // deletion, none is above the latest change, and the anchor a save returns is its last row's.
        #expect(try database.scalarInt("SELECT count(*) FROM samples JOIN tombstones ON tombstones.seq = samples.id") == 0)
        let latest = Int64(clamping: try await store.currentAnchor().rawValue)
        #expect(try database.scalarInt("SELECT max(id) FROM samples") ?? 0 <= latest)
        let response = try await store.save([Fixtures.quantity(1, start: 9_000)], source: Fixtures.app)
        #expect(try database.scalarInt("SELECT id FROM samples WHERE uuid = ?", [.uuid(response.results[0].uuid)]) == Int64(clamping: response.anchor.rawValue))
    }

    @Test("mixed sort directions page through ties exactly once")
    func mixedDirections() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        let samples = (0..<500).map { (index: Int) -> Sample in
            let start = Double(index / 10)
            return Fixtures.quantity(Double(index), start: start, end: start + Double(index % 7))
        }
        _ = try await store.save(samples, source: Fixtures.app)
        let query = SampleQuery(
            type: Fixtures.steps, sort: [SampleSortDescriptor(.startDate), SampleSortDescriptor(.endDate, ascending: false)])
        let paged = try await store.samples(query, pageSize: 7).collect()
        let whole = try await store.samples(query, pageSize: 1000).collect()
        #expect(paged.count == 500)
        #expect(paged.map(\.uuid) == whole.map(\.uuid))
        for (earlier, later) in zip(paged, paged.dropFirst()) {
            #expect(
                earlier.startDate < later.startDate
                    || (earlier.startDate == later.startDate && earlier.endDate >= later.endDate))
        }
    }

    @Test("a cancelled iteration stops with CancellationError")
    func cancellation() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        _ = try await store.save((0..<100).map { Fixtures.quantity(Double($0)) }, source: Fixtures.app)
        let pages = try store.samples(SampleQuery(type: Fixtures.steps), pageSize: 10)
        let task = Task {
            var iterator = pages.makeAsyncIterator()
            _ = try await iterator.next()
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try await iterator.next()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test("queries that take turns on one reader connection each get their own pages, past the prepared-statement limit")
    func interleavedQueriesOnOneConnection() async throws {
        let temporary = try await TemporaryStore.make(configuration: .init(readerCount: 1))
        let store = temporary.store
        _ = try await store.save((0..<60).map { Fixtures.quantity(Double($0), start: Double($0)) }, source: Fixtures.app)
        // More query shapes than a connection keeps prepared: each window's SQL is its own.
        var queries: [SampleQuery] = []
        for index in 0..<(Database.recentStatementLimit + 4) {
            let from = Fixtures.at(Double(index))
            let predicate: SamplePredicate =
                index % 2 == 0
                ? .dateWindow(DateWindow(start: from, end: nil, strictStartDate: true))
                : .and([.dateWindow(DateWindow(start: from, end: Fixtures.at(50)))])
            let sort = [SampleSortDescriptor(.startDate, ascending: index % 3 != 0)]
            queries.append(SampleQuery(type: Fixtures.steps, predicate: predicate, sort: sort))
        }
        func values(_ samples: [Sample]) -> [Double] {
            samples.map { sample -> Double in
                if case .quantity(let quantity) = sample.value { return quantity.value }
                return .nan
            }
        }
        var expected: [[Double]] = []
        for query in queries {
            expected.append(values(try await store.samples(query).collect()))
        }
        var iterators = try queries.map { try store.samples($0, pageSize: 3).makeAsyncIterator() }
        var seen = Array(repeating: [Double](), count: queries.count)
        var open = Set(queries.indices)
        while !open.isEmpty {
            for index in open.sorted() {
                if let page = try await iterators[index].next() {
                    seen[index] += values(page)
                } else {
                    open.remove(index)
                }
            }
        }
        #expect(seen == expected)
        #expect(expected.allSatisfy { !$0.isEmpty })
    }
}
