import CLibXML2
import Foundation
import SalusModel

/// What Salus reads from an HL7 CDA document (a C-CDA continuity-of-care document, discharge
/// summary, progress note, ...) before it is saved as a `HKDocumentTypeIdentifierCDA` sample, as
/// HealthKit's `HKCDADocument`: title, patient name, author name, custodian name and the
/// document's effective time.
///
/// **The check** (``parse(_:)``), with libxml2:
/// 1. the bytes are not empty, and are well-formed XML (the parser's message and line are
///    given otherwise), nested at most 256 deep (libxml2's limit, `XML_PARSE_HUGE` never set);
///    no DTD is loaded and nothing fetched from the network, whatever the document declares;
/// 2. the document declares no entity: the parse stops at the first `<!ENTITY` (general or
///    parameter, internal or external), before it is used, and the document is refused naming
///    it and its line. Why refused rather than kept unexpanded: a CDA document has no DTD (HL7
///    publishes an XML schema), so a declaration is a mistake or an attack (billion laughs, a
///    reference to a local file), and a field read through an entity would not be what the
///    bytes show. No entity is ever expanded into a stored field;
/// 3. the root element is `ClinicalDocument` in the HL7 v3 namespace `urn:hl7-org:v3` (an HTML
///    page, a bare section or another XML vocabulary is refused, naming the root found);
/// 4. each extracted field is present and not blank:
///    - title: `ClinicalDocument/title`;
///    - patient: `recordTarget/patientRole/patient/name` (given names, then family names);
///    - author: `author/assignedAuthor/assignedPerson/name`, else the authoring device's
///      `manufacturerModelName`/`softwareName`, else `representedOrganization/name`;
///    - custodian: `custodian/assignedCustodian/representedCustodianOrganization/name`;
///    - effective time: `effectiveTime/@value`, an HL7 TS (`YYYYMMDD[HHMM[SS[.S+]]][±ZZZZ]`;
///      without an offset the time is read as UTC).
/// 5. every instance identifier's `root` attribute is written as an OID, UUID or RUID can be
///    (letters, digits, dots, hyphens).
/// Refusals are ``ValidationError``s naming `document.data` (or the element's path) with what
/// was found and what was expected. Conformance to the C-CDA templates (section codes,
/// vocabularies) is not checked: that is a clinical validator's job, not storage's.
package struct CDADocument: Hashable, Sendable {
    /// `ClinicalDocument/title`.
    package var title: String
    /// The patient's name, given names first.
    package var patientName: String
    /// The author's name.
    package var authorName: String
    /// The custodian organization's name.
    package var custodianName: String
    /// `ClinicalDocument/effectiveTime/@value`.
    package var effectiveTime: Date

    /// The HL7 v3 namespace.
    package static let namespace = "urn:hl7-org:v3"

    /// Checks `data` and extracts the fields; throws a ``ValidationError`` naming `field`
    /// (`document.data` by default) when the document is refused.
    package static func parse(_ data: Data, field: String = "document.data") throws(ValidationError) -> CDADocument {
        guard !data.isEmpty else {
            throw ValidationError(
                reason: .invalidValue, field: field, value: "an empty file",
                expected: "an HL7 CDA document: XML whose root is ClinicalDocument in the urn:hl7-org:v3 namespace")
        }
        guard data.count < Int(Int32.max) else {
            throw ValidationError(reason: .invalidValue, field: field, value: "\(data.count) bytes", expected: "a document below 2 GiB")
        }
        // No XML_PARSE_NOENT (entities would be substituted), no XML_PARSE_DTDLOAD, no
        // XML_PARSE_HUGE (libxml2's depth and size limits stay).
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue)
        let declared = EntityDeclaration()
        let (parsed, wellFormed, lastError): (xmlDocPtr?, Bool, (line: Int32, message: String?, depth: Bool)) = data.withUnsafeBytes { buffer in
            guard let parser = xmlNewParserCtxt() else { return (nil, false, (0, nil, false)) }
            defer { xmlFreeParserCtxt(parser) }
            // The first entity declaration stops the parse, before anything refers to it.
            // (xmlCtxtReadMemory resets the context's state, not its handlers or `_private`.)
            parser.pointee._private = Unmanaged.passUnretained(declared).toOpaque()
            parser.pointee.sax.pointee.entityDecl = { context, name, type, _, _, _ in
                guard let context else { return }
                let parser = context.assumingMemoryBound(to: xmlParserCtxt.self)
                if let box = parser.pointee._private {
                    let declared = Unmanaged<EntityDeclaration>.fromOpaque(box).takeUnretainedValue()
                    if declared.name == nil {
                        declared.name = name.map { String(cString: $0) } ?? ""
                        declared.parameter = type == Int32(XML_INTERNAL_PARAMETER_ENTITY.rawValue)
                            || type == Int32(XML_EXTERNAL_PARAMETER_ENTITY.rawValue)
                        declared.line = parser.pointee.input.map { Int($0.pointee.line) } ?? 0
                    }
                }
                xmlStopParser(parser)
            }
            let document = xmlCtxtReadMemory(
                parser, buffer.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(buffer.count), "document.xml", nil, options)
            let error = parser.pointee.lastError
            let message = error.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) }
            // Well-formed in the namespace sense too: an unbound prefix leaves a tree but is not
            // XML a CDA reader can trust.
            return (
                document, parser.pointee.wellFormed != 0 && parser.pointee.nsWellFormed != 0,
                (error.line, message, message?.hasPrefix("Excessive depth") == true)
            )
        }
        if let entity = declared.name {
            if let parsed { xmlFreeDoc(parsed) }
            throw ValidationError(
                reason: .invalidValue, field: field,
                value: "a DTD declaring the \(declared.parameter ? "parameter " : "")entity \(entity) (line \(declared.line))",
                expected: "a CDA document with no entity declarations (CDA documents have no DTD; entities are never expanded)")
        }
        guard let document = parsed, wellFormed else {
            if let parsed { xmlFreeDoc(parsed) }
            var detail = "not well-formed XML"
            if lastError.depth {
                detail = "elements nested more than 256 deep (line \(lastError.line))"
            } else if let text = lastError.message {
                detail = "not well-formed XML (line \(lastError.line): \(text))"
            }
            throw ValidationError(
                reason: .invalidValue, field: field, value: detail,
                expected: "a well-formed HL7 CDA document (XML whose root is ClinicalDocument in urn:hl7-org:v3)")
        }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else {
            throw ValidationError(reason: .invalidValue, field: field, value: "no root element", expected: "a ClinicalDocument root element")
        }
        let rootName = String(cString: root.pointee.name)
        let rootNamespace = root.pointee.ns.flatMap { $0.pointee.href }.map { String(cString: $0) }
        guard rootName == "ClinicalDocument", rootNamespace == namespace else {
            throw ValidationError(
                reason: .invalidValue, field: field,
                value: "a root element <\(rootName)> in " + (rootNamespace.map { "namespace \($0)" } ?? "no namespace"),
                expected: "the root element ClinicalDocument in the HL7 v3 namespace urn:hl7-org:v3")
        }
        guard let context = xmlXPathNewContext(document) else {
            throw ValidationError(reason: .invalidValue, field: field, value: "an unreadable document", expected: "a CDA document")
        }
        defer { xmlXPathFreeContext(context) }
        _ = xmlXPathRegisterNs(context, "cda", namespace)
        let query = XPathQuery(context: context)

        func required(_ value: String?, _ element: String, _ description: String) throws(ValidationError) -> String {
            guard let value, !value.isEmpty else {
                throw ValidationError(
                    reason: .missingValue, field: "\(field) (ClinicalDocument/\(element))", value: "missing or blank",
                    expected: description)
            }
            return value
        }
        let title = try required(query.text("/cda:ClinicalDocument/cda:title"), "title", "the document's title")
        let patient = try required(
            query.name("/cda:ClinicalDocument/cda:recordTarget[1]/cda:patientRole/cda:patient/cda:name[1]"),
            "recordTarget/patientRole/patient/name", "the patient's name")
        let author = try required(
            query.name("/cda:ClinicalDocument/cda:author[1]/cda:assignedAuthor/cda:assignedPerson/cda:name[1]")
                ?? query.text("/cda:ClinicalDocument/cda:author[1]/cda:assignedAuthor/cda:assignedAuthoringDevice/cda:manufacturerModelName")
                ?? query.text("/cda:ClinicalDocument/cda:author[1]/cda:assignedAuthor/cda:assignedAuthoringDevice/cda:softwareName")
                ?? query.text("/cda:ClinicalDocument/cda:author[1]/cda:assignedAuthor/cda:representedOrganization/cda:name[1]"),
            "author/assignedAuthor", "the author: a person's name, an authoring device or an organization")
        let custodian = try required(
            query.text("/cda:ClinicalDocument/cda:custodian/cda:assignedCustodian/cda:representedCustodianOrganization/cda:name[1]"),
            "custodian/assignedCustodian/representedCustodianOrganization/name", "the custodian organization's name")
        let timeText = try required(
            query.text("/cda:ClinicalDocument/cda:effectiveTime/@value"), "effectiveTime/@value", "the document's effective time")
        guard let effectiveTime = HL7Time.date(timeText) else {
            throw ValidationError(
                reason: .invalidValue, field: "\(field) (ClinicalDocument/effectiveTime/@value)", value: timeText,
                expected: "an HL7 time stamp YYYYMMDD[HHMM[SS]][±ZZZZ], such as 20150622103000-0500")
        }
        // Instance identifiers: an II's root is an OID, a UUID or an RUID, all written with
        // letters, digits, dots and hyphens only.
        for attribute in query.nodes("//cda:*/@root") {
            let value = XPathQuery.content(attribute) ?? ""
            let allowed = !value.isEmpty && value.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-"
            }
            if !allowed {
                let element = attribute.pointee.parent.map { String(cString: $0.pointee.name) } ?? "?"
                let line = attribute.pointee.parent.map { xmlGetLineNo($0) } ?? 0
                throw ValidationError(
                    reason: .invalidValue, field: "\(field) (<\(element)> root, line \(line))", value: "\"\(value)\"",
                    expected: "an instance identifier root: an OID (2.16.840.1.113883.19), a UUID or an RUID, "
                        + "written with letters, digits, dots and hyphens")
            }
        }
        return CDADocument(
            title: title, patientName: patient, authorName: author, custodianName: custodian, effectiveTime: effectiveTime)
    }
}

