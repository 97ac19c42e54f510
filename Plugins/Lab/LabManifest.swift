import SalusPluginKit

/// Lab and test results: blood glucose (with the meal it relates to), insulin delivery (which
/// must say whether it was basal or bolus, as HealthKit requires), blood alcohol, perfusion
/// index, electrodermal activity and falls; and medications: the ones the person added, with their
/// annotations, and their dose events.
enum LabManifest {
    static let manifest = PluginManifest(
        id: "org.salus.lab", name: "Salus Lab Results", version: "1.0.0",
        types: types.map { $0.inArea("lab") } + [
            // Medications: the doses taken, skipped or snoozed.
            TypeDefinition(identifier: "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent", kind: .medicationDoseEvent,
                           displayName: "Medication doses").inArea("medications"),
            // The medications the person added, with nickname, archived and schedule flags; HealthKit's
            // constant HKDataTypeIdentifierUserAnnotatedMedicationConcept has this raw string.
            TypeDefinition(identifier: "HKDataTypeUserAnnotatedMedicationConcept", kind: .userAnnotatedMedication,
                           displayName: "Medications").inArea("medications"),
        ],
        metadataKeys: [
            MetadataKeyDefinition("HKBloodGlucoseMealTime", .number, displayName: "Blood glucose meal time",
                                  allowedValues: [EnumerationCase("preprandial", 1), EnumerationCase("postprandial", 2)]),
            MetadataKeyDefinition("HKInsulinDeliveryReason", .number, displayName: "Insulin delivery reason",
                                  allowedValues: [EnumerationCase("basal", 1), EnumerationCase("bolus", 2)]),
        ]
    )

    /// A percentage in SalusModel's "%" unit, a hundredth of a count: 0.08 % is stored as 0.08.
    static let percentage = ValueBounds(min: 0, max: 100)

    /// The types, one row each (all in the "lab" area).
    static let types: [TypeDefinition] = [
        .quantity("HKQuantityTypeIdentifierBloodGlucose", displayName: "Blood glucose", unit: "mg/dL",
                  aggregation: .discreteArithmetic, bounds: .nonNegative)
            .documenting(MetadataKeyUse("HKBloodGlucoseMealTime", .number)),
        .quantity("HKQuantityTypeIdentifierInsulinDelivery", displayName: "Insulin delivery", unit: "IU",
                  aggregation: .cumulative, bounds: .lifetimeTotal)
            .requiring(MetadataKeyUse("HKInsulinDeliveryReason", .number)),
        .quantity("HKQuantityTypeIdentifierBloodAlcoholContent", displayName: "Blood alcohol content", unit: "%",
                  aggregation: .discreteArithmetic, bounds: percentage),
        .quantity("HKQuantityTypeIdentifierPeripheralPerfusionIndex", displayName: "Peripheral perfusion index",
                  unit: "%", aggregation: .discreteArithmetic, bounds: percentage),
        .quantity("HKQuantityTypeIdentifierElectrodermalActivity", displayName: "Electrodermal activity", unit: "S",
                  aggregation: .discreteArithmetic, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierNumberOfTimesFallen", displayName: "Number of times fallen",
                  unit: "count", aggregation: .cumulative, bounds: .lifetimeTotal),
    ]
}
