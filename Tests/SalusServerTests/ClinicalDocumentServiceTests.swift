import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// HL7 CDA documents through the store service, in process: the daemon checks each document on
/// save and fills its extracted fields itself; queries return the bytes only when asked; apps
/// read documents per object, as the owner picks them. The documents are HL7's C-CDA examples
/// and the ONC validator's test files (Tests/Fixtures/cda).
@Suite("Clinical documents through the store service")
struct ClinicalDocumentServiceTests {
    static let cda = "HKDocumentTypeIdentifierCDA"
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/cda")

    static func file(_ folder: String, _ name: String) throws -> Data {
        try Data(contentsOf: fixtures.appendingPathComponent(folder).appendingPathComponent(name))
    }

    /// Each valid example with its title, patient and effective time, read by hand from the files.
    static let valid: [(file: String, title: String, patient: String, effective: String)] = [
        ("CCD_1.xml", "Patient Chart Summary", "Eve Betterhalf", "2013-08-15T18:30:00Z"),
        ("CCD_2.xml", "Summary of Patient Chart", "Isabella Jones", "2014-10-15T15:30:26Z"),
        ("Care_Plan.xml", "Good Health Hospital Care Plan", "Eve Betterhalf", "2013-08-20T19:20:00Z"),
        ("Consultation_Note.xml", "Community Health Consult Note", "Eve Betterhalf", "2013-08-01T13:00:00Z"),
        ("Discharge_Summary.xml", "Community Health and Hospitals: Discharge Summary", "Isabella Jones", "2014-09-18T00:04:00Z"),
        ("History_and_Physical.xml", "Community Health and Hospitals: History & Physical", "Isabella Isa Jones", "2012-09-16T23:05:00Z"),
        ("Operative_Note.xml", "Community Health and Hospitals: Operative Note", "Isabella Isa Jones", "2012-09-16T23:10:00Z"),
        ("Progress_Note.xml", "Progress Note", "Mr. Adam Frankie Everyman", "2005-03-29T22:15:04Z"),
        ("Referral_Note.xml", "Referral Note", "Eve Betterhalf", "2013-09-21T13:00:00Z"),
    ]

