import Foundation

/// The model's rules for clinical records; `Sample.validationErrors(at:)` applies them.
extension Validation {
    /// A clinical record: its FHIR data a JSON object whose `resourceType` is one the sample's
    /// type holds (``ClinicalRecord/resourceTypes``), a FHIR version, a source name and a
    /// finite received date.
    static func clinicalRecord(_ record: ClinicalRecord, type: TypeIdentifier, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        let allowed = ClinicalRecord.resourceTypes[type]
        let expected = allowed.map { "a FHIR resource whose resourceType is \($0.joined(separator: " or "))" }
            ?? "a FHIR resource: a JSON object with a resourceType"
        let field = "\(path).fhirData"
        if record.fhirData.isEmpty {
            errors.append(ValidationError(reason: .missingValue, field: field, value: "no bytes", expected: expected))
        } else if let parsed = try? JSONSerialization.jsonObject(with: record.fhirData, options: [.fragmentsAllowed]) {
            if !(parsed is [String: Any]) {
                errors.append(
                    ValidationError(reason: .invalidValue, field: field, value: "JSON that is not an object", expected: expected))
            } else if record.resourceType.isEmpty {
                errors.append(
                    ValidationError(
                        reason: .missingValue, field: "\(field).resourceType", value: "missing or not a string", expected: expected))
            } else if let allowed, !allowed.contains(record.resourceType) {
                errors.append(
                    ValidationError(
                        reason: .invalidValue, field: "\(field).resourceType", value: record.resourceType,
                        expected: "\(allowed.joined(separator: " or ")), what \(type.rawValue) holds"))
            }
        } else {
            errors.append(
                ValidationError(reason: .invalidValue, field: field, value: "\(record.fhirData.count) bytes that are not JSON", expected: expected))
        }
        if record.fhirVersion.isEmpty {
            errors.append(
                ValidationError(reason: .missingValue, field: "\(path).fhirVersion", value: "\"\"", expected: "a FHIR release such as \"4.0.1\""))
        }
        if record.sourceName.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            errors.append(
                ValidationError(
                    reason: .missingValue, field: "\(path).sourceName", value: "\"\"",
                    expected: "the name of the organization or system that sent the record"))
        }
        if !record.receivedDate.timeIntervalSinceReferenceDate.isFinite {
            errors.append(
                ValidationError(reason: .nonFiniteValue, field: "\(path).receivedDate", value: render(record.receivedDate), expected: "a finite date"))
        }
        return errors
    }
}
