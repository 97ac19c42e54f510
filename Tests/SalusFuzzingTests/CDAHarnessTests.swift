import Foundation
import SalusDocuments
import SalusFuzzing
import Testing

/// The `cda` harness's own check: it must see an entity expanded into a field, or the fuzzer
/// could never report one.
@Suite("The cda harness")
struct CDAHarnessTests {
    static func seed(_ name: String) throws -> Data {
        try Data(contentsOf: FuzzReplayTests.fuzzFolder.appendingPathComponent("corpus/cda").appendingPathComponent(name))
    }

    @Test("fields read from the document's own text pass; an internal entity's text or a billion laughs in a field is caught")
    func expansionIsCaught() throws {
        let valid = try Self.seed("valid")
        #expect(CDAHarness.expansion(in: ["Summary of care", "Ada Lovelace", "Dr Snow", "Good Health Clinic"], of: valid) == nil)
        // The entity's value is in the document, but only inside its declaration.
        let declared = try Self.seed("entity-internal")
        let caught = CDAHarness.expansion(in: ["Summary of care", "Someone Else Lovelace", "Dr Snow", "Good Health Clinic"], of: declared)
        #expect(caught?.contains("\"Someone\"") == true, "\(String(describing: caught))")
        let laughs = try Self.seed("billion-laughs")
        let amplified = CDAHarness.expansion(in: [String(repeating: "lol", count: 1000), "Ada Lovelace", "Dr Snow", "Good Health Clinic"], of: laughs)
        #expect(amplified?.contains("more than the") == true, "\(String(describing: amplified))")
        // Character references are the document's own text.
        let referenced = Data(String(decoding: valid, as: UTF8.self).replacingOccurrences(of: "<title>Summary of care</title>", with: "<title>&#83;ummary &amp; care</title>").utf8)
        #expect(CDAHarness.expansion(in: ["Summary & care", "Ada Lovelace", "Dr Snow", "Good Health Clinic"], of: referenced) == nil)
    }

    @Test("\"<!ENTITY\" inside a processing instruction is the document's own text, not a declaration whose text is taken out")
    func entityTextOutsideADeclaration() throws {
        let valid = String(decoding: try Self.seed("valid"), as: UTF8.self)
        // An unclosed quote after it, as a fuzzer wrote: read as a declaration, it would take
        // the rest of the document, "Summary of care" too.
        let hidden = Data(valid.replacingOccurrences(of: "<ClinicalDocument", with: "<?note <!ENTITY % p 'open?>\n<ClinicalDocument").utf8)
        #expect(CDADocument.entityDeclarations(in: hidden).isEmpty)
        #expect(CDAHarness.expansion(in: ["Summary of care", "Ada Lovelace", "Dr Snow", "Good Health Clinic"], of: hidden) == nil)
        // A declaration libxml2 reads is still taken out, and the document's entities are named.
        let declared = try Self.seed("entity-internal")
        #expect(!CDADocument.entityDeclarations(in: declared).isEmpty)
        #expect(CDADocument.entityDeclarations(in: Data(valid.utf8)).isEmpty)
    }

    @Test("every cda seed, hostile ones included, runs through the harness within its bounds")
    func seeds() async throws {
        let files = FuzzReplayTests.inputs("corpus", .cda)
        #expect(files.count >= 12)
        try await FuzzReplayTests.replay(.cda, files)
    }
}
