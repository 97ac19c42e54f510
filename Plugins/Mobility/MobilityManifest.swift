import SalusPluginKit

/// Mobility: six-minute walk, walking speed, step length, asymmetry, double support, stair
/// speeds, and walking steadiness with its event (both read-only). The manifest's bounds say all
/// there is to check, so the plugin has no validator.
enum MobilityManifest {
    /// A percentage is a fraction of one in HealthKit's "%" unit (0.25 is 25 %).
    static let fraction = ValueBounds(min: 0, max: 1)

    static let manifest = PluginManifest(
        id: "org.salus.mobility", name: "Salus Mobility", version: "1.0.0",
        types: [
            {
                var type = TypeDefinition.quantity(
                    "HKQuantityTypeIdentifierSixMinuteWalkTestDistance", displayName: "Six-minute walk",
                    unit: "m", aggregation: .discreteArithmetic, bounds: .nonNegative)
                type.optionalMetadataKeys = [MetadataKeyUse("HKMetadataKeyAppleDeviceCalibrated", .bool)]
                return type
            }(),
            // No one walks at 12.5 m/s (45 km/h, faster than the fastest sprint ever run).
            .quantity("HKQuantityTypeIdentifierWalkingSpeed", displayName: "Walking speed", unit: "m/s",
                      aggregation: .discreteArithmetic, bounds: ValueBounds(min: 0, max: 12.5, maxInclusive: false)),
            .quantity("HKQuantityTypeIdentifierWalkingStepLength", displayName: "Walking step length", unit: "m",
                      aggregation: .discreteArithmetic, bounds: .nonNegative),
            {
                var type = TypeDefinition.quantity(
                    "HKQuantityTypeIdentifierWalkingAsymmetryPercentage", displayName: "Walking asymmetry",
                    unit: "%", aggregation: .discreteArithmetic, bounds: fraction)
                type.optionalMetadataKeys = [MetadataKeyUse("HKMetadataKeyDevicePlacementSide", .number)]
                return type
            }(),
            .quantity("HKQuantityTypeIdentifierWalkingDoubleSupportPercentage",
                      displayName: "Double support time", unit: "%", aggregation: .discreteArithmetic,
                      bounds: fraction),
            .quantity("HKQuantityTypeIdentifierStairAscentSpeed", displayName: "Stair speed: up", unit: "m/s",
                      aggregation: .discreteArithmetic, bounds: .nonNegative),
            .quantity("HKQuantityTypeIdentifierStairDescentSpeed", displayName: "Stair speed: down", unit: "m/s",
                      aggregation: .discreteArithmetic, bounds: .nonNegative),
            {
                var type = TypeDefinition.quantity(
                    "HKQuantityTypeIdentifierAppleWalkingSteadiness", displayName: "Walking steadiness",
                    unit: "%", aggregation: .discreteArithmetic, bounds: fraction)
                type.readOnlyForApps = true
                return type
            }(),
            {
                var type = TypeDefinition.category(
                    "HKCategoryTypeIdentifierAppleWalkingSteadinessEvent", displayName: "Walking steadiness notification",
                    cases: [EnumerationCase("initialLow", 1), EnumerationCase("initialVeryLow", 2),
                            EnumerationCase("repeatLow", 3), EnumerationCase("repeatVeryLow", 4)])
                type.readOnlyForApps = true
                return type
            }(),
        ],
        metadataKeys: [
            MetadataKeyDefinition("HKMetadataKeyDevicePlacementSide", .number, displayName: "Device placement side",
                                  allowedValues: [EnumerationCase("unknown", 0), EnumerationCase("left", 1),
                                                  EnumerationCase("right", 2), EnumerationCase("central", 3)]),
            MetadataKeyDefinition("HKMetadataKeyAppleDeviceCalibrated", .bool, displayName: "Device calibrated",
                                  readOnlyForApps: true),
        ]
    )
}
