import SalusPluginKit

/// Mindfulness: mindful sessions (a category whose samples say only when a session took place),
/// states of mind, and the GAD-7 and PHQ-9 questionnaires.
enum MindfulnessManifest {
    static let manifest = PluginManifest(
        id: "org.salus.mindfulness", name: "Salus Mindfulness", version: "1.0.0",
        types: types.map { $0.inArea("mindfulness") })

    /// The types, one row each (all in the "mindfulness" area).
    static let types: [TypeDefinition] = [
        .category("HKCategoryTypeIdentifierMindfulSession", displayName: "Mindful minutes", cases: [.notApplicable]),
        // HealthKit's constant HKDataTypeIdentifierStateOfMind has this raw string.
        TypeDefinition(identifier: "HKDataTypeStateOfMind", kind: .stateOfMind, displayName: "State of mind"),
        TypeDefinition(identifier: "HKScoredAssessmentTypeIdentifierGAD7", kind: .scoredAssessment, displayName: "GAD-7 assessment"),
        TypeDefinition(identifier: "HKScoredAssessmentTypeIdentifierPHQ9", kind: .scoredAssessment, displayName: "PHQ-9 assessment"),
    ]
}
