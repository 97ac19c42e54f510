import Foundation
import SalusModel
import SalusStore

/// The owner's preferred unit per quantity type (kilometres for distance, kcal for energy),
/// kept in a small JSON file (`{"HKQuantityTypeIdentifierDistanceWalkingRunning": "km"}`)
/// beside the database. Statistics are given in it when the caller names no unit; apps read
/// it to show values the way the person reads them.
///
/// Reads come from memory; a change is written atomically before it is used. A missing file
/// means no preferences (every type in its canonical unit).
package final class PreferredUnitStore: Sendable {
    private let file: OwnerSettingsFile<String>

    /// The file.
    package var path: String? { file.path }

    /// Opens the preferences at `path` (nil: memory only). Throws `database` naming the file
    /// and the type when the file cannot be read or holds a unit that does not parse.
    package init(path: String?) throws(StoreError) {
        file = try OwnerSettingsFile(path: path, name: "preferred units")
        for (type, text) in file.all {
            do {
                _ = try SalusUnit(parsing: text)
            } catch {
                throw StoreError(
                    code: .database, message: "cannot read the preferred units at \(path ?? "memory"): \(type) has "
                        + "\"\(text)\", which is not a unit")
            }
        }
    }

    /// The owner's unit for `type`, or nil when none is set.
    package func unit(for type: TypeIdentifier) -> SalusUnit? {
        file[type.rawValue].flatMap { try? SalusUnit(parsing: $0) }
    }

    /// Every type with a preferred unit.
    package func all() -> [TypeIdentifier: SalusUnit] {
        var result: [TypeIdentifier: SalusUnit] = [:]
        for type in file.all.keys {
            if let unit = unit(for: TypeIdentifier(type)) { result[TypeIdentifier(type)] = unit }
        }
        return result
    }

    /// Sets the unit for `type` (nil: back to the canonical unit) and saves the file. Throws
    /// `invalidArgument` naming `unit` when it measures another dimension than `canonical`,
    /// the type's canonical unit.
    package func setUnit(_ unit: SalusUnit?, for type: TypeIdentifier, canonical: SalusUnit) throws(StoreError) {
        if let unit, !unit.isCompatible(with: canonical) {
            throw StoreError(
                code: .invalidArgument, field: "unit", value: "\(unit)",
                expected: "a unit of \(canonical.dimension) like \(canonical), the canonical unit of \(type)")
        }
        try file.set(unit?.description, for: type.rawValue)
    }
}
