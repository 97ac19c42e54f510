import Foundation
import SalusModel
import SalusStore

/// Computes a workout's statistics and derived figures from its associated samples, in memory.
///
/// **Which samples are associated** (docs/workouts.md, "Statistics"): the quantity samples saved
/// by the same app as the workout whose interval overlaps the workout's. The store keeps no link:
/// a sample saved, replaced or deleted later changes the figures the next time the workout is
/// served, so they are never stale.
///
/// **Pro-rating.** Over an interval (the workout's, an activity's, a lap's) each associated
/// sample counts by the fraction of its span inside the interval: a 160 s distance sample with
/// 60 s inside counts 60/160 of its value. A point sample (start = end) counts whole in the
/// interval containing its instant (start inclusive, end exclusive; the workout's own end
/// inclusive). Cumulative types get the sum of the counted parts. Discrete types get the
/// minimum and maximum of the values counted and the average weighted by those fractions,
/// Σ vᵢ·fᵢ / Σ fᵢ. A type with no sample counted has no statistics.
package struct WorkoutFigures: Sendable {
    /// One associated quantity sample: its type, interval and value in the type's canonical unit.
    package struct Entry: Hashable, Sendable {
        /// The quantity type.
        package var type: TypeIdentifier
        /// The sample's start.
        package var start: Date
        /// The sample's end.
        package var end: Date
        /// The value in the type's canonical unit.
        package var value: Double

        /// Creates an entry.
        package init(type: TypeIdentifier, start: Date, end: Date, value: Double) {
            self.type = type
            self.start = start
            self.end = end
            self.value = value
        }
    }

    /// How each type aggregates and the unit its values are in.
    package var styles: [TypeIdentifier: (style: AggregationStyle, unit: SalusUnit)]

    /// The stroke count type SWOLF counts.
    package static let strokeCount: TypeIdentifier = "HKQuantityTypeIdentifierSwimmingStrokeCount"
    /// The swimming distance type that says how many pool lengths a lap or activity covered.
    package static let swimmingDistance: TypeIdentifier = "HKQuantityTypeIdentifierDistanceSwimming"
    /// The heart rate type.
    package static let heartRate: TypeIdentifier = "HKQuantityTypeIdentifierHeartRate"
    /// The type heart-rate recovery is saved as.
    package static let heartRateRecovery: TypeIdentifier = "HKQuantityTypeIdentifierHeartRateRecoveryOneMinute"

    /// Figures computed with each type's aggregation style and canonical unit.
    package init(styles: [TypeIdentifier: (style: AggregationStyle, unit: SalusUnit)]) {
        self.styles = styles
    }

    /// The fraction of `entry` inside `start`..<`end` (`...end` when `closed`).
    static func fraction(of entry: Entry, from start: Date, to end: Date, closed: Bool) -> Double {
        let span = entry.end.timeIntervalSince(entry.start)
        if span <= 0 {
            let inside = entry.start >= start && (closed ? entry.start <= end : entry.start < end)
            return inside ? 1 : 0
        }
        let overlap = min(entry.end, end).timeIntervalSince(max(entry.start, start))
        return overlap > 0 ? overlap / span : 0
    }

    /// The statistics per type of `entries` over `start`...`end`.
    package func statistics(
        of entries: [Entry], from start: Date, to end: Date, closed: Bool = false
    ) -> [TypeIdentifier: WorkoutStatistics] {
        struct Accumulator {
            var sum = 0.0
            var weight = 0.0
            var minimum = Double.infinity
            var maximum = -Double.infinity
        }
        var accumulators: [TypeIdentifier: Accumulator] = [:]
        for entry in entries {
            let fraction = Self.fraction(of: entry, from: start, to: end, closed: closed)
            guard fraction > 0 else { continue }
            var accumulator = accumulators[entry.type] ?? Accumulator()
            accumulator.sum += entry.value * fraction
            accumulator.weight += fraction
            accumulator.minimum = min(accumulator.minimum, entry.value)
            accumulator.maximum = max(accumulator.maximum, entry.value)
            accumulators[entry.type] = accumulator
        }
        var result: [TypeIdentifier: WorkoutStatistics] = [:]
        for (type, accumulator) in accumulators {
            guard let (style, unit) = styles[type] else { continue }
            var figures: WorkoutStatistics
            if style.isCumulative {
                figures = WorkoutStatistics(sum: Quantity(value: accumulator.sum, unit: unit))
            } else {
                figures = WorkoutStatistics(
                    average: Quantity(value: accumulator.sum / accumulator.weight, unit: unit),
                    minimum: Quantity(value: accumulator.minimum, unit: unit),
                    maximum: Quantity(value: accumulator.maximum, unit: unit))
            }
            figures.fromSamples = true
            result[type] = figures
        }
        return result
    }

    /// `workout` (saved from `start` to `end`) with its statistics and its activities' computed
    /// from `entries`, and SWOLF set on its pool laps and pool activities.
    ///
    /// `statistics` and `allStatistics` keep what the save gave for types with no associated
    /// sample (an imported workout's totals, minimum and maximum) and take the computed figures
    /// for the others.
    package func completing(_ workout: Workout, from start: Date, to end: Date, entries: [Entry]) -> Workout {
        var workout = workout
        let given = workout.allStatistics
        workout.allStatistics = statistics(of: entries, from: start, to: end, closed: true)
        for (type, figures) in workout.allStatistics {
            if let main = figures.main { workout.statistics[type] = main }
        }
        for (type, figures) in given where workout.allStatistics[type] == nil { workout.allStatistics[type] = figures }
        for index in workout.activities.indices {
            var activity = workout.activities[index]
            let activityEnd = activity.endDate ?? end
            let activityGiven = activity.allStatistics
            activity.allStatistics = statistics(
                of: entries, from: activity.startDate, to: activityEnd, closed: activityEnd == end)
            for (type, figures) in activity.allStatistics {
                if let main = figures.main { activity.statistics[type] = main }
            }
            for (type, figures) in activityGiven where activity.allStatistics[type] == nil { activity.allStatistics[type] = figures }
            if let lap = poolLength(activity.configuration.lapLength ?? workout.configuration.lapLength) {
                let laps = workout.events.filter {
                    $0.type == WorkoutEventType.lap.rawValue && $0.startDate >= activity.startDate && $0.endDate <= activityEnd
                }
                let active = workout.activeDuration(from: activity.startDate, to: activityEnd)
                if let score = swolf(entries: entries, from: activity.startDate, to: activityEnd, seconds: active,
                                     poolLength: lap, defaultLengths: Double(laps.count)) {
                    activity.metadata[MetadataKey.swolfScore] = .number(score)
                }
            }
            workout.activities[index] = activity
        }
        for index in workout.events.indices where workout.events[index].type == WorkoutEventType.lap.rawValue {
            let event = workout.events[index]
            let owner = workout.activities.first { $0.startDate <= event.startDate && event.endDate <= ($0.endDate ?? end) }
            guard event.endDate > event.startDate,
                let lap = poolLength(owner?.configuration.lapLength ?? workout.configuration.lapLength),
                let score = swolf(entries: entries, from: event.startDate, to: event.endDate,
                                  seconds: event.endDate.timeIntervalSince(event.startDate), poolLength: lap, defaultLengths: 1)
            else { continue }
            workout.events[index].metadata[MetadataKey.swolfScore] = .number(score)
        }
        return workout
    }

    /// A lap length in meters, when it is a positive length.
    private func poolLength(_ quantity: Quantity?) -> Double? {
        guard let quantity, let meters = try? quantity.doubleValue(for: .meter), meters > 0 else { return nil }
        return meters
    }

    /// SWOLF over `from`..<`to`: (strokes + seconds) per pool length. The strokes are the
    /// pro-rated stroke count inside; the lengths are the pro-rated swimming distance inside
    /// divided by the pool length, or `defaultLengths` (1 for a lap: a pool lap is one length)
    /// when no distance was recorded. Nil without strokes or lengths.
    func swolf(
        entries: [Entry], from start: Date, to end: Date, seconds: Double, poolLength: Double, defaultLengths: Double
    ) -> Double? {
        let inside = statistics(of: entries.filter { $0.type == Self.strokeCount || $0.type == Self.swimmingDistance },
                                from: start, to: end)
        guard let strokes = inside[Self.strokeCount]?.sum?.value else { return nil }
        var lengths = defaultLengths
        if let distance = inside[Self.swimmingDistance]?.sum,
            let meters = try? distance.doubleValue(for: .meter), meters > 0
        {
            lengths = meters / poolLength
        }
        guard lengths > 0 else { return nil }
        return (strokes + seconds) / lengths
    }

    /// Heart-rate recovery one minute after `end`, as a sample of
    /// `HKQuantityTypeIdentifierHeartRateRecoveryOneMinute` from `end` to one minute later: the
    /// heart rate at the end (the latest heart-rate sample starting in the last minute up to
    /// `end`) minus the heart rate one minute later (the sample starting nearest to `end` + 60 s,
    /// at most 15 s away). Its metadata: `HKMetadataKeyHeartRateRecoveryTestType` maxExercise (1)
    /// — measured after exercise, not predicted —, the workout's activity type and its duration.
    /// Nil when either heart rate is missing. `entries` are heart-rate samples in count/min.
    package static func heartRateRecovery(
        workout: Workout, from start: Date, to end: Date, heartRates entries: [Entry], source: SourceRevision
    ) -> Sample? {
        let rates = entries.filter { $0.type == heartRate }
        guard let atEnd = rates.filter({ $0.start <= end && $0.start >= end.addingTimeInterval(-60) }).max(by: { $0.start < $1.start }),
            let later = rates.filter({ abs($0.start.timeIntervalSince(end.addingTimeInterval(60))) <= 15 })
                .min(by: { abs($0.start.timeIntervalSince(end.addingTimeInterval(60))) < abs($1.start.timeIntervalSince(end.addingTimeInterval(60))) })
        else { return nil }
        let perMinute = SalusUnit.count.divided(by: .minute)
        return Sample(
            type: heartRateRecovery, startDate: end, endDate: end.addingTimeInterval(60),
            value: .quantity(Quantity(value: atEnd.value - later.value, unit: perMinute)),
            sourceRevision: source,
            metadata: [
                MetadataKey.heartRateRecoveryTestType: .number(1),
                MetadataKey.heartRateRecoveryActivityType: .number(Double(workout.activityType)),
                MetadataKey.heartRateRecoveryActivityDuration: .quantity(
                    Quantity(value: workout.activeDuration(from: start, to: end), unit: .second)),
            ])
    }
}

