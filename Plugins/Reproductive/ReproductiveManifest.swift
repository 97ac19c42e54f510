import SalusPluginKit

/// Reproductive health: basal body temperature, cervical mucus, ovulation tests, menstrual flow
/// (HKMenstrualCycleStart required), bleeding, sexual activity, contraceptives, pregnancy,
/// lactation, pregnancy and progesterone tests, and the read-only cycle-deviation types.
enum ReproductiveManifest {
    static let menstrualFlow = "HKCategoryTypeIdentifierMenstrualFlow"
    static let cycleStartKey = "HKMenstrualCycleStart"

    static let notApplicable = [EnumerationCase("notApplicable", 0)]

    /// HKCategoryValueVaginalBleeding (the numbers of the former HKCategoryValueMenstrualFlow).
    static let vaginalBleeding = [
        EnumerationCase("unspecified", 1), EnumerationCase("light", 2), EnumerationCase("medium", 3),
        EnumerationCase("heavy", 4), EnumerationCase("none", 5),
    ]

    static let testResult = [
        EnumerationCase("negative", 1), EnumerationCase("positive", 2), EnumerationCase("indeterminate", 3),
    ]

    static func readOnly(_ identifier: String, _ displayName: String) -> TypeDefinition {
        var type = TypeDefinition.category(identifier, displayName: displayName, cases: notApplicable)
        type.readOnlyForApps = true
        return type
    }

    static let manifest = PluginManifest(
        id: "org.salus.reproductive", name: "Salus Reproductive Health", version: "1.0.0",
        types: [
            .quantity("HKQuantityTypeIdentifierBasalBodyTemperature", displayName: "Basal body temperature",
                      unit: "degC", aggregation: .discreteArithmetic,
                      bounds: ValueBounds(min: 0, minInclusive: false, max: 50)),
            .category("HKCategoryTypeIdentifierCervicalMucusQuality", displayName: "Cervical mucus quality",
                      cases: [EnumerationCase("dry", 1), EnumerationCase("sticky", 2), EnumerationCase("creamy", 3),
                              EnumerationCase("watery", 4), EnumerationCase("eggWhite", 5)]),
            {
                var type = TypeDefinition.category(
                    "HKCategoryTypeIdentifierOvulationTestResult", displayName: "Ovulation test result",
                    cases: [EnumerationCase("negative", 1), EnumerationCase("luteinizingHormoneSurge", 2),
                            EnumerationCase("indeterminate", 3), EnumerationCase("estrogenSurge", 4)])
                type.deprecatedAliases = [EnumerationCase("positive", 2)]
                return type
            }(),
            {
                var type = TypeDefinition.category(menstrualFlow, displayName: "Menstruation", cases: vaginalBleeding)
                type.requiredMetadataKeys = [MetadataKeyUse(cycleStartKey, .bool)]
                return type
            }(),
            .category("HKCategoryTypeIdentifierIntermenstrualBleeding", displayName: "Spotting", cases: notApplicable),
            {
                var type = TypeDefinition.category(
                    "HKCategoryTypeIdentifierSexualActivity", displayName: "Sexual activity", cases: notApplicable)
                type.optionalMetadataKeys = [MetadataKeyUse("HKSexualActivityProtectionUsed", .bool)]
                return type
            }(),
            .category("HKCategoryTypeIdentifierContraceptive", displayName: "Contraceptives", cases: [
                EnumerationCase("unspecified", 1), EnumerationCase("implant", 2), EnumerationCase("injection", 3),
                EnumerationCase("intrauterineDevice", 4), EnumerationCase("intravaginalRing", 5),
                EnumerationCase("oral", 6), EnumerationCase("patch", 7),
            ]),
            .category("HKCategoryTypeIdentifierPregnancy", displayName: "Pregnancy", cases: notApplicable),
            .category("HKCategoryTypeIdentifierLactation", displayName: "Lactation", cases: notApplicable),
            .category("HKCategoryTypeIdentifierPregnancyTestResult", displayName: "Pregnancy test result",
                      cases: testResult),
            .category("HKCategoryTypeIdentifierProgesteroneTestResult", displayName: "Progesterone test result",
                      cases: testResult),
            readOnly("HKCategoryTypeIdentifierPersistentIntermenstrualBleeding", "Persistent spotting"),
            readOnly("HKCategoryTypeIdentifierProlongedMenstrualPeriods", "Prolonged periods"),
            readOnly("HKCategoryTypeIdentifierIrregularMenstrualCycles", "Irregular cycles"),
            readOnly("HKCategoryTypeIdentifierInfrequentMenstrualCycles", "Infrequent periods"),
            .category("HKCategoryTypeIdentifierBleedingDuringPregnancy", displayName: "Bleeding during pregnancy",
                      cases: vaginalBleeding),
            .category("HKCategoryTypeIdentifierBleedingAfterPregnancy", displayName: "Bleeding after pregnancy",
                      cases: vaginalBleeding),
        ],
        metadataKeys: [
            MetadataKeyDefinition(cycleStartKey, .bool, displayName: "Start of cycle"),
            MetadataKeyDefinition("HKSexualActivityProtectionUsed", .bool, displayName: "Protection used"),
        ]
    )

    /// Menstrual flow must say whether it starts a cycle (HealthKit requires
    /// HKMetadataKeyMenstrualCycleStart, a boolean).
    @Sendable static func validate(_ sample: SampleView) -> SampleRefusal? {
        guard sample.type == menstrualFlow else { return nil }
        switch sample.metadata[cycleStartKey] {
        case .bool?:
            return nil
        case nil:
            return SampleRefusal(
                field: "metadata.\(cycleStartKey)", value: "nil",
                expected: "true or false: a menstrual flow sample must say whether it starts a cycle")
        case let other?:
            return SampleRefusal(field: "metadata.\(cycleStartKey)", value: "\(other)", expected: "true or false (a boolean)")
        }
    }
}
