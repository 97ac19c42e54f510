import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import Testing

/// The owner's clinical documents through the admin client in process, what
/// `salusctl documents` calls: add (refused with the daemon's reason), list, show and share one
/// document with an app, which then reads exactly that document.
@Suite("AdminClient: clinical documents")
struct AdminClientDocumentsTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/cda")
    static let reader = "org.example.reader"

    static func document(_ sample: Sample) -> ClinicalDocument? {
        if case .document(let document) = sample.value { return document }
        return nil
    }

    @Test("addDocument refuses a document larger than one sample may be, one that a request frame could not carry included, naming document.data, its size and the limit; nothing is saved")
    func largeDocument() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        var ccd = try Data(contentsOf: Self.fixtures.appendingPathComponent("valid-hl7-examples/CCD_1.xml"))
        let end = try #require(ccd.range(of: Data("</ClinicalDocument>".utf8), options: .backwards)).lowerBound
        // 5 MB: more than a request frame (4 MiB).
        ccd.replaceSubrange(end..<end, with: Data(("<!--" + String(repeating: "p", count: 5_000_000) + "-->").utf8))
        do {
            _ = try await admin.addDocument(ccd)
            Issue.record("a 5 MB document was saved")
        } catch let error as SalusError {
            #expect(error.code == .invalidArgument && error.field == "samples[0].document.data", "\(error)")
            #expect(error.value == "\(ccd.count) bytes", "\(error)")
            #expect(error.expected?.contains("at most \(Validation.maximumSampleBytes) bytes") == true, "\(error)")
        }
        #expect(try await admin.documents().isEmpty)
        await admin.close()
    }

    @Test("addDocument refuses an HTML page naming the field and an unknown reader before saving; documents() lists oldest first without XML; document(_:includeData:) gives the bytes saved; a shared document is the one the app reads")
    func documents() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let ccd = try Data(contentsOf: Self.fixtures.appendingPathComponent("valid-hl7-examples/CCD_1.xml"))
        let referral = try Data(contentsOf: Self.fixtures.appendingPathComponent("valid-hl7-examples/Referral_Note.xml"))
        let html = try Data(contentsOf: Self.fixtures.appendingPathComponent("invalid-onc-validator/Sample_basicHTML.xml"))

        do {
            _ = try await admin.addDocument(html)
            Issue.record("an HTML page was saved as a CDA document")
        } catch let error as SalusError {
            #expect(error.code == .invalidArgument)
            let detail = [error.field, error.value, error.expected, error.message].compactMap { $0 }.joined(separator: " ")
            #expect(error.field == "samples[0].document.data" && detail.contains("<html>"), "\(detail)")
        }

        _ = try await admin.addApp(Self.reader, name: "Reader", readUsage: "to show your records")
        do {
            _ = try await admin.addDocument(ccd, readers: ["org.example.nobody"])
            Issue.record("a document was shared with an app that is not registered")
        } catch let error as SalusError {
            #expect(error.code == .notFound && error.message.contains("org.example.nobody"), "\(error.message)")
        }
        #expect(try await admin.documents().isEmpty, "nothing saved by a refused add")

        let first = try #require(Self.document(try await admin.addDocument(ccd)))
        #expect(first.title == "Patient Chart Summary" && first.patientName == "Eve Betterhalf")
        let second = try await admin.addDocument(referral, readers: [Self.reader])
        #expect(Self.document(second)?.title == "Referral Note")
        #expect(try await admin.app(Self.reader).objects.map(\.uuid).contains(second.uuid))

        let listed = try await admin.documents()
        #expect(listed.compactMap { Self.document($0)?.title } == ["Patient Chart Summary", "Referral Note"], "oldest first")
        #expect(listed.allSatisfy { Self.document($0)?.data.isEmpty == true }, "no XML in a listing")
        let json = try JSONSerialization.jsonObject(with: Data(AdminJSON.text(samples: listed).utf8)) as? [[String: Any]] ?? []
        let fields = json.compactMap { $0["document"] as? [String: Any] }
        #expect(fields.compactMap { $0["title"] as? String } == ["Patient Chart Summary", "Referral Note"])
        #expect(fields.allSatisfy { $0["data"] == nil }, "no XML in the listing's JSON")

        let whole = try #require(try await admin.document(second.uuid, includeData: true))
        #expect(Self.document(whole)?.data == referral, "the XML as it was saved")
        #expect(Self.document(whole)?.patientName == "Eve Betterhalf")
        #expect(try await admin.document(UUID()) == nil)

        let app = try await server.healthStore(Self.reader)
        let seen = try await SampleQueryDescriptor(type: .cdaDocument).result(for: app)
        #expect(seen.compactMap { Self.document($0)?.title } == ["Referral Note"])
        await app.close()
        await admin.close()
    }
}
