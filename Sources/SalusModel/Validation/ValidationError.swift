/// A value that breaks a rule of the model, naming the field path, the value and what was
/// expected.
///
/// The field path is written as in code (`samples[3].endDate`,
/// `sample.metadata["HKMetadataKeySyncVersion"]`). Programs branch on `reason`, whose codes are
/// stable; new codes may be added.
public struct ValidationError: Error, Equatable, CustomStringConvertible {
    /// Why a value was refused, as a stable string code.
    public struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The stable code string ("invalidDateRange").
        public let rawValue: String

        /// Creates a reason from its code string.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code string.
        public var description: String { rawValue }

        /// An end before its start (sample, event, activity, prescription expiry).
        public static let invalidDateRange = Reason(rawValue: "invalidDateRange")
        /// A NaN or infinite number or date.
        public static let nonFiniteValue = Reason(rawValue: "nonFiniteValue")
        /// A metadata key that is the empty string.
        public static let emptyMetadataKey = Reason(rawValue: "emptyMetadataKey")
        /// A well-known metadata key holding a value of the wrong type.
        public static let invalidMetadataValue = Reason(rawValue: "invalidMetadataValue")
        /// A sync identifier without a sync version.
        public static let missingSyncVersion = Reason(rawValue: "missingSyncVersion")
        /// A sync version without a sync identifier.
        public static let missingSyncIdentifier = Reason(rawValue: "missingSyncIdentifier")
        /// Workout activities whose time ranges overlap.
        public static let overlappingActivities = Reason(rawValue: "overlappingActivities")
        /// An empty type identifier.
        public static let emptyTypeIdentifier = Reason(rawValue: "emptyTypeIdentifier")
    }

    /// Why the value was refused.
    public var reason: Reason
    /// The path of the offending field (`samples[3].endDate`).
    public var field: String
    /// The offending value, rendered for people.
    public var value: String
    /// What was expected instead.
    public var expected: String

    /// Creates a validation error.
    public init(reason: Reason, field: String, value: String, expected: String) {
        self.reason = reason
        self.field = field
        self.value = value
        self.expected = expected
    }

    /// "`field`: got `value`; expected `expected` (`reason`)".
    public var description: String {
        "\(field): got \(value); expected \(expected) (\(reason))"
    }
}
