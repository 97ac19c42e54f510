import Foundation
import SalusModel
import SalusReport
import Testing

/// The report shows whatever the store holds: values saved before a type had an upper bound,
/// or by a plugin that declares none, may be as large as a `Double` goes. The page and the
/// figures are written, never a trap.
@Suite("The report with extreme stored values")
struct ExtremeReportValueTests {
    static let paris = TimeZone(identifier: "Europe/Paris")!
    static let day = Date(timeIntervalSince1970: 1_790_000_000)
    static let kcal = try! SalusUnit(parsing: "kcal")
    static let km = try! SalusUnit(parsing: "km")
    static let perMinute = try! SalusUnit(parsing: "count/min")

    static func data(steps: Double?, goal: Double = 10_000, resting: Double? = nil) -> ReportData {
        var data = ReportData(
            from: day, to: day.addingTimeInterval(2 * 86_400), timeZone: paris, generated: day, wheelchairUse: false, stepGoal: goal)
        data.steps = data.days.map { DayValue(day: $0, value: steps) }
        data.heartRate = data.days.map { HeartRateDay(day: $0, minimum: 50, maximum: 1e300, resting: resting) }
        return data
    }

    static let extremes: [Double] = [
        1e300, -1e300, .greatestFiniteMagnitude, .infinity, -.infinity, .nan, 9.3e18, -9.3e18, .leastNonzeroMagnitude,
    ]

    @Test("A day of 1e300 steps, infinite or NaN steps, and such resting heart rates make a page that says so")
    func hugeSteps() {
        for value in Self.extremes {
            let page = ReportPage.render(Self.data(steps: value, resting: value), chartLibrary: "")
            #expect(page.contains("a day on average"), "\(value)")
            #expect(page.contains("on average."), "\(value)")
            // The charts keep their data: a value JSON cannot hold is null, not the end of the block.
            #expect(page.contains("\"nights\":") && page.contains("\"resting\":"), "\(value)")
        }
        let page = ReportPage.render(Self.data(steps: 1e300), chartLibrary: "")
        #expect(page.contains("1e+300 a day on average"))
        // Ordinary figures are whole numbers, as before.
        let usual = ReportPage.render(Self.data(steps: 8_123.4, resting: 61.6), chartLibrary: "")
        #expect(usual.contains("8123 a day on average; goal 10000, reached on 0 of 3 days"))
        #expect(usual.contains("the resting heart rate, 62 on average."))
    }

    @Test("A workout whose energy total, distance or heart rate is 1e300 lists its figures")
    func hugeWorkoutFigures() {
        for value in Self.extremes {
            let figures = WorkoutFigureText.figures([
                "HKQuantityTypeIdentifierActiveEnergyBurned": WorkoutStatistics(sum: Quantity(value: value, unit: Self.kcal)),
                "HKQuantityTypeIdentifierDistanceWalkingRunning": WorkoutStatistics(sum: Quantity(value: value, unit: Self.km)),
                "HKQuantityTypeIdentifierHeartRate": WorkoutStatistics(average: Quantity(value: value, unit: Self.perMinute)),
            ])
            #expect(figures.count == 3, "\(value): \(figures)")
        }
        let saved = WorkoutFigureText.figures(WorkoutFigureText.merged(
            [:], saved: ["HKQuantityTypeIdentifierActiveEnergyBurned": Quantity(value: 1e300, unit: Self.kcal)],
            cumulative: ["HKQuantityTypeIdentifierActiveEnergyBurned"]))
        #expect(saved == ["1e+300 kcal active"])
        let usual = WorkoutFigureText.figures([
            "HKQuantityTypeIdentifierActiveEnergyBurned": WorkoutStatistics(sum: Quantity(value: 310.4, unit: Self.kcal)),
            "HKQuantityTypeIdentifierHeartRate": WorkoutStatistics(average: Quantity(value: 147.6, unit: Self.perMinute)),
        ])
        #expect(usual == ["310 kcal active", "average heart rate 148 bpm"])
    }

    @Test("salusctl workouts' figures: whole numbers bare, three decimals at most, 1e300 and infinity as doubles print")
    func decimals() {
        #expect(ReportNumbers.decimal(5) == "5")
        #expect(ReportNumbers.decimal(5.1254) == "5.125")
        #expect(ReportNumbers.decimal(-0.5) == "-0.5")
        #expect(ReportNumbers.decimal(1e300) == "1e+300")
        #expect(ReportNumbers.decimal(-9.3e18) == "-9.3e+18")
        #expect(ReportNumbers.decimal(.infinity) == "inf")
        #expect(ReportNumbers.decimal(.nan) == "nan")
    }

    @Test("A workout lasting longer than any clock and a night as long are written")
    func hugeDurations() {
        var data = Self.data(steps: nil)
        data.workouts = [WorkoutEntry(
            start: Self.day, end: Self.day.addingTimeInterval(1e300), activity: "running", duration: 1e300,
            figures: [], activities: [WorkoutActivityEntry(activity: "running", duration: .infinity, figures: [])])]
        let page = ReportPage.render(data, chartLibrary: "")
        #expect(page.contains("Running"))
        #expect(Nights.duration(1e300).isEmpty == false)
        #expect(Nights.duration(.nan).isEmpty == false)
        #expect(Nights.duration(25_500) == "7h05")
    }
}
