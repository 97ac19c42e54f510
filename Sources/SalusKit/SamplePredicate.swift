import Foundation
import SalusModel
import SalusProto
import SalusWire

/// Which samples a query, a deletion or an observer is about: a composable tree, as HealthKit's
/// `NSPredicate`s made by `HKQuery.predicateForSamples(…)`, but as plain Swift values.
///
/// ```swift
/// let lastNight: SamplePredicate = .date(start: evening, end: morning)
/// let remOnly = lastNight && .sleepAnalysis([.asleepREM])
/// let asleep = lastNight && .sleepAnalysis(.allAsleepValues)
/// let mine = .sources(["org.example.sleepdiary"]) && !.metadata(key: MetadataKey.wasUserEntered, .exists)
/// ```
///
/// No predicate (nil where one is optional) matches every sample of the type.
public indirect enum SamplePredicate: Hashable, Sendable {
    /// Every predicate matches (an empty list matches everything).
    case and([SamplePredicate])
    /// At least one predicate matches (an empty list matches nothing).
    case or([SamplePredicate])
    /// The predicate does not match.
    case not(SamplePredicate)
    /// The sample's period relative to a window, as `predicateForSamples(withStart:end:options:)`:
    /// without options it must overlap `[start, end]`; an absent bound is open.
    case date(start: Date?, end: Date?, options: DatePredicateOptions = [])
    /// Samples saved by any of these app ids.
    case sources(Set<String>)
    /// Samples saved by any of these apps (and versions).
    case sourceRevisions([SourceRevisionMatch])
    /// Samples from any of these devices; every property must match, nil ones as nil.
    case devices([Device])
    /// Samples whose device has this property among the allowed values; an empty set matches a
    /// nil property.
    case deviceProperty(DeviceProperty, allowedValues: Set<String>)
    /// Samples with these UUIDs.
    case uuids(Set<UUID>)
    /// Samples whose metadata under `key` passes the test.
    case metadata(key: String, MetadataTest)
    /// Quantity samples whose value compares to the quantity (converted to the type's unit).
    case quantity(ComparisonOperator, Quantity)
    /// Category samples whose raw value is in the set or in one of the named value groups a
    /// plugin declares ("allAsleep" of sleep analysis).
    case categoryValues(Set<Int>, valueGroups: Set<String> = [])
    /// Workouts of this activity type (HKWorkoutActivityType raw value: running 37).
    case workoutActivityType(UInt)
    /// Workouts whose duration compares to this many seconds.
    case workoutDuration(ComparisonOperator, TimeInterval)
    /// Workouts whose statistic of a quantity type compares to the quantity.
    case workoutStatistic(QuantityTypeIdentifier, WorkoutStatistic, ComparisonOperator, Quantity)

    // MARK: Builders

    /// Sleep analysis samples with one of these values:
    /// `.sleepAnalysis(.allAsleepValues)`, `.sleepAnalysis([.asleepREM])`.
    public static func sleepAnalysis(_ values: Set<CategoryValueSleepAnalysis>) -> SamplePredicate {
        .categoryValues(Set(values.map(\.rawValue)))
    }

    /// Category samples whose value is in the named value group a plugin declares
    /// (`.categoryValueGroup("allAsleep")`); the daemon resolves the group.
    public static func categoryValueGroup(_ name: String) -> SamplePredicate {
        .categoryValues([], valueGroups: [name])
    }

    /// Samples whose metadata under `key` equals `value`.
    public static func metadata(key: String, equalTo value: MetadataValue) -> SamplePredicate {
        .metadata(key: key, .comparison(.equal, value))
    }

    /// Samples whose metadata has `key`.
    public static func metadataKeyExists(_ key: String) -> SamplePredicate {
        .metadata(key: key, .exists)
    }

    /// Samples whose start and end both lie in `interval` (both strict options).
    public static func within(_ interval: DateInterval) -> SamplePredicate {
        .date(start: interval.start, end: interval.end, options: [.strictStartDate, .strictEndDate])
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

    // MARK: Wire

    /// The wire form (`salus.v1.Predicate`). Sets are sent sorted, so equal predicates encode
    /// to equal bytes.
    public var wire: Salus_V1_Predicate {
        var wire = Salus_V1_Predicate()
        switch self {
        case .and(let predicates):
            var list = Salus_V1_PredicateList()
            list.predicates = predicates.map(\.wire)
            wire.and = list
        case .or(let predicates):
            var list = Salus_V1_PredicateList()
            list.predicates = predicates.map(\.wire)
            wire.or = list
        case .not(let predicate):
            wire.not = predicate.wire
        case .date(let start, let end, let options):
            var window = Salus_V1_DateWindow()
            if let start { window.startDate = WireDate.microseconds(start) }
            if let end { window.endDate = WireDate.microseconds(end) }
            window.strictStartDate = options.contains(.strictStartDate)
            window.strictEndDate = options.contains(.strictEndDate)
            wire.dateWindow = window
        case .sources(let appIDs):
            var sources = Salus_V1_SourcesPredicate()
            sources.appIds = appIDs.sorted()
            wire.sources = sources
        case .sourceRevisions(let matches):
            var revisions = Salus_V1_SourceRevisionsPredicate()
            revisions.revisions = matches.map { match in
                var revision = Salus_V1_SourceRevisionMatch()
                revision.appID = match.appID
                if let version = match.version { revision.version = version }
                return revision
            }
            wire.sourceRevisions = revisions
        case .devices(let devices):
            var predicate = Salus_V1_DevicesPredicate()
            predicate.devices = devices.map(\.wire)
            wire.devices = predicate
        case .deviceProperty(let property, let allowedValues):
            var predicate = Salus_V1_DevicePropertyPredicate()
            predicate.property = property.wire
            predicate.allowedValues = allowedValues.sorted()
            wire.deviceProperty = predicate
        case .uuids(let uuids):
            var predicate = Salus_V1_UUIDsPredicate()
            predicate.uuids = uuids.sorted { $0.uuidString < $1.uuidString }.map(WireUUID.bytes)
            wire.uuids = predicate
        case .metadata(let key, let test):
            var predicate = Salus_V1_MetadataPredicate()
            predicate.key = key
            switch test {
            case .exists:
                predicate.exists = true
            case .absent:
                predicate.exists = false
            case .allowedValues(let values):
                var list = Salus_V1_MetadataValues()
                list.values = values.map(\.wire)
                predicate.allowedValues = list
            case .comparison(let comparisonOperator, let value):
                var comparison = Salus_V1_MetadataComparison()
                comparison.operator = comparisonOperator.wire
                comparison.value = value.wire
                predicate.comparison = comparison
            }
            wire.metadata = predicate
        case .quantity(let comparisonOperator, let quantity):
            var predicate = Salus_V1_QuantityPredicate()
            predicate.operator = comparisonOperator.wire
            predicate.quantity = quantity.wire
            wire.quantity = predicate
        case .categoryValues(let values, let groups):
            var predicate = Salus_V1_CategoryValuesPredicate()
            predicate.values = values.sorted().map(Int64.init)
            predicate.valueGroups = groups.sorted()
            wire.categoryValues = predicate
        case .workoutActivityType(let activityType):
            var predicate = Salus_V1_WorkoutPredicate()
            predicate.activityType = UInt32(clamping: activityType)
            wire.workout = predicate
        case .workoutDuration(let comparisonOperator, let seconds):
            var duration = Salus_V1_DurationComparison()
            duration.operator = comparisonOperator.wire
            duration.seconds = seconds
            var predicate = Salus_V1_WorkoutPredicate()
            predicate.duration = duration
            wire.workout = predicate
        case .workoutStatistic(let type, let statistic, let comparisonOperator, let quantity):
            var comparison = Salus_V1_WorkoutStatisticComparison()
            comparison.quantityType = type.rawValue
            comparison.statistic = statistic.wire
            comparison.operator = comparisonOperator.wire
            comparison.quantity = quantity.wire
            var predicate = Salus_V1_WorkoutPredicate()
            predicate.statistic = comparison
            wire.workout = predicate
        }
        return wire
    }
}
