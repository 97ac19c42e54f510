import SalusPluginKit

/// Vitals: blood pressure, AFib burden, heart rate variability (RMSSD), the heart notifications
/// (high, low and irregular rhythm, read-only as in HealthKit; hypertension; low cardio fitness)
/// and the respiratory types (respiratory rate, blood oxygen, spirometry, inhaler use). Heart
/// rate and its daily averages predate this plugin and stay in Salus Core.
enum VitalsManifest {
    /// A percentage in SalusModel's "%" unit, a hundredth of a count: 97 % is stored as 97.
    static let percentage = ValueBounds(min: 0, max: 100)

    static let manifest = PluginManifest(
        id: "org.salus.vitals", name: "Salus Vitals", version: "1.0.0",
        types: types + recordings.map { $0.inArea("vitals") },
        metadataKeys: [
            MetadataKeyDefinition("HKHeartRateEventThreshold", .quantity, displayName: "Heart rate event threshold",
                                  unit: "count/min"),
            MetadataKeyDefinition("HKVO2MaxValue", .quantity, displayName: "VO2 max value", unit: "ml/(kg*min)"),
            MetadataKeyDefinition("HKLowCardioFitnessEventThreshold", .quantity,
                                  displayName: "Low cardio fitness threshold", unit: "ml/(kg*min)"),
        ]
    )

    /// Recordings of the heart: electrocardiograms (their voltages streamed apart) and heartbeat
    /// series.
    static let recordings: [TypeDefinition] = [
        TypeDefinition(identifier: "HKDataTypeIdentifierElectrocardiogram", kind: .electrocardiogram, displayName: "ECG"),
        TypeDefinition(identifier: "HKDataTypeIdentifierHeartbeatSeries", kind: .heartbeatSeries, displayName: "Heartbeat series"),
    ]

    /// The types, one row each.
    static let types: [TypeDefinition] = [
        .quantity("HKQuantityTypeIdentifierBloodPressureSystolic", displayName: "Blood pressure (systolic)",
                  unit: "mmHg", aggregation: .discreteArithmetic, bounds: .positive, area: "vitals"),
        .quantity("HKQuantityTypeIdentifierBloodPressureDiastolic", displayName: "Blood pressure (diastolic)",
                  unit: "mmHg", aggregation: .discreteArithmetic, bounds: .positive, area: "vitals"),
        .quantity("HKQuantityTypeIdentifierAtrialFibrillationBurden", displayName: "AFib history", unit: "%",
                  aggregation: .discreteTemporallyWeighted, bounds: percentage, area: "vitals"),
        .quantity("HKQuantityTypeIdentifierHeartRateVariabilityRMSSD", displayName: "Heart rate variability (RMSSD)",
                  unit: "ms", aggregation: .discreteArithmetic, bounds: .nonNegative, area: "vitals"),
        // Apple's documentation: apps may read these notifications but never save them.
        .category("HKCategoryTypeIdentifierHighHeartRateEvent", displayName: "High heart rate notification",
                  cases: [.notApplicable], area: "vitals")
            .documenting(MetadataKeyUse("HKHeartRateEventThreshold", .quantity)).readOnly(),
        .category("HKCategoryTypeIdentifierLowHeartRateEvent", displayName: "Low heart rate notification",
                  cases: [.notApplicable], area: "vitals")
            .documenting(MetadataKeyUse("HKHeartRateEventThreshold", .quantity)).readOnly(),
        .category("HKCategoryTypeIdentifierIrregularHeartRhythmEvent", displayName: "Irregular rhythm notification",
                  cases: [.notApplicable], area: "vitals").readOnly(),
        .category("HKCategoryTypeIdentifierHypertensionEvent", displayName: "Hypertension notification",
                  cases: [.notApplicable], area: "vitals"),
        .category("HKCategoryTypeIdentifierLowCardioFitnessEvent", displayName: "Low cardio fitness notification",
                  cases: [EnumerationCase("lowFitness", 1)], area: "vitals")
            .documenting(MetadataKeyUse("HKVO2MaxValue", .quantity),
                         MetadataKeyUse("HKLowCardioFitnessEventThreshold", .quantity)),

        // Respiratory.
        .quantity("HKQuantityTypeIdentifierRespiratoryRate", displayName: "Respiratory rate", unit: "count/s",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "respiratory"),
        .quantity("HKQuantityTypeIdentifierOxygenSaturation", displayName: "Blood oxygen", unit: "%",
                  aggregation: .discreteArithmetic, bounds: percentage, area: "respiratory"),
        .quantity("HKQuantityTypeIdentifierForcedVitalCapacity", displayName: "Forced vital capacity", unit: "L",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "respiratory"),
        .quantity("HKQuantityTypeIdentifierForcedExpiratoryVolume1", displayName: "Forced expiratory volume, 1 second",
                  unit: "L", aggregation: .discreteArithmetic, bounds: .nonNegative, area: "respiratory"),
        .quantity("HKQuantityTypeIdentifierPeakExpiratoryFlowRate", displayName: "Peak expiratory flow rate",
                  unit: "L/min", aggregation: .discreteArithmetic, bounds: .nonNegative, area: "respiratory"),
        .quantity("HKQuantityTypeIdentifierInhalerUsage", displayName: "Inhaler usage", unit: "count",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "respiratory"),
    ]
}
