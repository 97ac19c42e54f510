import Foundation
import SalusFHIR
import SalusKit
import SalusModel
import SalusAdmin

extension Export {
    /// `--format fhir`: one FHIR R4 Bundle (type collection) of Observations, written to
    /// `--output` or standard output as the samples are read, page by page.
    func exportFHIR(
        store: HealthStore, listing: TypeListing, types: [RegisteredType], predicate: SamplePredicate?,
        timeZone: TimeZone
    ) async throws {
        let sink: FileHandle
        if let output {
            sink = try PrivateOutput.file(output)
        } else {
            sink = FileHandle.standardOutput
        }
        let writer = FHIRBundleWriter(timeZone: timeZone, cases: Self.exportNames(listing).cases) { text in
            try sink.write(contentsOf: Data(text.utf8))
        }
        try writer.begin(timestamp: Date())
        let kinds: Set<ObjectKind> = [.quantity, .category, .correlation]
        let exported = types.filter { $0.kind.map(kinds.contains) ?? false }
        var written = 0
        for type in exported {
            let query = SampleQueryDescriptor(type: SampleType(type.identifier), predicate: predicate, sortDescriptors: [.startDate()])
            do {
                for try await sample in query.samples(for: store) where try writer.write(sample) {
                    written += 1
                    if written % 100_000 == 0 { FileHandle.standardError.write(Data("exported \(written) samples\n".utf8)) }
                }
            } catch let error as SalusError {
                throw CommandFailure(error.message)
            }
        }
        try writer.finish()
        if output != nil { try sink.close() }
        let skipped = types.count - exported.count
        let note = skipped > 0 ? "; \(skipped) types have no Observation form and were left out" : ""
        FileHandle.standardError.write(Data("exported \(written) samples of \(exported.count) types as FHIR Observations\(note)\n".utf8))
    }
}
