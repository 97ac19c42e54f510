import Foundation
import Testing

/// `salusctl documents` against a running daemon with the bundled plugins: what the command
/// prints and its exit status as the person adds CDA documents received from a clinic, lists and
/// shows them, and shares one with an app. What the calls do (the refusals, the order, the bytes,
/// the app reading exactly the shared document) is tested in process (`AdminClientDocumentsTests`).
@Suite("salusctl documents on a running daemon")
struct DocumentsDaemonTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/cda")

    @Test("add (refusing an HTML page with its reason, and an unknown app), list --json, show --xml and --grant APP print what they did")
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

        #expect(try await daemon.stop() == 0)
    }

    /// The UUID in `salusctl documents add`'s "added UUID: ..." line.
    static func uuid(_ output: String) -> String? {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("added ") }) else { return nil }
        return line.dropFirst("added ".count).split(separator: ":").first.map(String.init)
    }
}
