import Foundation
import SalusModel
import SalusStore

/// The owner's source priorities, one ordered list of app ids per type, kept in a small JSON
/// file (`{"HKQuantityTypeIdentifierStepCount": ["org.example.watch", "org.example.phone"]}`)
/// beside the database. Reads come from memory; a change is written atomically before it is
/// used. A missing file means no priorities.
package final class SourcePriorityStore: Sendable {
    private let file: OwnerSettingsFile<[String]>

    /// The file.
    package var path: String? { file.path }

    /// Opens the priorities at `path`, reading the file when it exists; nil keeps them in
    /// memory only (tests). Throws `database` naming the file when it cannot be read or parsed.
    package init(path: String?) throws(StoreError) {
        file = try OwnerSettingsFile(path: path, name: "source priorities")
    }

    /// The ranking for `type` (empty when the owner set none).
    package func priority(for type: TypeIdentifier) -> SourcePriority {
        SourcePriority(file[type.rawValue] ?? [])
    }

    /// Every type with a ranking, by type.
    package func all() -> [TypeIdentifier: SourcePriority] {
        Dictionary(uniqueKeysWithValues: file.all.map { (TypeIdentifier($0.key), SourcePriority($0.value)) })
    }

    /// Replaces the ranking for `type` (an empty list removes it) and saves the file. Throws
    /// `invalidArgument` for an empty app id, naming `sources[i]`.
    package func setPriority(_ appIDs: [String], for type: TypeIdentifier) throws(StoreError) {
        for (index, appID) in appIDs.enumerated() where appID.isEmpty {
            throw StoreError(code: .invalidArgument, field: "sources[\(index)]", value: "\"\"", expected: "an app id")
        }
        let ranking = SourcePriority(appIDs).appIDs
        try file.set(ranking.isEmpty ? nil : ranking, for: type.rawValue)
    }
}
