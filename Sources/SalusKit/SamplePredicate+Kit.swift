import SalusModel

/// Builders over SalusKit's typed identifiers and values; the predicate itself is SalusModel's
/// `SamplePredicate`, the one vocabulary the daemon and its store speak too.
extension SamplePredicate {
    /// Sleep analysis samples with one of these values:
    /// `.sleepAnalysis(.allAsleepValues)`, `.sleepAnalysis([.asleepREM])`.
    public static func sleepAnalysis(_ values: Set<CategoryValueSleepAnalysis>) -> SamplePredicate {
        .categoryValues(Set(values.map(\.rawValue)))
    }

    /// Workouts whose statistic of a quantity type compares to the quantity.
    public static func workoutStatistic(
        _ type: QuantityTypeIdentifier, _ statistic: WorkoutStatistic, _ comparison: ComparisonOperator, _ quantity: Quantity
    ) -> SamplePredicate {
        .workout(.statistic(quantityType: TypeIdentifier(rawValue: type.rawValue), statistic, comparison, quantity))
    }
}
