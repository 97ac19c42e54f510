import ArgumentParser
import Foundation
import SalusKit
import SalusModel
import SalusAdmin
import SalusReport

/// `salusctl report`: one self-contained HTML page of the person's sleep, steps, stand hours,
/// heart rate, cycle and workouts over a period, drawn with Chart.js.
struct Report: OwnerCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write an HTML report with charts: sleep, steps, heart rate, cycle tracking and workouts.",
        discussion: """
            The report is one HTML file that opens offline in any browser: Chart.js (Debian's \
            libjs-chart.js) is copied into it, with only the data its charts show. Sections: a \
            hypnogram per night; daily merged steps with the goal line (pushes for wheelchair \
            users); stand hours (roll hours) from the activity summaries; the daily heart-rate range \
            with the resting heart rate; a cycle-tracking calendar of menstrual flow, spotting, \
            ovulation tests and basal body temperature; and the workouts with their figures and \
            routes. A section with no data says so.

            The period is [--since, --until] in whole days of your time zone (salusctl summary goals \
            --time-zone sets it); by default the last 30 days, today included. Dates are as for \
            salusctl samples. A night belongs to the day it ended on.
            """
    )

    static let defaultChartLibrary = "/usr/share/javascript/chart.js/chart.min.js"

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: ArgumentHelp("Write the report to this file.", valueName: "file"))
    var out: String = "report.html"

    @Option(name: .long, help: ArgumentHelp("The first day (default: 29 days before today).", valueName: "date"))
    var since: String?

    @Option(name: .long, help: ArgumentHelp("The last day, included (default: today).", valueName: "date"))
    var until: String?

    @Option(name: .long, help: ArgumentHelp("The daily step (push) goal drawn as a line.", valueName: "count"))
    var stepGoal: Double = 10_000

    @Option(name: .long, help: ArgumentHelp("The time zone days are counted in (default: the one salusctl summary goals sets).", valueName: "zone"))
    var timeZone: String?

    @Option(name: .long, help: ArgumentHelp("Chart.js's UMD build to inline.", valueName: "file"))
    var chartJs: String = Report.defaultChartLibrary

    func validate() throws {
        if out.isEmpty { throw ValidationError("--out: the file name is empty; expected a path such as report.html") }
        guard stepGoal.isFinite, stepGoal > 0 else {
            throw ValidationError("--step-goal: \(stepGoal) is not valid; expected a positive number such as 10000")
        }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw ValidationError("--time-zone: \"\(timeZone)\" is not a time zone; expected an IANA name such as Europe/Paris")
        }
        _ = try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
        _ = try until.map { try DateArgument.parse($0, flag: "--until", endOfDay: true) }
    }

    func run(admin: AdminClient) async throws {
        guard let library = FileManager.default.contents(atPath: chartJs) else {
            throw CommandFailure(
                "--chart-js: cannot read \(chartJs); expected Chart.js's UMD build (Debian's libjs-chart.js installs \(Self.defaultChartLibrary))")
        }
        let zoneName = if let timeZone { timeZone } else { try await admin.activitySettings().timeZone }
        guard let zone = TimeZone(identifier: zoneName) ?? TimeZone(identifier: "UTC") else {
            throw CommandFailure("time zone \"\(zoneName)\" is not known")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let today = calendar.startOfDay(for: Date())
        // Dates without a zone are read in the process's zone by DateArgument; the days of the
        // period are then taken in the report's zone.
        let from = calendar.startOfDay(for: try since.map { try DateArgument.parse($0, flag: "--since", endOfDay: false) }
            ?? calendar.date(byAdding: .day, value: -29, to: today)!)
        let lastDay = try until.map { calendar.startOfDay(for: try DateArgument.parse($0, flag: "--until", endOfDay: true).addingTimeInterval(-1)) } ?? today
        let to = calendar.date(byAdding: .day, value: 1, to: lastDay)!
        guard to > from else {
            throw CommandFailure("--until: \(until ?? "today") is before --since \(since ?? ""); expected a day at or after --since")
        }
        guard calendar.dateComponents([.day], from: from, to: to).day! <= 366 else {
            throw CommandFailure("--since/--until: the period is longer than 366 days; expected a year at most")
        }

        let registry = Registry(try await admin.types())
        let known = Set(registry.types.map(\.identifier))
        let wheelchair = try await wheelchairUse(admin)
        var data = ReportData(from: from, to: to, timeZone: zone, generated: Date(), wheelchairUse: wheelchair, stepGoal: stepGoal)
        let days = data.days
        let fetcher = ReportFetcher(admin: admin, calendar: calendar, from: from, to: to, known: known)

        progress("sleep")
        let sleep = try await fetcher.samples(CategoryTypeIdentifier.sleepAnalysis.rawValue, from: from.addingTimeInterval(-18 * 3600))
        let intervals = sleep.compactMap { sample -> StageInterval? in
            guard case .category(let raw) = sample.value, let stage = SleepStage(rawValue: raw) else { return nil }
            return StageInterval(stage: stage, start: sample.startDate, end: sample.endDate)
        }
        let period = Set(days)
        data.nights = Nights.group(intervals, timeZone: zone).filter { period.contains($0.day) }

        progress(wheelchair ? "pushes" : "steps")
        let movement = wheelchair ? "HKQuantityTypeIdentifierPushCount" : QuantityTypeIdentifier.stepCount.rawValue
        let moves = try await fetcher.daily(movement, options: [.cumulativeSum], unit: "count")
        data.steps = days.map { day in
            DayValue(day: day, value: moves[day]?.values.sum)
        }

        progress("heart rate")
        let heart = try await fetcher.daily(QuantityTypeIdentifier.heartRate.rawValue, options: [.discreteMin, .discreteMax], unit: "count/min")
        let resting = try await fetcher.daily(QuantityTypeIdentifier.restingHeartRate.rawValue, options: [.discreteAverage], unit: "count/min")
        data.heartRate = days.map { day in
            let values = heart[day]?.values
            return HeartRateDay(day: day, minimum: values?.minimum, maximum: values?.maximum, resting: resting[day]?.values.average)
        }

        progress("activity")
        data.standHours = try await fetcher.standHours(zone: zone).filter { period.contains($0.day) }

        progress("cycle tracking")
        data.cycle = try await cycle(fetcher, days: days, zone: zone)

        progress("workouts")
        data.workouts = try await workouts(fetcher, registry: registry, admin: admin)

        let page = ReportPage.render(data, chartLibrary: String(decoding: library, as: UTF8.self))
        let url = URL(fileURLWithPath: out)
        do {
            // The page holds the person's data: 0600 from its creation, whatever the umask.
            try PrivateOutput.write(Data(page.utf8), to: url.path)
        } catch {
            throw CommandFailure("--out: cannot write \(out): \(error)")
        }
        print("wrote \(out): \(days.first!) to \(days.last!), \(data.nights.count) night\(data.nights.count == 1 ? "" : "s"), "
              + "\(data.workouts.count) workout\(data.workouts.count == 1 ? "" : "s"), \(page.utf8.count / 1024) KB")
        if !Self.showsData(data) {
            // An import of years past lands outside the last 30 days: say where the data is.
            let shown = [
                CategoryTypeIdentifier.sleepAnalysis.rawValue, movement, QuantityTypeIdentifier.heartRate.rawValue,
                QuantityTypeIdentifier.restingHeartRate.rawValue, SampleType.workout.description,
                CategoryTypeIdentifier.menstrualFlow.rawValue, "HKQuantityTypeIdentifierBasalBodyTemperature",
            ]
            if let range = try await DataRange.of(shown, admin: admin, known: known) {
                let period = range.lastDays(30, calendar)
                FileHandle.standardError.write(Data("""
                    report: nothing to show from \(days.first!) to \(days.last!); the store holds sleep, activity, heart-rate, \
                    workout or cycle data from \(range.days(calendar)). Its last 30 days: \
                    salusctl report --since \(period.since) --until \(period.until)

                    """.utf8))
            }
        }
    }

    /// Whether any section of the report has something in its period.
    static func showsData(_ data: ReportData) -> Bool {
        !data.nights.isEmpty || !data.workouts.isEmpty
            || data.steps.contains { $0.value != nil }
            || data.heartRate.contains { $0.minimum != nil || $0.maximum != nil || $0.resting != nil }
            || data.standHours.contains { $0.hours > 0 }
            || data.cycle.contains { $0.flow != nil || $0.spotting || $0.ovulationTest != nil || $0.basalBodyTemperature != nil }
    }

    func progress(_ section: String) {
        FileHandle.standardError.write(Data("report: reading \(section)\n".utf8))
    }

    func wheelchairUse(_ admin: AdminClient) async throws -> Bool {
        do {
            return try await admin.characteristics([TypeIdentifier.wheelchairUse.rawValue])
                .contains { $0.type == .wheelchairUse && $0.value == .enumeration(WheelchairUse.yes) }
        } catch {
            return false  // no plugin declares the characteristic
        }
    }

    func cycle(_ fetcher: ReportFetcher, days: [String], zone: TimeZone) async throws -> [CycleDay] {
        var byDay = Dictionary(uniqueKeysWithValues: days.map { ($0, CycleDay(day: $0)) })
        func day(_ sample: Sample) -> String { Nights.day(of: sample.startDate, timeZone: zone) }
        for sample in try await fetcher.samples(CategoryTypeIdentifier.menstrualFlow.rawValue) {
            // The heaviest flow of the day; "none" (5) only when nothing else was recorded.
            guard case .category(let raw) = sample.value, let entry = byDay[day(sample)] else { continue }
            let rank = { (value: Int) in value == 5 ? 0 : value }
            if entry.flow.map({ rank(raw) > rank($0) }) ?? true { byDay[day(sample)]?.flow = raw }
        }
        for sample in try await fetcher.samples("HKCategoryTypeIdentifierIntermenstrualBleeding") {
            byDay[day(sample)]?.spotting = true
        }
        for sample in try await fetcher.samples("HKCategoryTypeIdentifierOvulationTestResult") {
            if case .category(let raw) = sample.value { byDay[day(sample)]?.ovulationTest = raw }
        }
        let celsius = try SalusUnit(parsing: "degC")
        for sample in try await fetcher.samples("HKQuantityTypeIdentifierBasalBodyTemperature") {
            if case .quantity(let quantity) = sample.value, let value = try? quantity.doubleValue(for: celsius) {
                byDay[day(sample)]?.basalBodyTemperature = value
            }
        }
        return days.compactMap { byDay[$0] }
    }

    func workouts(_ fetcher: ReportFetcher, registry: Registry, admin: AdminClient) async throws -> [WorkoutEntry] {
        var entries: [WorkoutEntry] = []
        for sample in try await fetcher.samples(SampleType.workout.description) {
            guard case .workout(let workout) = sample.value else { continue }
            var routePoints: [[Double]] = []
            var meters: Double?
            if let (_, locations) = try await WorkoutText.routes(of: sample.uuid, admin: admin).first, locations.count >= 2 {
                routePoints = locations.map { [$0.latitude, $0.longitude] }
                meters = WorkoutRoute(locations: locations).length
            }
            let activities = workout.activities.count > 1
                ? workout.activities.map { activity in
                    WorkoutActivityEntry(
                        activity: WorkoutText.name(activity.activityType, registry),
                        duration: workout.activeDuration(from: activity.startDate, to: activity.endDate ?? sample.endDate),
                        figures: WorkoutFigureText.figures(WorkoutFigureText.merged(activity.allStatistics, saved: activity.statistics)))
                } : []
            entries.append(WorkoutEntry(
                start: sample.startDate, end: sample.endDate, activity: WorkoutText.name(workout.activityType, registry),
                duration: workout.duration(from: sample.startDate, to: sample.endDate),
                figures: WorkoutFigureText.figures(WorkoutFigureText.merged(workout.allStatistics, saved: workout.statistics)), activities: activities, route: routePoints, routeMeters: meters))
        }
        return entries
    }
}

