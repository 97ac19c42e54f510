import CLibXML2
import Foundation

/// One element of an Apple Health `export.xml` with everything inside it: its attributes in
/// document order and its child elements. Text content is not kept (the export puts every value
/// in attributes).
package struct ExportElement: Hashable, Sendable {
    /// "Record", "Workout", "MetadataEntry".
    package var name: String
    /// The attributes, in document order, entities decoded.
    package var attributes: [(name: String, value: String)]
    /// The child elements, in document order.
    package var children: [ExportElement]
    /// The line it starts on, for messages.
    package var line: Int

    /// The value of attribute `name`, if present.
    package subscript(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// The children named `name`.
    package func children(named name: String) -> [ExportElement] {
        children.filter { $0.name == name }
    }

    package static func == (lhs: ExportElement, rhs: ExportElement) -> Bool {
        lhs.name == rhs.name && lhs.line == rhs.line && lhs.children == rhs.children
            && lhs.attributes.map(\.name) == rhs.attributes.map(\.name) && lhs.attributes.map(\.value) == rhs.attributes.map(\.value)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(line)
        for attribute in attributes {
            hasher.combine(attribute.name)
            hasher.combine(attribute.value)
        }
        hasher.combine(children)
    }
}

/// A streaming reader of Apple Health's `export.xml`: bytes go in as they arrive (from a file or
/// a zip entry), and each element directly under the root `HealthData` comes out whole (a
/// `Record` with its metadata, a `Workout` with its events, statistics and route, `Me`,
/// `ExportDate`, ...), so memory holds one top-level element at a time, never the document.
///
/// **Rules.**
/// - The document type declaration is skipped before parsing, never read: the DTD that exports
///   carry since iOS 16 is itself broken (a missing or doubled `>`), and nothing in it is
///   needed. No DTD is loaded, no external entity fetched, no network used.
/// - Well-formedness errors outside the DTD stop the reading with the parser's message and line.
/// - An error thrown by the consumer stops the parser at once and is rethrown by `feed`/`finish`.
package final class ExportXMLReader {
    /// Receives each top-level element; throw to stop.
    package typealias Consumer = (ExportElement) throws -> Void

    /// The root element's attributes (`locale`), once seen.
    package private(set) var rootAttributes: [(name: String, value: String)] = []
    /// The root element's name, once seen.
    package private(set) var rootName: String?
    /// How many bytes were fed.
    package private(set) var bytesRead: Int64 = 0

    private let consumer: Consumer
    private var parser: xmlParserCtxtPtr?
    private var filter = DoctypeFilter()
    private var stack: [ExportElement] = []
    private var failure: (any Error)?
    private var finished = false

    /// A reader that calls `consumer` with each top-level element, in document order.
    package init(consumer: @escaping Consumer) {
        self.consumer = consumer
    }

    deinit {
        if let parser {
            xmlFreeDoc(parser.pointee.myDoc)
            xmlFreeParserCtxt(parser)
        }
    }

    /// Parses `bytes`, the next part of the document.
    package func feed(_ bytes: UnsafeRawBufferPointer) throws {
        bytesRead += Int64(bytes.count)
        let kept = filter.pass(bytes)
        guard !kept.isEmpty else { return }
        try parse(kept, terminate: false)
    }

    /// Parses `data`, the next part of the document.
    package func feed(_ data: Data) throws {
        try data.withUnsafeBytes { try feed($0) }
    }

    /// Ends the document: throws if it was incomplete or not well-formed.
    package func finish() throws {
        guard !finished else { return }
        finished = true
        try parse([], terminate: true)
        if rootName == nil {
            throw ExportReadError(line: 0, message: "the file holds no XML element; expected an Apple Health export (HealthData)")
        }
    }

    private func parse(_ bytes: [UInt8], terminate: Bool) throws {
        if let failure { throw failure }
        if parser == nil {
            var handler = xmlSAXHandler()
            handler.initialized = XML_SAX2_MAGIC
            handler.startElementNs = { context, localName, _, _, _, _, attributeCount, _, attributes in
                guard let context, let localName else { return }
                let reader = Unmanaged<ExportXMLReader>.fromOpaque(context).takeUnretainedValue()
                reader.start(localName, attributeCount: Int(attributeCount), attributes: attributes)
            }
            handler.endElementNs = { context, _, _, _ in
                guard let context else { return }
                Unmanaged<ExportXMLReader>.fromOpaque(context).takeUnretainedValue().end()
            }
            let context = Unmanaged.passUnretained(self).toOpaque()
            parser = xmlCreatePushParserCtxt(&handler, context, nil, 0, "export.xml")
            guard let parser else { throw ExportReadError(line: 0, message: "cannot create an XML parser") }
            _ = xmlCtxtUseOptions(parser, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue | XML_PARSE_HUGE.rawValue))
        }
        guard let parser else { return }
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { xmlParseChunk(parser, $0, Int32(buffer.count), terminate ? 1 : 0) }
            } ?? xmlParseChunk(parser, nil, 0, terminate ? 1 : 0)
        }
        if let failure { throw failure }
        if status != 0 || parser.pointee.wellFormed == 0 {
            let error = parser.pointee.lastError
            let message = error.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "not well-formed XML"
            let failure = ExportReadError(line: Int(error.line), message: message)
            self.failure = failure
            throw failure
        }
    }

    private var currentLine: Int {
        guard let parser, let input = parser.pointee.input else { return 0 }
        return Int(input.pointee.line)
    }

    private func start(_ localName: UnsafePointer<xmlChar>, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        guard failure == nil else { return }
        var pairs: [(name: String, value: String)] = []
        pairs.reserveCapacity(attributeCount)
        if let attributes {
            // Five pointers per attribute: local name, prefix, URI, value start, value end.
            for index in 0..<attributeCount {
                guard let name = attributes[index * 5], let start = attributes[index * 5 + 3], let end = attributes[index * 5 + 4] else { continue }
                let length = start.distance(to: end)
                let value = String(decoding: UnsafeBufferPointer(start: start, count: length), as: UTF8.self)
                pairs.append((String(cString: name), Self.decodeEntities(value)))
            }
        }
        let element = ExportElement(name: String(cString: localName), attributes: pairs, children: [], line: currentLine)
        if rootName == nil {
            rootName = element.name
            rootAttributes = pairs
            return
        }
        stack.append(element)
    }

    private func end() {
        guard failure == nil else { return }
        guard let element = stack.popLast() else { return }  // the root's end
        if stack.isEmpty {
            do {
                try consumer(element)
            } catch {
                failure = error
                if let parser { xmlStopParser(parser) }
            }
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    /// libxml2's SAX2 hands attribute values with the predefined and character entities still
    /// escaped when the document has no DTD to say otherwise; decode them.
    static func decodeEntities(_ value: String) -> String {
        // A byte search: Foundation's `contains` would search as NSString, once per attribute.
        guard value.utf8.contains(UInt8(ascii: "&")) else { return value }
        var result = ""
        var rest = Substring(value)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 10 else {
                result += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let entity = rest[rest.index(after: amp)..<semi]
            var decoded: String?
            switch entity {
            case "lt": decoded = "<"
            case "gt": decoded = ">"
            case "amp": decoded = "&"
            case "quot": decoded = "\""
            case "apos": decoded = "'"
            default:
                if entity.hasPrefix("#x"), let code = UInt32(entity.dropFirst(2), radix: 16), let scalar = Unicode.Scalar(code) {
                    decoded = String(Character(scalar))
                } else if entity.hasPrefix("#"), let code = UInt32(entity.dropFirst()), let scalar = Unicode.Scalar(code) {
                    decoded = String(Character(scalar))
                }
            }
            if let decoded {
                result += decoded
                rest = rest[rest.index(after: semi)...]
            } else {
                result += "&"
                rest = rest[rest.index(after: amp)...]
            }
        }
        return result + rest
    }
}

/// Why an export could not be read.
package struct ExportReadError: Error, CustomStringConvertible, Equatable {
    /// The line of the document, 0 when not known.
    package var line: Int
    /// What went wrong.
    package var message: String

    package var description: String { line > 0 ? "export.xml line \(line): \(message)" : "export.xml: \(message)" }
}

/// Drops the document type declaration (`<!DOCTYPE … [ … ]>`) from a byte stream, across chunk
/// boundaries, leaving everything else untouched and its newlines in place (line numbers in
/// messages stay those of the file).
struct DoctypeFilter {
    private enum State { case searching, inDoctype, inSubset, done }
    private var state = State.searching
    private var pending: [UInt8] = []
    private static let marker = Array("<!DOCTYPE".utf8)

    /// The bytes of `chunk` to parse.
    mutating func pass(_ chunk: UnsafeRawBufferPointer) -> [UInt8] {
        if state == .done { return Array(chunk) }
        var output: [UInt8] = []
        var bytes = pending + Array(chunk)
        pending = []
        var index = 0
        while index < bytes.count {
            switch state {
            case .done:
                output.append(contentsOf: bytes[index...])
                return output
            case .searching:
                if bytes[index] == UInt8(ascii: "<") {
                    if bytes.count - index < Self.marker.count {
                        // Not enough to decide: keep for the next chunk.
                        pending = Array(bytes[index...])
                        return output
                    }
                    if Array(bytes[index..<index + Self.marker.count]) == Self.marker {
                        state = .inDoctype
                        index += Self.marker.count
                        continue
                    }
                    // The first element starts: no DOCTYPE comes after it.
                    if index + 1 < bytes.count, bytes[index + 1] != UInt8(ascii: "?"), bytes[index + 1] != UInt8(ascii: "!") {
                        state = .done
                        continue
                    }
                }
                output.append(bytes[index])
            case .inDoctype:
                // Newlines stay, so that line numbers still match the file.
                if bytes[index] == 0x0A { output.append(0x0A) }
                if bytes[index] == UInt8(ascii: "[") { state = .inSubset }
                if bytes[index] == UInt8(ascii: ">") { state = .done }
            case .inSubset:
                if bytes[index] == 0x0A { output.append(0x0A) }
                if bytes[index] == UInt8(ascii: "]") {
                    // The subset ends at "]" followed (after blanks) by ">".
                    var look = index + 1
                    while look < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[look]) { look += 1 }
                    if look == bytes.count {
                        pending = Array(bytes[index...])
                        return output
                    }
                    if bytes[look] == UInt8(ascii: ">") {
                        state = .done
                        index = look + 1
                        continue
                    }
                }
            }
            index += 1
        }
        bytes.removeAll()
        return output
    }
}
