import Foundation
import SalusModel
import SwiftProtobuf

/// One sample as a line of JSON lines or of CSV.
enum SampleLines {
    /// The first line of every CSV file.
    static let csvHeader = "start,end,value,unit,source,source_version,device"

    /// One sample as a JSON object: the wire form's fields, with the UUID as text and times in
    /// ISO 8601.
    ///
    /// The four fields come first as text; the rest is SwiftProtobuf's JSON of the wire form with
    /// those four cleared, spliced in as it is: no second parse, no re-serialisation.
    static func json(_ sample: Sample, dates: Date.ISO8601FormatStyle) throws -> String {
        var wire = sample.wire
        wire.uuid = Data()
        wire.startDate = 0
        wire.endDate = 0
        wire.creationDate = 0
        var options = JSONEncodingOptions()
        options.alwaysPrintInt64sAsNumbers = true
        // Map entries (metadata) in key order: one store always exports to the same bytes.
        options.useDeterministicOrdering = true
        let body = try wire.jsonString(options: options)
        var line = "{\"uuid\":\"\(sample.uuid.uuidString.lowercased())\",\"startDate\":\"\(dates.format(sample.startDate))\","
            + "\"endDate\":\"\(dates.format(sample.endDate))\",\"creationDate\":\"\(dates.format(sample.creationDate))\""
        if body.utf8.count > 2 {
            line += ","
            line += body.dropFirst()
        } else {
            line += "}"
        }
        return line
    }

    /// One CSV row; quantities in `unit` when given.
    static func csv(_ sample: Sample, unit: SalusUnit?, dates: Date.ISO8601FormatStyle) -> String {
        var value = ""
        var unitText = ""
        switch sample.value {
        case .quantity(let quantity):
            let shown = unit.flatMap { try? quantity.converted(to: $0) } ?? quantity
            value = String(shown.value)
            unitText = shown.unit.description
        case .category(let raw):
            value = String(raw)
        default:
            value = sample.kind.rawValue
        }
        let device = sample.device.map(csvDevice) ?? ""
        return [dates.format(sample.startDate), dates.format(sample.endDate), value, unitText,
                sample.sourceRevision.appID, sample.sourceRevision.version ?? "", device].map(csvField).joined(separator: ",")
    }

    /// The device column: the device's name ("Apple Watch"), else its manufacturer and model,
    /// each word once (a model of "Watch" adds nothing to "Apple Watch").
    static func csvDevice(_ device: Device) -> String {
        if let name = device.name, !name.isEmpty { return name }
        var words: [Substring] = []
        for part in [device.manufacturer, device.model].compactMap({ $0 }) {
            for word in part.split(separator: " ") where !words.contains(word) { words.append(word) }
        }
        return words.joined(separator: " ")
    }

    /// A CSV field, quoted when it holds a comma, a quote or a line break.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
