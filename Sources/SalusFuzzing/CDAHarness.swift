import Foundation
import SalusDocuments
import SalusImport

/// Clinical documents: the HL7 CDA check and the fields read from a document, held to what a
/// hostile document must never get (docs/security.md):
/// - one parse takes at most ``maximumTime`` and grows the process's peak memory by at most
///   ``maximumGrowth`` (billion laughs, quadratic blowup, deep nesting);
/// - no document that declares an entity is accepted (libxml2's own reading of its internal
///   subset, without the check's callback, finds none);
/// - no entity is ever expanded into a field: the fields together are no longer than the
///   document, and every word of a field is in the document's text once its entity
///   declarations are taken out (their replacement text is not the document's) and its
///   character references decoded.
/// The seeds (Fuzz/corpus/cda) hold internal, external and parameter entities, billion laughs,
/// deep nesting and DTDs behind comments, so the fuzzer starts from each attack.
package enum CDAHarness {
    /// The longest one parse may take, sanitizers included.
    static let maximumTime = Duration.seconds(10)
    /// How much one parse may raise the process's peak resident memory.
    static let maximumGrowth = 256 << 20

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let data = Data(bytes)
        PeakMemory.reset()
        let before = PeakMemory.bytes
        let started = ContinuousClock.now
        let document = try? CDADocument.parse(data)
        let elapsed = ContinuousClock.now - started
        if elapsed > maximumTime {
            fatalError("parsing a \(data.count)-byte document took \(elapsed), above \(maximumTime)")
        }
        if let before, let after = PeakMemory.bytes, after - before > maximumGrowth {
            fatalError("parsing a \(data.count)-byte document raised peak memory by \(after - before) bytes, above \(maximumGrowth)")
        }
        guard let document else { return }
        let declared = CDADocument.entityDeclarations(in: data)
        if !declared.isEmpty {
            fatalError("a \(data.count)-byte document declaring the entities \(declared) was accepted")
        }
        let fields = [document.title, document.patientName, document.authorName, document.custodianName]
        if let expansion = expansion(in: fields, of: data) { fatalError(expansion) }
        _ = document.hashValue
    }

    /// Why the `fields` read from `data` cannot all come from its own text (an entity was
    /// expanded), nil when they can.
    package static func expansion(in fields: [String], of data: Data) -> String? {
        let length = fields.reduce(0) { $0 + $1.utf8.count }
        if length > data.count {
            return "the fields hold \(length) bytes, more than the \(data.count)-byte document: an entity was expanded"
        }
        // Only where the bytes are the text: a document in another encoding is converted by
        // libxml2, so its words are not found as UTF-8.
        guard !data.contains(0), String(validating: data, as: UTF8.self) != nil, !declaresOtherEncoding(data) else { return nil }
        // A declaration's replacement text is not the document's own; where libxml2 reads no
        // declaration, "<!ENTITY" is text of a comment, processing instruction or CDATA section,
        // and stays.
        let raw = String(decoding: data, as: UTF8.self)
        let text = ExportXMLReader.decodeEntities(
            CDADocument.entityDeclarations(in: data).isEmpty ? raw : withoutEntityDeclarations(raw))
        // A field joins adjacent elements' text ("Ada" of <given>, "Lovelace" of <family>), so a
        // word may stand in the document only with tags and spaces between its parts.
        let joined = String(text.replacing(/<[^<>]*>/, with: "").filter { !$0.isWhitespace })
        for field in fields {
            for word in field.split(whereSeparator: \.isWhitespace) where !text.contains(word) && !joined.contains(word) {
                return "\"\(word)\" of the field \"\(field.prefix(80))\" is not in the document: an entity was expanded"
            }
        }
        return nil
    }

    /// Whether the XML declaration names an encoding other than UTF-8.
    static func declaresOtherEncoding(_ data: Data) -> Bool {
        let head = String(decoding: data.prefix(200), as: UTF8.self).lowercased()
        guard head.hasPrefix("<?xml"), let range = head.range(of: "encoding") else { return false }
        let rest = head[range.upperBound...].prefix(20)
        return !(rest.contains("utf-8") || rest.contains("utf8"))
    }

    /// `text` without its `<!ENTITY …>` declarations (quoted values may hold `>`).
    static func withoutEntityDeclarations(_ text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "<!ENTITY") {
            result += rest[..<start.lowerBound]
            var quote: Character?
            var index = start.upperBound
            while index < rest.endIndex {
                let character = rest[index]
                index = rest.index(after: index)
                if let open = quote {
                    if character == open { quote = nil }
                } else if character == "\"" || character == "'" {
                    quote = character
                } else if character == ">" {
                    break
                }
            }
            rest = rest[index...]
        }
        return result + rest
    }
}

/// The process's peak resident memory (`VmHWM`), which Linux lets a process reset
/// (`/proc/self/clear_refs`), so one call's growth can be read.
enum PeakMemory {
    /// Sets the peak to the current resident memory.
    static func reset() {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return }
        try? handle.write(contentsOf: Data("5".utf8))
        try? handle.close()
    }

    /// The peak in bytes, nil where `/proc` does not say.
    static var bytes: Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }
}
