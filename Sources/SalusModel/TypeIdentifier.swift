/// The identifier of a data type: HealthKit's string (`"HKQuantityTypeIdentifierStepCount"`) or,
/// for third-party types, a reverse-DNS name (`"org.example.hydration.electrolytes"`).
///
/// Any non-empty string is a syntactically valid identifier; whether the type exists is the type
/// registry's business.
public struct TypeIdentifier: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral, Comparable
{
    /// The identifier string.
    public let rawValue: String

    /// Wraps an identifier string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps an identifier string.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps a literal identifier string.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// Encodes as a bare string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Decodes from a bare string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// The identifier string.
    public var description: String { rawValue }

    /// Orders identifiers by their strings.
    public static func < (lhs: TypeIdentifier, rhs: TypeIdentifier) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
