import SalusPluginKit

/// Wheelchair: the wheelchair-use characteristic, wheelchair distance, pushes, move time and the
/// wheelchair workout activity types.
enum WheelchairManifest {
    static let manifest = PluginManifest(
        id: "org.salus.wheelchair", name: "Salus Wheelchair", version: "1.1.0",
        types: types.filter { $0.kind != .characteristic },
        workoutActivityTypes: [
            WorkoutActivityTypeDefinition("wheelchairWalkPace", 70),
            WorkoutActivityTypeDefinition("wheelchairRunPace", 71),
        ],
        characteristicTypes: types.filter { $0.kind == .characteristic }
    )

    /// The types, one row each; move time is in the catalogue's "activity" area (it is the move
    /// goal of anyone who chooses it), the rest in "wheelchair".
    static let types: [TypeDefinition] = [
        .quantity("HKQuantityTypeIdentifierDistanceWheelchair", displayName: "Wheelchair distance",
                  unit: "m", aggregation: .cumulative, bounds: .lifetimeTotal, area: "wheelchair"),
        .quantity("HKQuantityTypeIdentifierPushCount", displayName: "Pushes", unit: "count",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "wheelchair"),
        .quantity("HKQuantityTypeIdentifierAppleMoveTime", displayName: "Move minutes", unit: "min",
                  aggregation: .cumulative, bounds: .lifetimeMinutes, area: "activity"),
        .characteristic("HKCharacteristicTypeIdentifierWheelchairUse", displayName: "Wheelchair", cases: [
            EnumerationCase("notSet", 0), EnumerationCase("no", 1), EnumerationCase("yes", 2),
        ], area: "wheelchair"),
    ]

    /// Move time within one sample cannot exceed the sample's own duration. The host passes
    /// quantities in the canonical unit (min).
    @Sendable static func validate(_ sample: SampleView) -> SampleRefusal? {
        guard sample.type == "HKQuantityTypeIdentifierAppleMoveTime",
            case .quantity(let value, _) = sample.value,
            sample.endDate > sample.startDate
        else { return nil }
        let minutes = sample.durationSeconds / 60
        if value > minutes + 1e-9 {
            return SampleRefusal(
                field: "quantity.value", value: "\(value) min",
                expected: "at most the sample's duration, \(minutes) min")
        }
        return nil
    }
}
