import Foundation

/// A characteristic: one value per person (biological sex, blood type, wheelchair use, date of
/// birth), set by the person and read-only to apps.
public struct Characteristic: Hashable, Sendable {
    /// The value of a characteristic.
    public enum Value: Hashable, Sendable {
        /// A raw value from the characteristic's enumeration (HKWheelchairUse yes is 2).
        case enumeration(Int)
        /// A date (date of birth).
        case date(Date)
    }

    /// The characteristic type ("HKCharacteristicTypeIdentifierWheelchairUse").
    public var type: TypeIdentifier
    /// Its value.
    public var value: Value

    /// Creates a characteristic value.
    public init(type: TypeIdentifier, value: Value) {
        self.type = type
        self.value = value
    }
}
