import Foundation
import SalusKit
import SalusModel
import SalusReport

/// What `salusctl report` shows, gathered over the admin socket: SalusReport's ``ReportData``,
/// which `ReportPage.render` turns into the page.
extension AdminClient {
    /// The report of the days [from, to) in `timeZone` (both at a midnight of that zone): the
    /// nights ending on those days (sleep read from 18 hours before `from`), the daily merged
    /// steps, or pushes for a wheelchair user (the `wheelchairUse` characteristic set to yes),
    /// with `stepGoal`; the daily heart-rate range and resting heart rate; stand (roll) hours
    /// from the activity summaries; the cycle calendar (the heaviest flow of a day, spotting,
    /// ovulation test, basal body temperature in °C); and the workouts with their figures,
    /// activities and first route. A type no plugin declares gives an empty section.
    /// `progress` is told the name of each section before it is read ("sleep", "steps", ...).
    /// A refused statistics call is a ``SalusError`` naming the type ("statistics of …: …").
    package func reportData(
        from: Date, to: Date, timeZone: TimeZone, stepGoal: Double, generated: Date = Date(),
        progress: (String) -> Void = { _ in }
    ) async throws -> ReportData {
        let listing = try await types()
        let reader = ReportReader(admin: self, from: from, to: to, timeZone: timeZone, listing: listing)
        let wheelchair = try await wheelchairUse()
        var data = ReportData(from: from, to: to, timeZone: timeZone, generated: generated, wheelchairUse: wheelchair, stepGoal: stepGoal)
        let days = data.days
        let period = Set(days)

        progress("sleep")
        let sleep = try await reader.samples(CategoryTypeIdentifier.sleepAnalysis.rawValue, from: from.addingTimeInterval(-18 * 3600))
        let intervals = sleep.compactMap { sample -> StageInterval? in
            guard case .category(let raw) = sample.value, let stage = SleepStage(rawValue: raw) else { return nil }
            return StageInterval(stage: stage, start: sample.startDate, end: sample.endDate)
        }
        data.nights = Nights.group(intervals, timeZone: timeZone).filter { period.contains($0.day) }

        progress(wheelchair ? "pushes" : "steps")
        let moves = try await reader.daily(Self.movementType(wheelchairUse: wheelchair), options: [.cumulativeSum], unit: "count")
        data.steps = days.map { DayValue(day: $0, value: moves[$0]?.values.sum) }

        progress("heart rate")
        let heart = try await reader.daily(QuantityTypeIdentifier.heartRate.rawValue, options: [.discreteMin, .discreteMax], unit: "count/min")
        let resting = try await reader.daily(QuantityTypeIdentifier.restingHeartRate.rawValue, options: [.discreteAverage], unit: "count/min")
        data.heartRate = days.map { day in
            let values = heart[day]?.values
            return HeartRateDay(day: day, minimum: values?.minimum, maximum: values?.maximum, resting: resting[day]?.values.average)
        }

        progress("activity")
        data.standHours = try await reader.standHours().filter { period.contains($0.day) }

        progress("cycle tracking")
        data.cycle = try await reader.cycle(days: days)

        progress("workouts")
        data.workouts = try await reader.workouts()
        return data
    }

    /// The type the report's daily movement chart sums: pushes for a wheelchair user, else steps.
    package static func movementType(wheelchairUse: Bool) -> String {
        wheelchairUse ? "HKQuantityTypeIdentifierPushCount" : QuantityTypeIdentifier.stepCount.rawValue
    }

    /// The types the report reads, for saying where the data lies when its period shows nothing.
    package static func reportTypes(wheelchairUse: Bool) -> [String] {
        [
            CategoryTypeIdentifier.sleepAnalysis.rawValue, movementType(wheelchairUse: wheelchairUse),
            QuantityTypeIdentifier.heartRate.rawValue, QuantityTypeIdentifier.restingHeartRate.rawValue,
            SampleType.workout.description, CategoryTypeIdentifier.menstrualFlow.rawValue,
            "HKQuantityTypeIdentifierBasalBodyTemperature",
        ]
    }

    /// Whether the person uses a wheelchair; false when no plugin declares the characteristic.
    private func wheelchairUse() async throws -> Bool {
        do {
            return try await characteristics([TypeIdentifier.wheelchairUse.rawValue])
                .contains { $0.type == .wheelchairUse && $0.value == .enumeration(WheelchairUse.yes) }
        } catch {
            return false
        }
    }
}

/// Reads the report's sections through the admin client.
private struct ReportReader {
    let admin: AdminClient
    let from: Date
    let to: Date
    let timeZone: TimeZone
    /// The registered type identifiers: a type no plugin declares is shown as empty.
    let known: Set<String>
    let activityNames: [UInt32: String]
    /// The cumulative types: a workout's saved total of one is a sum (`WorkoutFigureText.all`).
    let cumulative: Set<TypeIdentifier>
    /// The daemon's types, for the workouts' alternates.
    let listing: TypeListing

    init(admin: AdminClient, from: Date, to: Date, timeZone: TimeZone, listing: TypeListing) {
        self.admin = admin
        self.listing = listing
        self.from = from
        self.to = to
        self.timeZone = timeZone
        known = Set(listing.types.filter { $0.kind != .characteristic }.map(\.identifier))
        activityNames = Dictionary(listing.workoutActivityTypes.map { ($0.rawValue, $0.name) }, uniquingKeysWith: { first, _ in first })
        cumulative = listing.cumulativeTypes
    }

