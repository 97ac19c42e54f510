import SalusPluginKit

extension CoreManifest {
    // MARK: Correlations

    /// HealthKit's two correlation types. What each holds (blood pressure: one systolic and one
    /// diastolic sample; food: dietary quantity samples) is the model's rule, not the manifest's.
    static let correlationTypes: [TypeDefinition] = [
        .correlation("HKCorrelationTypeIdentifierBloodPressure", displayName: "Blood pressure"),
        .correlation("HKCorrelationTypeIdentifierFood", displayName: "Food"),
    ]

    /// The member types the correlations need: blood pressure's two readings and five nutrients.
    static let correlationMemberTypes: [TypeDefinition] = [
        // Above zero and at most 400 mmHg (the highest recorded: 370 mmHg).
        .quantity("HKQuantityTypeIdentifierBloodPressureSystolic", displayName: "Systolic blood pressure",
                  unit: "mmHg", aggregation: .discreteArithmetic, bounds: bloodPressureBounds),
        .quantity("HKQuantityTypeIdentifierBloodPressureDiastolic", displayName: "Diastolic blood pressure",
                  unit: "mmHg", aggregation: .discreteArithmetic, bounds: bloodPressureBounds),
        .quantity("HKQuantityTypeIdentifierDietaryEnergyConsumed", displayName: "Dietary energy", unit: "kcal",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierDietaryProtein", displayName: "Protein", unit: "g",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierDietaryCarbohydrates", displayName: "Carbohydrates", unit: "g",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierDietaryFatTotal", displayName: "Total fat", unit: "g",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierDietarySugar", displayName: "Sugar", unit: "g",
                  aggregation: .cumulative, bounds: .nonNegative),
    ]

    /// Millimetres of mercury above zero and at most 400.
    static let bloodPressureBounds = ValueBounds(min: 0, minInclusive: false, max: 400)
}
