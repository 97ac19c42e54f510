import Foundation
import SalusModel

extension RecordMapper {
    /// The sample of an `Audiogram` element: one sensitivity point per `SensitivityPoint` child,
    /// with one test per ear it gives (`leftEarValue`, `leftEarMasked`,
    /// `leftEarClampingRangeLowerBound`, … and the same for the right ear).
    ///
    /// Frequencies are converted to hertz and sensitivities to dBHL; a unit that is not a
    /// frequency or `dBHL` is refused naming the attribute.
    package func audiogram(_ element: ExportElement) throws(ImportRefusal) -> Sample {
        let rules = try rules(of: element, kind: .audiogram, fallback: "HKDataTypeIdentifierAudiogram")
        var points: [AudiogramSensitivityPoint] = []
        for (index, child) in element.children(named: "SensitivityPoint").enumerated() {
            let field = "SensitivityPoint[\(index)]"
            let hertz = try Self.number(child, "frequencyValue", field: field)
            let unit = child["frequencyUnit"] ?? "Hz"
            let frequency: Double
            switch unit.lowercased() {
            case "hz": frequency = hertz
            case "khz": frequency = hertz * 1000
            default:
                throw ImportRefusal(line: child.line, field: "\(field).frequencyUnit", value: unit, expected: "Hz or kHz")
            }
            var tests: [AudiogramSensitivityTest] = []
            for (prefix, side) in [("leftEar", AudiogramSensitivityTest.Side.left), ("rightEar", .right)] {
                guard child["\(prefix)Value"] != nil else { continue }
                let sensitivity = try Self.number(child, "\(prefix)Value", field: field)
                let sensitivityUnit = child["\(prefix)Unit"] ?? "dBHL"
                guard sensitivityUnit == "dBHL" else {
                    throw ImportRefusal(line: child.line, field: "\(field).\(prefix)Unit", value: sensitivityUnit, expected: "dBHL")
                }
                let masked = try Self.flag(child, "\(prefix)Masked", field: field)
                let lower = try child["\(prefix)ClampingRangeLowerBound"].map { _ throws(ImportRefusal) in
                    try Self.number(child, "\(prefix)ClampingRangeLowerBound", field: field)
                }
                let upper = try child["\(prefix)ClampingRangeUpperBound"].map { _ throws(ImportRefusal) in
                    try Self.number(child, "\(prefix)ClampingRangeUpperBound", field: field)
                }
                let clamping = lower == nil && upper == nil ? nil : AudiogramClampingRange(lowerBound: lower, upperBound: upper)
                tests.append(AudiogramSensitivityTest(sensitivity: sensitivity, masked: masked, side: side, clampingRange: clamping))
            }
            points.append(AudiogramSensitivityPoint(frequency: frequency, tests: tests))
        }
        let start = try date(element, "startDate")
        let end = try date(element, "endDate")
        let metadata = try metadata(of: element, rules: rules)
        var sample = Sample(
            type: TypeIdentifier(rules.identifier), startDate: start, endDate: end,
            value: .audiogram(Audiogram(sensitivityPoints: points)),
            sourceRevision: SourceRevision(appID: "", name: element["sourceName"] ?? element["source"] ?? "", version: element["sourceVersion"]),
            device: element["device"].flatMap(Self.device), metadata: metadata,
            creationDate: element["creationDate"].flatMap(Self.date) ?? start)
        let content = element.children(named: "SensitivityPoint").map { child in
            child.attributes.map { "\($0.name)=\($0.value)" }.sorted().joined(separator: ",")
        }
        sample.metadata = Self.withContentIdentifier(
            metadata, parts: [element["startDate"] ?? "", element["endDate"] ?? ""] + content)
        return sample
    }

