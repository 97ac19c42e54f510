import Foundation
import SalusModel
import SalusProto
import SalusWire
import Testing
@testable import SalusKit

/// Statistics descriptors as the requests they send, interval components and their refusals,
/// and statistics and collections read from the daemon's answers.
@Suite("Statistics descriptors, requests and results")
struct StatisticsDescriptorTests {
    static let paris = TimeZone(identifier: "Europe/Paris")!

    static var parisCalendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = paris
        return calendar
    }

    static func paris(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Date {
        parisCalendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    static let steps = SampleTypePredicate.quantitySample(type: .stepCount)

    static func daily(_ components: DateComponents = DateComponents(day: 1)) -> StatisticsCollectionQueryDescriptor {
        StatisticsCollectionQueryDescriptor(
            predicate: steps, options: .cumulativeSum, anchorDate: paris(2026, 11, 16), intervalComponents: components, timeZone: paris)
    }

    // MARK: Options

    @Test("options map to wire values in the wire's order, and name themselves")
    func options() {
        #expect(StatisticsOptions.cumulativeSum.wire == [.cumulativeSum])
        let all: StatisticsOptions = [.separateBySource, .duration, .mostRecent, .discreteMax, .discreteMin, .discreteAverage, .cumulativeSum]
        #expect(all.wire == [.cumulativeSum, .discreteAverage, .discreteMin, .discreteMax, .mostRecent, .duration, .separateBySource])
        #expect(([.discreteMax, .discreteAverage] as StatisticsOptions).wire == [.discreteAverage, .discreteMax])
        #expect(StatisticsOptions().wire.isEmpty)
        #expect(StatisticsOptions().description == "none")
        #expect(([.separateBySource, .cumulativeSum] as StatisticsOptions).description == "cumulativeSum,separateBySource")
        #expect(Set(all.wire.map(\.rawValue)) == Set(1...7), "every option has its own wire value")
    }

    // MARK: Statistics query

    @Test("a statistics query sends type, predicate, options, unit and the window in microseconds")
    func statisticsRequest() {
        let window = DateInterval(start: Self.paris(2026, 11, 20), end: Self.paris(2026, 11, 21))
        let descriptor = StatisticsQueryDescriptor(
            predicate: .quantitySample(type: .stepCount, predicate: .sources(["org.example.watch"])),
            options: [.cumulativeSum, .separateBySource], window: window, unit: .count)
        let request = descriptor.request
        #expect(request.type == "HKQuantityTypeIdentifierStepCount")
        #expect(request.hasPredicate)
        #expect(request.options == [.cumulativeSum, .separateBySource])
        #expect(request.unit == "count")
        #expect(request.optionalWindowStart == .windowStart(1_795_129_200_000_000))
        #expect(request.optionalWindowEnd == .windowEnd(1_795_215_600_000_000))

        let plain = StatisticsQueryDescriptor(predicate: .samples(.quantity(.heartRate)), options: .discreteAverage).request
        #expect(plain.type == "HKQuantityTypeIdentifierHeartRate")
        #expect(!plain.hasPredicate)
        #expect(plain.unit.isEmpty, "no unit: the type's canonical unit")
        #expect(plain.optionalWindowStart == nil && plain.optionalWindowEnd == nil, "no window: neither bound is sent")
    }

    // MARK: Collection requests and interval components

    @Test(
        "each accepted interval component becomes count and unit",
        arguments: [
            (DateComponents(second: 30), UInt32(30), Salus_V1_IntervalUnit.second),
            (DateComponents(minute: 15), 15, .minute),
            (DateComponents(hour: 1), 1, .hour),
            (DateComponents(day: 1), 1, .day),
            (DateComponents(weekOfYear: 1), 1, .week),
            (DateComponents(weekOfMonth: 2), 2, .week),
            (DateComponents(month: 3), 3, .month),
        ])
    func intervalComponents(components: DateComponents, count: UInt32, unit: Salus_V1_IntervalUnit) throws {
        let request = try Self.daily(components).request(from: Self.paris(2026, 11, 16), to: Self.paris(2026, 11, 23), live: false)
        #expect(request.intervalCount == count)
        #expect(request.intervalUnit == unit)
    }

    @Test("a collection request sends anchor, range, time zone, options, unit and live")
    func collectionRequest() throws {
        var descriptor = Self.daily()
        descriptor.unit = .count
        descriptor.options = [.cumulativeSum, .duration]
        let request = try descriptor.request(from: Self.paris(2026, 11, 16), to: Self.paris(2026, 11, 23), live: true)
        #expect(request.type == "HKQuantityTypeIdentifierStepCount")
        #expect(request.options == [.cumulativeSum, .duration])
        #expect(request.unit == "count")
        #expect(request.anchorDate == WireDate.microseconds(Self.paris(2026, 11, 16)))
        #expect(request.anchorDate == 1_794_783_600_000_000)
        #expect(request.from == 1_794_783_600_000_000)
        #expect(request.to == 1_795_388_400_000_000)
        #expect(request.timeZone == "Europe/Paris")
        #expect(request.live)
        descriptor.timeZone = nil
        let daemonZone = try descriptor.request(from: Self.paris(2026, 11, 16), to: Self.paris(2026, 11, 23), live: false)
        #expect(daemonZone.timeZone.isEmpty, "no time zone: the daemon's")
        #expect(!daemonZone.live)
    }

    @Test(
        "interval components that are not one positive length are refused, naming the field, the value and what was expected",
        arguments: [
            (DateComponents(), "(no component)", "gives no interval length"),
            (DateComponents(day: 0), "day: 0", "is not a positive count"),
            (DateComponents(hour: -2), "hour: -2", "is not a positive count"),
            (DateComponents(day: 1, hour: 2), "hour: 2, day: 1", "gives 2 interval lengths"),
            (DateComponents(year: 1), "year: 1", "has year, which is not an interval length (for years, use month: 12)"),
            (DateComponents(day: 1, nanosecond: 5), "day: 1, nanosecond: 5", "has nanosecond, which is not an interval length"),
            (DateComponents(weekday: 2), "weekday: 2", "has weekday, which is not an interval length"),
            (DateComponents(second: Int.min), "second: \(Int.min)", "is not a positive count"),
        ])
    func refusedComponents(components: DateComponents, value: String, problem: String) {
        #expect {
            _ = try Self.daily(components).request(from: Self.paris(2026, 11, 16), to: Self.paris(2026, 11, 23), live: false)
        } throws: { error in
            guard let error = error as? SalusError else { return false }
            #expect(error.code == .invalidArgument)
            #expect(error.field == "intervalComponents")
            #expect(error.value == value)
            #expect(error.expected?.contains("exactly one of second, minute, hour, day, weekOfYear (or weekOfMonth) or month") == true)
            #expect(error.message == "intervalComponents: \(value) \(problem); expected \(error.expected ?? "")")
            #expect(error.statusCode == nil, "found by SalusKit, not the daemon")
            return true
        }
    }

    @Test(
        "interval lengths the daemon refuses (more than 100 years of the unit) are refused by SalusKit with the daemon's limit, before anything is sent",
        arguments: [
            (DateComponents(day: 36_526), "day: 36526", "at most 36525 days (100 years) in one interval"),
            (DateComponents(month: 1_201), "month: 1201", "at most 1200 months (100 years) in one interval"),
            (DateComponents(weekOfYear: 5_219), "weekOfYear: 5219", "at most 5218 weeks (100 years) in one interval"),
            (DateComponents(second: 3_155_760_001), "second: 3155760001", "at most 3155760000 seconds (100 years) in one interval"),
        ])
    func intervalLongerThanTheDaemonTakes(components: DateComponents, value: String, limit: String) {
        #expect {
            _ = try Self.daily(components).request(from: Self.paris(2026, 11, 16), to: Self.paris(2026, 11, 23), live: false)
        } throws: { error in
            guard let error = error as? SalusError else { return false }
            #expect(error.code == .invalidArgument)
            #expect(error.field == "intervalComponents")
            #expect(error.value == value)
            #expect(error.message == "intervalComponents: \(value) is longer than 100 years; expected \(limit)")
            #expect(error.statusCode == nil, "found by SalusKit, not the daemon")
            return true
        }
    }

    // MARK: Results

    static func values(sum: Double? = nil, average: Double? = nil, mostRecent: (Double, Int64, Int64)? = nil, duration: Double? = nil) -> Salus_V1_StatisticValues {
        var values = Salus_V1_StatisticValues()
        if let sum { values.sum = sum }
        if let average { values.average = average }
        if let (value, start, end) = mostRecent {
            values.mostRecent = value
            values.mostRecentStart = start
            values.mostRecentEnd = end
        }
        if let duration { values.duration = duration }
        return values
    }

    static func result(_ start: Date, _ end: Date, unit: String = "count", sum: Double? = nil, sources: [String] = [], bySource: [String: Double] = [:]) -> Salus_V1_StatisticsResult {
        var result = Salus_V1_StatisticsResult()
        result.startDate = WireDate.microseconds(start)
        result.endDate = WireDate.microseconds(end)
        result.unit = unit
        result.values = values(sum: sum)
        result.sources = sources
        result.bySource = bySource.mapValues { values(sum: $0) }
        return result
    }

    @Test("statistics read from the daemon's answer: merged and per-source quantities in the result's unit, dates, duration")
    func statisticsFromWire() throws {
        var wire = Self.result(Self.paris(2026, 11, 20), Self.paris(2026, 11, 21), sum: 5400, sources: ["org.example.phone", "org.example.watch"],
                               bySource: ["org.example.phone": 4200, "org.example.watch": 2700])
        wire.values.duration = 7200
        let statistics = try Statistics(received: wire, type: .quantity(.stepCount), requestedUnit: nil, path: "statistics")
        #expect(statistics.quantityType == .quantity(.stepCount))
        #expect(statistics.startDate == Self.paris(2026, 11, 20))
        #expect(statistics.endDate == Self.paris(2026, 11, 21))
        #expect(statistics.unit == .count)
        #expect(statistics.sumQuantity() == Quantity(value: 5400, unit: .count))
        #expect(statistics.duration() == Quantity(value: 7200, unit: .second))
        #expect(statistics.averageQuantity() == nil, "not asked for")
        #expect(statistics.sources == ["org.example.phone", "org.example.watch"])
        #expect(statistics.perSourceAppIDs == ["org.example.phone", "org.example.watch"])
        #expect(statistics.sumQuantity(for: "org.example.phone") == Quantity(value: 4200, unit: .count))
        #expect(statistics.sumQuantity(for: Source(appID: "org.example.watch", name: "Watch"))?.value == 2700)
        #expect(statistics.sumQuantity(for: "org.example.nobody") == nil)
        #expect(!statistics.isEmpty)

        var heart = Salus_V1_StatisticsResult()
        heart.startDate = 1_000_000
        heart.endDate = 4_000_000
        heart.unit = "count/min"
        heart.values = Self.values(average: 96, mostRecent: (120, 2_000_000, 2_000_000))
        let rate = try Statistics(received: heart, type: .quantity(.heartRate), requestedUnit: .countPerMinute, path: "statistics")
        #expect(rate.averageQuantity() == Quantity(value: 96, unit: .countPerMinute))
        #expect(rate.mostRecentQuantity()?.value == 120)
        #expect(rate.mostRecentQuantityDateInterval() == DateInterval(start: Date(timeIntervalSince1970: 2), duration: 0))
        #expect(rate.minimumQuantity() == nil && rate.maximumQuantity() == nil)
    }

    @Test("an empty answer is empty statistics over the window; a unit SalusKit cannot read is a malformed answer naming the field")
    func emptyAndMalformed() throws {
        var empty = Salus_V1_StatisticsResult()
        empty.unit = "count"
        let window = DateInterval(start: Self.paris(2026, 11, 20), end: Self.paris(2026, 11, 21))
        let statistics = try Statistics(received: empty, type: .quantity(.stepCount), requestedUnit: nil, window: window, path: "statistics")
        #expect(statistics.isEmpty)
        #expect(statistics.sumQuantity() == nil)
        #expect(statistics.startDate == window.start && statistics.endDate == window.end)
        let unbounded = try Statistics(received: empty, type: .quantity(.stepCount), requestedUnit: nil, path: "statistics")
        #expect(unbounded.startDate == .distantPast && unbounded.endDate == .distantFuture)

        var bad = empty
        bad.unit = "furlongs"
        #expect {
            _ = try Statistics(received: bad, type: .quantity(.stepCount), requestedUnit: nil, path: "batches[0].statistics[2]")
        } throws: { error in
            guard let error = error as? SalusError else { return false }
            return error.code == .malformedMessage && error.field == "batches[0].statistics[2].unit" && error.value == "furlongs"
        }
    }

    // MARK: Collections

    /// Days 16 to 22 November 2026 in Paris with sums 0, 100, 200, ... (the first empty).
    static func week() throws -> StatisticsCollection {
        let grid = IntervalGrid(anchor: paris(2026, 11, 16), interval: .day, calendar: parisCalendar)
        let days = try (16...22).map { day in
            try Statistics(
                received: result(paris(2026, 11, day), paris(2026, 11, day + 1), sum: day == 16 ? nil : Double((day - 16) * 100)),
                type: .quantity(.stepCount), requestedUnit: nil, path: "statistics")
        }
        return StatisticsCollection(statistics: days, grid: grid, type: .quantity(.stepCount), unit: .count)
    }

    @Test("a collection finds the interval of a date, enumerates any span with empty intervals outside its range, and stops when asked")
    func collection() throws {
        let week = try Self.week()
        #expect(week.statistics().count == 7)
        #expect(week.statistics(for: Self.paris(2026, 11, 18, 13, 30))?.sumQuantity()?.value == 200)
        #expect(week.statistics(for: Self.paris(2026, 11, 16))?.isEmpty == true)
        #expect(week.statistics(for: Self.paris(2026, 11, 23)) == nil, "after the computed range")
        #expect(week.statistics(for: Self.paris(2026, 11, 15, 23)) == nil, "before the computed range")

        var seen: [(Date, Double?)] = []
        week.enumerateStatistics(from: Self.paris(2026, 11, 14, 12), to: Self.paris(2026, 11, 18)) { statistics, _ in
            seen.append((statistics.startDate, statistics.sumQuantity()?.value))
        }
        #expect(seen.map(\.0) == (14...17).map { Self.paris(2026, 11, $0) }, "from the day containing from to the day before to")
        #expect(seen.map(\.1) == [nil, nil, nil, 100])

        var count = 0
        week.enumerateStatistics(from: Self.paris(2026, 11, 16), to: Self.paris(2026, 11, 23)) { _, stop in
            count += 1
            stop = count == 2
        }
        #expect(count == 2)
    }

    @Test("days follow the time zone's wall clock across DST: 25 hours on 2025-10-26 in Paris")
    func daylightSaving() {
        let anchor = Self.paris(2025, 10, 20)
        let grid = IntervalGrid(anchor: anchor, interval: .day, calendar: Self.parisCalendar)
        let days = grid.intervals(from: Self.paris(2025, 10, 25, 12), to: Self.paris(2025, 10, 27, 1))
        #expect(days.map(\.start) == [Self.paris(2025, 10, 25), Self.paris(2025, 10, 26), Self.paris(2025, 10, 27)])
        #expect(days.map(\.duration) == [86_400, 90_000, 86_400])
        #expect(grid.index(containing: Self.paris(2025, 10, 19, 23, 59)) == -1, "intervals extend before the anchor")
        let months = IntervalGrid(anchor: Self.paris(2026, 1, 31), interval: .month, calendar: Self.parisCalendar)
        #expect(months.start(ofInterval: 1) == Self.paris(2026, 2, 28))
        #expect(months.start(ofInterval: 2) == Self.paris(2026, 3, 31), "computed from the anchor, not by stepping")
    }

    @Test("merging an update replaces only the intervals it carries")
    func merging() throws {
        let week = try Self.week()
        let changed = try Statistics(
            received: Self.result(Self.paris(2026, 11, 18), Self.paris(2026, 11, 19), sum: 950), type: .quantity(.stepCount),
            requestedUnit: nil, path: "statistics")
        let outside = try Statistics(
            received: Self.result(Self.paris(2026, 11, 30), Self.paris(2026, 12, 1), sum: 1), type: .quantity(.stepCount),
            requestedUnit: nil, path: "statistics")
        let merged = week.merging([changed, outside])
        #expect(merged.statistics().map { $0.sumQuantity()?.value } == [nil, 100, 950, 300, 400, 500, 600])
        #expect(merged.statistics().count == 7)
    }
}
