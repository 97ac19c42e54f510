import SalusPluginKit

/// Mindfulness: mindful sessions (a category whose samples say only when a session took place).
enum MindfulnessManifest {
    static let manifest = PluginManifest(
        id: "org.salus.mindfulness", name: "Salus Mindfulness", version: "1.0.0",
        types: types.map { $0.inArea("mindfulness") })

    /// The types, one row each (all in the "mindfulness" area).
    static let types: [TypeDefinition] = [
        .category("HKCategoryTypeIdentifierMindfulSession", displayName: "Mindful minutes", cases: [.notApplicable]),
    ]
}
