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
///   needed. ``DoctypeFilter`` finds it by XML's grammar of the prolog (comments, processing
///   instructions, quoted literals and comments inside the DTD), so nothing placed before it
///   lets it through. No DTD is loaded, no entity declared or expanded, no external entity
///   fetched, no network used; should a declaration ever reach libxml2, the parse stops.
/// - The document is held to ``ImportLimits``: elements nested deeper than `maximumDepth`
///   below the root, an attribute longer than `maximumAttributeBytes` and markup that is still
///   open after `maximumMarkupBytes` stop the reading with the line, the size and the limit.
///   Why: libxml2 runs with `XML_PARSE_HUGE`, so that exports of hundreds of megabytes stream
///   through, and that option lifts libxml2's own depth and size limits.
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

    /// The bounds the document is held to.
    package let limits: ImportLimits

    /// A reader that calls `consumer` with each top-level element, in document order.
    package init(limits: ImportLimits = .standard, consumer: @escaping Consumer) {
        self.limits = limits
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
            // The filter drops every DTD; one that reached the parser all the same is refused
            // before anything in it is used.
            handler.internalSubset = { context, name, _, _ in
                guard let context else { return }
                let reader = Unmanaged<ExportXMLReader>.fromOpaque(context).takeUnretainedValue()
                reader.fail(ExportReadError(
                    line: reader.currentLine, message: "a document type declaration (\(name.map { String(cString: $0) } ?? "")) the reader did not skip",
                    expected: "an export whose DOCTYPE comes before its root element, outside comments and processing instructions"))
            }
            handler.entityDecl = { context, name, _, _, _, _ in
                guard let context else { return }
                let reader = Unmanaged<ExportXMLReader>.fromOpaque(context).takeUnretainedValue()
                reader.fail(ExportReadError(
                    line: reader.currentLine, message: "an entity declaration (\(name.map { String(cString: $0) } ?? ""))",
                    expected: "no entity declarations: an export declares none"))
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
        if status == 0, let input = parser.pointee.input, let current = input.pointee.cur, let end = input.pointee.end,
           current.distance(to: end) > limits.maximumMarkupBytes
        {
            // libxml2 holds the markup it is reading until it ends: an endless attribute or
            // comment would be held whole.
            let failure = ExportReadError(
                line: currentLine,
                message: "more than \(limits.maximumMarkupBytes) bytes of one tag, comment or processing instruction, still open",
                expected: "markup of at most \(limits.maximumMarkupBytes) bytes (an attribute of at most \(limits.maximumAttributeBytes) bytes)")
            self.failure = failure
            xmlStopParser(parser)
            throw failure
        }
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

    /// Stops the parser with `error`, which `feed`/`finish` throw.
    private func fail(_ error: ExportReadError) {
        guard failure == nil else { return }
        failure = error
        if let parser { xmlStopParser(parser) }
    }

    private func start(_ localName: UnsafePointer<xmlChar>, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        guard failure == nil else { return }
        let elementName = String(cString: localName)
        if rootName != nil, stack.count >= limits.maximumDepth {
            let top = stack[0]
            fail(ExportReadError(
                line: currentLine, message: "elements nested more than \(limits.maximumDepth) deep inside <\(top.name)> of line \(top.line)",
                expected: "elements nested at most \(limits.maximumDepth) deep below HealthData"))
            return
        }
        var pairs: [(name: String, value: String)] = []
        pairs.reserveCapacity(attributeCount)
        if let attributes {
            // Five pointers per attribute: local name, prefix, URI, value start, value end.
            for index in 0..<attributeCount {
                guard let name = attributes[index * 5], let start = attributes[index * 5 + 3], let end = attributes[index * 5 + 4] else { continue }
                let length = start.distance(to: end)
                guard length <= limits.maximumAttributeBytes else {
                    fail(ExportReadError(
                        line: currentLine, message: "the attribute \(String(cString: name)) of <\(elementName)> is \(length) bytes",
                        expected: "an attribute of at most \(limits.maximumAttributeBytes) bytes"))
                    return
                }
                let value = String(decoding: UnsafeBufferPointer(start: start, count: length), as: UTF8.self)
                // Most values hold no entity: one memchr on libxml2's bytes tells, on the reader's
                // task, which every element waits for.
                let escaped = length > 0 && memchr(start, Int32(UInt8(ascii: "&")), length) != nil
                pairs.append((String(cString: name), escaped ? Self.decodeEntities(value) : value))
            }
        }
        let element = ExportElement(name: elementName, attributes: pairs, children: [], line: currentLine)
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
                guard failure == nil else { return }
                failure = error
                if let parser { xmlStopParser(parser) }
            }
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    /// libxml2's SAX2 hands attribute values with the predefined and character entities still
    /// escaped when the document has no DTD to say otherwise; decode them.
    package static func decodeEntities(_ value: String) -> String {
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
    /// What was expected instead, when the document broke one of the reader's rules rather than
    /// XML's (a limit, a DTD); nil for the parser's own errors.
    package var expected: String?

    /// An error at `line`.
    package init(line: Int, message: String, expected: String? = nil) {
        self.line = line
        self.message = message
        self.expected = expected
    }

    package var description: String {
        (line > 0 ? "export.xml line \(line): \(message)" : "export.xml: \(message)") + (expected.map { "; expected \($0)" } ?? "")
    }
}

/// Drops every document type declaration (`<!DOCTYPE … [ … ]>`) of the prolog from a byte
/// stream, across chunk boundaries, leaving everything else untouched and its newlines in place
/// (line numbers in messages stay those of the file).
///
/// **It follows XML's grammar of the prolog**, not a text search: before the root element come
/// only the XML declaration, comments, processing instructions, white space and the DOCTYPE, so
/// - a comment (`<!-- … -->`) or processing instruction (`<? … ?>`) is passed whole, whatever it
///   holds (`<x`, `<!DOCTYPE`, `>`), and the search goes on after it;
/// - inside the DOCTYPE, quoted literals (`"…"`, `'…'`), comments and processing instructions
///   may hold `]` and `>` without ending it; it ends at `]`, blanks, `>` (or at `>` when it has
///   no internal subset);
/// - each DOCTYPE of the prolog is dropped (a second one is not XML, and libxml2 would read it);
/// - anything else starting with `<` is the root element: from there every byte passes.
/// What it is not told apart (a declaration missing its `>`, as in iOS 16's DTD) does not matter,
/// since the DTD's declarations are never read.
struct DoctypeFilter {
    private enum State: Equatable {
        /// Between the prolog's parts.
        case prolog
        /// After `<`, `<!`, `<!-`, `<!D`…: held until it says what it opens.
        case opening([UInt8])
        /// In a processing instruction; whether the last byte was `?`.
        case instruction(question: Bool)
        /// In a comment; how many `-` came last.
        case comment(dashes: Int)
        /// In a DOCTYPE before its internal subset; the quote of the literal being read.
        case doctype(quote: UInt8?)
        /// In the internal subset.
        case subset(Subset)
        /// The root element has started.
        case content
    }

    private enum Subset: Equatable {
        case plain
        case literal(quote: UInt8)
        case opening([UInt8])
        case instruction(question: Bool)
        case comment(dashes: Int)
        /// After `]`, in blanks: a `>` ends the DOCTYPE.
        case closing
    }

    private var state = State.prolog
    private static let commentStart = Array("<!--".utf8)
    private static let doctypeStart = Array("<!DOCTYPE".utf8)
    private static let instructionStart = Array("<?".utf8)
    private static let newline: UInt8 = 0x0A

    /// The bytes of `chunk` to parse.
    mutating func pass(_ chunk: UnsafeRawBufferPointer) -> [UInt8] {
        if state == .content { return Array(chunk) }
        var output: [UInt8] = []
        output.reserveCapacity(chunk.count)
        for (index, byte) in chunk.enumerated() {
            if state == .content {
                output.append(contentsOf: chunk[index...])
                break
            }
            step(byte, into: &output)
        }
        return output
    }

    private mutating func step(_ byte: UInt8, into output: inout [UInt8]) {
        switch state {
        case .content:
            output.append(byte)
        case .prolog:
            if byte == UInt8(ascii: "<") {
                state = .opening([byte])
            } else {
                output.append(byte)
            }
        case .opening(var held):
            held.append(byte)
            if held == Self.instructionStart {
                output += held
                state = .instruction(question: false)
            } else if held == Self.commentStart {
                output += held
                state = .comment(dashes: 0)
            } else if held == Self.doctypeStart {
                state = .doctype(quote: nil)
            } else if Self.commentStart.starts(with: held) || Self.doctypeStart.starts(with: held) {
                state = .opening(held)
            } else {
                // The root element (or what libxml2 will refuse): everything passes from here.
                output += held
                state = .content
            }
        case .instruction(let question):
            output.append(byte)
            state = question && byte == UInt8(ascii: ">") ? .prolog : .instruction(question: byte == UInt8(ascii: "?"))
        case .comment(let dashes):
            output.append(byte)
            state = dashes >= 2 && byte == UInt8(ascii: ">") ? .prolog : .comment(dashes: byte == UInt8(ascii: "-") ? dashes + 1 : 0)
        case .doctype(let quote):
            if byte == Self.newline { output.append(byte) }
            if let quote {
                if byte == quote { state = .doctype(quote: nil) }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                state = .doctype(quote: byte)
            } else if byte == UInt8(ascii: "[") {
                state = .subset(.plain)
            } else if byte == UInt8(ascii: ">") {
                state = .prolog
            }
        case .subset(let subset):
            if byte == Self.newline { output.append(byte) }
            state = subset == .closing && byte == UInt8(ascii: ">") ? .prolog : .subset(Self.next(subset, byte))
        }
    }

    /// The internal subset's state after `byte`.
    private static func next(_ subset: Subset, _ byte: UInt8) -> Subset {
        switch subset {
        case .plain:
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"): return .literal(quote: byte)
            case UInt8(ascii: "<"): return .opening([byte])
            case UInt8(ascii: "]"): return .closing
            default: return .plain
            }
        case .literal(let quote):
            return byte == quote ? .plain : subset
        case .opening(var held):
            held.append(byte)
            if held == instructionStart { return .instruction(question: false) }
            if held == commentStart { return .comment(dashes: 0) }
            if commentStart.starts(with: held) { return .opening(held) }
            // A declaration (`<!ELEMENT`, `<!ENTITY`…): its bytes are read as plain ones.
            return next(.plain, byte)
        case .instruction(let question):
            return question && byte == UInt8(ascii: ">") ? .plain : .instruction(question: byte == UInt8(ascii: "?"))
        case .comment(let dashes):
            return dashes >= 2 && byte == UInt8(ascii: ">") ? .plain : .comment(dashes: byte == UInt8(ascii: "-") ? dashes + 1 : 0)
        case .closing:
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: return .closing
            default: return next(.plain, byte)
            }
        }
    }
}
