import Foundation
import SalusModel
import SalusStatistics
import SalusStore
import Testing

/// Averages by aggregation style, minimum, maximum and the most recent value.
@Suite("Discrete statistics")
struct DiscreteTests {
    @Test("arithmetic: mean, min, max and the most recent sample with its interval")
    func arithmetic() throws {
        let calculator = try Fixture.calculator(
            Fixture.bodyMass, options: [.discreteAverage, .discreteMin, .discreteMax, .mostRecent],
            [("scale", 0, 0, 70, 1), ("phone", 60, 61, 72, 1), ("scale", 120, 120, 71, 1)])
        let statistics = try Fixture.total(calculator)
        #expect(statistics.average?.value == 71)
        #expect(statistics.minimum?.value == 70)
        #expect(statistics.maximum?.value == 72)
        #expect(statistics.mostRecent?.value == 71)
        #expect(statistics.mostRecentInterval == DateInterval(start: Fixture.at(120), end: Fixture.at(120)))
        #expect(statistics.sources == ["phone", "scale"])
        #expect(statistics.sum == nil)
    }

    @Test("discrete values are never merged: every source counts")
    func noMerge() throws {
        let calculator = try Fixture.calculator(
            Fixture.bodyMass, options: [.discreteAverage, .separateBySource], priority: ["scale"],
            [("scale", 0, 0, 70, 1), ("phone", 0, 0, 74, 1)])
        let statistics = try Fixture.total(calculator)
        #expect(statistics.average?.value == 72)
        #expect(statistics.bySource["scale"]?.average?.value == 70)
        #expect(statistics.bySource["phone"]?.average?.value == 74)
    }

    @Test("results in another unit")
    func unit() throws {
        let calculator = try Fixture.calculator(Fixture.bodyMass, options: .discreteMax, [("scale", 0, 0, 70, 1)])
        let pounds = try SalusUnit(parsing: "lb")
        #expect(close(try Fixture.total(calculator, unit: pounds).maximum?.value, 70 / 0.45359237))
    }

    @Test("time-weighted: point samples hold until the next later sample, at most 10 minutes")
    func timeWeightedPoints() throws {
        // 60 holds 5 min, 90 holds min(25, 10) = 10 min, the last (120) holds 10 min.
        let calculator = try Fixture.calculator(
            Fixture.heartRate, options: [.discreteAverage, .discreteMin, .discreteMax],
            [("watch", 0, 0, 60, 1), ("watch", 5, 5, 90, 1), ("watch", 30, 30, 120, 1)])
        let statistics = try Fixture.total(calculator)
        let weighted: Double = 60.0 * 5 + 90.0 * 10 + 120.0 * 10
        #expect(close(statistics.average?.value, weighted / 25))
        #expect(statistics.minimum?.value == 60)
        #expect(statistics.maximum?.value == 120)
    }

    @Test("time-weighted: samples with a duration weigh their duration; same-instant points share the next start")
    func timeWeightedIntervals() throws {
        let calculator = try Fixture.calculator(
            Fixture.heartRate, options: .discreteAverage,
            [("watch", 0, 30, 60, 1), ("band", 30, 40, 120, 1), ("watch", 50, 50, 80, 1), ("band", 50, 50, 100, 1), ("watch", 52, 52, 70, 1)])
        // 60×30 + 120×10 + 80×2 + 100×2 + 70×10 over 30 + 10 + 2 + 2 + 10 minutes.
        let weighted: Double = 60.0 * 30 + 120.0 * 10 + 80.0 * 2 + 100.0 * 2 + 70.0 * 10
        let expected = weighted / 54
        #expect(close(try Fixture.total(calculator).average?.value, expected))
    }

    @Test("time-weighted: a single point sample averages to its value")
    func timeWeightedSingle() throws {
        let calculator = try Fixture.calculator(Fixture.heartRate, options: .discreteAverage, [("watch", 0, 0, 64, 1)])
        #expect(try Fixture.total(calculator).average?.value == 64)
    }

    @Test("equivalent continuous level: the energy mean of decibels, weighted by duration")
    func equivalentContinuousLevel() throws {
        let calculator = try Fixture.calculator(
            Fixture.audio, options: [.discreteAverage, .discreteMax],
            [("watch", 0, 10, 80, 1), ("watch", 10, 20, 90, 1)])
        let statistics = try Fixture.total(calculator)
        #expect(close(statistics.average?.value, 10 * log10((pow(10, 8.0) + pow(10, 9.0)) / 2)))
        #expect(close(statistics.average?.value, 87.403626894942438))
        #expect(statistics.maximum?.value == 90)
        let weighted = try Fixture.calculator(
            Fixture.audio, options: .discreteAverage, [("watch", 0, 30, 70, 1), ("watch", 30, 40, 80, 1)])
        #expect(close(try Fixture.total(weighted).average?.value, 10 * log10((3 * pow(10, 7.0) + pow(10, 8.0)) / 4)))
    }

    @Test("in a collection a discrete sample belongs to the interval of its start")
    func bucketsByStart() throws {
        let calculator = try Fixture.calculator(
            Fixture.bodyMass, options: [.discreteAverage, .duration],
            [("scale", 50, 70, 70, 1), ("scale", 80, 80, 72, 1)])
        let hours = try calculator.compute(boundaries: [0, 60, 120].map { Fixture.at($0).timeIntervalSinceReferenceDate })
        #expect(hours[0].average?.value == 70)
        #expect(hours[1].average?.value == 72)
        // Duration is clipped to each interval: [50, 60) and [60, 70).
        #expect(hours[0].duration?.value == 600)
        #expect(hours[1].duration?.value == 600)
    }
}
