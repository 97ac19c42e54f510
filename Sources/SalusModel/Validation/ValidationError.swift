/// A value that breaks a rule of the model, naming the field path, the value and what was
/// expected.
///
/// The field path has one syntax everywhere (docs/protocol.md, section 11): field names in
/// lowerCamelCase joined by dots, list elements by index in brackets, map entries (metadata,
/// workout statistics) by their key as one more dotted name: `samples[3].endDate`,
/// `samples[0].metadata.HKMetadataKeySyncVersion`, `uuids[2]`. Programs branch on `reason`,
/// whose codes are stable; new codes may be added.
package struct ValidationError: Error, Equatable, CustomStringConvertible {
    /// Why a value was refused, as a stable string code.
    package struct Reason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The stable code string ("invalidDateRange").
        package let rawValue: String

        /// Creates a reason from its code string.
        package init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code string.
        package var description: String { rawValue }

        /// An end before its start (sample, event, activity, prescription expiry).
        package static let invalidDateRange = Reason(rawValue: "invalidDateRange")
        /// A NaN or infinite number or date.
        package static let nonFiniteValue = Reason(rawValue: "nonFiniteValue")
        /// A metadata key that is the empty string.
        package static let emptyMetadataKey = Reason(rawValue: "emptyMetadataKey")
        /// A well-known metadata key holding a value of the wrong type.
        package static let invalidMetadataValue = Reason(rawValue: "invalidMetadataValue")
        /// A sync identifier without a sync version.
        package static let missingSyncVersion = Reason(rawValue: "missingSyncVersion")
        /// A sync version without a sync identifier.
        package static let missingSyncIdentifier = Reason(rawValue: "missingSyncIdentifier")
        /// Workout activities whose time ranges overlap.
        package static let overlappingActivities = Reason(rawValue: "overlappingActivities")
        /// A workout's event or activity that starts before the workout or ends after it.
        package static let outsideWorkout = Reason(rawValue: "outsideWorkout")
        /// An empty type identifier.
        package static let emptyTypeIdentifier = Reason(rawValue: "emptyTypeIdentifier")
        /// A field holds a value of the right type that is not allowed.
        package static let invalidValue = Reason(rawValue: "invalidValue")
        /// A required field is missing.
        package static let missingValue = Reason(rawValue: "missingValue")
        /// A unit string does not parse, or has the wrong dimension.
        package static let invalidUnit = Reason(rawValue: "invalidUnit")
        /// A type identifier no loaded plugin declares.
        package static let unknownType = Reason(rawValue: "unknownType")
        /// A value of another kind than the type's (a category value for a quantity type, any
        /// sample of a characteristic).
        package static let wrongKind = Reason(rawValue: "wrongKind")
        /// A type apps may read but not write.
        package static let readOnlyType = Reason(rawValue: "readOnlyType")
        /// A category raw value outside the type's enumeration.
        package static let invalidCategoryValue = Reason(rawValue: "invalidCategoryValue")
        /// A value outside its possible range: a quantity outside the type's bounds, a valence
        /// outside -1...1.
        package static let valueOutOfRange = Reason(rawValue: "valueOutOfRange")
        /// A metadata key the type requires is missing.
        package static let missingMetadata = Reason(rawValue: "missingMetadata")
        /// The plugin that owns the type refused the sample.
        package static let refusedByPlugin = Reason(rawValue: "refusedByPlugin")
        /// A correlation whose members are not what its type holds (a blood pressure correlation
        /// without a diastolic sample, a food correlation holding steps).
        package static let invalidCorrelationMember = Reason(rawValue: "invalidCorrelationMember")
    }

    /// Why the value was refused.
    package var reason: Reason
    /// The path of the offending field (`samples[3].endDate`).
    package var field: String
    /// The offending value, rendered for people.
    package var value: String
    /// What was expected instead.
    package var expected: String
    /// A sentence for people given by whoever refused (a plugin's validator); nil when the
    /// description is composed from the parts.
    package var message: String?

    /// Creates a validation error.
    package init(reason: Reason, field: String, value: String, expected: String, message: String? = nil) {
        self.reason = reason
        self.field = field
        self.value = value
        self.expected = expected
        self.message = message
    }

    /// "`field`: got `value`; expected `expected` (`reason`)", or "`field`: `message`" when a
    /// message was given.
    package var description: String {
        if let message { return "\(field): \(message)" }
        return "\(field): got \(value); expected \(expected) (\(reason))"
    }
}
