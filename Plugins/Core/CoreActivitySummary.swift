import SalusPluginKit

extension CoreManifest {
    /// HKActivitySummaryTypeIdentifier: daily activity summaries, computed by the daemon from
    /// active energy, move time, exercise time and stand hours with the owner's goals. Apps
    /// request read access to it; it is never saved, so never shared.
    static let activitySummary: TypeDefinition = {
        var type = TypeDefinition(identifier: "HKActivitySummaryTypeIdentifier", kind: .activitySummary, displayName: "Activity summary")
        type.readOnlyForApps = true
        type.area = "activity"
        return type
    }()
}
