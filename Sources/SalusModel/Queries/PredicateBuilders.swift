import Foundation

/// Options of a date predicate, as HealthKit's `HKQueryOptions`.
public struct DatePredicateOptions: OptionSet, Hashable, Sendable {
    /// The raw bits.
    public var rawValue: Int

    /// Options from raw bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The sample must start inside the window.
    public static let strictStartDate = DatePredicateOptions(rawValue: 1 << 0)
    /// The sample must end inside the window.
    public static let strictEndDate = DatePredicateOptions(rawValue: 1 << 1)
}

/// Builders in HealthKit's words, so apps write `.date(start: evening, end: morning) &&
/// .categoryValueGroup("allAsleep")`:
///
/// ```swift
/// let lastNight: SamplePredicate = .date(start: evening, end: morning)
/// let mine = .sources(["org.example.sleepdiary"]) && !.metadata(key: MetadataKey.wasUserEntered, .exists)
/// ```
extension SamplePredicate {
    /// The sample's period relative to a window, as `predicateForSamples(withStart:end:options:)`:
    /// without options it must overlap the window; a nil bound is open.
    public static func date(start: Date?, end: Date?, options: DatePredicateOptions = []) -> SamplePredicate {
        .dateWindow(DateWindow(
            start: start, end: end, strictStartDate: options.contains(.strictStartDate),
            strictEndDate: options.contains(.strictEndDate)))
    }

    /// Samples whose start and end both lie in `interval` (both strict options).
    public static func within(_ interval: DateInterval) -> SamplePredicate {
        .date(start: interval.start, end: interval.end, options: [.strictStartDate, .strictEndDate])
    }

    /// Samples whose metadata under `key` passes `test`.
    public static func metadata(key: String, _ test: MetadataTest) -> SamplePredicate {
        .metadata(key: key, test: test)
    }

    /// Samples whose metadata under `key` equals `value`.
    public static func metadata(key: String, equalTo value: MetadataValue) -> SamplePredicate {
        .metadata(key: key, test: .comparison(.equal, value))
    }

    /// Samples whose metadata has `key`.
    public static func metadataKeyExists(_ key: String) -> SamplePredicate {
        .metadata(key: key, test: .exists)
    }

    /// Category samples whose value is in the named value group a plugin declares
    /// (`.categoryValueGroup("allAsleep")`); the daemon resolves the group.
    public static func categoryValueGroup(_ name: String) -> SamplePredicate {
        .categoryValues([], valueGroups: [name])
    }

    /// The dose events of a medication concept, or the user-annotated medication of that concept:
    /// HealthKit's `predicateForMedicationDoseEvent(medicationConceptIdentifier:)`.
    public static func medicationConcept(_ identifier: String) -> SamplePredicate {
        .medicationConcepts([identifier])
    }

    /// Workouts of this activity type (HKWorkoutActivityType raw value: running 37).
    public static func workoutActivityType(_ rawValue: UInt) -> SamplePredicate {
        .workout(.activityType(rawValue))
    }

    /// Workouts whose duration compares to this many seconds.
    public static func workoutDuration(_ comparison: ComparisonOperator, _ seconds: TimeInterval) -> SamplePredicate {
        .workout(.duration(comparison, seconds: seconds))
    }

    /// Workouts whose statistic of a quantity type compares to the quantity.
    public static func workoutStatistic(
        _ type: TypeIdentifier, _ statistic: WorkoutStatistic, _ comparison: ComparisonOperator, _ quantity: Quantity
    ) -> SamplePredicate {
        .workout(.statistic(quantityType: type, statistic, comparison, quantity))
    }

    /// Workouts with an activity of this type (a running workout, running intervals, a
    /// triathlon's run), as HealthKit's `predicateForWorkoutActivities(workoutActivityType:)`.
    public static func workoutActivity(_ rawValue: UInt) -> SamplePredicate {
        .workout(.activity(WorkoutActivityTest(activityType: rawValue)))
    }

    /// Workouts with an activity (of `activityType`, when given) whose statistic of a quantity
    /// type compares to the quantity: `.workoutActivityStatistic(37, heartRate, .average,
    /// .greaterThan, 150 count/min)`.
    public static func workoutActivityStatistic(
        _ activityType: UInt?, _ type: TypeIdentifier, _ statistic: WorkoutStatistic, _ comparison: ComparisonOperator,
        _ quantity: Quantity
    ) -> SamplePredicate {
        .workout(.activity(WorkoutActivityTest(
            activityType: activityType, statistic: WorkoutStatisticTest(type, statistic, comparison, quantity))))
    }

    /// Both predicates; nested conjunctions are flattened.
    public static func && (lhs: SamplePredicate, rhs: SamplePredicate) -> SamplePredicate {
        switch (lhs, rhs) {
        case (.and(let left), .and(let right)): .and(left + right)
        case (.and(let left), _): .and(left + [rhs])
        case (_, .and(let right)): .and([lhs] + right)
        default: .and([lhs, rhs])
        }
    }

    /// Either predicate; nested disjunctions are flattened.
    public static func || (lhs: SamplePredicate, rhs: SamplePredicate) -> SamplePredicate {
        switch (lhs, rhs) {
        case (.or(let left), .or(let right)): .or(left + right)
        case (.or(let left), _): .or(left + [rhs])
        case (_, .or(let right)): .or([lhs] + right)
        default: .or([lhs, rhs])
        }
    }

    /// The negation.
    public static prefix func ! (predicate: SamplePredicate) -> SamplePredicate {
        .not(predicate)
    }
}
