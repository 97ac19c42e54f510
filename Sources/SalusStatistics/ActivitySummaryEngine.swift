import Foundation
import SalusModel
import SalusStore

/// Computes HealthKit's activity summaries: for each day in the person's time zone, the move,
/// exercise and stand figures from that day's samples, with the goals that apply to the day
/// (see ``ActivitySummary`` for what each ring counts).
///
/// Sums come from the statistics engine (merged across sources by the owner's priority,
/// samples crossing midnight pro-rated), over day intervals of the time zone's calendar, so a
/// day that changes to or from daylight-saving time is 23 or 25 hours long. Stand hours are
/// counted in the same calendar: an hour is a clock hour of that day, and the repeated hour
/// of an autumn night counts twice.
package struct ActivitySummaryEngine: Sendable {
    /// The samples.
    package let store: SampleStore
    /// The statistics engine the sums come from.
    package let statistics: StatisticsEngine
    /// Characteristics and goals.
    package let settings: PersonSettings

    static let activeEnergy = TypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned")
    static let moveTime = TypeIdentifier("HKQuantityTypeIdentifierAppleMoveTime")
    static let exerciseTime = TypeIdentifier("HKQuantityTypeIdentifierAppleExerciseTime")
    static let standHour = TypeIdentifier("HKCategoryTypeIdentifierAppleStandHour")
    static let pushCount = TypeIdentifier("HKQuantityTypeIdentifierPushCount")
    /// HKCategoryValueAppleStandHour stood.
    static let stood = 0

    /// The types whose samples a summary is computed from.
    package static let sourceTypes: Set<TypeIdentifier> = [activeEnergy, moveTime, exerciseTime, standHour, pushCount]

    /// The most days one request may cover (about 27 years).
    package static let maximumDays = 10_000

    /// Creates an engine.
    package init(store: SampleStore, statistics: StatisticsEngine, settings: PersonSettings) {
        self.store = store
        self.statistics = statistics
        self.settings = settings
    }

    /// The summaries of every day from `first` to `last` (inclusive) in `timeZone`.
    package func summaries(first: CalendarDate, last: CalendarDate, timeZone: TimeZone) async throws -> [ActivitySummary] {
        let days = (0...max(0, first.days(to: last))).map { first.adding(days: $0) }
        let intervals = days.map { $0.interval(in: timeZone) }
        let range = DateInterval(start: intervals.first!.start, end: intervals.last!.end)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let grid = IntervalGrid(anchor: range.start, interval: .day, calendar: calendar)

        func sums(_ type: TypeIdentifier, unit: String) async throws -> [Double] {
            guard store.catalog.rules(for: type)?.kind == .quantity else { return Array(repeating: 0, count: days.count) }
            let query = StatisticsCollectionQuery(
                type: type, options: .cumulativeSum, unit: try SalusUnit(parsing: unit), grid: grid,
                from: range.start, to: range.end)
            let collection = try await statistics.collection(query)
            var values = Array(repeating: 0.0, count: days.count)
            for item in collection.statistics {
                if let index = intervals.firstIndex(where: { $0.start == item.startDate }) {
                    values[index] = item.sum?.value ?? 0
                }
            }
            return values
        }

        let moveMode: Int64
        if case .enumeration(let raw)? = settings.characteristic(.activityMoveMode) {
            moveMode = raw
        } else {
            moveMode = ActivityMoveMode.activeEnergy
        }
        let wheelchair = settings.characteristic(.wheelchairUse) == .enumeration(WheelchairUse.yes)

        let energy = try await sums(Self.activeEnergy, unit: "kcal")
        let move = try await sums(Self.moveTime, unit: "min")
        let exercise = try await sums(Self.exerciseTime, unit: "min")
        var hours = Array(repeating: Set<Date>(), count: days.count)
        func countHours(_ type: TypeIdentifier, _ predicate: SamplePredicate) async throws {
            guard store.catalog.rules(for: type) != nil else { return }
            let query = SampleQuery(type: type, predicate: .and([.date(start: range.start, end: range.end), predicate]))
            for try await page in try store.samples(query) {
                for sample in page where range.contains(sample.startDate) && sample.startDate < range.end {
                    guard let index = intervals.firstIndex(where: { $0.start <= sample.startDate && sample.startDate < $0.end }),
                          let hour = calendar.dateInterval(of: .hour, for: sample.startDate)
                    else { continue }
                    hours[index].insert(hour.start)
                }
            }
        }
        try await countHours(Self.standHour, .categoryValues([Self.stood]))
        if wheelchair {
            try await countHours(Self.pushCount, .quantity(.greaterThan, Quantity(value: 0, unit: .count)))
        }

        return days.indices.map { index in
            ActivitySummary(
                date: days[index], interval: intervals[index], timeZone: timeZone, activityMoveMode: moveMode,
                wheelchairUse: wheelchair, activeEnergyBurned: energy[index], appleMoveTime: move[index],
                appleExerciseTime: exercise[index], appleStandHours: hours[index].count,
                goals: settings.goals(on: days[index]))
        }
    }

    /// Live summaries: calls `deliver` with every day (`isInitial` true), then, after each
    /// commit touching a source type and each change of goals or characteristics, with the days
    /// whose summary changed (none: no call). Returns when the store closes; throws
    /// `CancellationError` when the task is cancelled, and whatever `deliver` throws.
    package func live(
        first: CalendarDate, last: CalendarDate, timeZone: TimeZone,
        deliver: @escaping @Sendable (_ summaries: [ActivitySummary], _ isInitial: Bool) async throws -> Void
    ) async throws {
        let commits = store.commits()
        let settingsChanges = settings.changes()
        var current = try await summaries(first: first, last: last, timeZone: timeZone)
        try await deliver(current, true)
        let (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await event in commits where !event.changedTypes.isDisjoint(with: Self.sourceTypes) {
                    signal.yield()
                }
                signal.finish()
            }
            group.addTask {
                for await _ in settingsChanges { signal.yield() }
            }
            for await _ in signals {
                try Task.checkCancellation()
                let updated = try await summaries(first: first, last: last, timeZone: timeZone)
                let changed = zip(current, updated).filter { $0 != $1 }.map(\.1)
                current = updated
                if !changed.isEmpty { try await deliver(changed, false) }
            }
            group.cancelAll()
            try Task.checkCancellation()
        }
    }
}
