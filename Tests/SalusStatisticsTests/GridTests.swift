import Foundation
import SalusModel
import SalusStatistics
import SalusStore
import Testing

/// Collection intervals: anchors, both directions, DST, weeks and months.
@Suite("Collection intervals")
struct GridTests {
    static let paris = Fixture.calendar("Europe/Paris")
    static let newYork = Fixture.calendar("America/New_York")

    static func length(_ grid: IntervalGrid, containing date: Date) -> TimeInterval {
        grid.interval(containing: date).duration
    }

    @Test("days in Europe/Paris: 23 hours on 2025-03-30, 25 hours on 2025-10-26, 24 otherwise")
    func parisDST() {
        let grid = IntervalGrid(anchor: Fixture.date(Self.paris, 2025, 1, 1), interval: .day, calendar: Self.paris)
        #expect(Self.length(grid, containing: Fixture.date(Self.paris, 2025, 3, 30, 12)) == 23 * 3600)
        #expect(Self.length(grid, containing: Fixture.date(Self.paris, 2025, 10, 26, 12)) == 25 * 3600)
        #expect(Self.length(grid, containing: Fixture.date(Self.paris, 2025, 3, 29, 12)) == 24 * 3600)
        #expect(grid.interval(containing: Fixture.date(Self.paris, 2025, 3, 31, 0, 30)).start == Fixture.date(Self.paris, 2025, 3, 31))
    }

    @Test("days in America/New_York: 23 hours on 2025-03-09, 25 hours on 2025-11-02")
    func newYorkDST() {
        let grid = IntervalGrid(anchor: Fixture.date(Self.newYork, 2025, 6, 1), interval: .day, calendar: Self.newYork)
        #expect(Self.length(grid, containing: Fixture.date(Self.newYork, 2025, 3, 9, 12)) == 23 * 3600)
        #expect(Self.length(grid, containing: Fixture.date(Self.newYork, 2025, 11, 2, 12)) == 25 * 3600)
        #expect(Self.length(grid, containing: Fixture.date(Self.newYork, 2025, 11, 3, 12)) == 24 * 3600)
    }

    @Test("hours stay 3600 seconds across a DST change")
    func hours() {
        let grid = IntervalGrid(anchor: Fixture.date(Self.paris, 2025, 3, 30), interval: .hour, calendar: Self.paris)
        let boundaries = grid.boundaries(from: Fixture.date(Self.paris, 2025, 3, 30), to: Fixture.date(Self.paris, 2025, 3, 31))
        #expect(boundaries.count == 24)
        #expect(zip(boundaries, boundaries.dropFirst()).allSatisfy { $1.timeIntervalSince($0) == 3600 })
    }

    @Test("a day anchored at 02:00 starts every day at 02:00, both ways from the anchor")
    func twoAM() {
        let grid = IntervalGrid(anchor: Fixture.date(Self.paris, 2025, 6, 15, 2), interval: .day, calendar: Self.paris)
        let early = grid.interval(containing: Fixture.date(Self.paris, 2025, 1, 5, 1, 30))
        #expect(early.start == Fixture.date(Self.paris, 2025, 1, 4, 2))
        #expect(early.end == Fixture.date(Self.paris, 2025, 1, 5, 2))
        let late = grid.interval(containing: Fixture.date(Self.paris, 2025, 9, 1, 2))
        #expect(late.start == Fixture.date(Self.paris, 2025, 9, 1, 2))
        // 2025-10-26 02:00 → 2025-10-27 02:00 spans the fall-back hour.
        #expect(Self.length(grid, containing: Fixture.date(Self.paris, 2025, 10, 26, 12)) == 25 * 3600)
    }

    @Test("weeks anchored on a Monday start on Mondays; the week of a DST change is 167 hours")
    func weeks() {
        let monday = Fixture.date(Self.paris, 2025, 1, 6)
        let grid = IntervalGrid(anchor: monday, interval: .week, calendar: Self.paris)
        let week = grid.interval(containing: Fixture.date(Self.paris, 2025, 3, 13, 9))
        #expect(week.start == Fixture.date(Self.paris, 2025, 3, 10))
        #expect(Self.paris.component(.weekday, from: week.start) == 2)
        #expect(Self.length(grid, containing: Fixture.date(Self.paris, 2025, 3, 27)) == 167 * 3600)
        #expect(grid.interval(containing: Fixture.date(Self.paris, 2024, 12, 31)).start == Fixture.date(Self.paris, 2024, 12, 30))
    }

