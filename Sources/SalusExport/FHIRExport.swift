import Foundation
import SalusFHIR
import SalusImport
import SalusKit
import SalusModel

extension SampleExport {
    /// `--format fhir`: one FHIR R4 Bundle (type collection) of Observations of the quantity,
    /// category and correlation types, written to `output` (or `standardOutput`) as the samples
    /// are read, page by page; the other types have no Observation form and are left out.
    func fhir(output: String?, standardOutput: FileHandle) async throws -> ExportSummary {
        let sink = try output.map(ExportFiles.file) ?? standardOutput
        let writer = FHIRBundleWriter(timeZone: timeZone, cases: ExportNames(listing).cases) { text in
            try sink.write(contentsOf: Data(text.utf8))
        }
        try writer.begin(timestamp: Date())
        let kinds: Set<ObjectKind> = [.quantity, .category, .correlation]
        let exported = types.filter { $0.kind.map(kinds.contains) ?? false }
        var written = 0
        for type in exported {
            for try await sample in samples(of: type.identifier) where try writer.write(sample) {
                counted(&written)
            }
        }
        try writer.finish()
        if output != nil { try sink.close() }
        return ExportSummary(samples: written, types: exported.count, typesLeftOut: types.count - exported.count, routes: 0)
    }
}