extension CDADocument {
    /// The names of the entities `data` declares in its internal subset, as libxml2 reads them
    /// when nothing stops the parse at the first declaration (nothing is loaded or expanded):
    /// empty for a document with no DTD or a DTD without entities, and for bytes that are not
    /// well-formed XML. ``parse(_:field:)`` refuses every document for which this is not empty;
    /// the fuzzing harness checks that with a parse that does not share its callback.
    package static func entityDeclarations(in data: Data) -> [String] {
        guard !data.isEmpty, data.count < Int(Int32.max) else { return [] }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let parsed = data.withUnsafeBytes { buffer in
            xmlReadMemory(buffer.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(buffer.count), "document.xml", nil, options)
        }
        guard let document = parsed else { return [] }
        defer { xmlFreeDoc(document) }
        var names: [String] = []
        var child = document.pointee.intSubset?.pointee.children
        while let node = child {
            if node.pointee.type == XML_ENTITY_DECL {
                names.append(node.pointee.name.map { String(cString: $0) } ?? "")
            }
            child = node.pointee.next
        }
        return names
    }
}

/// The first entity a document declares, noted by the parser's callback.
final class EntityDeclaration {
    var name: String?
    var parameter = false
    var line = 0
}

/// XPath evaluation over one parsed document.
struct XPathQuery {
    let context: xmlXPathContextPtr

