import Foundation
import SalusModel
import SalusStatistics
import SalusStore
import Testing

/// Cross-source merging of cumulative samples by the sweep, with hand-computed totals.
@Suite("Merged sums")
struct MergeTests {
    @Test("identical intervals: only the higher-priority source counts; changing the priority re-ranks")
    func identical() throws {
        let samples = [("phone", 0.0, 10.0, 100.0, 1.0), ("watch", 0, 10, 80, 2)]
        #expect(try Fixture.sum(priority: ["watch", "phone"], samples) == 80)
        #expect(try Fixture.sum(priority: ["phone", "watch"], samples) == 100)
        // No priority: the most recently saved wins.
        #expect(try Fixture.sum(samples) == 80)
        #expect(try Fixture.sum([("phone", 0, 10, 100, 3), ("watch", 0, 10, 80, 2)]) == 100)
    }

    @Test("partial overlap is pro-rated: the loser counts only where the winner is absent")
    func partial() throws {
        let samples = [("phone", 0.0, 10.0, 100.0, 1.0), ("watch", 5, 15, 200, 1)]
        // watch first: phone [0,5) = 50, watch 200.
        #expect(try Fixture.sum(priority: ["watch", "phone"], samples) == 250)
        // phone first: phone 100, watch [10,15) = 100.
        #expect(try Fixture.sum(priority: ["phone", "watch"], samples) == 200)
    }

    @Test("nested: a short higher-ranked sample cuts a hole in the long one")
    func nested() throws {
        let samples = [("phone", 0.0, 60.0, 600.0, 1.0), ("watch", 10, 20, 50, 1)]
        // phone [0,10) 100 + [20,60) 400, watch 50.
        #expect(try Fixture.sum(priority: ["watch", "phone"], samples) == 550)
        #expect(try Fixture.sum(priority: ["phone", "watch"], samples) == 600)
    }

    @Test("three sources, listed and unlisted")
    func threeSources() throws {
        let samples = [
            ("A", 0.0, 30.0, 300.0, 1.0),  // 10 a minute
            ("B", 10, 40, 60, 2),  // 2 a minute
            ("C", 20, 50, 150, 3),  // 5 a minute, saved last
        ]
        // C [20,50) 150, A [0,20) 200, B covered everywhere.
        #expect(try Fixture.sum(priority: ["C", "A"], samples) == 350)
        // B [10,40) 60; A and C unlisted, C newer: [0,10) A 100, [40,50) C 50.
        #expect(try Fixture.sum(priority: ["B"], samples) == 210)
        // A [0,30) 300; then unlisted B and C by recency: C [30,50) 100.
        #expect(try Fixture.sum(priority: ["A"], samples) == 400)
        // Listed B and A beat the newer unlisted C: B [10,40) 60, A [0,10) 100, C [40,50) 50.
        #expect(try Fixture.sum(priority: ["B", "A"], samples) == 210)
        // Nothing listed: C newest, then B, then A: C [20,50) 150, B [10,20) 20, A [0,10) 100.
        #expect(try Fixture.sum(samples) == 270)
    }

    @Test("samples of one source never merge with each other")
    func sameSource() throws {
        #expect(try Fixture.sum([("phone", 0, 10, 100, 1), ("phone", 5, 15, 100, 2)]) == 200)
        // Both phone samples count while the phone wins; the watch only where no phone sample is open.
        let samples = [("watch", 0.0, 10.0, 100.0, 1.0), ("watch", 5, 15, 100, 1), ("phone", 0, 20, 200, 1)]
        #expect(try Fixture.sum(priority: ["watch", "phone"], samples) == 250)
        #expect(try Fixture.sum(priority: ["phone", "watch"], samples) == 200)
    }

    @Test("ties after priority and save time: earlier start, earlier end, larger value")
    func tieBreakers() throws {
        #expect(try Fixture.sum([("a", 0, 10, 100, 1), ("b", 5, 10, 10, 1)]) == 100)
        #expect(try Fixture.sum([("a", 0, 10, 100, 1), ("b", 0, 5, 10, 1)]) == 10 + 50)
        #expect(try Fixture.sum([("a", 0, 10, 100, 1), ("b", 0, 10, 90, 1)]) == 100)
    }

