import SalusModel

/// The values of sleep analysis samples, with HealthKit's raw values
/// (`HKCategoryValueSleepAnalysis`).
public enum CategoryValueSleepAnalysis: Int, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// In bed, asleep or not.
    case inBed = 0
    /// Asleep, stage unknown.
    case asleepUnspecified = 1
    /// Awake during the sleep period.
    case awake = 2
    /// Core (light) sleep.
    case asleepCore = 3
    /// Deep sleep.
    case asleepDeep = 4
    /// REM sleep.
    case asleepREM = 5

    /// Every asleep value: unspecified, core, deep and REM (the "allAsleep" value group).
    public static var allAsleepValues: Set<CategoryValueSleepAnalysis> {
        [.asleepUnspecified, .asleepCore, .asleepDeep, .asleepREM]
    }

    /// The name of the value group the sleep plugin declares for ``allAsleepValues``.
    public static let allAsleepValueGroup = "allAsleep"

    /// Sleep analysis samples with one of `values`, as HealthKit's
    /// `HKCategoryValueSleepAnalysis.predicateForSamples(equalTo:)`.
    public static func predicateForSamples(equalTo values: Set<CategoryValueSleepAnalysis>) -> SamplePredicate {
        .sleepAnalysis(values)
    }

    /// The case name ("asleepREM"), as the registry names it.
    public var description: String {
        switch self {
        case .inBed: "inBed"
        case .asleepUnspecified: "asleepUnspecified"
        case .awake: "awake"
        case .asleepCore: "asleepCore"
        case .asleepDeep: "asleepDeep"
        case .asleepREM: "asleepREM"
        }
    }
}

extension Set where Element == CategoryValueSleepAnalysis {
    /// Every asleep value: unspecified, core, deep and REM, for `.sleepAnalysis(.allAsleepValues)`.
    public static var allAsleepValues: Set<CategoryValueSleepAnalysis> {
        CategoryValueSleepAnalysis.allAsleepValues
    }
}
