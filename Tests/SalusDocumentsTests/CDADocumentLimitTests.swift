import Foundation
import SalusDocuments
import SalusModel
import Testing

/// Hostile CDA documents: entity declarations (billion laughs, parameter and external entities)
/// and deep nesting. Each is refused with a precise error, in bounded time and memory; no entity
/// is ever expanded into a stored field.
@Suite("CDA documents: entities and nesting")
struct CDADocumentLimitTests {
    /// The smallest document the check accepts, with `doctype` before it and `title` as its title.
    static func document(doctype: String, title: String = "Summary of care") -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            \(doctype)
            <ClinicalDocument xmlns="urn:hl7-org:v3">
              <title>\(title)</title>
              <effectiveTime value="20150622103000-0500"/>
              <recordTarget><patientRole><patient><name><given>Ada</given><family>Lovelace</family></name></patient></patientRole></recordTarget>
              <author><assignedAuthor><assignedPerson><name><family>Snow</family></name></assignedPerson></assignedAuthor></author>
              <custodian><assignedCustodian><representedCustodianOrganization><name>Good Health Clinic</name></representedCustodianOrganization></assignedCustodian></custodian>
            </ClinicalDocument>
            """.utf8)
    }

    /// Billion laughs: ten levels of ten references, 10^9 copies of "lol" once expanded.
    static let laughs: String = {
        var declarations = "<!ENTITY lol0 \"lol\">"
        for level in 1...9 {
            declarations += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        return "<!DOCTYPE ClinicalDocument [" + declarations + "]>"
    }()

    @Test("the plain document is accepted, and with a DTD that declares no entity too")
    func plain() throws {
        #expect(try CDADocument.parse(Self.document(doctype: "")).title == "Summary of care")
        #expect(try CDADocument.parse(Self.document(doctype: "<!DOCTYPE ClinicalDocument>")).title == "Summary of care")
    }

    @Test(
        "a document whose DTD declares an entity is refused naming the entity and its line; nothing is expanded",
        arguments: [
            ("<!DOCTYPE ClinicalDocument [<!ENTITY who \"Someone Else\">]>", "&who;", "who"),
            (laughs, "&lol9;", "lol0"),
            ("<!DOCTYPE ClinicalDocument [<!ENTITY % p \"<!ENTITY who 'Someone Else'>\"> %p;]>", "&who;", "p"),
            ("<!DOCTYPE ClinicalDocument [<!ENTITY ext SYSTEM \"file:///etc/hostname\">]>", "&ext;", "ext"),
            ("<!DOCTYPE ClinicalDocument [<!ENTITY unused \"x\">]>", "Summary of care", "unused"),
        ])
    func entityDeclarations(doctype: String, title: String, entity: String) throws {
        let started = ContinuousClock.now
        do {
            let document = try CDADocument.parse(Self.document(doctype: doctype, title: title))
            Issue.record("accepted with the title \(document.title.prefix(40))")
        } catch {
            #expect(error.field == "document.data", "\(error)")
            #expect(error.value.contains("entity \(entity)") && error.value.contains("line 2"), "\(error)")
            #expect(error.expected.contains("no entity declarations"), "\(error)")
            #expect(!error.description.contains("Someone") && !error.description.contains("lollol"), "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test("100,000 nested elements are refused naming the depth and the line, without a crash")
    func deepNesting() throws {
        let depth = 100_000
        let nested = "<component>" + String(repeating: "<section>", count: depth) + String(repeating: "</section>", count: depth)
            + "</component>"
        var text = String(decoding: Self.document(doctype: ""), as: UTF8.self)
        text = text.replacingOccurrences(of: "</ClinicalDocument>", with: nested + "\n</ClinicalDocument>")
        do {
            _ = try CDADocument.parse(Data(text.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.field == "document.data", "\(error)")
            #expect(error.value.contains("nested more than") && error.value.contains("line 9"), "\(error)")
        }
    }
}
