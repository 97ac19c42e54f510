import Foundation
import SalusModel
import SalusStore

/// Computes statistics from samples held in memory: the engine's core, with no I/O.
///
/// Feed it samples with `add(_:)` (any order, any unit compatible with the type's canonical
/// unit), then ask for `compute(boundaries:)`. The rules, which docs/statistics.md explains with
/// examples:
///
/// **Cumulative types (sums).** A sample with a duration spreads its value evenly over its time
/// span; the part of it inside an interval is pro-rated by overlap. Merged across sources, a
/// sweep cuts time at every sample start, sample end and interval boundary; in each elementary
/// piece only the *highest-ranked open sample* wins, and every open sample **of the winner's
/// source** counts (a source never merges with itself: two overlapping samples of one app both
/// count). Rank: the owner's `SourcePriority` for the type (unlisted sources below listed
/// ones), then the most recently saved (`creationDate`), then the earlier start, the earlier
/// end, the larger value, and finally the order samples were added. A point sample
/// (`startDate == endDate`) occupies no time, so it takes no part in the sweep: it counts whole
/// in the interval containing its instant.
///
/// **Discrete types.** A sample belongs to the interval containing its `startDate`; all
/// sources count (no merge). Minimum and maximum are over values; the most recent sample is the
/// one with the latest end, then latest start, then latest `creationDate`. Averages by style:
/// - `discreteArithmetic`: the mean of the values;
/// - `discreteTemporallyWeighted`: the mean weighted by time. A sample with a duration weighs its
///   duration. A point sample holds its value until the next *later* sample start among the
///   samples computed together (all sources when merged, one source's own samples per source),
///   but at most `pointHoldLimit` (10 minutes): a gap longer than that is not filled. The last
///   point sample holds for `pointHoldLimit`. If every weight is zero the arithmetic mean is used;
/// - `discreteEquivalentContinuousLevel`: the energy average of decibels with the same weights,
///   `10·log10(Σ wᵢ·10^(Lᵢ/10) / Σ wᵢ)` (IEC 61672-1 Leq).
///
/// **Duration** is the length of the union of the counted samples' spans inside the interval
/// (for merged cumulative statistics, the time some source was counted).
package struct StatisticsCalculator: Sendable {
    /// How long a point sample's value holds in a time-weighted average when no later sample
    /// comes sooner.
    package static let pointHoldLimit: TimeInterval = 600

    /// One sample reduced to what statistics need: times as seconds since the reference date,
    /// the value in the canonical unit.
    package struct Entry: Hashable, Sendable {
        /// Start, seconds since 2001-01-01.
        package var start: Double
        /// End, seconds since 2001-01-01.
        package var end: Double
        /// The value in the type's canonical unit.
        package var value: Double
        /// The index of the source in `StatisticsCalculator.sourceIDs`.
        package var source: Int
        /// When the sample was saved, seconds since 2001-01-01.
        package var created: Double
    }

    /// The type.
    package let type: TypeIdentifier
    /// The type's aggregation style.
    package let style: AggregationStyle
    /// The unit values are held in.
    package let canonicalUnit: SalusUnit
    /// The options.
    package let options: StatisticsOptions
    /// The owner's ranking of sources.
    package let priority: SourcePriority
    /// The app ids seen, by index.
    package private(set) var sourceIDs: [String] = []
    private var sourceIndex: [String: Int] = [:]
    private var refIndex: [Int64: Int] = [:]
    private var lastRef: (ref: Int64, index: Int)?
    /// The samples added, in order.
    package private(set) var entries: [Entry] = []

    /// Creates a calculator after checking the options against the style.
    package init(
        type: TypeIdentifier, style: AggregationStyle, canonicalUnit: SalusUnit, options: StatisticsOptions,
        priority: SourcePriority = .none
    ) throws(StoreError) {
        try options.validate(for: type, style: style)
        self.type = type
        self.style = style
        self.canonicalUnit = canonicalUnit
        self.options = options
        self.priority = priority
    }

    /// Adds a quantity sample; other kinds are ignored. Throws `invalidArgument` for a unit of
    /// another dimension than the canonical unit.
    package mutating func add(_ sample: Sample) throws(StoreError) {
        guard case .quantity(let quantity) = sample.value else { return }
        let value: Double
        if quantity.unit == canonicalUnit {
            value = quantity.value
        } else {
            do {
                value = try quantity.doubleValue(for: canonicalUnit)
            } catch {
                throw StoreError(
                    code: .invalidArgument, field: "samples.value.unit", value: "\(quantity.unit)",
                    expected: "a unit compatible with \(canonicalUnit)")
            }
        }
        add(
            start: sample.startDate, end: sample.endDate, value: value, source: sample.sourceRevision.appID,
            created: sample.creationDate)
    }

    /// Adds a value already in the canonical unit.
    package mutating func add(start: Date, end: Date, value: Double, source: String, created: Date) {
        entries.append(
            Entry(
                start: start.timeIntervalSinceReferenceDate, end: max(end, start).timeIntervalSinceReferenceDate,
                value: value, source: index(of: source), created: created.timeIntervalSinceReferenceDate))
    }

    /// Adds a row of the store's lean read (`SampleStore.reduceQuantities`), whose value is in
    /// the canonical unit; `appIDs` names the row's `appRef`.
    package mutating func add(_ row: QuantityRow, appIDs: [Int64: String]) {
        let source: Int
        if let last = lastRef, last.ref == row.appRef {
            source = last.index
        } else if let known = refIndex[row.appRef] {
            source = known
            lastRef = (row.appRef, known)
        } else {
            source = index(of: appIDs[row.appRef] ?? "")
            refIndex[row.appRef] = source
            lastRef = (row.appRef, source)
        }
        let start = Self.seconds(row.startMicroseconds)
        entries.append(
            Entry(
                start: start, end: max(Self.seconds(row.endMicroseconds), start), value: row.value, source: source,
                created: Self.seconds(row.creationMicroseconds)))
    }

    /// Microseconds since 1970 as seconds since the reference date, as `Date` computes them.
    static func seconds(_ microseconds: Int64) -> Double {
        Double(microseconds) / 1_000_000 - Date.timeIntervalBetween1970AndReferenceDate
    }

    private mutating func index(of source: String) -> Int {
        if let known = sourceIndex[source] { return known }
        let index = sourceIDs.count
        sourceIDs.append(source)
        sourceIndex[source] = index
        return index
    }

    /// Statistics for each interval between consecutive `boundaries` (ascending; n + 1
    /// boundaries give n intervals). Use `[-infinity, +infinity]` for one unbounded interval.
    package func compute(boundaries: [Double], unit: SalusUnit? = nil) throws(StoreError) -> [Statistics] {
        let target = unit ?? canonicalUnit
        guard target.isCompatible(with: canonicalUnit) else {
            throw StoreError(
                code: .invalidArgument, field: "unit", value: "\(target)",
                expected: "a unit compatible with \(canonicalUnit), the unit of \(type)")
        }
        let count = max(boundaries.count - 1, 0)
        // By start, then the order added; the store's lean read already comes in start order.
        var order = Array(entries.indices)
        if zip(entries, entries.dropFirst()).contains(where: { $0.start > $1.start }) {
            order.sort { a, b in entries[a].start != entries[b].start ? entries[a].start < entries[b].start : a < b }
        }
        let merged = accumulate(order: order, boundaries: boundaries, merge: true)
        var perSource: [[Accumulator]] = []
        if options.contains(.separateBySource) {
            for source in sourceIDs.indices {
                perSource.append(accumulate(order: order.filter { entries[$0].source == source }, boundaries: boundaries, merge: false))
            }
        }
        var results: [Statistics] = []
        results.reserveCapacity(count)
        for bucket in 0..<count {
            let accumulator = merged[bucket]
            var start = boundaries[bucket], end = boundaries[bucket + 1]
            if !start.isFinite { start = accumulator.earliest ?? -Double.infinity }
            if !end.isFinite { end = accumulator.latest ?? Double.infinity }
            var statistics = Statistics(
                type: type,
                startDate: start.isFinite ? Date(timeIntervalSinceReferenceDate: start) : .distantPast,
                endDate: end.isFinite ? Date(timeIntervalSinceReferenceDate: end) : .distantFuture,
                values: try values(accumulator, unit: target),
                sources: accumulator.sources.members.map { sourceIDs[$0] }.sorted())
            for (source, accumulators) in perSource.enumerated() where !accumulators[bucket].sources.isEmpty {
                statistics.bySource[sourceIDs[source]] = try values(accumulators[bucket], unit: target)
            }
            results.append(statistics)
        }
        return results
    }

    // MARK: Accumulation

    struct Accumulator {
        var sum = 0.0
        var counted = false
        var count = 0
        var total = 0.0
        var weight = 0.0
        var weighted = 0.0
        var minimum: Double?
        var maximum: Double?
        var mostRecent: Int?
        var duration = 0.0
        var sources = SourceSet()
        var earliest: Double?
        var latest: Double?

        mutating func cover(_ start: Double, _ end: Double) {
            earliest = min(earliest ?? start, start)
            latest = max(latest ?? end, end)
        }
    }

    /// The sources that counted in an interval: a bit set for the first 64, a set beyond.
    struct SourceSet {
        var low: UInt64 = 0
        var high = Set<Int>()

        mutating func insert(_ source: Int) {
            if source < 64 { low |= 1 << UInt64(source) } else { high.insert(source) }
        }

        var isEmpty: Bool { low == 0 && high.isEmpty }

        var members: [Int] { (0..<64).filter { low & (1 << UInt64($0)) != 0 } + high.sorted() }
    }

    /// Whether entry `a` outranks entry `b` in the merge (see the type's documentation).
    @inline(__always)
    func outranks(_ a: Int, _ b: Int, sourceRanks: [Int]) -> Bool {
        let x = entries[a], y = entries[b]
        let rx = sourceRanks[x.source], ry = sourceRanks[y.source]
        if rx != ry { return rx < ry }
        if x.created != y.created { return x.created > y.created }
        if x.start != y.start { return x.start < y.start }
        if x.end != y.end { return x.end < y.end }
        if x.value != y.value { return x.value > y.value }
        return a < b
    }

    func accumulate(order: [Int], boundaries: [Double], merge: Bool) -> [Accumulator] {
        let count = max(boundaries.count - 1, 0)
        var accumulators = Array(repeating: Accumulator(), count: count)
        guard count > 0, !order.isEmpty else { return accumulators }
        if style.isCumulative {
            sweep(order: order, boundaries: boundaries, merge: merge, into: &accumulators)
            // Point samples count whole where their instant falls.
            var bucket = 0
            for index in order where entries[index].start == entries[index].end {
                let entry = entries[index]
                guard let found = Self.bucket(of: entry.start, boundaries: boundaries, from: &bucket) else { continue }
                accumulators[found].sum += entry.value
                accumulators[found].counted = true
                accumulators[found].sources.insert(entry.source)
                accumulators[found].cover(entry.start, entry.end)
            }
        } else {
            discrete(order: order, boundaries: boundaries, into: &accumulators)
            if options.contains(.duration) {
                var durations = Array(repeating: Accumulator(), count: count)
                sweep(order: order, boundaries: boundaries, merge: false, into: &durations)
                for bucket in 0..<count { accumulators[bucket].duration = durations[bucket].duration }
            }
        }
        return accumulators
    }

    /// The bucket containing `time`, searching forward from `hint` (times must not decrease
    /// between calls sharing a hint).
    static func bucket(of time: Double, boundaries: [Double], from hint: inout Int) -> Int? {
        let count = boundaries.count - 1
        guard time >= boundaries[0], time < boundaries[count] else { return nil }
        while hint < count - 1 && boundaries[hint + 1] <= time { hint += 1 }
        return hint
    }

    /// The sweep over samples with a duration: pro-rated sums (merged by rank when `merge`) and
    /// covered time.
    func sweep(order: [Int], boundaries: [Double], merge: Bool, into accumulators: inout [Accumulator]) {
        let spans = order.filter { entries[$0].end > entries[$0].start }
        guard !spans.isEmpty else { return }
        let sourceRanks = sourceIDs.map { priority.rank(of: $0) }
        let count = boundaries.count - 1
        let first = boundaries[0], last = boundaries[count]
        var open: [Int] = []
        var next = 0
        var bucket = 0
        var time = entries[spans[0]].start
        while next < spans.count || !open.isEmpty {
            if open.isEmpty { time = max(time, entries[spans[next]].start) }
            while next < spans.count && entries[spans[next]].start <= time {
                open.append(spans[next])
                next += 1
            }
            open.removeAll { entries[$0].end <= time }
            if open.isEmpty { continue }
            if time >= last { break }
            var until = entries[open[0]].end
            for index in open where entries[index].end < until { until = entries[index].end }
            if next < spans.count { until = min(until, entries[spans[next]].start) }
            if time < first {
                time = min(until, first)
                continue
            }
            while bucket < count - 1 && boundaries[bucket + 1] <= time { bucket += 1 }
            until = min(until, boundaries[bucket + 1])
            let piece = until - time
            var winner = -1
            if merge {
                var best = open[0]
                for index in open.dropFirst() where outranks(index, best, sourceRanks: sourceRanks) { best = index }
                winner = entries[best].source
            }
            var counted = false
            for index in open {
                let entry = entries[index]
                guard !merge || entry.source == winner else { continue }
                accumulators[bucket].sum += entry.value * piece / (entry.end - entry.start)
                accumulators[bucket].sources.insert(entry.source)
                counted = true
            }
            if counted {
                accumulators[bucket].counted = true
                accumulators[bucket].duration += piece
                accumulators[bucket].cover(time, until)
            }
            time = until
        }
    }

    /// Discrete statistics: each sample in the bucket of its start.
    func discrete(order: [Int], boundaries: [Double], into accumulators: inout [Accumulator]) {
        let weights = style == .discreteArithmetic ? [] : timeWeights(order)
        var bucket = 0
        for (position, index) in order.enumerated() {
            let entry = entries[index]
            guard let found = Self.bucket(of: entry.start, boundaries: boundaries, from: &bucket) else { continue }
            var accumulator = accumulators[found]
            accumulator.counted = true
            accumulator.count += 1
            accumulator.total += entry.value
            accumulator.minimum = min(accumulator.minimum ?? entry.value, entry.value)
            accumulator.maximum = max(accumulator.maximum ?? entry.value, entry.value)
            accumulator.sources.insert(entry.source)
            accumulator.cover(entry.start, entry.end)
            if style != .discreteArithmetic {
                let weight = weights[position]
                accumulator.weight += weight
                accumulator.weighted +=
                    weight * (style == .discreteEquivalentContinuousLevel ? pow(10, entry.value / 10) : entry.value)
            }
            if let current = accumulator.mostRecent {
                let old = entries[current]
                if (entry.end, entry.start, entry.created) >= (old.end, old.start, old.created) {
                    accumulator.mostRecent = index
                }
            } else {
                accumulator.mostRecent = index
            }
            accumulators[found] = accumulator
        }
    }

    /// The weight of each sample of `order` (sorted by start) in a time-weighted average.
    func timeWeights(_ order: [Int]) -> [Double] {
        var weights = Array(repeating: 0.0, count: order.count)
        var nextLater = Double.infinity
        var position = order.count - 1
        while position >= 0 {
            // Samples starting at the same instant share the next later start.
            let start = entries[order[position]].start
            var first = position
            while first > 0 && entries[order[first - 1]].start == start { first -= 1 }
            for member in first...position {
                let entry = entries[order[member]]
                weights[member] = entry.end > entry.start
                    ? entry.end - entry.start : min(nextLater - entry.start, Self.pointHoldLimit)
            }
            nextLater = start
            position = first - 1
        }
        return weights
    }

    func values(_ accumulator: Accumulator, unit: SalusUnit) throws(StoreError) -> StatisticValues {
        guard accumulator.counted else { return .empty }
        func quantity(_ value: Double) throws(StoreError) -> Quantity {
            if unit == canonicalUnit { return Quantity(value: value, unit: unit) }
            do {
                return Quantity(value: try canonicalUnit.convert(value, to: unit), unit: unit)
            } catch {
                throw StoreError(
                    code: .invalidArgument, field: "unit", value: "\(unit)",
                    expected: "a unit compatible with \(canonicalUnit), the unit of \(type)")
            }
        }
        var values = StatisticValues()
        if options.contains(.cumulativeSum) { values.sum = try quantity(accumulator.sum) }
        if options.contains(.discreteMin), let minimum = accumulator.minimum { values.minimum = try quantity(minimum) }
        if options.contains(.discreteMax), let maximum = accumulator.maximum { values.maximum = try quantity(maximum) }
        if options.contains(.discreteAverage), accumulator.count > 0 {
            let arithmetic = accumulator.total / Double(accumulator.count)
            switch style {
            case .cumulative, .discreteArithmetic:
                values.average = try quantity(arithmetic)
            case .discreteTemporallyWeighted:
                values.average = try quantity(accumulator.weight > 0 ? accumulator.weighted / accumulator.weight : arithmetic)
            case .discreteEquivalentContinuousLevel:
                values.average = try quantity(
                    accumulator.weight > 0 ? 10 * log10(accumulator.weighted / accumulator.weight) : arithmetic)
            }
        }
        if options.contains(.mostRecent), let index = accumulator.mostRecent {
            let entry = entries[index]
            values.mostRecent = try quantity(entry.value)
            values.mostRecentInterval = DateInterval(
                start: Date(timeIntervalSinceReferenceDate: entry.start), end: Date(timeIntervalSinceReferenceDate: entry.end))
        }
        if options.contains(.duration) {
            values.duration = Quantity(value: accumulator.duration, unit: StatisticsCalculator.seconds)
        }
        return values
    }

    /// The unit of durations.
    package static let seconds: SalusUnit = try! SalusUnit(parsing: "s")
}
