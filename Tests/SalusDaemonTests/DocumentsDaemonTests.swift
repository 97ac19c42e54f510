import Foundation
import SalusProto
import SalusRPC
import Testing

/// `salusctl documents` against a running daemon with the bundled plugins: the person adds CDA
/// documents received from a clinic, lists and shows them, and shares one with an app.
@Suite("salusctl documents on a running daemon")
struct DocumentsDaemonTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/cda")

    @Test("add (refusing an HTML page with its reason), list --json, show --xml, and --grant APP: the app reads exactly that document")
    func documents() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let ctl = { (arguments: [String]) in try await StatisticsDaemonTests.salusctl(daemon, arguments) }
        let ccd = Self.fixtures.appendingPathComponent("valid-hl7-examples/CCD_1.xml")
        let referral = Self.fixtures.appendingPathComponent("valid-hl7-examples/Referral_Note.xml")
        let html = Self.fixtures.appendingPathComponent("invalid-onc-validator/Sample_basicHTML.xml")

        let refused = try await ctl(["documents", "add", html.path])
        #expect(refused.status != 0)
        #expect(refused.output.contains("samples[0].document.data") && refused.output.contains("<html>"), "\(refused.output)")

        let registered = try await ctl(["apps", "add", "org.example.reader", "--name", "Reader", "--read-usage", "to show your records"])
        #expect(registered.status == 0, "\(registered.output)")
        let unknownApp = try await ctl(["documents", "add", ccd.path, "--grant", "org.example.nobody"])
        #expect(unknownApp.status != 0 && unknownApp.output.contains("org.example.nobody"), "\(unknownApp.output)")

        let first = try await ctl(["documents", "add", ccd.path])
        #expect(first.status == 0 && first.output.contains("Patient Chart Summary (patient Eve Betterhalf)"), "\(first.output)")
        let second = try await ctl(["documents", "add", referral.path, "--grant", "org.example.reader"])
        #expect(second.status == 0 && second.output.contains("org.example.reader may read it"), "\(second.output)")

        let listed = try await ctl(["documents", "list", "--json"])
        #expect(listed.status == 0, "\(listed.output)")
        let documents = try #require(try JSONSerialization.jsonObject(with: Data(listed.output.utf8)) as? [[String: Any]])
        let fields = documents.compactMap { $0["document"] as? [String: Any] }
        #expect(fields.compactMap { $0["title"] as? String } == ["Patient Chart Summary", "Referral Note"], "oldest first: \(listed.output)")
        #expect(fields.allSatisfy { $0["data"] == nil }, "no XML in a listing")

        let referralUUID = try #require(Self.uuid(second.output))
        let xml = try await ctl(["documents", "show", referralUUID, "--xml"])
        #expect(xml.status == 0)
        #expect(xml.output == String(decoding: try Data(contentsOf: referral), as: UTF8.self))
        let shown = try await ctl(["documents", "show", referralUUID])
        #expect(shown.output.contains("patient:    Eve Betterhalf"), "\(shown.output)")

        let reader = try await DaemonClients.app(daemon, "org.example.reader")
        var request = Salus_V1_SampleQueryRequest()
        request.type = "HKDocumentTypeIdentifierCDA"
        var seen: [Salus_V1_Sample] = []
        for try await batch in try reader.serverStreaming(SalusMethods.Store.querySamples, request: request) {
            seen += batch.samples
        }
        #expect(seen.map(\.document.title) == ["Referral Note"])
        await reader.close()
        #expect(try await daemon.stop() == 0)
    }

    /// The UUID in `salusctl documents add`'s "added UUID: ..." line.
    static func uuid(_ output: String) -> String? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("added ") }) else { return nil }
        return line.dropFirst("added ".count).split(separator: ":").first.map(String.init)
    }
}
