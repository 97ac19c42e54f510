import SalusPluginKit

/// Reproductive health: basal body temperature, cervical mucus, ovulation tests, menstrual flow
/// (HKMenstrualCycleStart required), bleeding, sexual activity, contraceptives, pregnancy,
/// lactation, pregnancy and progesterone tests, menopause, and the read-only cycle-deviation
/// types.
enum ReproductiveManifest {
    static let menstrualFlow = "HKCategoryTypeIdentifierMenstrualFlow"
    static let cycleStartKey = "HKMenstrualCycleStart"

    /// HKCategoryValueVaginalBleeding (the numbers of the former HKCategoryValueMenstrualFlow).
    static let vaginalBleeding = [
        EnumerationCase("unspecified", 1), EnumerationCase("light", 2), EnumerationCase("medium", 3),
        EnumerationCase("heavy", 4), EnumerationCase("none", 5),
    ]

    /// HKCategoryValuePregnancyTestResult and HKCategoryValueProgesteroneTestResult.
    static let testResult = [
        EnumerationCase("negative", 1), EnumerationCase("positive", 2), EnumerationCase("indeterminate", 3),
    ]

    static let manifest = PluginManifest(
        id: "org.salus.reproductive", name: "Salus Reproductive Health", version: "1.1.0",
        types: types.map { $0.inArea("reproductive") },
        metadataKeys: [
            MetadataKeyDefinition(cycleStartKey, .bool, displayName: "Start of cycle"),
            MetadataKeyDefinition("HKSexualActivityProtectionUsed", .bool, displayName: "Protection used"),
        ]
    )

    /// The types, one row each (all in the "reproductive" area).
    static let types: [TypeDefinition] = [
        .quantity("HKQuantityTypeIdentifierBasalBodyTemperature", displayName: "Basal body temperature",
                  unit: "degC", aggregation: .discreteArithmetic,
                  bounds: ValueBounds(min: 0, minInclusive: false, max: 50))
            .documenting(MetadataKeyUse("HKBodyTemperatureSensorLocation", .number)),
        .category("HKCategoryTypeIdentifierCervicalMucusQuality", displayName: "Cervical mucus quality",
                  cases: [EnumerationCase("dry", 1), EnumerationCase("sticky", 2), EnumerationCase("creamy", 3),
                          EnumerationCase("watery", 4), EnumerationCase("eggWhite", 5)]),
        .category("HKCategoryTypeIdentifierOvulationTestResult", displayName: "Ovulation test result",
                  cases: [EnumerationCase("negative", 1), EnumerationCase("luteinizingHormoneSurge", 2),
                          EnumerationCase("indeterminate", 3), EnumerationCase("estrogenSurge", 4)])
            .withDeprecatedAliases(EnumerationCase("positive", 2)),
        .category(menstrualFlow, displayName: "Menstruation", cases: vaginalBleeding)
            .requiring(MetadataKeyUse(cycleStartKey, .bool)),
        .category("HKCategoryTypeIdentifierIntermenstrualBleeding", displayName: "Spotting", cases: [.notApplicable]),
        .category("HKCategoryTypeIdentifierSexualActivity", displayName: "Sexual activity", cases: [.notApplicable])
            .documenting(MetadataKeyUse("HKSexualActivityProtectionUsed", .bool)),
        .category("HKCategoryTypeIdentifierContraceptive", displayName: "Contraceptives", cases: [
            EnumerationCase("unspecified", 1), EnumerationCase("implant", 2), EnumerationCase("injection", 3),
            EnumerationCase("intrauterineDevice", 4), EnumerationCase("intravaginalRing", 5),
            EnumerationCase("oral", 6), EnumerationCase("patch", 7),
        ]),
        .category("HKCategoryTypeIdentifierPregnancy", displayName: "Pregnancy", cases: [.notApplicable]),
        .category("HKCategoryTypeIdentifierLactation", displayName: "Lactation", cases: [.notApplicable]),
        .category("HKCategoryTypeIdentifierPregnancyTestResult", displayName: "Pregnancy test result",
                  cases: testResult),
        .category("HKCategoryTypeIdentifierProgesteroneTestResult", displayName: "Progesterone test result",
                  cases: testResult),
        // Cycle deviations: detected by the system, never written by apps.
        .category("HKCategoryTypeIdentifierPersistentIntermenstrualBleeding", displayName: "Persistent spotting",
                  cases: [.notApplicable]).readOnly(),
        .category("HKCategoryTypeIdentifierProlongedMenstrualPeriods", displayName: "Prolonged periods",
                  cases: [.notApplicable]).readOnly(),
        .category("HKCategoryTypeIdentifierIrregularMenstrualCycles", displayName: "Irregular cycles",
                  cases: [.notApplicable]).readOnly(),
        .category("HKCategoryTypeIdentifierInfrequentMenstrualCycles", displayName: "Infrequent periods",
                  cases: [.notApplicable]).readOnly(),
        .category("HKCategoryTypeIdentifierBleedingDuringPregnancy", displayName: "Bleeding during pregnancy",
                  cases: vaginalBleeding),
        .category("HKCategoryTypeIdentifierBleedingAfterPregnancy", displayName: "Bleeding after pregnancy",
                  cases: vaginalBleeding),
        .category("HKCategoryTypeIdentifierBleedingAfterMenopause", displayName: "Bleeding after menopause",
                  cases: vaginalBleeding),
        .category("HKCategoryTypeIdentifierMenopausalState", displayName: "Menopausal state", cases: [
            EnumerationCase("menopause", 1), EnumerationCase("perimenopause", 2), EnumerationCase("none", 3),
        ]),
    ]

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
