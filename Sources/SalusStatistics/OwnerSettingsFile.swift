import Foundation
import SalusStore
import Synchronization

/// A small table of the owner's settings, one value per type identifier, kept in memory and in
/// a JSON file beside the database (`{"HKQuantityTypeIdentifierStepCount": …}`).
///
/// Reads are served from memory; `set` writes the whole file atomically (a temporary file
/// renamed over the old one) before the new value is used, under the lock, so concurrent
/// changes reach the file in the order they apply. A missing file means an empty table.
final class OwnerSettingsFile<Value: Codable & Sendable>: Sendable {
    /// The file; nil keeps the table in memory only.
    let path: String?
    /// What the table holds, for error messages ("source priorities").
    let name: String
    private let table: Mutex<[String: Value]>

    /// Reads the file at `path` when it exists; throws `database` naming the file when it
    /// cannot be read or parsed.
    init(path: String?, name: String) throws(StoreError) {
        self.path = path
        self.name = name
        var loaded: [String: Value] = [:]
        if let path, FileManager.default.fileExists(atPath: path) {
            do {
                loaded = try JSONDecoder().decode([String: Value].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw StoreError(code: .database, message: "cannot read the \(name) at \(path): \(error)")
            }
        }
        table = Mutex(loaded)
    }

    /// The value for `key`, if set.
    subscript(key: String) -> Value? { table.withLock { $0[key] } }

    /// Every entry.
    var all: [String: Value] { table.withLock { $0 } }

    /// Sets (nil: removes) the value for `key` and saves the file; on a write failure nothing
    /// changes and `database` names the file.
    func set(_ value: Value?, for key: String) throws(StoreError) {
        try update([key: value])
    }

    /// Sets (nil: removes) every value of `changes` at once and saves the file: all of them or,
    /// on a write failure, none, and `database` names the file.
    func update(_ changes: [String: Value?]) throws(StoreError) {
        let failure = table.withLock { table -> String? in
            var updated = table
            for (key, value) in changes { updated[key] = value }
            if let path {
                do {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                    try encoder.encode(updated).write(to: URL(fileURLWithPath: path), options: .atomic)
                } catch {
                    return "cannot write the \(name) to \(path): \(error)"
                }
            }
            table = updated
            return nil
        }
        if let failure { throw StoreError(code: .database, message: failure) }
    }
}
