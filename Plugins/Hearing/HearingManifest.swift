import SalusPluginKit

/// Hearing: environmental and headphone sound levels, sound reduction, and the loud-environment
/// and headphone notifications.
///
/// HealthKit's `HKCategoryTypeIdentifierEnvironmentalAudioExposureEvent` has the raw string
/// `HKCategoryTypeIdentifierAudioExposureEvent`, the string of the constant it replaced (deprecated
/// since iOS 14), so one type serves both: its case is the current `momentaryLimit` (1) and the
/// old `loudEnvironment` (also 1) is kept as a deprecated alias.
enum HearingManifest {
    static let manifest = PluginManifest(
        id: "org.salus.hearing", name: "Salus Hearing", version: "1.0.0",
        types: (types + [TypeDefinition(identifier: "HKDataTypeIdentifierAudiogram", kind: .audiogram, displayName: "Audiogram")])
            .map { $0.inArea("hearing") },
        metadataKeys: [
            MetadataKeyDefinition("HKMetadataKeyAudioExposureLevel", .quantity, displayName: "Audio exposure level",
                                  unit: "dBASPL"),
            MetadataKeyDefinition("HKMetadataKeyAudioExposureDuration", .quantity,
                                  displayName: "Audio exposure duration", unit: "s"),
        ]
    )

    /// The types, one row each (all in the "hearing" area). Sound levels have no bounds: a level
    /// in decibels may be below zero.
    static let types: [TypeDefinition] = [
        .quantity("HKQuantityTypeIdentifierEnvironmentalAudioExposure", displayName: "Environmental sound levels",
                  unit: "dBASPL", aggregation: .discreteEquivalentContinuousLevel),
        .quantity("HKQuantityTypeIdentifierHeadphoneAudioExposure", displayName: "Headphone audio levels",
                  unit: "dBASPL", aggregation: .discreteEquivalentContinuousLevel),
        .quantity("HKQuantityTypeIdentifierEnvironmentalSoundReduction", displayName: "Environmental sound reduction",
                  unit: "dBASPL", aggregation: .discreteEquivalentContinuousLevel),
        .category("HKCategoryTypeIdentifierAudioExposureEvent", displayName: "Environmental sound notification",
                  cases: [EnumerationCase("momentaryLimit", 1)])
            .withDeprecatedAliases(EnumerationCase("loudEnvironment", 1))
            .documenting(MetadataKeyUse("HKMetadataKeyAudioExposureLevel", .quantity),
                         MetadataKeyUse("HKMetadataKeyAudioExposureDuration", .quantity)),
        .category("HKCategoryTypeIdentifierHeadphoneAudioExposureEvent", displayName: "Headphone notification",
                  cases: [EnumerationCase("sevenDayLimit", 1)])
            .documenting(MetadataKeyUse("HKMetadataKeyAudioExposureLevel", .quantity),
                         MetadataKeyUse("HKMetadataKeyAudioExposureDuration", .quantity)),
    ]
}