    /// The samples of `type` overlapping [start, to), by start date.
    func samples(_ type: String, from start: Date? = nil) async throws -> [Sample] {
        guard known.contains(type) else { return [] }
        return try await admin.samples(SampleQueryDescriptor(
            type: SampleType(type), predicate: .date(start: start ?? from, end: to), sortDescriptors: [.startDate()]))
    }

    /// Daily merged statistics of `type`, by "YYYY-MM-DD".
    func daily(_ type: String, options: StatisticsOptions, unit: String) async throws -> [String: MergedStatistics] {
        guard known.contains(type) else { return [:] }
        do {
            let results = try await admin.statisticsCollection(
                of: type, options: options, unit: unit, interval: .day, from: from, to: to, timeZone: timeZone)
            return Dictionary(results.map { (Nights.day(of: $0.startDate, timeZone: timeZone), $0) }, uniquingKeysWith: { _, last in last })
        } catch var error as SalusError {
            error.message = "statistics of \(type): \(error.message)"
            throw error
        }
    }

    /// Stand (roll) hours per day from the daily activity summaries.
    func standHours() async throws -> [StandDay] {
        let summaries = try await admin.activitySummaries(
            from: CalendarDate(containing: from, in: timeZone), to: CalendarDate(containing: to.addingTimeInterval(-1), in: timeZone),
            timeZone: timeZone)
        return summaries.map { StandDay(day: AdminJSON.day($0.date), hours: $0.appleStandHours, goal: $0.goals.appleStandHours) }
    }

    /// The cycle calendar of `days`.
    func cycle(days: [String]) async throws -> [CycleDay] {
        var byDay = Dictionary(uniqueKeysWithValues: days.map { ($0, CycleDay(day: $0)) })
        func day(_ sample: Sample) -> String { Nights.day(of: sample.startDate, timeZone: timeZone) }
        for sample in try await samples(CategoryTypeIdentifier.menstrualFlow.rawValue) {
            // The heaviest flow of the day; "none" (5) only when nothing else was recorded.
            guard case .category(let raw) = sample.value, let entry = byDay[day(sample)] else { continue }
            let rank = { (value: Int) in value == 5 ? 0 : value }
            if entry.flow.map({ rank(raw) > rank($0) }) ?? true { byDay[day(sample)]?.flow = raw }
        }
        for sample in try await samples("HKCategoryTypeIdentifierIntermenstrualBleeding") {
            byDay[day(sample)]?.spotting = true
        }
        for sample in try await samples("HKCategoryTypeIdentifierOvulationTestResult") {
            if case .category(let raw) = sample.value { byDay[day(sample)]?.ovulationTest = raw }
        }
        let celsius = try SalusUnit(parsing: "degC")
        for sample in try await samples("HKQuantityTypeIdentifierBasalBodyTemperature") {
            if case .quantity(let quantity) = sample.value, let value = try? quantity.doubleValue(for: celsius) {
                byDay[day(sample)]?.basalBodyTemperature = value
            }
        }
        return days.compactMap { byDay[$0] }
    }

    /// "running", or the raw value when no plugin names it.
    func activityName(_ raw: UInt) -> String {
        activityNames[UInt32(clamping: raw)] ?? "\(raw)"
    }

    /// The workouts of the period with their figures, their activities when more than one, and
    /// their first route of two locations or more.
    func workouts() async throws -> [WorkoutEntry] {
        var entries: [WorkoutEntry] = []
        let alternates = try await admin.workoutAlternates(.date(start: from, end: to), listing: listing)
        for sample in try await samples(SampleType.workout.description) {
            guard case .workout(let workout) = sample.value else { continue }
            var routePoints: [[Double]] = []
            var meters: Double?
            if let (_, locations) = try await admin.routes(of: sample.uuid).first, locations.count >= 2 {
                routePoints = locations.map { [$0.latitude, $0.longitude] }
                meters = WorkoutRoute(locations: locations).length
            }
            let activities = workout.activities.count > 1
                ? workout.activities.map { activity in
                    WorkoutActivityEntry(
                        activity: activityName(activity.activityType),
                        duration: workout.activeDuration(from: activity.startDate, to: activity.endDate ?? sample.endDate),
                        figures: WorkoutFigureText.figures(WorkoutFigureText.merged(activity.allStatistics, saved: activity.statistics, cumulative: cumulative)))
                } : []
            entries.append(WorkoutEntry(
                start: sample.startDate, end: sample.endDate, activity: activityName(workout.activityType),
                duration: workout.duration(from: sample.startDate, to: sample.endDate),
                figures: WorkoutFigureText.figures(WorkoutFigureText.merged(workout.allStatistics, saved: workout.statistics, cumulative: cumulative)),
                activities: activities, route: routePoints, routeMeters: meters,
                alternates: (alternates[sample.uuid] ?? []).map { alternate in
                    let figures = WorkoutFigureText.figures(
                        WorkoutFigureText.merged(alternate.workout.allStatistics, saved: alternate.workout.statistics, cumulative: cumulative))
                    return "also recorded by \(alternate.sample.sourceRevision.appID)"
                        + (figures.isEmpty ? "" : ": " + figures.joined(separator: ", "))
                        + "; the workout from \(sample.sourceRevision.appID) was stored first and is the one counted"
                }))
        }
        return entries
    }
}