    /// A document sample as a client sends it, claiming a title and patient of its own.
    static func document(_ data: Data, start: Int64 = 1_700_000_000_000_000) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = cda
        sample.startDate = start
        sample.endDate = start
        sample.document.contentType = "application/xml"
        sample.document.data = data
        sample.document.title = "Forged title"
        sample.document.patientName = "Someone Else"
        return sample
    }

    static func query(_ client: RPCClient, includeData: Bool) async throws -> [Salus_V1_Sample] {
        var request = Salus_V1_SampleQueryRequest()
        request.type = cda
        request.includeData = includeData
        request.sort = [Salus_V1_SortDescriptor.with { $0.key = .startDate }]
        var samples: [Salus_V1_Sample] = []
        for try await batch in try client.serverStreaming(SalusMethods.Store.querySamples, request: request) {
            samples += batch.samples
        }
        return samples
    }

    static func microseconds(_ iso: String) throws -> Int64 {
        let date = try #require(ISO8601DateFormatter().date(from: iso))
        return Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    @Test("each valid C-CDA example is saved with the title, patient, author, custodian and effective time read from it, whatever the client claimed")
    func validExamples() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let app = try await server.app("org.example.clinic")
        for example in Self.valid {
            let bytes = try Self.file("valid-hl7-examples", example.file)
            let saved = try await Authz.save(app, [Self.document(bytes)])
            #expect(saved.results.count == 1, "\(example.file)")
        }
        let withData = try await Self.query(app, includeData: true)
        #expect(withData.count == Self.valid.count)
        for example in Self.valid {
            let effective = try Self.microseconds(example.effective)
            let found = withData.filter { $0.document.title == example.title }
            #expect(found.count == 1, "\(example.file): \(withData.map(\.document.title))")
            guard let sample = found.first else { continue }
            #expect(sample.document.patientName == example.patient, "\(example.file)")
            #expect(!sample.document.authorName.isEmpty && !sample.document.custodianName.isEmpty, "\(example.file)")
            #expect(sample.document.effectiveTime == effective, "\(example.file)")
            #expect(sample.startDate == effective && sample.endDate == effective, "\(example.file): dated by its effective time")
            #expect(sample.document.data == (try Self.file("valid-hl7-examples", example.file)), "\(example.file)")
        }
        // Without includeData: the same fields, no bytes.
        let listed = try await Self.query(app, includeData: false)
        #expect(listed.map(\.document.title) == withData.map(\.document.title))
        #expect(listed.map(\.document.patientName) == withData.map(\.document.patientName))
        #expect(listed.allSatisfy { $0.document.data.isEmpty })
        await app.close()
        await server.stop()
    }

    @Test("SalusKit: a CDA document saved from its bytes comes back with its fields, and its bytes only when the query asks")
    func kit() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let store = try await server.healthStore("org.example.clinic")
        let bytes = try Self.file("valid-hl7-examples", "Progress_Note.xml")
        _ = try await store.save(.cdaDocument(bytes))
        let listed = try await SampleQueryDescriptor(type: .cdaDocument).result(for: store)
        let document = try #require(listed.first?.clinicalDocument)
        #expect(document.title == "Progress Note")
        #expect(document.patientName == "Mr. Adam Frankie Everyman")
        #expect(document.effectiveTime == ISO8601DateFormatter().date(from: "2005-03-29T22:15:04Z"))
        #expect(listed.first?.startDate == document.effectiveTime)
        #expect(document.data.isEmpty)
        let full = try await SampleQueryDescriptor(type: .cdaDocument, includeDocumentData: true).result(for: store)
        #expect(full.first?.clinicalDocument?.data == bytes)
        await server.stop()
    }

    @Test("each invalid document is refused through the save path with its reason, and nothing is saved")
    func invalidDocuments() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let app = try await server.app("org.example.clinic")
        let cases: [(file: String, field: String, fragment: String)] = [
            ("Sample_blank_Empty_Document.xml", "samples[1].document.data", "an empty file"),
            ("Sample_basicHTML.xml", "samples[1].document.data", "a root element <html> in no namespace"),
            ("Sample_invalid-SnippetOnly.xml", "samples[1].document.data", "not well-formed XML (line"),
            ("MedicationSectionCodeInvalid.xml", "samples[1].document.data (ClinicalDocument/title)", "missing or blank"),
            ("Sample_addSchemaErrors.xml", "samples[1].document.data (ClinicalDocument/author/assignedAuthor)", "missing or blank"),
            ("subProceduresWithDeviceIdentifierObservationBadValueRootSite3218.xml", "samples[1].document.data (<value> root, line 1873)", "\"BAD_ROOT\""),
        ]
        let good = try Self.file("valid-hl7-examples", "CCD_1.xml")
        for item in cases {
            // A valid document first: the batch is refused whole.
            let bytes = try Self.file("invalid-onc-validator", item.file)
            let error = await Authz.error { _ = try await Authz.save(app, [Self.document(good), Self.document(bytes)]) }
            #expect(error?.code == .invalidArgument, "\(item.file)")
            #expect(error?.detail?.field == item.field, "\(item.file): \(String(describing: error))")
            #expect(error?.detail?.value.contains(item.fragment) == true, "\(item.file): \(String(describing: error))")
            #expect(error?.detail?.expected.isEmpty == false, "\(item.file)")
        }
        #expect(try await Self.query(app, includeData: false).isEmpty)
        // The ONC files' valid twins pass.
        for twin in ["Sample.xml", "subProceduresWithDeviceIdentifierObservationSite3218.xml"] {
            let saved = try await Authz.save(app, [Self.document(try Self.file("invalid-onc-validator", twin))])
            #expect(saved.results.count == 1, "\(twin)")
        }
        #expect(try await Self.query(app, includeData: false).count == 2)
        await app.close()
        await server.stop()
    }

    /// Billion laughs in a CDA document: ten levels of ten references.
    static let laughs: Data = {
        var declarations = "<!ENTITY lol0 \"lol\">"
        for level in 1...9 {
            declarations += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        return Data(("<?xml version=\"1.0\"?>\n<!DOCTYPE ClinicalDocument [" + declarations + "]>\n"
            + "<ClinicalDocument xmlns=\"urn:hl7-org:v3\"><title>&lol9;</title></ClinicalDocument>").utf8)
    }()

    @Test("an app without share permission gets the authorization error before its document is read: a document the check would refuse is never parsed")
    func permissionBeforeParsing() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.nogrants")
        try await Authz.register(owner, "org.example.denied")
        try await Authz.grant(owner, "org.example.denied", Self.cda, read: nil, share: .denied)
        for (appID, reason) in [("org.example.nogrants", Salus_V1_ErrorReason.authorizationNotDetermined), ("org.example.denied", .authorizationDenied)] {
            let app = try await Authz.app(server, appID)
            for bytes in [Self.laughs, Data("not XML at all <<<".utf8), Data()] {
                let error = await Authz.error { _ = try await Authz.save(app, [Self.document(bytes)]) }
                #expect(error?.code == .permissionDenied, "\(appID): \(String(describing: error))")
                #expect(error?.reason == reason, "\(appID): \(String(describing: error))")
            }
            await app.close()
        }
        #expect(try await Self.query(owner, includeData: false).isEmpty)
        await owner.close()
        await server.stop()
    }

    @Test("a granted app's document that declares entities is refused naming the entity; nothing is saved, nothing expanded")
    func entitiesRefused() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.clinic")
        try await Authz.grant(owner, "org.example.clinic", Self.cda, read: .granted, share: .granted)
        let app = try await Authz.app(server, "org.example.clinic")
        var forged = String(decoding: try Self.file("valid-hl7-examples", "Progress_Note.xml"), as: UTF8.self)
        forged = forged.replacingOccurrences(of: "<ClinicalDocument", with: "<!DOCTYPE ClinicalDocument [<!ENTITY who \"Someone Else\">]>\n<ClinicalDocument")
        forged = forged.replacingOccurrences(of: "<title>Progress Note</title>", with: "<title>&who;</title>")
        for (bytes, entity) in [(Self.laughs, "lol0"), (Data(forged.utf8), "who")] {
            let error = await Authz.error { _ = try await Authz.save(app, [Self.document(bytes)]) }
            #expect(error?.code == .invalidArgument, "\(String(describing: error))")
            #expect(error?.detail?.field == "samples[0].document.data", "\(String(describing: error))")
            #expect(error?.detail?.value.contains("entity \(entity)") == true, "\(String(describing: error))")
            #expect(error.map { !"\($0)".contains("Someone Else") && !"\($0)".contains("lollol") } == true)
        }
        #expect(try await Self.query(app, includeData: false).isEmpty)
        await app.close()
        await owner.close()
        await server.stop()
    }

    @Test("an app granted one of two documents reads exactly that one; the owner adds documents and reads them all")
    func perObject() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        let ccd = try Self.file("valid-hl7-examples", "CCD_1.xml")
        let referral = try Self.file("valid-hl7-examples", "Referral_Note.xml")
        // The person adds what the clinic sent (salusctl documents add).
        let saved = try await Authz.save(owner, [Self.document(ccd), Self.document(referral)])
        let uuids = saved.results.map(\.uuid)
        #expect(uuids.count == 2)
        #expect(Set(try await Self.query(owner, includeData: false).map(\.uuid)) == Set(uuids))

        try await Authz.register(owner, "org.example.reader")
        let reader = try await Authz.app(server, "org.example.reader")
        #expect(try await Self.query(reader, includeData: true).isEmpty)
        let request = Task {
            var perObject = Salus_V1_PerObjectReadRequest()
            perObject.type = Self.cda
            let _: Salus_V1_AuthorizationResponse = try await reader.unary(SalusMethods.Authorization.requestPerObjectReadAuthorization, request: perObject)
        }
        let pending = try await Authz.pendingRequests(owner)
        #expect(Set(pending.first?.objects.map(\.uuid) ?? []) == Set(uuids))
        var answer = Salus_V1_AnswerRequestRequest()
        answer.requestID = try #require(pending.first).id
        answer.objects = [uuids[1]]
        let _: Salus_V1_ConsentRequest = try await owner.unary(SalusMethods.Consent.answerRequest, request: answer)
        try await request.value

        let seen = try await Self.query(reader, includeData: true)
        #expect(seen.map(\.uuid) == [uuids[1]])
        #expect(seen.first?.document.title == "Referral Note")
        #expect(seen.first?.document.data == referral)
        // An app may not save as the owner does without share permission.
        let denied = await Authz.error { _ = try await Authz.save(reader, [Self.document(ccd)]) }
        #expect(denied?.code == .permissionDenied, "\(String(describing: denied))")
        for client in [reader, owner] { await client.close() }
        await server.stop()
    }
}
