import Foundation
import SalusModel

/// Writes one FHIR R4 (4.0.1) `Bundle` of type `collection` whose entries are `Observation`
/// resources, one per sample, as JSON, in pieces: the caller's sink gets text about every 64 KiB
/// and memory holds one piece, whatever the number of samples.
///
/// **Rules.**
/// - Each sample is an Observation with status `final`, its UUID as `id` and as the entry's
///   `fullUrl` (`urn:uuid:…`), the codes of `FHIRCodes` (LOINC and the Salus type code), the
///   LOINC code's category (`vital-signs`, `activity`, `laboratory`, `exam`), `issued` (when it
///   was saved) and the device's name.
/// - Time: `effectiveDateTime` for an instant (start equal to end), `effectivePeriod` otherwise,
///   each with the offset of `timeZone` and the sample's fractions of a second.
/// - Quantities are `valueQuantity` in the LOINC code's unit, or the unit they were saved in,
///   with its UCUM code when it has one; category values are `valueCodeableConcept` (the case
///   name in the type's value system).
/// - A correlation is one Observation whose `component`s are its members: a blood pressure is
///   the panel 85354-9 with systolic 8480-6 and diastolic 8462-4 components. The members are
///   samples of their own types too, and are written as such when their types are exported.
/// - Other kinds have no Observation form here: `write(_:)` returns false.
package final class FHIRBundleWriter {
    private let sink: (String) throws -> Void
    private let timeZone: TimeZone
    private let cases: [String: [Int64: String]]
    private let dateTime: ISO8601DateFormatter
    private var buffer = ""
    private var entries = 0

    /// A writer that gives its text to `sink`; times in `timeZone`; category case names by type
    /// and raw value from `cases`.
    package init(timeZone: TimeZone, cases: [String: [Int64: String]], sink: @escaping (String) throws -> Void) {
        self.sink = sink
        self.timeZone = timeZone
        self.cases = cases
        dateTime = ISO8601DateFormatter()
        dateTime.timeZone = timeZone
        dateTime.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        buffer.reserveCapacity(1 << 16)
    }

    /// Starts the Bundle, stamped `timestamp`.
    package func begin(id: UUID = UUID(), timestamp: Date) throws {
        buffer += "{\"resourceType\":\"Bundle\",\"id\":\"\(id.uuidString.lowercased())\",\"type\":\"collection\","
        buffer += "\"timestamp\":\(Self.string(dateTime.string(from: timestamp))),\"entry\":["
    }

    /// Writes `sample` as an Observation entry; false (nothing written) for kinds that have none.
    @discardableResult
    package func write(_ sample: Sample) throws -> Bool {
        switch sample.value {
        case .quantity, .category, .correlation: break
        default: return false
        }
        let id = sample.uuid.uuidString.lowercased()
        let type = sample.type.rawValue
        let code = FHIRCodes.loinc[type]
        if entries > 0 { buffer += "," }
        entries += 1
        buffer += "{\"fullUrl\":\"urn:uuid:\(id)\",\"resource\":{\"resourceType\":\"Observation\",\"id\":\"\(id)\",\"status\":\"final\""
        if let code {
            buffer += ",\"category\":[{\"coding\":[{\"system\":\"\(FHIRCodes.categorySystem)\",\"code\":\"\(code.category)\"}]}]"
        }
        buffer += ",\"code\":" + concept(type)
        if sample.startDate == sample.endDate {
            buffer += ",\"effectiveDateTime\":" + Self.string(dateTime.string(from: sample.startDate))
        } else {
            buffer += ",\"effectivePeriod\":{\"start\":\(Self.string(dateTime.string(from: sample.startDate))),\"end\":\(Self.string(dateTime.string(from: sample.endDate)))}"
        }
        buffer += ",\"issued\":" + Self.string(dateTime.string(from: sample.creationDate))
        switch sample.value {
        case .quantity(let quantity):
            buffer += ",\"valueQuantity\":" + self.quantity(quantity, of: type)
        case .category(let raw):
            buffer += ",\"valueCodeableConcept\":" + categoryValue(raw, of: type)
        case .correlation(let correlation):
            let parts = correlation.objects.compactMap { member -> String? in
                switch member.value {
                case .quantity(let quantity):
                    "{\"code\":\(concept(member.type.rawValue)),\"valueQuantity\":\(self.quantity(quantity, of: member.type.rawValue))}"
                case .category(let raw):
                    "{\"code\":\(concept(member.type.rawValue)),\"valueCodeableConcept\":\(categoryValue(raw, of: member.type.rawValue))}"
                default:
                    nil
                }
            }
            if !parts.isEmpty { buffer += ",\"component\":[" + parts.joined(separator: ",") + "]" }
        default:
            break
        }
        if let device = sample.device, let name = device.name ?? device.model ?? device.manufacturer {
            buffer += ",\"device\":{\"display\":\(Self.string(name))}"
        }
        buffer += "}}"
        if buffer.utf8.count >= 1 << 16 { try flush() }
        return true
    }

    /// Ends the Bundle and gives the rest to the sink.
    package func finish() throws {
        buffer += "]}\n"
        try flush()
    }

    private func flush() throws {
        try sink(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    // MARK: Pieces

    /// The CodeableConcept of a type: its LOINC code if it has one, then its Salus code.
    private func concept(_ type: String) -> String {
        var codings: [String] = []
        var text = type
        if let code = FHIRCodes.loinc[type] {
            codings.append("{\"system\":\"\(FHIRCodes.loincSystem)\",\"code\":\"\(code.code)\",\"display\":\(Self.string(code.display))}")
            text = code.display
        }
        codings.append("{\"system\":\"\(FHIRCodes.typeSystem)\",\"code\":\(Self.string(type))}")
        return "{\"coding\":[" + codings.joined(separator: ",") + "],\"text\":\(Self.string(text))}"
    }

    private func quantity(_ quantity: Quantity, of type: String) -> String {
        var shown = quantity
        var ucum = FHIRCodes.ucum(quantity.unit)
        if let code = FHIRCodes.loinc[type], let unit = try? SalusUnit(parsing: code.unit), let converted = try? quantity.converted(to: unit) {
            shown = converted
            ucum = code.ucum
        }
        var text = "{\"value\":\(Self.number(shown.value)),\"unit\":\(Self.string(ucum ?? shown.unit.description))"
        if let ucum { text += ",\"system\":\"\(FHIRCodes.ucumSystem)\",\"code\":\(Self.string(ucum))" }
        return text + "}"
    }

    private func categoryValue(_ raw: Int, of type: String) -> String {
        let name = cases[type]?[Int64(raw)] ?? String(raw)
        return "{\"coding\":[{\"system\":\(Self.string(FHIRCodes.valueSystem + "/" + type)),\"code\":\(Self.string(name))}],\"text\":\(Self.string(name))}"
    }

    /// A JSON number: integers without a fraction, others in the shortest form that reads back
    /// to the same value.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A JSON string literal.
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += String(format: "\\u%04x", scalar.value)
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
