import Foundation
import SalusModel

/// The results of a sample query, as an asynchronous sequence of pages.
///
/// Memory stays bounded whatever the result size: each `next()` reads at most `pageSize`
/// samples on a reader connection, in its own short read transaction, and resumes after the last
/// sample it returned (keyset pagination on the sort keys and the row id), so no reader is held
/// while the consumer is slow. **Consistency:** every sample that exists for the whole iteration
/// is returned exactly once, in order; a sample saved or deleted while the iteration runs may or
/// may not appear. For one consistent snapshot of a changing set, use an anchored query.
///
/// Iteration stops with the last page, at the limit, or when the task is cancelled
/// (`CancellationError`). Iterating it twice runs the query twice.
package struct SamplePages: AsyncSequence, Sendable {
    /// Each element is one page of at most `pageSize` samples, never empty.
    package typealias Element = [Sample]

    let readers: ReaderPool
    package let plan: Plan
    /// The most samples in one page.
    package let pageSize: Int

    package struct Plan: Sendable {
        var type: TypeIdentifier
        var filter: SQLFragment
        var keys: [(column: String, descending: Bool)]
        var limit: Int?
        /// Where the wire path may cut the result in two by start (`SampleWirePages`): set for a
        /// query in start order with no limit whose predicate bounds a date window, at the
        /// window's middle. Nil: one part.
        package var split: Int64?

        /// The same plan for the rows before (`part` 0) or from (`part` 1) `split`, in the
        /// plan's order: for a descending order, the later rows come first.
        ///
        /// The split's bound comes before the filter's (after a page's cursor, which is tighter
        /// still): of two bounds on one side that cost the same, SQLite seeks the index with the
        /// first (see `pageStatement`), so with the window's first the second half's first page
        /// stepped over every row of the first half, and the first half's last page over every
        /// row of the second.
        package func part(_ part: Int) -> Plan {
            guard let split else { return self }
            let descending = keys.first?.descending ?? false
            let before = (part == 0) != descending
            var plan = self
            plan.filter = SQLFragment(
                sql: "r.start_us \(before ? "<" : ">=") ? AND (\(filter.sql))", arguments: [.integer(split)] + filter.arguments)
            plan.split = nil
            return plan
        }
    }

    /// The iterator.
    package struct AsyncIterator: AsyncIteratorProtocol {
        let readers: ReaderPool
        let plan: Plan
        let pageSize: Int
        var cursor: [Int64]?
        var delivered = 0
        var finished = false

        /// The next page, or nil after the last one.
        package mutating func next() async throws -> [Sample]? {
            guard !finished else { return nil }
            try Task.checkCancellation()
            let size = plan.limit.map { Swift.min(pageSize, $0 - delivered) } ?? pageSize
            guard size > 0 else {
                finished = true
                return nil
            }
            let (plan, cursor) = (self.plan, self.cursor)
            let (samples, last) = try await readers.run { database in
                try SamplePages.page(database, plan: plan, after: cursor, size: size)
            }
            delivered += samples.count
            if samples.count < size { finished = true }
            self.cursor = last
            return samples.isEmpty ? nil : samples
        }
    }

    /// Makes an iterator that starts at the first sample.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(readers: readers, plan: plan, pageSize: pageSize)
    }

    /// Every sample, gathered into one array; for small results and tests.
    package func collect() async throws -> [Sample] {
        var all: [Sample] = []
        for try await page in self { all += page }
        return all
    }

    static func keysetCondition(_ keys: [(column: String, descending: Bool)], cursor: [Int64]) -> SQLFragment {
        if Set(keys.map(\.descending)).count == 1 {
            let columns = keys.map(\.column).joined(separator: ", ")
            let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
            return SQLFragment(
                sql: "((\(columns)) \(keys[0].descending ? "<" : ">") (\(marks)))",
                arguments: cursor.map { .integer($0) })
        }
        var alternatives: [String] = []
        var arguments: [SQLValue] = []
        for index in keys.indices {
            var tests: [String] = []
            for earlier in 0..<index {
                tests.append("\(keys[earlier].column) = ?")
                arguments.append(.integer(cursor[earlier]))
            }
            tests.append("\(keys[index].column) \(keys[index].descending ? "<" : ">") ?")
            arguments.append(.integer(cursor[index]))
            alternatives.append("(" + tests.joined(separator: " AND ") + ")")
        }
        return SQLFragment(sql: "(" + alternatives.joined(separator: " OR ") + ")", arguments: arguments)
    }

    /// The statement that reads one page: `size` rows after `cursor`, of `SampleRows.columns` or,
    /// for the wire path (`wire`), of `SampleRows.wireColumns`.
    ///
    /// The cursor's condition comes first in the WHERE clause. A date window also bounds the sort
    /// column (`r.start_us >= ?`), and of two bounds on one side that cost the same SQLite seeks
    /// the index with the first: with the window's, a page would step over every earlier row of
    /// the window, so a query of n pages cost O(n²) index steps.
    package static func pageStatement(
        _ database: Database, plan: Plan, after cursor: [Int64]?, size: Int, wire: Bool = false
    ) throws -> Statement {
        var sql =
            (wire ? "SELECT \(SampleRows.wireColumns) FROM samples r" : "SELECT \(SampleRows.columns) \(SampleRows.from)")
            + " WHERE "
        var arguments: [SQLValue] = []
        if let cursor {
            let condition = keysetCondition(plan.keys, cursor: cursor)
            sql += "\(condition.sql) AND "
            arguments += condition.arguments
        }
        sql += "r.type_id = (SELECT id FROM types WHERE identifier = ?) AND \(plan.filter.sql)"
        arguments += [.text(plan.type.rawValue)] + plan.filter.arguments
        if let bounds = try endOrderBounds(database, plan: plan, after: cursor, size: size) {
            sql += " AND \(bounds.sql)"
            arguments += bounds.arguments
        }
        sql += " ORDER BY " + plan.keys.map { "\($0.column) \($0.descending ? "DESC" : "ASC")" }.joined(separator: ", ")
        sql += " LIMIT ?"
        arguments.append(.integer(Int64(size)))
        let statement = try database.prepareRecent(sql)
        try statement.bind(arguments)
        return statement
    }

    /// For a page in end-date order, the range of starts its rows lie in, on the (type, start)
    /// index (schema 15 has no (type, end) index); nil when the page needs no bound.
    ///
    /// A sample ends at most the type's longest span (`type_spans`) after it starts. Ascending,
    /// after a row ending at `c`: every row left ends at or after `c`, so starts at or after
    /// `c - longest`; and once the `size`-th row of the rows starting up to `h` ends at or before
    /// `h`, no row starting after `h` (so ending after `h`) can come before it. The bound `h` is
    /// found by probing windows four times wider each time, each probe a read of the window's
    /// rows. Descending is the mirror. So a page reads about its own rows plus one longest span,
    /// instead of every remaining sample of the type.
    static func endOrderBounds(_ database: Database, plan: Plan, after cursor: [Int64]?, size: Int) throws -> SQLFragment? {
        guard let first = plan.keys.first, first.column == "r.end_us", size > 0,
            let typeID = try database.scalarInt("SELECT id FROM types WHERE identifier = ?", [.text(plan.type.rawValue)]),
            let minStart = try database.scalarInt("SELECT min(start_us) FROM samples WHERE type_id = ?", [.integer(typeID)]),
            let maxStart = try database.scalarInt("SELECT max(start_us) FROM samples WHERE type_id = ?", [.integer(typeID)])
        else { return nil }
        let longest = Swift.max(0, try database.scalarInt("SELECT max_span_us FROM type_spans WHERE type_id = ?", [.integer(typeID)]) ?? 0)
        func plus(_ a: Int64, _ b: Int64) -> Int64 {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? (b > 0 ? .max : .min) : sum
        }
        let descending = first.descending
        // The fixed side: what the cursor (or the type's first or last start) implies.
        let fixed = descending ? Swift.min(cursor.map { $0[0] } ?? maxStart, maxStart) : Swift.max(cursor.map { plus($0[0], -longest) } ?? minStart, minStart)
        var step = Swift.max(longest, Int64(60_000_000))
        let condition = cursor.map { keysetCondition(plan.keys, cursor: $0) }
        while true {
            // The moving side, and the end every row outside the window lies beyond.
            let moving = descending ? plus(fixed, -step) : plus(fixed, step)
            let beyond = descending ? plus(moving, longest) : moving
            if descending ? moving <= minStart : moving >= maxStart { break }
            let range = "r.start_us >= ? AND r.start_us <= ?"
            let rangeArguments: [SQLValue] = descending ? [.integer(moving), .integer(fixed)] : [.integer(fixed), .integer(moving)]
            var sql = "SELECT r.end_us FROM samples r WHERE "
            var arguments: [SQLValue] = []
            if let condition {
                sql += "\(condition.sql) AND "
                arguments += condition.arguments
            }
            sql += "r.type_id = ? AND \(plan.filter.sql) AND \(range) ORDER BY "
                + plan.keys.map { "\($0.column) \($0.descending ? "DESC" : "ASC")" }.joined(separator: ", ")
                + " LIMIT 1 OFFSET ?"
            arguments += [.integer(typeID)] + plan.filter.arguments + rangeArguments + [.integer(Int64(size - 1))]
            let probe = try database.prepareRecent(sql)
            defer { probe.reset() }
            try probe.bind(arguments)
            if try probe.step() {
                let end = probe.int64(0)
                if descending ? end >= beyond : end <= beyond {
                    return SQLFragment(sql: range, arguments: rangeArguments)
                }
            }
            guard step < Int64.max / 4 else { break }
            step *= 4
        }
        // The window reached the type's first or last start: only the fixed side bounds it.
        return SQLFragment(sql: descending ? "r.start_us <= ?" : "r.start_us >= ?", arguments: [.integer(fixed)])
    }

    /// The keyset cursor after a row with these keys.
    package static func cursor(_ plan: Plan, id: Int64, start: Int64, end: Int64) -> [Int64] {
        plan.keys.map { key -> Int64 in
            switch key.column {
            case "r.start_us": start
            case "r.end_us": end
            default: id
            }
        }
    }

    static func page(_ database: Database, plan: Plan, after cursor: [Int64]?, size: Int) throws
        -> ([Sample], [Int64]?)
    {
        try database.transaction(immediate: false) {
            let statement = try pageStatement(database, plan: plan, after: cursor, size: size)
            defer { statement.reset() }
            var decoder = SampleRowDecoder()
            var rows: [DecodedRow] = []
            while try statement.step() { rows.append(try decoder.decode(statement)) }
            let last = rows.last.map { SamplePages.cursor(plan, id: $0.id, start: $0.startMicroseconds, end: $0.endMicroseconds) }
            return (try SampleRows.samples(database, rows: rows), last)
        }
    }

    /// The same query, read as the bytes of `salus.v1.SampleBatch` pages by `encoder` with no
    /// model sample in between; see `SampleWirePages`. Not for correlation types, which need the
    /// model (reading one fails).
    ///
    /// With `firstPageSize`, the first page holds at most that many samples and each next page
    /// twice the one before, up to `pageSize`: a client can start reading a result while the
    /// daemon reads the rest, and the last page it waits for is small (see `SampleWirePages`).
    /// Each page is counted by `hold` as it is read (`PageHold`).
    package func wire(_ encoder: SampleWireEncoder, firstPageSize: Int? = nil, hold: PageHold = .none) -> SampleWirePages {
        SampleWirePages(
            readers: readers, plan: plan, pageSize: pageSize,
            firstPageSize: firstPageSize.map { Swift.max(1, Swift.min($0, pageSize)) } ?? pageSize, encoder: encoder,
            hold: hold)
    }
}

