import Foundation
import SalusKit
import SalusModel
import SalusProto

extension Export {
    /// `--format fhir`.
    func exportFHIR(store: HealthStore, types: [Salus_V1_TypeDefinition], predicate: SamplePredicate?, timeZone: TimeZone) async throws {
        throw CommandFailure("--format fhir: not available yet")
    }
}
