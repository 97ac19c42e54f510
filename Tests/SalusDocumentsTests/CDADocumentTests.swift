import Foundation
import SalusDocuments
import SalusModel
import Testing

/// The HL7 CDA check on third-party documents (Tests/Fixtures/cda, from HL7's C-CDA examples and
/// the ONC reference validator's tests).
@Suite("CDA documents")
struct CDADocumentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/cda")

    static func data(_ folder: String, _ name: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(name))
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

    @Test("each valid C-CDA example is accepted with its title, patient, author, custodian and effective time", arguments: valid.map(\.file))
    func validExample(_ file: String) throws {
        let expected = try #require(Self.valid.first { $0.file == file })
        let document = try CDADocument.parse(try Self.data("valid-hl7-examples", file))
        #expect(document.title == expected.title)
        #expect(document.patientName == expected.patient)
        #expect(document.effectiveTime == ISO8601DateFormatter().date(from: expected.effective))
        #expect(!document.authorName.isEmpty && !document.custodianName.isEmpty)
    }

    @Test("the ONC validator's invalid documents are refused, each with its reason")
    func invalidDocuments() throws {
        let cases: [(file: String, field: String, fragment: String)] = [
            ("Sample_blank_Empty_Document.xml", "document.data", "an empty file"),
            ("Sample_basicHTML.xml", "document.data", "a root element <html> in no namespace"),
            ("Sample_invalid-SnippetOnly.xml", "document.data", "not well-formed XML (line"),
            ("MedicationSectionCodeInvalid.xml", "document.data (ClinicalDocument/title)", "missing or blank"),
            ("Sample_addSchemaErrors.xml", "document.data (ClinicalDocument/author/assignedAuthor)", "missing or blank"),
            ("subProceduresWithDeviceIdentifierObservationBadValueRootSite3218.xml", "document.data (<value> root, line 1873)", "\"BAD_ROOT\""),
        ]
        for item in cases {
            let bytes = try Self.data("invalid-onc-validator", item.file)
            do {
                _ = try CDADocument.parse(bytes)
                Issue.record("\(item.file) was accepted")
            } catch {
                #expect(error.field == item.field, "\(item.file): \(error)")
                #expect(error.value.contains(item.fragment), "\(item.file): \(error)")
                #expect(!error.expected.isEmpty)
            }
        }
        // Their valid twins pass.
        for twin in ["Sample.xml", "subProceduresWithDeviceIdentifierObservationSite3218.xml"] {
            #expect(throws: Never.self, "\(twin)") { _ = try CDADocument.parse(try Self.data("invalid-onc-validator", twin)) }
        }
    }

    @Test("a document never reaches outside: external entities are not loaded or expanded")
    func externalEntities() throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("salus-cda-secret-\(UUID()).txt")
        try Data("TOP SECRET".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE ClinicalDocument [<!ENTITY leak SYSTEM "file://\(secret.path)">]>
            <ClinicalDocument xmlns="urn:hl7-org:v3"><title>&leak;</title></ClinicalDocument>
            """
        let bytes = Data(xml.utf8)
        do {
            let document = try CDADocument.parse(bytes)
            Issue.record("accepted with title \(document.title)")
        } catch {
            #expect(!error.value.contains("TOP SECRET") && !error.description.contains("TOP SECRET"))
        }
    }

    @Test("HL7 time stamps: precision, offsets and impossible values")
    func timeStamps() throws {
        let cases: [(String, String?)] = [
            ("20050329171504-0500", "2005-03-29T22:15:04Z"), ("201308151030-0800", "2013-08-15T18:30:00Z"),
            ("20140101", "2014-01-01T00:00:00Z"), ("2014", "2014-01-01T00:00:00Z"), ("20140230", nil),
            ("20141301", nil), ("2014010125", nil), ("20140101+2", nil), ("hello", nil),
            // Characters Swift counts as numbers that are no ASCII digits: a superscript two,
            // full-width digits, Arabic-Indic digits in the offset and the fraction, a vulgar half.
            ("2014\u{B2}101", nil), ("\u{FF12}\u{FF10}\u{FF11}\u{FF14}0101", nil),
            ("20140101103000-\u{0660}\u{0665}00", nil), ("20140101103000.\u{0665}", nil), ("2014\u{BD}", nil),
        ]
        for (text, expected) in cases {
            var xml = try String(decoding: Self.data("valid-hl7-examples", "Progress_Note.xml"), as: UTF8.self)
            xml = xml.replacingOccurrences(of: "<effectiveTime value=\"20050329171504-0500\"/>", with: "<effectiveTime value=\"\(text)\"/>")
            if let expected {
                #expect(try CDADocument.parse(Data(xml.utf8)).effectiveTime == ISO8601DateFormatter().date(from: expected), "\(text)")
            } else {
                #expect(throws: ValidationError.self, "\(text)") { _ = try CDADocument.parse(Data(xml.utf8)) }
            }
        }
    }
}
