import SalusPluginKit

/// Mobility: six-minute walk, walking speed, step length, asymmetry, double support, stair
/// speeds, and walking steadiness with its event (both read-only). The manifest's bounds say all
/// there is to check, so the plugin has no validator.
enum MobilityManifest {
    /// A percentage in SalusModel's "%" unit, a hundredth of a count: 25 % is stored as 25, so a
    /// share of a whole lies between 0 and 100 (a value saved in `count`, 0.25, converts to 25).
    static let percentage = ValueBounds(min: 0, max: 100)

    static let manifest = PluginManifest(
        id: "org.salus.mobility", name: "Salus Mobility", version: "1.1.0",
        types: types.map { $0.inArea("mobility") },
        metadataKeys: [
            MetadataKeyDefinition("HKMetadataKeyDevicePlacementSide", .number, displayName: "Device placement side",
                                  allowedValues: [EnumerationCase("unknown", 0), EnumerationCase("left", 1),
                                                  EnumerationCase("right", 2), EnumerationCase("central", 3)]),
            MetadataKeyDefinition("HKMetadataKeyAppleDeviceCalibrated", .bool, displayName: "Device calibrated",
                                  readOnlyForApps: true),
        ]
    )

    /// The types, one row each (all in the "mobility" area).
    static let types: [TypeDefinition] = [
        .quantity("HKQuantityTypeIdentifierSixMinuteWalkTestDistance", displayName: "Six-minute walk",
                  unit: "m", aggregation: .discreteArithmetic, bounds: .nonNegative)
            .documenting(MetadataKeyUse("HKMetadataKeyAppleDeviceCalibrated", .bool)),
        // No one walks at 12.5 m/s (45 km/h, faster than the fastest sprint ever run).
        .quantity("HKQuantityTypeIdentifierWalkingSpeed", displayName: "Walking speed", unit: "m/s",
                  aggregation: .discreteArithmetic, bounds: ValueBounds(min: 0, max: 12.5, maxInclusive: false)),
        .quantity("HKQuantityTypeIdentifierWalkingStepLength", displayName: "Walking step length", unit: "m",
                  aggregation: .discreteArithmetic, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierWalkingAsymmetryPercentage", displayName: "Walking asymmetry",
                  unit: "%", aggregation: .discreteArithmetic, bounds: percentage)
            .documenting(MetadataKeyUse("HKMetadataKeyDevicePlacementSide", .number)),
        .quantity("HKQuantityTypeIdentifierWalkingDoubleSupportPercentage", displayName: "Double support time",
                  unit: "%", aggregation: .discreteArithmetic, bounds: percentage),
        .quantity("HKQuantityTypeIdentifierStairAscentSpeed", displayName: "Stair speed: up", unit: "m/s",
                  aggregation: .discreteArithmetic, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierStairDescentSpeed", displayName: "Stair speed: down", unit: "m/s",
                  aggregation: .discreteArithmetic, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierAppleWalkingSteadiness", displayName: "Walking steadiness",
                  unit: "%", aggregation: .discreteArithmetic, bounds: percentage).readOnly(),
        .category("HKCategoryTypeIdentifierAppleWalkingSteadinessEvent", displayName: "Walking steadiness notification",
                  cases: [EnumerationCase("initialLow", 1), EnumerationCase("initialVeryLow", 2),
                          EnumerationCase("repeatLow", 3), EnumerationCase("repeatVeryLow", 4)]).readOnly(),
    ]
}
