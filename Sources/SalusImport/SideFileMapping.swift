import Foundation
import SalusModel

/// An Apple Watch electrocardiogram as an export writes it, `electrocardiograms/ecg_….csv`: a
/// header of `label,value` lines (Name, Date of Birth, Recorded Date, Classification, Symptoms,
/// Software Version, Device, Sample Rate `512 hertz`, Lead, Unit `µV`), then one voltage per line.
///
/// Values may be quoted and hold commas (`"Watch6,7"`, `"Jan 15, 1990"`). Voltages follow the
/// device's locale: `-265,868` is `-265.868`. The labels are localized too, so the two figures
/// the sample cannot do without are found by their form when the English label is missing: the
/// recorded date is the header value that reads as an export date, the sample rate the one that
/// reads as a number of hertz.
package enum ElectrocardiogramCSV {
    /// The electrocardiogram of `data`, read from the file at `path` (named in refusals).
    ///
    /// The sample starts at the recorded date and lasts one voltage interval per voltage; the
    /// classification and symptoms status come from their English names (other names are
    /// `unrecognized` and `notSet`); the device string is the sample's device name. Its sync
    /// identifier names the recording by its date and voltage count.
    package static func sample(
        from data: Data, path: String, maximumVoltages: Int = ImportLimits.standard.maximumElectrocardiogramVoltages
    ) throws(ImportRefusal) -> Sample {
        // One line at a time from the bytes (a line break is LF, CR or CRLF): the file is never
        // copied whole into a String, and reading stops at the first voltage past the limit.
        var header: [(label: String, value: String, line: Int)] = []
        var voltages: [Double] = []
        var lineNumber = 0
        var lineStart = data.startIndex
        var more = true
        while more {
            let lineEnd = data[lineStart...].firstIndex { $0 == 0x0A || $0 == 0x0D } ?? data.endIndex
            let bytes = data[lineStart..<lineEnd]
            if lineEnd == data.endIndex {
                more = false
            } else {
                lineStart = data[lineEnd] == 0x0D && lineEnd + 1 < data.endIndex && data[lineEnd + 1] == 0x0A ? lineEnd + 2 : lineEnd + 1
            }
            lineNumber += 1
            // UTF-8, else Latin-1 (older exports).
            let raw = String(validating: bytes, as: UTF8.self) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if let voltage = Self.voltage(line), !header.isEmpty {
                guard voltages.count < maximumVoltages else {
                    throw ImportRefusal(
                        line: lineNumber, field: path, value: "more than \(maximumVoltages) voltages",
                        expected: "at most \(maximumVoltages) voltages in one recording")
                }
                voltages.append(voltage)
                continue
            }
            guard voltages.isEmpty else {
                throw ImportRefusal(line: lineNumber, field: path, value: String(line.prefix(40)), expected: "a voltage")
            }
            let fields = Self.fields(line)
            header.append((fields.first ?? "", fields.dropFirst().joined(separator: ","), lineNumber))
        }
        func value(_ label: String) -> String? {
            header.first { $0.label.caseInsensitiveCompare(label) == .orderedSame }?.value
        }
        guard let recorded = value("Recorded Date").flatMap(RecordMapper.date) ?? header.lazy.compactMap({ RecordMapper.date($0.value) }).first
        else {
            throw ImportRefusal(
                line: 1, field: "\(path): Recorded Date", value: value("Recorded Date") ?? "",
                expected: "a date such as 2026-08-26 18:15:35 +0100")
        }
        guard let rate = value("Sample Rate").flatMap(Self.hertz) ?? header.lazy.compactMap({ Self.hertz($0.value) }).first else {
            throw ImportRefusal(
                line: 1, field: "\(path): Sample Rate", value: value("Sample Rate") ?? "", expected: "a rate such as 512 hertz")
        }
        guard !voltages.isEmpty else {
            throw ImportRefusal(line: lineNumber, field: path, value: "no voltages", expected: "one voltage per line after the header")
        }
        let unit = value("Unit") ?? "µV"
        let scale: Double
        switch unit {
        case "µV", "μV", "uV", "": scale = 1
        case "mV": scale = 1000
        default:
            throw ImportRefusal(line: header.first { $0.label == "Unit" }?.line ?? 1, field: "\(path): Unit", value: unit, expected: "µV or mV")
        }
        let classificationName = value("Classification")?.lowercased() ?? ""
        let classification: Electrocardiogram.Classification =
            classificationName.isEmpty
            ? .notSet
            : Self.classificationNames.first { $0.names.contains(classificationName) }?.classification ?? .unrecognized
        let symptoms: Electrocardiogram.SymptomsStatus =
            switch value("Symptoms")?.lowercased() {
            case nil, "": .notSet
            case "none", "no symptoms": .none
            default: .present
            }
        let interval = 1 / rate
        let electrocardiogram = Electrocardiogram(
            classification: classification, symptomsStatus: symptoms, samplingFrequency: rate,
            voltages: voltages.enumerated().map { ElectrocardiogramVoltage(timeSinceSampleStart: Double($0.offset) * interval, microvolts: $0.element * scale) })
        var metadata: [String: MetadataValue] = [:]
        metadata[MetadataKey.syncIdentifier] = .string("applehealth:ecg|\(recorded.timeIntervalSince1970)|\(voltages.count)")
        metadata[MetadataKey.syncVersion] = .number(1)
        let device = value("Device").flatMap { $0.isEmpty ? nil : Device(name: $0) }
        return Sample(
            type: "HKDataTypeIdentifierElectrocardiogram", startDate: recorded,
            endDate: recorded.addingTimeInterval(Double(voltages.count) * interval), value: .electrocardiogram(electrocardiogram),
            sourceRevision: SourceRevision(appID: "", name: "ECG", version: Self.value(header, "Software Version")),
            device: device, metadata: metadata, creationDate: recorded)
    }

    /// The names each classification goes by in the files, in lower case; the first is the one
    /// written.
    static let classificationNames: [(classification: Electrocardiogram.Classification, names: [String])] = [
        (.sinusRhythm, ["sinus rhythm"]),
        (.atrialFibrillation, ["atrial fibrillation"]),
        (.inconclusiveLowHeartRate, ["heart rate under 50", "low heart rate", "inconclusive low heart rate"]),
        (.inconclusiveHighHeartRate, ["heart rate over 120", "heart rate over 150", "high heart rate", "inconclusive high heart rate"]),
        (.inconclusivePoorReading, ["poor recording", "inconclusive poor reading"]),
        (.inconclusiveOther, ["inconclusive"]),
    ]

    /// `sample` in the layout `sample(from:path:)` reads: the header (recorded date, the
    /// classification by its first name, symptoms, software version, device, sample rate, lead,
    /// unit), then one voltage per line in µV.
    package static func data(of sample: Sample, voltages: [ElectrocardiogramVoltage], recordedDate: String) -> Data {
        guard case .electrocardiogram(let ecg) = sample.value else { return Data() }
        func quoted(_ text: String) -> String { text.contains(",") ? "\"\(text)\"" : text }
        let classification = classificationNames.first { $0.classification == ecg.classification }?.names[0]
            .split(separator: " ").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ") ?? ""
        let symptoms = switch ecg.symptomsStatus {
        case .notSet: ""
        case .none: "None"
        case .present: "Present"
        }
        let rate = ecg.samplingFrequency ?? (voltages.count > 1 ? 1 / voltages[1].timeSinceSampleStart : 512)
        var lines = [
            "Name,", "Recorded Date,\(recordedDate)", "Classification,\(classification)", "Symptoms,\(symptoms)",
            "Software Version,\(quoted(sample.sourceRevision.version ?? ""))", "Device,\(quoted(sample.device?.name ?? ""))",
            "Sample Rate,\(AppleHealthWriter.number(rate)) hertz", "", "Lead,Lead I", "Unit,µV", "",
        ]
        lines.reserveCapacity(lines.count + voltages.count)
        for voltage in voltages { lines.append(AppleHealthWriter.number(voltage.microvolts)) }
        return Data(lines.joined(separator: "\n").utf8)
    }

    static func value(_ header: [(label: String, value: String, line: Int)], _ label: String) -> String? {
        header.first { $0.label == label }.flatMap { $0.value.isEmpty ? nil : $0.value }
    }

    /// A voltage line: one number, its decimal separator a point or a comma.
    static func voltage(_ line: String) -> Double? {
        guard line.first.map({ $0 == "-" || $0 == "+" || $0.isNumber }) == true else { return nil }
        let commas = line.filter { $0 == "," }.count
        let normalized = commas == 1 && !line.contains(".") ? line.replacingOccurrences(of: ",", with: ".") : line
        return Double(normalized).flatMap { $0.isFinite ? $0 : nil }
    }

    /// `512 hertz`, `512 Hz`, `511.5 Hertz` in hertz.
    static func hertz(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 2, ["hertz", "hz"].contains(parts[1].lowercased()),
            let number = Double(parts[0].replacingOccurrences(of: ",", with: ".")), number > 0, number.isFinite
        else { return nil }
        return number
    }

    /// The comma-separated fields of a header line, quotes removed (`"Watch6,7"` is one field).
    static func fields(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var iterator = line.makeIterator()
        while let character = iterator.next() {
            switch character {
            case "\"" where quoted:
                quoted = false
            case "\"" where current.isEmpty:
                quoted = true
            case "," where !quoted:
                fields.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            default:
                current.append(character)
            }
        }
        fields.append(current.trimmingCharacters(in: .whitespaces))
        return fields
    }
}