    /// The nodes `expression` selects.
    func nodes(_ expression: String) -> [xmlNodePtr] {
        guard let result = xmlXPathEvalExpression(expression, context) else { return [] }
        defer { xmlXPathFreeObject(result) }
        guard let set = result.pointee.nodesetval, set.pointee.nodeNr > 0 else { return [] }
        return (0..<Int(set.pointee.nodeNr)).compactMap { set.pointee.nodeTab[$0] }
    }

    /// The whitespace-collapsed text of the first node selected, nil when none or blank.
    func text(_ expression: String) -> String? {
        nodes(expression).first.flatMap(Self.content)
    }

    /// A CDA person name (`<name>`): prefixes, given names, family names and suffixes in
    /// document order when structured, else its text.
    func name(_ expression: String) -> String? {
        guard let node = nodes(expression).first else { return nil }
        var parts: [String] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE, let name = current.pointee.name,
               ["prefix", "given", "family", "suffix"].contains(String(cString: name)),
               let text = Self.content(current)
            {
                parts.append(text)
            }
            child = current.pointee.next
        }
        return parts.isEmpty ? Self.content(node) : parts.joined(separator: " ")
    }

    static func content(_ node: xmlNodePtr) -> String? {
        guard let raw = xmlNodeGetContent(node) else { return nil }
        defer { salus_xml_free(raw) }
        let text = String(cString: raw).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return text.isEmpty ? nil : text
    }
}

