/// A unit string that does not parse, or a conversion that cannot be made.
///
/// The `message` is meant for people: it quotes the offending text, gives the position (a
/// zero-based offset in Unicode scalars) and says what was expected. Programs should branch on
/// `code`, which is stable; new codes may be added.
public struct UnitError: Error, Equatable, CustomStringConvertible {
    /// The kind of failure, as a stable string code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The stable code string ("unknownUnit").
        public let rawValue: String

        /// Creates a code from its string.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code string.
        public var description: String { rawValue }

        /// The unit string is empty.
        public static let emptyUnit = Code(rawValue: "emptyUnit")
        /// A symbol that names no known unit, with or without a prefix.
        public static let unknownUnit = Code(rawValue: "unknownUnit")
        /// A character that cannot appear where it is (including whitespace).
        public static let unexpectedCharacter = Code(rawValue: "unexpectedCharacter")
        /// The string ends where a unit, exponent or closing bracket was expected.
        public static let unexpectedEnd = Code(rawValue: "unexpectedEnd")
        /// A `(` without its `)`, or a `)` without its `(`.
        public static let unbalancedParenthesis = Code(rawValue: "unbalancedParenthesis")
        /// A `^` not followed by an integer of at most four digits.
        public static let invalidExponent = Code(rawValue: "invalidExponent")
        /// A `mol<…>` whose molar mass is not a positive finite number, or `<…>` after another unit.
        public static let invalidMolarMass = Code(rawValue: "invalidMolarMass")
        /// An SI prefix on a unit that takes none (`kmin`, `kdegC`).
        public static let prefixNotAllowed = Code(rawValue: "prefixNotAllowed")
        /// Parentheses nested deeper than the parser accepts (16 levels).
        public static let nestingTooDeep = Code(rawValue: "nestingTooDeep")
        /// A second `/` in the same parenthesised group.
        public static let multipleDivisions = Code(rawValue: "multipleDivisions")
        /// A conversion between units of different dimensions.
        public static let incompatibleDimensions = Code(rawValue: "incompatibleDimensions")
        /// A conversion that needs a non-linear scale inside a compound unit (`dBASPL/s`).
        public static let unsupportedConversion = Code(rawValue: "unsupportedConversion")
    }

    /// What went wrong, as a stable code.
    public var code: Code
    /// A sentence naming the offending text, its position and what was expected.
    public var message: String
    /// The whole unit string being parsed, when the error comes from parsing.
    public var text: String?
    /// The zero-based offset in Unicode scalars of the offending part of `text`, if any.
    public var position: Int?

    /// Creates an error; prefer the messages the parser and converter produce.
    public init(code: Code, message: String, text: String? = nil, position: Int? = nil) {
        self.code = code
        self.message = message
        self.text = text
        self.position = position
    }

    /// The message.
    public var description: String { message }
}