    @Test("a point sample counts whole and takes no part in the sweep")
    func pointSample() throws {
        #expect(try Fixture.sum(priority: ["watch"], [("phone", 5, 5, 7, 1), ("watch", 0, 10, 100, 1)]) == 107)
    }

    @Test("per-source results are each source's own total; the merged total and sources are reported too")
    func bySource() throws {
        let calculator = try Fixture.calculator(
            Fixture.steps, options: [.cumulativeSum, .separateBySource], priority: ["watch", "phone"],
            [("phone", 0, 10, 100, 1), ("watch", 5, 15, 200, 1), ("scale", 100, 100, 0, 1)])
        let statistics = try Fixture.total(calculator)
        #expect(statistics.sum?.value == 250)
        #expect(statistics.bySource["phone"]?.sum?.value == 100)
        #expect(statistics.bySource["watch"]?.sum?.value == 200)
        #expect(statistics.sources == ["phone", "scale", "watch"])
        #expect(statistics.startDate == Fixture.at(0))
        #expect(statistics.endDate == Fixture.at(100))
    }

    @Test("a source that loses everywhere does not contribute to the merged result")
    func losingSource() throws {
        let calculator = try Fixture.calculator(
            Fixture.steps, options: .cumulativeSum, priority: ["watch"],
            [("phone", 0, 10, 100, 1), ("watch", 0, 10, 80, 1)])
        #expect(try Fixture.total(calculator).sources == ["watch"])
    }

    @Test("duration of a merged cumulative statistic is the time some source counted")
    func duration() throws {
        let calculator = try Fixture.calculator(
            Fixture.steps, options: [.cumulativeSum, .duration], priority: ["watch"],
            [("phone", 0, 10, 100, 1), ("watch", 5, 15, 200, 1), ("phone", 30, 40, 10, 1)])
        let statistics = try Fixture.total(calculator)
        #expect(close(statistics.duration?.value, 25 * 60))
        #expect(statistics.duration?.unit == StatisticsCalculator.seconds)
        #expect(statistics.sum?.value == 260)
    }

    @Test("pro-rating at interval boundaries: a sample across midnight splits by overlap")
    func boundaries() throws {
        let calculator = try Fixture.calculator(
            Fixture.steps, options: .cumulativeSum, priority: ["watch", "phone"],
            [("phone", 23 * 60, 25 * 60, 120, 1), ("watch", 24 * 60 - 30, 24 * 60 + 30, 30, 1)])
        let days = try calculator.compute(boundaries: [0, 1440, 2880].map { Fixture.at($0).timeIntervalSinceReferenceDate })
        // Day 1: phone [23:00, 23:30) 30 + watch 15; day 2: watch 15 + phone [00:30, 01:00) 30.
        #expect(days[0].sum?.value == 45)
        #expect(days[1].sum?.value == 45)
    }

    @Test("no samples: an empty result with no values, not an error")
    func empty() throws {
        let calculator = try Fixture.calculator(Fixture.steps, options: [.cumulativeSum, .separateBySource], [])
        let statistics = try Fixture.total(calculator)
        #expect(statistics.isEmpty)
        #expect(statistics.sum == nil)
        #expect(statistics.sources.isEmpty)
        #expect(statistics.bySource.isEmpty)
        #expect(statistics.startDate == .distantPast)
        #expect(statistics.endDate == .distantFuture)
    }

    @Test("results in the requested unit; an incompatible unit is refused naming it")
    func units() throws {
        let calculator = try Fixture.calculator(Fixture.distance, options: .cumulativeSum, [("phone", 0, 10, 1500, 1)])
        let statistics = try Fixture.total(calculator, unit: try SalusUnit(parsing: "km"))
        #expect(close(statistics.sum?.value, 1.5))
        #expect(statistics.sum?.unit == (try SalusUnit(parsing: "km")))
        let error = #expect(throws: StoreError.self) { try Fixture.total(calculator, unit: try SalusUnit(parsing: "kg")) }
        #expect(error?.field == "unit")
        #expect(error?.value == "kg")
    }
}
