import Foundation
import SalusFIT
import SalusModel

/// FIT activity files to workouts and samples (docs/import.md, "FIT files").
package enum FITImport {
    /// The workouts and samples of the FIT file (or chain of FIT files) `bytes`.
    package static func read(_ bytes: [UInt8], catalog: TypeCatalog) throws(FileProblem) -> FileImport {
        throw FileProblem(offset: nil, field: "format", value: "FIT", expected: "a format this version imports; FIT is not yet supported")
    }
}
