import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An export counted without the importer: Foundation's `XMLParser` builds a plain tree of the
/// elements, and the tests count and read it with their own rules (dates with a `DateFormatter`,
/// units with their own table), so a fault of the importer's reader or mapping cannot hide in
/// both sides of a comparison. Only for small files: the whole tree is held.
struct ExportTally {
    /// One element with its attributes and children, and its line in the file.
    struct Element {
        var name: String
        var attributes: [String: String]
        var line: Int
        var children: [Element] = []
        /// The text directly inside (a GPX `time`).
        var text = ""

        subscript(_ attribute: String) -> String? { attributes[attribute] }

        func children(_ name: String) -> [Element] { children.filter { $0.name == name } }

        /// Every element below this one named `name`, at any depth.
        func descendants(_ name: String) -> [Element] {
            children.flatMap { ($0.name == name ? [$0] : []) + $0.descendants(name) }
        }
    }

    /// The children of the document element (`HealthData`, or `gpx`).
    let topLevel: [Element]

    init(_ data: Data) throws {
        let builder = TreeBuilder()
        let parser = XMLParser(data: Self.withoutDoctype(data))
        parser.delegate = builder
        parser.shouldResolveExternalEntities = false
        // Foundation's XMLParser on Linux is not safe to run on two threads at once
        // (swift-corelibs-foundation SR-13546), and tests run in parallel: one parse at a time.
        let parsed = Self.oneAtATime.withLock { parser.parse() }
        guard parsed else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSDebugDescriptionErrorKey: "\(parser.parserError.map(String.init(describing:)) ?? "XMLParser failed")"])
        }
        topLevel = builder.root?.children ?? []
    }

    private static let oneAtATime = NSLock()

    /// `data` without its document type declaration: Foundation's XMLParser on Linux crashes
    /// (a null pointer in `strlen`) on a document whose DTD declares attributes, as the export
    /// version 3 DTD does. The corpus's DTDs are well formed and hold no entity, so the
    /// declaration is cut from `<!DOCTYPE` to the first `]>`; it holds nothing the tally counts.
    static func withoutDoctype(_ data: Data) -> Data {
        guard let start = data.range(of: Data("<!DOCTYPE".utf8)),
              let end = data.range(of: Data("]>".utf8), in: start.upperBound..<data.endIndex)
        else { return data }
        // Its lines are kept as empty lines, so that line numbers stay those of the file.
        let lines = data[start.lowerBound..<end.upperBound].filter { $0 == UInt8(ascii: "\n") }
        return data.subdata(in: data.startIndex..<start.lowerBound) + lines + data.subdata(in: end.upperBound..<data.endIndex)
    }

    /// The top-level elements by name.
    var elements: [String: Int] { topLevel.reduce(into: [:]) { $0[$1.name, default: 0] += 1 } }

    /// The top-level elements named `name`.
    func all(_ name: String) -> [Element] { topLevel.filter { $0.name == name } }

    /// Top-level `Record`s by their `type`.
    var recordsByType: [String: [Element]] { Dictionary(grouping: all("Record"), by: { $0["type"] ?? "" }) }

    /// An export date (`2016-04-18 08:25:32 -0700`) as an instant, read by Foundation's formatter.
    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        return formatter.date(from: text)
    }

    nonisolated(unsafe) private static let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        return formatter
    }()

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [Element] = []
        var root: Element?

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
            attributes attributeDict: [String: String] = [:]
        ) {
            stack.append(Element(name: elementName, attributes: attributeDict, line: parser.lineNumber))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if !stack.isEmpty { stack[stack.count - 1].text += string }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            let element = stack.removeLast()
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }
    }
}