extension RecordMapper {
    /// The sample of a `ClinicalRecord` element with the FHIR resource its `resourceFilePath`
    /// names (`/clinical-records/Immunization-1.json`): the element's `type` is the clinical
    /// type, `receivedDate` the sample's date, `sourceName`/`sourceURL` where the record came
    /// from, `fhirVersion` the release, `displayName` kept when present. The one sample check
    /// then requires the resource's type to fit the clinical type. Its sync identifier is the
    /// element's `identifier` (the provider's), else the file path.
    package func clinicalRecord(_ element: ExportElement, fhir: Data) throws(ImportRefusal) -> Sample {
        let name = element["type"] ?? ""
        guard let rules = catalog.rules(for: name), rules.kind == .clinicalRecord else {
            throw ImportRefusal(
                line: element.line, field: "type", value: name,
                expected: "a clinical type a loaded plugin registers, such as HKClinicalTypeIdentifierLabResultRecord")
        }
        let received = try date(element, "receivedDate")
        let sourceName = element["sourceName"] ?? ""
        let record = ClinicalRecord(
            fhirData: fhir, fhirVersion: element["fhirVersion"].flatMap { $0.isEmpty ? nil : $0 } ?? ClinicalRecord.defaultFHIRVersion,
            displayName: element["displayName"] ?? "", sourceName: sourceName,
            sourceURL: element["sourceURL"].flatMap { $0.isEmpty ? nil : $0 }, receivedDate: received)
        var metadata: [String: MetadataValue] = [:]
        let identity = element["identifier"].flatMap { $0.isEmpty ? nil : $0 } ?? element["resourceFilePath"] ?? ""
        metadata[MetadataKey.syncIdentifier] = .string("applehealth:clinical|\(sourceName)|\(identity)")
        metadata[MetadataKey.syncVersion] = .number(1)
        return Sample(
            type: TypeIdentifier(rules.identifier), startDate: received, endDate: received, value: .clinicalRecord(record),
            sourceRevision: SourceRevision(appID: "", name: sourceName.isEmpty ? "Health Records" : sourceName, version: nil),
            metadata: metadata, creationDate: received)
    }
}