/// Reads what the report needs through the admin socket.
struct ReportFetcher {
    let admin: AdminClient
    let calendar: Calendar
    let from: Date
    let to: Date
    /// The registered type identifiers: a type no plugin declares is shown as empty.
    let known: Set<String>

    /// The samples of `type` overlapping [start, to), by start date.
    func samples(_ type: String, from start: Date? = nil) async throws -> [Sample] {
        guard known.contains(type) else { return [] }
        let query = SampleQueryDescriptor(
            type: SampleType(type), predicate: .date(start: start ?? from, end: to), sortDescriptors: [.startDate()])
        return try await WorkoutText.fetch(query, admin: admin)
    }

    /// Daily merged statistics of `type`, by "YYYY-MM-DD".
    func daily(_ type: String, options: StatisticsOptions, unit: String) async throws -> [String: MergedStatistics] {
        guard known.contains(type) else { return [:] }
        do {
            let results = try await admin.statisticsCollection(
                of: type, options: options, unit: unit, interval: .day, from: from, to: to, timeZone: calendar.timeZone)
            return Dictionary(results.map { (Nights.day(of: $0.startDate, timeZone: calendar.timeZone), $0) }, uniquingKeysWith: { _, last in last })
        } catch let error as SalusError {
            throw CommandFailure("statistics of \(type): \(error.message)")
        }
    }

    /// Stand (roll) hours per day from the daily activity summaries.
    func standHours(zone: TimeZone) async throws -> [StandDay] {
        let summaries = try await admin.activitySummaries(
            from: CalendarDate(containing: from, in: calendar.timeZone), to: CalendarDate(containing: to.addingTimeInterval(-1), in: calendar.timeZone),
            timeZone: zone)
        return summaries.map { StandDay(day: AdminJSON.day($0.date), hours: $0.appleStandHours, goal: $0.goals.appleStandHours) }
    }
}
