import SalusPluginKit

/// Symptoms: the symptoms HealthKit records, each with its enumeration: how severe
/// (HKCategoryValueSeverity), whether present (HKCategoryValuePresence: mood and sleep changes)
/// or how appetite changed (HKCategoryValueAppetiteChanges).
enum SymptomsManifest {
    /// HKCategoryValueSeverity.
    static let severity = [
        EnumerationCase("unspecified", 0), EnumerationCase("notPresent", 1), EnumerationCase("mild", 2),
        EnumerationCase("moderate", 3), EnumerationCase("severe", 4),
    ]

    /// HKCategoryValuePresence.
    static let presence = [EnumerationCase("present", 0), EnumerationCase("notPresent", 1)]

    /// HKCategoryValueAppetiteChanges.
    static let appetiteChanges = [
        EnumerationCase("unspecified", 0), EnumerationCase("noChange", 1), EnumerationCase("decreased", 2),
        EnumerationCase("increased", 3),
    ]

    static let manifest = PluginManifest(
        id: "org.salus.symptoms", name: "Salus Symptoms", version: "1.0.0",
        types: table.map { identifier, displayName, cases in
            TypeDefinition.category(identifier, displayName: displayName, cases: cases, area: "symptoms")
        }
    )

    /// (identifier, display name, enumeration), one row per type.
    static let table: [(String, String, [EnumerationCase])] = [
        ("HKCategoryTypeIdentifierAbdominalCramps", "Abdominal cramps", severity),
        ("HKCategoryTypeIdentifierAcne", "Acne", severity),
        ("HKCategoryTypeIdentifierAppetiteChanges", "Appetite changes", appetiteChanges),
        ("HKCategoryTypeIdentifierBladderIncontinence", "Bladder incontinence", severity),
        ("HKCategoryTypeIdentifierBloating", "Bloating", severity),
        ("HKCategoryTypeIdentifierBreastPain", "Breast pain", severity),
        ("HKCategoryTypeIdentifierChestTightnessOrPain", "Chest tightness or pain", severity),
        ("HKCategoryTypeIdentifierChills", "Chills", severity),
        ("HKCategoryTypeIdentifierConstipation", "Constipation", severity),
        ("HKCategoryTypeIdentifierCoughing", "Coughing", severity),
        ("HKCategoryTypeIdentifierDiarrhea", "Diarrhea", severity),
        ("HKCategoryTypeIdentifierDizziness", "Dizziness", severity),
        ("HKCategoryTypeIdentifierDrySkin", "Dry skin", severity),
        ("HKCategoryTypeIdentifierFainting", "Fainting", severity),
        ("HKCategoryTypeIdentifierFatigue", "Fatigue", severity),
        ("HKCategoryTypeIdentifierFever", "Fever", severity),
        ("HKCategoryTypeIdentifierGeneralizedBodyAche", "Generalized body ache", severity),
        ("HKCategoryTypeIdentifierHairLoss", "Hair loss", severity),
        ("HKCategoryTypeIdentifierHeadache", "Headache", severity),
        ("HKCategoryTypeIdentifierHeartburn", "Heartburn", severity),
        ("HKCategoryTypeIdentifierHotFlashes", "Hot flashes", severity),
        ("HKCategoryTypeIdentifierLossOfSmell", "Loss of smell", severity),
        ("HKCategoryTypeIdentifierLossOfTaste", "Loss of taste", severity),
        ("HKCategoryTypeIdentifierLowerBackPain", "Lower back pain", severity),
        ("HKCategoryTypeIdentifierMemoryLapse", "Memory lapse", severity),
        ("HKCategoryTypeIdentifierMoodChanges", "Mood changes", presence),
        ("HKCategoryTypeIdentifierNausea", "Nausea", severity),
        ("HKCategoryTypeIdentifierNightSweats", "Night sweats", severity),
        ("HKCategoryTypeIdentifierPelvicPain", "Pelvic pain", severity),
        ("HKCategoryTypeIdentifierRapidPoundingOrFlutteringHeartbeat", "Rapid, pounding or fluttering heartbeat",
         severity),
        ("HKCategoryTypeIdentifierRunnyNose", "Runny nose", severity),
        ("HKCategoryTypeIdentifierShortnessOfBreath", "Shortness of breath", severity),
        ("HKCategoryTypeIdentifierSinusCongestion", "Sinus congestion", severity),
        ("HKCategoryTypeIdentifierSkippedHeartbeat", "Skipped heartbeat", severity),
        ("HKCategoryTypeIdentifierSleepChanges", "Sleep changes", presence),
        ("HKCategoryTypeIdentifierSoreThroat", "Sore throat", severity),
        ("HKCategoryTypeIdentifierVaginalDryness", "Vaginal dryness", severity),
        ("HKCategoryTypeIdentifierVomiting", "Vomiting", severity),
        ("HKCategoryTypeIdentifierWheezing", "Wheezing", severity),
    ]
}