/// HL7 v3 TS time stamps: `YYYY[MM[DD[HH[MM[SS[.S+]]]]]][±ZZZZ]`.
enum HL7Time {
    /// An ASCII digit. (`Character.isNumber` also holds for "²", "½" and other scripts' digits,
    /// which `Int(_:)` does not read.)
    static func isDigit(_ character: Character) -> Bool {
        character.isASCII && character.isWholeNumber
    }

    /// The instant `text` names (the start of the period it leaves out), nil when malformed.
    static func date(_ text: String) -> Date? {
        var digits = Substring(text)
        var offsetSeconds = 0
        if let sign = digits.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = digits[digits.index(after: sign)...]
            guard zone.count == 4, zone.allSatisfy(isDigit), let hours = Int(zone.prefix(2)), let minutes = Int(zone.suffix(2)),
                  hours <= 14, minutes < 60
            else { return nil }
            offsetSeconds = (hours * 3600 + minutes * 60) * (digits[sign] == "-" ? -1 : 1)
            digits = digits[..<sign]
        }
        var fraction = 0.0
        if let dot = digits.firstIndex(of: ".") {
            let tail = digits[digits.index(after: dot)...]
            guard !tail.isEmpty, tail.allSatisfy(isDigit), let value = Double("0." + tail) else { return nil }
            fraction = value
            digits = digits[..<dot]
        }
        guard [4, 6, 8, 10, 12, 14].contains(digits.count), digits.allSatisfy(isDigit) else { return nil }
        // Only ASCII digits pass the check above, so each field reads as an Int.
        func field(_ start: Int, _ length: Int, default value: Int) -> Int {
            guard digits.count >= start + length else { return value }
            let from = digits.index(digits.startIndex, offsetBy: start)
            return Int(digits[from..<digits.index(from, offsetBy: length)]) ?? value
        }
        let parts = DateComponents(
            year: field(0, 4, default: 1), month: field(4, 2, default: 1), day: field(6, 2, default: 1),
            hour: field(8, 2, default: 0), minute: field(10, 2, default: 0), second: field(12, 2, default: 0))
        guard let day = CalendarDate(year: parts.year!, month: parts.month!, day: parts.day!) as CalendarDate?, day.isValid,
              parts.hour! < 24, parts.minute! < 60, parts.second! < 61
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        guard let utc = calendar.date(from: parts) else { return nil }
        return utc.addingTimeInterval(fraction - Double(offsetSeconds))
    }
}
