import SalusPluginKit

/// Sleep: sleep analysis with its stages and the all-asleep group, sleeping wrist temperature,
/// breathing disturbances, sleep apnea events and the sleep goal.
enum SleepManifest {
    static let sleepAnalysis = "HKCategoryTypeIdentifierSleepAnalysis"

    static let manifest = PluginManifest(
        id: "org.salus.sleep", name: "Salus Sleep", version: "1.2.0",
        types: types.map { $0.inArea("sleep") })

    /// The types, one row each (all in the "sleep" area).
    static let types: [TypeDefinition] = [
        .category(sleepAnalysis, displayName: "Sleep", cases: [
            EnumerationCase("inBed", 0), EnumerationCase("asleepUnspecified", 1),
            EnumerationCase("awake", 2), EnumerationCase("asleepCore", 3),
            EnumerationCase("asleepDeep", 4), EnumerationCase("asleepREM", 5),
        ])
            .withDeprecatedAliases(EnumerationCase("asleep", 1))
            .withValueGroups(ValueGroup("allAsleep", [1, 3, 4, 5]))
            // HealthKit recommends the time zone on sleep samples.
            .documenting(MetadataKeyUse("HKTimeZone", .string)),
        // Degrees Celsius above freezing and at most 50: the same physical limits as body
        // temperature (the wrist is cooler, never colder than ice while the wearer lives).
        .quantity("HKQuantityTypeIdentifierAppleSleepingWristTemperature",
                  displayName: "Sleeping wrist temperature", unit: "degC", aggregation: .discreteArithmetic,
                  bounds: ValueBounds(min: 0, minInclusive: false, max: 50)),
        .quantity("HKQuantityTypeIdentifierAppleSleepingBreathingDisturbances",
                  displayName: "Breathing disturbances", unit: "count", aggregation: .discreteArithmetic,
                  bounds: .nonNegative),
        .category("HKCategoryTypeIdentifierSleepApneaEvent", displayName: "Sleep apnea",
                  cases: [.notApplicable]),
        // The person's sleep goal as the Health app keeps it: not public API, a `Record` type
        // only exports have (shared/reference "Export-only rows"), so that an export's goal
        // history imports and is written back. Hours, more than 0 and at most a day; read-only
        // for apps, as HealthKit offers apps no way to write it.
        .quantity("HKDataTypeSleepDurationGoal", displayName: "Sleep goal", unit: "hr", aggregation: .discreteArithmetic,
                  bounds: ValueBounds(min: 0, minInclusive: false, max: 24)).readOnly(),
    ]

    /// A sleep-analysis sample is one stretch of one state: it lasts less than 24 hours.
    @Sendable static func validate(_ sample: SampleView) -> SampleRefusal? {
        guard sample.type == sleepAnalysis else { return nil }
        let hours = sample.durationSeconds / 3600
        if hours >= 24 {
            return SampleRefusal(
                field: "endDate", value: "a sample lasting \(hours) h",
                expected: "less than 24 h (record each night's states as separate samples)")
        }
        return nil
    }
}
