import SalusModel

extension ValidationError.Reason {
    /// A field holds a value of the right type that is not allowed.
    public static let invalidValue = ValidationError.Reason(rawValue: "invalidValue")
    /// A required field is missing.
    public static let missingValue = ValidationError.Reason(rawValue: "missingValue")
    /// A unit string does not parse, or has the wrong dimension.
    public static let invalidUnit = ValidationError.Reason(rawValue: "invalidUnit")
}