    /// The sample of a `VisionPrescription` element: glasses or contacts issued at `dateIssued`,
    /// with `RightEye`/`LeftEye` lenses whose attributes (`sphere`, `cylinder`, `axis`, `add`,
    /// `vertex`, `prismAmount`, `prismAngle`, `farPD`, `nearPD`, `baseCurve`, `diameter`) are
    /// converted from their `…Unit` partners to the model's fixed units (diopters, degrees,
    /// millimetres). The export carries no source: the sample's is the export's owner
    /// ("Apple Health"). Attachments are not in the export; the importer counts them.
    package func visionPrescription(_ element: ExportElement) throws(ImportRefusal) -> Sample {
        let rules = try rules(of: element, kind: .visionPrescription, fallback: "HKVisionPrescriptionTypeIdentifier")
        let kind: VisionPrescription.PrescriptionType
        switch (element["type"] ?? "").lowercased() {
        case let text where text.hasSuffix("contacts") || text == "2": kind = .contacts
        case let text where text.hasSuffix("glasses") || text == "1" || text == rules.identifier.lowercased(): kind = .glasses
        case let text:
            throw ImportRefusal(
                line: element.line, field: "type", value: text,
                expected: "glasses or contacts (HKVisionPrescriptionTypeGlasses, …Contacts, 1 or 2)")
        }
        let issued = try date(element, "dateIssued")
        let expiration = try element["expirationDate"].map { _ throws(ImportRefusal) in try date(element, "expirationDate") }
        var eyes: [String: LensSpecification] = [:]
        for name in ["RightEye", "LeftEye"] {
            guard let eye = element.children(named: name).first else { continue }
            func value(_ attribute: String, _ convert: (Double, String) -> Double?, _ units: String) throws(ImportRefusal) -> Double? {
                guard eye[attribute] != nil else { return nil }
                let number = try Self.number(eye, attribute, field: name)
                let unit = eye["\(attribute)Unit"] ?? ""
                guard let converted = convert(number, unit) else {
                    throw ImportRefusal(line: eye.line, field: "\(name).\(attribute)Unit", value: unit, expected: units)
                }
                return converted
            }
            let diopters: (Double, String) -> Double? = { value, unit in
                ["", "d", "dpt", "diopter", "diopters"].contains(unit.lowercased()) ? value : nil
            }
            let degrees: (Double, String) -> Double? = { value, unit in
                switch unit.lowercased() {
                case "", "deg", "°", "degree", "degrees": value
                case "rad": value * 180 / .pi
                default: nil
                }
            }
            let millimetres: (Double, String) -> Double? = { value, unit in
                switch unit.lowercased() {
                case "", "mm": value
                case "cm": value * 10
                case "m": value * 1000
                default: nil
                }
            }
            let prism: VisionPrism?
            if let amount = try value("prismAmount", diopters, "prism diopters (D)") {
                let angle = try value("prismAngle", degrees, "deg or rad") ?? 0
                prism = VisionPrism(
                    amount: amount, angle: angle,
                    eye: name == "RightEye" ? VisionPrescription.Eye.right.rawValue : VisionPrescription.Eye.left.rawValue)
            } else {
                prism = nil
            }
            eyes[name] = LensSpecification(
                sphere: try value("sphere", diopters, "D"), cylinder: try value("cylinder", diopters, "D"),
                axis: try value("axis", degrees, "deg or rad"), addPower: try value("add", diopters, "D"),
                vertexDistance: try value("vertex", millimetres, "mm, cm or m"), prism: prism,
                farPupillaryDistance: try value("farPD", millimetres, "mm, cm or m"),
                nearPupillaryDistance: try value("nearPD", millimetres, "mm, cm or m"),
                baseCurve: try value("baseCurve", millimetres, "mm, cm or m"),
                diameter: try value("diameter", millimetres, "mm, cm or m"))
        }
        let prescription = VisionPrescription(
            prescriptionType: kind, dateIssued: issued, expirationDate: expiration, rightEye: eyes["RightEye"],
            leftEye: eyes["LeftEye"], brand: element["brand"])
        let metadata = try metadata(of: element, rules: rules)
        var sample = Sample(
            type: TypeIdentifier(rules.identifier), startDate: issued, endDate: issued, value: .visionPrescription(prescription),
            sourceRevision: SourceRevision(appID: "", name: element["sourceName"] ?? "Apple Health", version: element["sourceVersion"]),
            device: element["device"].flatMap(Self.device), metadata: metadata, creationDate: issued)
        let content = ["RightEye", "LeftEye"].flatMap { name in
            element.children(named: name).map { eye in
                name + ":" + eye.attributes.map { "\($0.name)=\($0.value)" }.sorted().joined(separator: ",")
            }
        }
        sample.metadata = Self.withContentIdentifier(
            metadata,
            parts: [element["type"] ?? "", element["dateIssued"] ?? "", element["expirationDate"] ?? "", element["brand"] ?? ""]
                + content)
        return sample
    }

    // MARK: Shared pieces

    /// The rules of the element's type, which must be of `kind`; an element whose `type` names
    /// no registered type falls back to `fallback` when that is registered.
    func rules(of element: ExportElement, kind: ObjectKind, fallback: String) throws(ImportRefusal) -> TypeRules {
        let name = element["type"] ?? ""
        if let rules = catalog.rules(for: name), rules.kind == kind { return rules }
        if let rules = catalog.rules(for: fallback), rules.kind == kind { return rules }
        throw ImportRefusal(
            line: element.line, field: "type", value: name, expected: "\(fallback), registered by a loaded plugin (salusctl types)")
    }

    /// The typed values of the element's `MetadataEntry` children (a key written twice keeps its
    /// one value), for every element kind the mapper reads.
    func metadata(of element: ExportElement, rules: TypeRules) throws(ImportRefusal) -> [String: MetadataValue] {
        var metadata: [String: MetadataValue] = [:]
        for entry in element.children(named: "MetadataEntry") {
            guard let key = entry["key"], !key.isEmpty else { continue }
            metadata[key] = try metadataValue(entry["value"] ?? "", key: key, rules: rules, line: entry.line)
        }
        return metadata
    }

    /// `metadata` with a sync identifier naming the element by `parts` of its content (unless
    /// it carries its own), so a re-import saves it once. A content past the sync identifier's
    /// limit (an audiogram of many points, a long brand) is named by its digest,
    /// `applehealth:sha256:…` (`ImportIdentity.bounded`).
    static func withContentIdentifier(_ metadata: [String: MetadataValue], parts: [String]) -> [String: MetadataValue] {
        guard metadata[MetadataKey.syncIdentifier] == nil, metadata[MetadataKey.syncVersion] == nil else { return metadata }
        var result = metadata
        result[MetadataKey.syncIdentifier] = .string(ImportIdentity.bounded("applehealth:" + parts.joined(separator: "|"), family: "applehealth:"))
        result[MetadataKey.syncVersion] = .number(1)
        return result
    }

    /// The attribute `name` of `element` as a finite number.
    static func number(_ element: ExportElement, _ name: String, field: String) throws(ImportRefusal) -> Double {
        let text = element[name] ?? ""
        guard let number = Double(text), number.isFinite else {
            throw ImportRefusal(line: element.line, field: "\(field).\(name)", value: text, expected: "a number")
        }
        return number
    }

    /// The attribute `name` of `element` as a boolean (`true`/`false`, `1`/`0`); false when absent.
    static func flag(_ element: ExportElement, _ name: String, field: String) throws(ImportRefusal) -> Bool {
        guard let text = element[name] else { return false }
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw ImportRefusal(line: element.line, field: "\(field).\(name)", value: text, expected: "true or false")
        }
    }
}