extension WorkoutFigures {
    /// `samples` with every workout among them completed (`completing(_:from:to:entries:)`) from
    /// the store's associated samples; other samples unchanged. `mayRead(type, appID)` says
    /// whether the reader may read `appID`'s samples of `type`: statistics of other types are
    /// left out (a reader learns nothing from a workout about types it may not read).
    package static func completingWorkouts(
        _ samples: [Sample], store: SampleStore, mayRead: (TypeIdentifier, String) -> Bool
    ) async throws -> [Sample] {
        guard samples.contains(where: { $0.kind == .workout }) else { return samples }
        var styles: [TypeIdentifier: (style: AggregationStyle, unit: SalusUnit)] = [:]
        var result = samples
        for index in result.indices {
            guard case .workout(let workout) = result[index].value else { continue }
            let sample = result[index]
            let appID = sample.sourceRevision.appID
            var entries: [Entry] = []
            // Up to 75 s past the end: heart-rate recovery reads the rate a minute after it.
            for row in try await store.associatedQuantities(appID: appID, from: sample.startDate, to: sample.endDate.addingTimeInterval(75))
            where mayRead(row.type, appID) {
                if styles[row.type] == nil, let rules = store.catalog.rules(for: row.type), let unit = rules.canonicalUnit {
                    styles[row.type] = (rules.aggregationStyle ?? .discreteArithmetic, unit)
                }
                entries.append(
                    Entry(
                        type: row.type, start: Date(timeIntervalSince1970: Double(row.startMicroseconds) / 1_000_000),
                        end: Date(timeIntervalSince1970: Double(row.endMicroseconds) / 1_000_000), value: row.value))
            }
            var stored = workout
            // What the save gave stands only for types the reader may read.
            stored.statistics = stored.statistics.filter { mayRead($0.key, appID) }
            stored.allStatistics = stored.allStatistics.filter { mayRead($0.key, appID) }
            for activity in stored.activities.indices {
                stored.activities[activity].statistics = stored.activities[activity].statistics.filter { mayRead($0.key, appID) }
                stored.activities[activity].allStatistics = stored.activities[activity].allStatistics.filter { mayRead($0.key, appID) }
            }
            let figures = WorkoutFigures(styles: styles)
            let inside = entries.filter { $0.start <= sample.endDate }
            var completed = figures.completing(stored, from: sample.startDate, to: sample.endDate, entries: inside)
            // Heart-rate recovery one minute after the end, served as a figure of the workout.
            // Entries are in the type's canonical unit; recovery reads count/min.
            let perMinute = SalusUnit.count.divided(by: .minute)
            if mayRead(heartRate, appID), let canonical = styles[heartRate]?.unit,
                let scale = try? Quantity(value: 1, unit: canonical).converted(to: perMinute).value,
                let recovery = heartRateRecovery(
                    workout: completed, from: sample.startDate, to: sample.endDate,
                    heartRates: entries.filter { $0.type == heartRate }.map {
                        Entry(type: $0.type, start: $0.start, end: $0.end, value: $0.value * scale)
                    },
                    source: sample.sourceRevision),
                case .quantity(let drop) = recovery.value
            {
                completed.statistics[heartRateRecovery] = drop
                var figures = WorkoutStatistics(average: drop)
                figures.fromSamples = true
                completed.allStatistics[heartRateRecovery] = figures
            }
            result[index].value = .workout(completed)
        }
        return result
    }
}
