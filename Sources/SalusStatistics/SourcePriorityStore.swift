import Foundation
import SalusModel
import SalusStore
import Synchronization

/// The owner's source priorities, one ordered list of app ids per type, kept in a small JSON
/// file (`{"HKQuantityTypeIdentifierStepCount": ["org.example.watch", "org.example.phone"]}`)
/// beside the database.
///
/// Reads are served from memory; `setPriority` writes the whole file atomically (a temporary
/// file renamed over the old one) before the new order is used. A missing file means no
/// priorities.
public final class SourcePriorityStore: Sendable {
    /// The file.
    public let path: String?
    private let table: Mutex<[String: [String]]>

    /// Opens the priorities at `path`, reading the file when it exists; nil keeps them in
    /// memory only (tests). Throws `database` naming the file when it cannot be read or parsed.
    public init(path: String?) throws(StoreError) {
        self.path = path
        var loaded: [String: [String]] = [:]
        if let path, FileManager.default.fileExists(atPath: path) {
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                loaded = try JSONDecoder().decode([String: [String]].self, from: data)
            } catch {
                throw StoreError(
                    code: .database, message: "cannot read the source priorities at \(path): \(error)")
            }
        }
        table = Mutex(loaded)
    }

    /// The ranking for `type` (empty when the owner set none).
    public func priority(for type: TypeIdentifier) -> SourcePriority {
        SourcePriority(table.withLock { $0[type.rawValue] } ?? [])
    }

    /// Every type with a ranking, by type.
    public func all() -> [TypeIdentifier: SourcePriority] {
        Dictionary(uniqueKeysWithValues: table.withLock { $0 }.map { (TypeIdentifier($0.key), SourcePriority($0.value)) })
    }

    /// Replaces the ranking for `type` (an empty list removes it) and saves the file. Throws
    /// `invalidArgument` for an empty app id, naming `sources[i]`.
    public func setPriority(_ appIDs: [String], for type: TypeIdentifier) throws(StoreError) {
        for (index, appID) in appIDs.enumerated() where appID.isEmpty {
            throw StoreError(code: .invalidArgument, field: "sources[\(index)]", value: "\"\"", expected: "an app id")
        }
        let ranking = SourcePriority(appIDs).appIDs
        // Written under the lock, so concurrent changes reach the file in the order they apply.
        let failure = table.withLock { table -> String? in
            var updated = table
            updated[type.rawValue] = ranking.isEmpty ? nil : ranking
            if let path {
                do {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    try encoder.encode(updated).write(to: URL(fileURLWithPath: path), options: .atomic)
                } catch {
                    return "cannot write the source priorities to \(path): \(error)"
                }
            }
            table = updated
            return nil
        }
        if let failure { throw StoreError(code: .database, message: failure) }
    }
}
