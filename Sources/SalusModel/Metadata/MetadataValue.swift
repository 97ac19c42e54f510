import Foundation

/// The type of a metadata value, as type registries declare it for well-known keys.
package enum MetadataValueType: String, CaseIterable, Hashable, Sendable, Codable {
    /// A string (`HKTimeZone`, `HKMetadataKeySyncIdentifier`).
    case string
    /// A number, including HealthKit's enumerations stored as numbers (`HKMetadataKeySyncVersion`).
    case number
    /// A boolean (HealthKit stores these as numbers 0/1; exports print `0`/`1`).
    case bool
    /// A point in time.
    case date
    /// A quantity with a unit (`HKLapLength`, `HKWeatherTemperature`).
    case quantity
}

/// One metadata value: string, number, boolean, date or quantity, as HealthKit allows.
public enum MetadataValue: Hashable, Sendable, CustomStringConvertible {
    /// A string.
    case string(String)
    /// A number; must be finite to pass validation.
    case number(Double)
    /// A boolean.
    case bool(Bool)
    /// A point in time.
    case date(Date)
    /// A quantity with a unit; its value must be finite to pass validation.
    case quantity(Quantity)

    /// The type of this value.
    package var type: MetadataValueType {
        switch self {
        case .string: .string
        case .number: .number
        case .bool: .bool
        case .date: .date
        case .quantity: .quantity
        }
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The number, if this is a number.
    public var numberValue: Double? {
        if case .number(let value) = self { value } else { nil }
    }

    /// The boolean, if this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { value } else { nil }
    }

    /// The date, if this is a date.
    public var dateValue: Date? {
        if case .date(let value) = self { value } else { nil }
    }

    /// The quantity, if this is a quantity.
    public var quantityValue: Quantity? {
        if case .quantity(let value) = self { value } else { nil }
    }

    /// A readable rendering: strings quoted, dates in ISO 8601 (UTC), quantities as `5348 cm`.
    public var description: String {
        switch self {
        case .string(let value): "\"\(value)\""
        case .number(let value): UnitFactor.format(value)
        case .bool(let value): value ? "true" : "false"
        case .date(let value): value.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        case .quantity(let value): value.description
        }
    }
}
