/// A characteristic: one value per person (biological sex, blood type, wheelchair use, date of
/// birth), set by the owner and read-only to apps.
public struct Characteristic: Hashable, Sendable {
    /// The value of a characteristic.
    public enum Value: Hashable, Sendable {
        /// A raw value from the characteristic's enumeration (HKWheelchairUse yes is 2).
        case enumeration(Int64)
        /// A calendar day (date of birth), as HealthKit's date components.
        case date(CalendarDate)
    }

    /// The characteristic type ("HKCharacteristicTypeIdentifierWheelchairUse").
    public var type: TypeIdentifier
    /// Its value; nil when not set (or not readable by the caller).
    public var value: Value?

    /// Creates a characteristic value.
    public init(type: TypeIdentifier, value: Value?) {
        self.type = type
        self.value = value
    }
}

extension TypeIdentifier {
    /// HKCharacteristicTypeIdentifierDateOfBirth.
    public static let dateOfBirth = TypeIdentifier("HKCharacteristicTypeIdentifierDateOfBirth")
    /// HKCharacteristicTypeIdentifierBiologicalSex.
    public static let biologicalSex = TypeIdentifier("HKCharacteristicTypeIdentifierBiologicalSex")
    /// HKCharacteristicTypeIdentifierBloodType.
    public static let bloodType = TypeIdentifier("HKCharacteristicTypeIdentifierBloodType")
    /// HKCharacteristicTypeIdentifierFitzpatrickSkinType.
    public static let fitzpatrickSkinType = TypeIdentifier("HKCharacteristicTypeIdentifierFitzpatrickSkinType")
    /// HKCharacteristicTypeIdentifierWheelchairUse.
    public static let wheelchairUse = TypeIdentifier("HKCharacteristicTypeIdentifierWheelchairUse")
    /// HKCharacteristicTypeIdentifierActivityMoveMode.
    public static let activityMoveMode = TypeIdentifier("HKCharacteristicTypeIdentifierActivityMoveMode")
    /// HKActivitySummaryTypeIdentifier: the type apps request read access to for summaries.
    public static let activitySummary = TypeIdentifier("HKActivitySummaryTypeIdentifier")
}
