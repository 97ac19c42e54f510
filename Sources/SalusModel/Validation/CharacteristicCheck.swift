import Foundation

extension TypeCatalog {
    /// The one check of a characteristic value the owner sets: the type is a registered
    /// characteristic, an enumerated value is one of its cases, a date is a real day between
    /// 1850-01-01 and `today`. `field` is the path of the characteristic in the request
    /// (`set[2]`); errors name `field.type`, `field.enumValue` or `field.dateValue`.
    package func checkCharacteristic(_ characteristic: Characteristic, field: String, today: CalendarDate) -> ValidationError? {
        let type = characteristic.type
        guard let rules = rules(for: type) else {
            return ValidationError(
                reason: .unknownType, field: "\(field).type", value: type.rawValue,
                expected: "a registered characteristic type (salusctl types --kind characteristic)")
        }
        guard rules.kind == .characteristic else {
            return ValidationError(
                reason: .wrongKind, field: "\(field).type", value: type.rawValue,
                expected: "a characteristic type; \(type) is a \(rules.kind.rawValue) type")
        }
        switch characteristic.value {
        case nil:
            return ValidationError(
                reason: .missingValue, field: "\(field).value", value: "none",
                expected: rules.isDateCharacteristic ? "a date (YYYY-MM-DD)" : "one of \(Self.caseList(rules))")
        case .enumeration(let raw):
            if rules.isDateCharacteristic {
                return ValidationError(
                    reason: .wrongKind, field: "\(field).enumValue", value: "\(raw)",
                    expected: "a date (YYYY-MM-DD): \(type) is a date")
            }
            guard rules.case(rawValue: raw) != nil else {
                return ValidationError(
                    reason: .invalidCategoryValue, field: "\(field).enumValue", value: "\(raw)",
                    expected: "one of \(Self.caseList(rules))")
            }
        case .date(let date):
            guard rules.isDateCharacteristic else {
                return ValidationError(
                    reason: .wrongKind, field: "\(field).dateValue", value: "\(date)",
                    expected: "one of \(Self.caseList(rules)): \(type) is an enumeration")
            }
            let earliest = CalendarDate(year: 1850, month: 1, day: 1)
            guard date.isValid, date >= earliest, date <= today else {
                return ValidationError(
                    reason: .invalidValue, field: "\(field).dateValue", value: "\(date)",
                    expected: "a day that exists, from \(earliest) to today (\(today))")
            }
        }
        return nil
    }

    static func caseList(_ rules: TypeRules) -> String {
        rules.cases.map { "\($0.name) (\($0.rawValue))" }.joined(separator: ", ")
    }
}
