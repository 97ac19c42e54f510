/// A validator's refusal of a sample, in parts: the host turns it into the error the app sees
/// (`field`, `value`, `expected` in `salus.v1.ErrorDetail`).
public struct SampleRefusal: Hashable, Sendable {
    /// The offending field's path inside the sample, in the path syntax of docs/protocol.md:
    /// `endDate`, `quantity.value`, `metadata.HKMenstrualCycleStart`. Empty for the whole sample.
    public var field: String
    /// The offending value as text (`25 h`, `nil`).
    public var value: String
    /// What would have been accepted (`less than 24 h`).
    public var expected: String
    /// An optional sentence for people; the host composes one from the parts when nil.
    public var message: String?

    /// A refusal.
    public init(field: String, value: String, expected: String, message: String? = nil) {
        self.field = field
        self.value = value
        self.expected = expected
        self.message = message
    }

    /// The free-text form a 1.0 host reads: "field: message" or "field: got value; expected …".
    public var text: String {
        let body = message ?? "got \(value); expected \(expected)"
        return field.isEmpty ? body : "\(field): \(body)"
    }
}
