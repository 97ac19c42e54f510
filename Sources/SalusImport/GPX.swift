import CLibXML2
import Foundation
import SalusModel

/// GPX 1.1 (`http://www.topografix.com/GPX/1/1`) routes as Apple Health writes them in an
/// export's `workout-routes/*.gpx`, both ways, with libxml2: one track of one segment, each
/// location a `trkpt` with `lat` and `lon`, an `ele`, a UTC `time` and, as extensions, `speed`,
/// `course`, `hAcc` and `vAcc`.
///
/// **Rules.**
/// - Reading takes every `trkpt` of every track and segment, in document order; `rtept` and
///   `wpt` are not a recorded route and are skipped. No DTD is loaded, no entity expanded,
///   nothing fetched; a document with a DOCTYPE is refused (Apple's have none), and elements
///   nest at most 256 deep (libxml2's limit: `XML_PARSE_HUGE` is not set).
/// - A negative course, speed or accuracy is CoreLocation's "invalid" (Apple writes -1): read as
///   absent, so a route read from GPX passes the route rules.
/// - A `trkpt` without `lat`, `lon` or a `time` that parses is an error naming the point's
///   index and line: a route without times cannot be placed in its workout.
package enum GPX {
    /// An error reading a GPX document: what is wrong and where.
    package struct ReadError: Error, CustomStringConvertible, Sendable {
        /// What is wrong, naming the point ("trkpt[3] (line 12): no time").
        package var description: String
    }

    /// The locations of every track point of `data`, in document order.
    package static func read(_ data: Data) throws(ReadError) -> [RouteLocation] {
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let reader: xmlTextReaderPtr? = data.withUnsafeBytes { bytes in
            xmlReaderForMemory(
                bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil, nil, options)
        }
        guard let reader else { throw ReadError(description: "the GPX document could not be opened") }
        defer { xmlFreeTextReader(reader) }

        var locations: [RouteLocation] = []
        var point: (latitude: Double, longitude: Double, line: Int32)?
        var values: [String: String] = [:]
        var element: String?
        func name() -> String { xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? "" }
        func attribute(_ name: String) -> String? {
            guard let value = xmlTextReaderGetAttribute(reader, name) else { return nil }
            defer { salus_xml_free(value) }
            return String(cString: value)
        }
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { break }
            guard status == 1 else {
                let line = xmlTextReaderGetParserLineNumber(reader)
                throw ReadError(description: "the GPX document is not well-formed XML (near line \(line))")
            }
            switch Int32(xmlTextReaderNodeType(reader)) {
            case Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue):
                // Refused before the body, where its entities would be referenced.
                throw ReadError(
                    description: "a document type declaration (line \(xmlTextReaderGetParserLineNumber(reader))); a GPX route has none, "
                        + "and its entities are never read")
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let local = name()
                if local == "trkpt" {
                    let line = Int32(clamping: xmlGetLineNo(xmlTextReaderCurrentNode(reader)))
                    guard let latitude = attribute("lat").flatMap(Double.init), let longitude = attribute("lon").flatMap(Double.init)
                    else {
                        throw ReadError(description: "trkpt[\(locations.count)] (line \(line)): lat and lon must be numbers")
                    }
                    point = (latitude, longitude, line)
                    values = [:]
                    if xmlTextReaderIsEmptyElement(reader) == 1 { try finishPoint() }
                } else if point != nil {
                    element = local
                }
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue):
                if point != nil, let element, let text = xmlTextReaderConstValue(reader) {
                    values[element, default: ""] += String(cString: text)
                }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                if name() == "trkpt" { try finishPoint() } else { element = nil }
            default:
                break
            }
        }
        return locations

        func finishPoint() throws(ReadError) {
            guard let current = point else { return }
            point = nil
            let text = values["time"]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            guard let time = Self.date(text) else {
                throw ReadError(
                    description: "trkpt[\(locations.count)] (line \(current.line)): "
                        + (text.isEmpty ? "no time" : "time \"\(text)\" is not an ISO 8601 date"))
            }
            func number(_ name: String) -> Double? {
                values[name].flatMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            }
            func known(_ name: String) -> Double? { number(name).flatMap { $0 < 0 ? nil : $0 } }
            locations.append(
                RouteLocation(
                    timestamp: time, latitude: current.latitude, longitude: current.longitude, altitude: number("ele"),
                    horizontalAccuracy: known("hAcc"), verticalAccuracy: known("vAcc"), course: known("course"),
                    speed: known("speed")))
        }
    }

    /// An ISO 8601 date with or without fractional seconds ("2019-06-11T22:00:42Z").
    static func date(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: Date.ISO8601FormatStyle()) { return date }
        return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The route as a GPX 1.1 document in Apple Health's layout: metadata with the first
    /// location's time, one track named `name` with one segment. Times are UTC, with
    /// milliseconds only when a timestamp has a fraction of a second; numbers are plain decimals
    /// with up to 9 places (about 0.1 mm of latitude).
    package static func write(_ locations: [RouteLocation], name: String, creator: String = "Salus") -> Data {
        guard let buffer = xmlBufferCreate() else { return Data() }
        defer { xmlBufferFree(buffer) }
        guard let writer = xmlNewTextWriterMemory(buffer, 0) else { return Data() }
        xmlTextWriterSetIndent(writer, 1)
        xmlTextWriterSetIndentString(writer, "  ")
        xmlTextWriterStartDocument(writer, "1.0", "UTF-8", nil)
        xmlTextWriterStartElement(writer, "gpx")
        for (attribute, value) in [
            ("version", "1.1"), ("creator", creator), ("xmlns", "http://www.topografix.com/GPX/1/1"),
            ("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"),
            ("xsi:schemaLocation", "http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd"),
        ] {
            xmlTextWriterWriteAttribute(writer, attribute, value)
        }
        if let first = locations.first {
            xmlTextWriterStartElement(writer, "metadata")
            xmlTextWriterWriteElement(writer, "time", time(first.timestamp))
            xmlTextWriterEndElement(writer)
        }
        xmlTextWriterStartElement(writer, "trk")
        xmlTextWriterWriteElement(writer, "name", name)
        xmlTextWriterStartElement(writer, "trkseg")
        for location in locations {
            xmlTextWriterStartElement(writer, "trkpt")
            xmlTextWriterWriteAttribute(writer, "lon", number(location.longitude))
            xmlTextWriterWriteAttribute(writer, "lat", number(location.latitude))
            if let altitude = location.altitude { xmlTextWriterWriteElement(writer, "ele", number(altitude)) }
            xmlTextWriterWriteElement(writer, "time", time(location.timestamp))
            let extensions = [
                ("speed", location.speed), ("course", location.course), ("hAcc", location.horizontalAccuracy),
                ("vAcc", location.verticalAccuracy),
            ].compactMap { name, value in value.map { (name, $0) } }
            if !extensions.isEmpty {
                xmlTextWriterStartElement(writer, "extensions")
                for (name, value) in extensions { xmlTextWriterWriteElement(writer, name, number(value)) }
                xmlTextWriterEndElement(writer)
            }
            xmlTextWriterEndElement(writer)
        }
        xmlTextWriterEndDocument(writer)
        xmlFreeTextWriter(writer)
        guard let content = xmlBufferContent(buffer) else { return Data() }
        return Data(bytes: content, count: Int(xmlBufferLength(buffer)))
    }

    /// A UTC time, with milliseconds only when the timestamp has a fraction of a second.
    static func time(_ date: Date) -> String {
        let fractional = date.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) != 0
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: fractional))
    }

    /// A number in plain decimal notation with up to 9 decimals, never exponential.
    static func number(_ value: Double) -> String {
        var text = String(format: "%.9f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