    @Test("months: calendar months of 28 to 31 days; anchored on the 31st they return to the 31st")
    func months() {
        let grid = IntervalGrid(anchor: Fixture.date(Self.newYork, 2025, 1, 1), interval: .month, calendar: Self.newYork)
        #expect(grid.interval(containing: Fixture.date(Self.newYork, 2025, 2, 15)) == DateInterval(
            start: Fixture.date(Self.newYork, 2025, 2, 1), end: Fixture.date(Self.newYork, 2025, 3, 1)))
        #expect(Self.length(grid, containing: Fixture.date(Self.newYork, 2025, 3, 15)) == (31 * 24 - 1) * 3600)
        #expect(grid.interval(containing: Fixture.date(Self.newYork, 2024, 12, 25)).start == Fixture.date(Self.newYork, 2024, 12, 1))
        let end = IntervalGrid(anchor: Fixture.date(Self.newYork, 2025, 1, 31), interval: .month, calendar: Self.newYork)
        #expect(end.start(ofInterval: 1) == Fixture.date(Self.newYork, 2025, 2, 28))
        #expect(end.start(ofInterval: 2) == Fixture.date(Self.newYork, 2025, 3, 31))
    }

    @Test("boundaries cover every interval overlapping [from, to)")
    func boundaries() throws {
        let grid = IntervalGrid(anchor: Fixture.t0, interval: try StatisticsInterval(15, .minute), calendar: Fixture.calendar("UTC"))
        #expect(grid.boundaries(from: Fixture.at(10), to: Fixture.at(31)) == [0, 15, 30, 45].map(Fixture.at))
        #expect(grid.boundaries(from: Fixture.at(15), to: Fixture.at(30)) == [15, 30].map(Fixture.at))
        #expect(grid.boundaries(from: Fixture.at(-20), to: Fixture.at(-20)) == [-30, -15].map(Fixture.at))
    }

    @Test("a daily collection across Paris's spring-forward day sums each local day; empty days are present")
    func collectionAcrossDST() throws {
        let calendar = Self.paris
        let grid = IntervalGrid(anchor: Fixture.date(calendar, 2025, 1, 1), interval: .day, calendar: calendar)
        var calculator = try StatisticsCalculator(
            type: Fixture.steps, style: .cumulative, canonicalUnit: .count, options: .cumulativeSum)
        // 100 steps an hour from 2025-03-29 12:00 to 2025-03-31 12:00 local: 12 + 23 + 12 hours.
        var start = Fixture.date(calendar, 2025, 3, 29, 12)
        let stop = Fixture.date(calendar, 2025, 3, 31, 12)
        while start < stop {
            calculator.add(start: start, end: start.addingTimeInterval(3600), value: 100, source: "watch", created: Fixture.t0)
            start.addTimeInterval(3600)
        }
        let from = Fixture.date(calendar, 2025, 3, 28), to = Fixture.date(calendar, 2025, 4, 1)
        let boundaries = grid.boundaries(from: from, to: to)
        let collection = StatisticsCollection(
            grid: grid, statistics: try calculator.compute(boundaries: boundaries.map(\.timeIntervalSinceReferenceDate)))
        let days = collection.enumerate(from: from, to: to)
        #expect(days.map { $0.sum?.value } == [nil, 1200, 2300, 1200])
        #expect(days[2].endDate.timeIntervalSince(days[2].startDate) == 23 * 3600)
        #expect(collection.statistics(for: Fixture.date(calendar, 2025, 3, 30, 8))?.sum?.value == 2300)
        #expect(collection.statistics(for: Fixture.date(calendar, 2025, 5, 1)) == nil)
        // Outside the computed range, enumerate still gives the intervals, empty.
        let wider = collection.enumerate(from: Fixture.date(calendar, 2025, 3, 27), to: to)
        #expect(wider.count == 5)
        #expect(wider[0].isEmpty)
        #expect(wider[0].startDate == Fixture.date(calendar, 2025, 3, 27))
    }
}
