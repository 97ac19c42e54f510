import SalusPluginKit

extension CoreManifest {
    // MARK: Correlations

    /// HealthKit's two correlation types. What each holds (blood pressure: one systolic and one
    /// diastolic sample, registered by Vitals; food: dietary quantity samples, registered by
    /// Nutrition) is the model's rule, not the manifest's.
    static let correlationTypes: [TypeDefinition] = [
        .correlation("HKCorrelationTypeIdentifierBloodPressure", displayName: "Blood pressure").inArea("vitals"),
        .correlation("HKCorrelationTypeIdentifierFood", displayName: "Food").inArea("nutrition"),
    ]
}