/// A sample query's pages as the serialized `salus.v1.SampleBatch` messages a client receives,
/// written straight from the rows (`SampleWireEncoder`); same order, paging, memory bound and
/// consistency as `SamplePages`. A page is one statement in one read transaction; each row's
/// metadata is a column of it (`MetadataBlob`), copied as it is.
package struct SampleWirePages: AsyncSequence, Sendable {
    /// A page: a serialized `SampleBatch` (field 1 repeated) and how many samples it holds.
    package typealias Element = WirePage

    let readers: ReaderPool
    let plan: SamplePages.Plan
    let pageSize: Int
    /// The most samples in the first page; each next page may hold twice the one before, up to
    /// `pageSize`. A page is read whole before it is sent, so the client waits for the first
    /// page's rows before it reads any, and decodes the last page after the daemon has read
    /// everything: with pages of 2,000 a day's heart rate (4,110 rows) was two full pages read
    /// one after the other, then 2,110 rows decoded while nothing else ran. Growing from a small
    /// page, the client decodes each page while the daemon reads the next, and a large result
    /// still goes in pages of `pageSize`.
    let firstPageSize: Int
    let encoder: SampleWireEncoder
    /// Counts each page as it is read, ahead or not (`PageHold`).
    let hold: PageHold

    /// A page ends at this many bytes of samples even before `pageSize` of them: a page is one
    /// frame, which must stay under the 4 MiB limit whatever its samples hold.
    static let pageBytes = 1 << 20

    /// One page read: the page, the cursor after its last row, whether it ended early at
    /// `pageBytes`, and how many samples it was allowed.
    struct Read: Sendable {
        var page: WirePage
        var last: [Int64]?
        var full: Bool
        var size: Int
    }

    /// One part's reading: its plan, where it is, and its page read ahead.
    struct Part {
        let plan: SamplePages.Plan
        /// The most samples the next page holds (before the limit).
        var nextPageSize: Int
        var cursor: [Int64]?
        var delivered = 0
        var finished = false
        var ahead: ReadAhead<Read>?
        var started = false

        /// The size of the next page to read (within the limit), and the one after it grows to;
        /// nil when the limit is reached.
        mutating func takeNextSize(pageSize: Int) -> Int? {
            let size = plan.limit.map { Swift.min(nextPageSize, $0 - delivered) } ?? nextPageSize
            guard size > 0 else { return nil }
            nextPageSize = Swift.min(pageSize, nextPageSize * 2)
            return size
        }

        /// Starts the read of the part's next page on a reader.
        mutating func readAhead(readers: ReaderPool, pageSize: Int, builder: WirePageBuilder, hold: PageHold) {
            guard !finished, ahead == nil, let size = takeNextSize(pageSize: pageSize) else { return }
            started = true
            let (plan, cursor) = (self.plan, self.cursor)
            ahead = ReadAhead {
                try await AsyncIterator.read(readers: readers, plan: plan, after: cursor, size: size, builder: builder, hold: hold)
            }
        }

        /// The part's next page, or nil after its last one.
        mutating func next(readers: ReaderPool, pageSize: Int, builder: WirePageBuilder, hold: PageHold) async throws -> WirePage? {
            guard !finished else { return nil }
            try Task.checkCancellation()
            started = true
            let read: Read
            if let ahead {
                self.ahead = nil
                read = try await ahead.value()
            } else {
                guard let size = takeNextSize(pageSize: pageSize) else {
                    finished = true
                    return nil
                }
                read = try await AsyncIterator.read(readers: readers, plan: plan, after: cursor, size: size, builder: builder, hold: hold)
            }
            delivered += read.page.count
            if read.page.count < read.size && !read.full { finished = true }
            cursor = read.last
            guard read.page.count > 0 else {
                finished = true
                return nil
            }
            readAhead(readers: readers, pageSize: pageSize, builder: builder, hold: hold)
            return read.page
        }
    }

    /// The iterator.
    ///
    /// **Rule: the next page is read while the caller sends the one returned.** As each page is
    /// returned, the read of the next one starts on a reader, so the reader goes from page to
    /// page while the caller hands the page to the connection, and does not wait for the hops
    /// back to the caller and out again between pages. Each page is still one read transaction
    /// of its own.
    ///
    /// **Rule: a date window is read in two halves at once.** A query in start order with no
    /// limit whose predicate bounds a date window (`Plan.split`) is two parts: the rows starting
    /// before the window's middle and the rest (in a descending order, the other way round). The
    /// second part's first page (`pageSize` samples) is read on another reader from the start,
    /// while the first part's pages are read and sent; its pages follow the first part's, in
    /// order. A day's heart rate on the 20M store (4,110 rows) is read by two readers at once,
    /// where one read all of it before its last page could be sent; a small result costs the
    /// same two page reads as before, side by side instead of one after the other. Memory: three
    /// pages a query at most (the one being sent, the next of the first part, and the second
    /// part's first).
    package struct AsyncIterator: AsyncIteratorProtocol {
        let readers: ReaderPool
        let pageSize: Int
        let firstPageSize: Int
        let builder: WirePageBuilder
        let hold: PageHold
        var parts: [Part]
        var current = 0

        /// Whether the next page's read has been started (tests).
        package var isReadingAhead: Bool { current < parts.count && parts[current].ahead != nil }
        /// Whether the second half's first page is being read while the first half goes on (tests).
        package var isReadingSecondPart: Bool { parts.count == 2 && current == 0 && parts[1].started }
        /// How many parts the query is read in (tests).
        package var partCount: Int { parts.count }

        /// The next page, or nil after the last one.
        package mutating func next() async throws -> WirePage? {
            if current == 0 && parts.count == 2 && !parts[1].started {
                parts[1].readAhead(readers: readers, pageSize: pageSize, builder: builder, hold: hold)
            }
            while current < parts.count {
                if let page = try await parts[current].next(readers: readers, pageSize: pageSize, builder: builder, hold: hold) {
                    return page
                }
                current += 1
            }
            return nil
        }

        /// Reads one page of at most `size` samples after `cursor`, in a read transaction of its own.
        static func read(
            readers: ReaderPool, plan: SamplePages.Plan, after cursor: [Int64]?, size: Int, builder: WirePageBuilder,
            hold: PageHold
        ) async throws -> Read {
            try Task.checkCancellation()
            let read = try await readers.run { database in
                try database.transaction(immediate: false) { () throws -> Read in
                    try builder.page(on: database) { page in
                        let statement = try SamplePages.pageStatement(
                            database, plan: plan, after: cursor, size: size, wire: true)
                        defer { statement.reset() }
                        var full = false
                        while try statement.step() {
                            try page.addSample(statement, database)
                            // Large samples (documents with their data) end a page early.
                            if page.sampleBytes >= SampleWirePages.pageBytes {
                                full = true
                                break
                            }
                        }
                        let last = page.rows.last.map { SamplePages.cursor(plan, id: $0.id, start: $0.start, end: $0.end) }
                        return Read(
                            page: WirePage(bytes: page.encoded(samples: page.rows.indices), count: page.rows.count),
                            last: last, full: full, size: size)
                    }
                }
            }
            try hold.reserve(read.page.bytes.readableBytes)
            return read
        }
    }

    /// Makes an iterator that starts at the first sample.
    package func makeAsyncIterator() -> AsyncIterator {
        let parts =
            plan.split == nil
            ? [Part(plan: plan, nextPageSize: firstPageSize)]
            : [Part(plan: plan.part(0), nextPageSize: firstPageSize), Part(plan: plan.part(1), nextPageSize: pageSize)]
        return AsyncIterator(
            readers: readers, pageSize: pageSize, firstPageSize: firstPageSize, builder: WirePageBuilder(encoder: encoder),
            hold: hold, parts: parts)
    }
}
