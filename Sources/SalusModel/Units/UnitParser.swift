/// A recursive-descent parser for HealthKit's unit-string grammar.
///
/// ```
/// unit    := product ( "/" product )?          one "/" per parenthesised group
/// product := power ( ("*" | "·" | ".") power )*
/// power   := primary ( "^" integer )?          integer: optional sign, 1-4 digits; a factor's
///                                               exponent stays within ±9999 once powers of
///                                               groups multiply and equal factors add
/// primary := symbol | "(" unit ")"
/// symbol  := prefix? name ( "<" number ">" )?  "<molar mass>" only after mol
/// ```
/// Multiplication binds tighter than division, so `mL/min·kg` is `mL/(min·kg)`, as HealthKit
/// documents ("kg/m.s^2" is "kg/(m.s^2)"). Whitespace is rejected anywhere. Parentheses nest at
/// most ``maxNesting`` deep: each level is a recursion, and a client's unit string must not
/// exhaust the stack.
struct UnitParser {
    /// The deepest nesting of parentheses accepted.
    static let maxNesting = 16
    /// The largest exponent of a factor, written (four digits) or reached by powers of groups
    /// and equal factors.
    static let maxExponent = 9_999

    private let text: String
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var depth = 0

    init(_ text: String) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    mutating func parse() throws(UnitError) -> [UnitFactor] {
        guard !scalars.isEmpty else {
            throw UnitError(
                code: .emptyUnit,
                message: "empty unit string; expected a unit such as \"count\", \"kg\" or \"count/min\"",
                text: text, position: 0)
        }
        let factors = try parseQuotient()
        if index < scalars.count {
            if scalars[index] == ")" {
                throw error(
                    .unbalancedParenthesis,
                    "unbalanced ')' at position \(index) in \"\(text)\"; no '(' is open")
            }
            throw unexpected(expected: "'*', '·', '.', '/', '^' or the end of the unit")
        }
        // Equal factors add up (m^99*m^9999 is m^10098): the unit's canonical text must parse.
        for factor in UnitFactor.normalize(factors) where abs(factor.exponent) > Self.maxExponent {
            throw UnitError(
                code: .invalidExponent,
                message: "the exponents of \(factor.name) in \"\(text)\" add up to \(factor.exponent); "
                    + "expected each factor's exponent at most \(Self.maxExponent) in magnitude",
                text: text, position: 0)
        }
        return factors
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func parseQuotient() throws(UnitError) -> [UnitFactor] {
        var factors = try parseProduct()
        if current == "/" {
            index += 1
            let denominator = try parseProduct()
            factors += denominator.map { factor in
                var inverted = factor
                inverted.exponent = -factor.exponent
                return inverted
            }
            if current == "/" {
                throw error(
                    .multipleDivisions,
                    "second '/' at position \(index) in \"\(text)\"; expected at most one '/' per "
                        + "group (everything after '/' is the denominator), use parentheses such as "
                        + "\"kcal/(kg*hr)\"")
            }
        }
        return factors
    }

    private mutating func parseProduct() throws(UnitError) -> [UnitFactor] {
        var factors = try parsePower()
        while let scalar = current, scalar == "*" || scalar == "\u{00B7}" || scalar == "." {
            index += 1
            factors += try parsePower()
        }
        return factors
    }

    private mutating func parsePower() throws(UnitError) -> [UnitFactor] {
        var factors = try parsePrimary()
        if current == "^" {
            index += 1
            let start = index
            let power = try parseInteger()
            // Every factor's exponent is within ±maxExponent before (as written, or checked
            // here), so the product cannot overflow; a power of a group must keep it there.
            for index in factors.indices {
                let raised = factors[index].exponent * power
                guard abs(raised) <= Self.maxExponent else {
                    throw UnitError(
                        code: .invalidExponent,
                        message: "exponent \(power) at position \(start) in \"\(text)\" raises \(factors[index].name) to the "
                            + "power \(raised); expected each factor's exponent at most \(Self.maxExponent) in magnitude",
                        text: text, position: start)
                }
                factors[index].exponent = raised
            }
        }
        return factors
    }

    private mutating func parseInteger() throws(UnitError) -> Int {
        let start = index
        var negative = false
        if current == "-" || current == "+" {
            negative = current == "-"
            index += 1
        }
        var digits = 0
        var value = 0
        while let scalar = current, scalar.value >= 0x30, scalar.value <= 0x39 {
            if digits < 4 { value = value * 10 + Int(scalar.value - 0x30) }
            digits += 1
            index += 1
        }
        guard digits > 0, digits <= 4 else {
            let found = digits == 0 ? describeCurrent() : "\(digits) digits"
            throw UnitError(
                code: .invalidExponent,
                message: "invalid exponent at position \(start) in \"\(text)\": found \(found); "
                    + "expected an integer of at most four digits after '^', such as \"m^2\" or \"s^-1\"",
                text: text, position: start)
        }
        return negative ? -value : value
    }

    private mutating func parsePrimary() throws(UnitError) -> [UnitFactor] {
        guard let scalar = current else {
            throw error(
                .unexpectedEnd,
                "unit string \"\(text)\" ends at position \(index); expected a unit or '('")
        }
        if scalar == "(" {
            let open = index
            guard depth < Self.maxNesting else {
                throw UnitError(
                    code: .nestingTooDeep,
                    message: "'(' at position \(open) in \"\(text)\" opens a group nested \(depth + 1) deep; expected "
                        + "parentheses nested at most \(Self.maxNesting) deep",
                    text: text, position: open)
            }
            depth += 1
            defer { depth -= 1 }
            index += 1
            let inner = try parseQuotient()
            guard current == ")" else {
                if current == nil {
                    throw UnitError(
                        code: .unbalancedParenthesis,
                        message: "unbalanced '(' at position \(open) in \"\(text)\"; expected ')' "
                            + "before the end of the unit",
                        text: text, position: open)
                }
                throw unexpected(expected: "')' to close the '(' at position \(open)")
            }
            index += 1
            return inner
        }
        if Self.isNameScalar(scalar) {
            return [try parseSymbol()]
        }
        if scalar == ")" {
            throw error(
                .unbalancedParenthesis,
                "unbalanced ')' at position \(index) in \"\(text)\"; expected a unit or '('")
        }
        throw unexpected(expected: "a unit or '('")
    }

    private mutating func parseSymbol() throws(UnitError) -> UnitFactor {
        let start = index
        var name = ""
        while let scalar = current, Self.isNameScalar(scalar) {
            name.unicodeScalars.append(scalar)
            index += 1
        }
        let (prefix, symbol) = try resolve(name, at: start)
        var molarMass: Double?
        if current == "<" {
            guard symbol == .mole else {
                throw error(
                    .invalidMolarMass,
                    "unexpected '<' at position \(index) in \"\(text)\"; a molar mass in '<…>' may "
                        + "only follow mol, as in \"mmol<180.15588>\"")
            }
            molarMass = try parseMolarMass()
        }
        return UnitFactor(prefix: prefix, symbol: symbol, molarMass: molarMass, exponent: 1)
    }

    private mutating func parseMolarMass() throws(UnitError) -> Double {
        let open = index
        index += 1
        var number = ""
        while let scalar = current, scalar != ">" {
            number.unicodeScalars.append(scalar)
            index += 1
        }
        guard current == ">" else {
            throw UnitError(
                code: .invalidMolarMass,
                message: "unclosed '<' at position \(open) in \"\(text)\"; expected a molar mass "
                    + "in grams per mole followed by '>', as in \"mol<180.15588>\"",
                text: text, position: open)
        }
        index += 1
        guard let value = Double(number), value.isFinite, value > 0 else {
            throw UnitError(
                code: .invalidMolarMass,
                message: "invalid molar mass \"\(number)\" at position \(open + 1) in \"\(text)\"; "
                    + "expected a positive number of grams per mole, as in \"mol<180.15588>\"",
                text: text, position: open + 1)
        }
        return UnitFactor.normalizeMolarMass(value)
    }

    /// Splits a name into prefix and symbol: an exact symbol wins over a prefixed reading, so
    /// `min`, `mi`, `mmHg`, `kcal`, `cmAq`, `d` and `ft` keep their own meanings.
    private func resolve(_ name: String, at start: Int) throws(UnitError) -> (MetricPrefix, UnitSymbol) {
        if let symbol = UnitSymbol.bySpelling[name] {
            return (.none, symbol)
        }
        for (spelling, prefix) in MetricPrefix.spellings where name.hasPrefix(spelling) {
            let rest = String(name.dropFirst(spelling.count))
            guard let symbol = UnitSymbol.bySpelling[rest] else { continue }
            guard symbol.takesPrefix else {
                throw UnitError(
                    code: .prefixNotAllowed,
                    message: "prefix \"\(spelling)\" on \"\(rest)\" at position \(start) in \"\(text)\" "
                        + "is not allowed; SI prefixes apply only to g, m, L, s, J, W, Pa, S, Hz, V, "
                        + "mol, lx and rad",
                    text: text, position: start)
            }
            return (prefix, symbol)
        }
        throw UnitError(
            code: .unknownUnit,
            message: "unknown unit \"\(name)\" at position \(start) in \"\(text)\"; expected a unit "
                + "such as g, lb, m, mi, L, fl_oz_us, s, min, kcal, degC, count, % or mmHg, "
                + "optionally with an SI prefix",
            text: text, position: start)
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "_", "%", "\u{00B5}", "\u{03BC}": true
        default: false
        }
    }

    private func describeCurrent() -> String {
        guard let scalar = current else { return "the end of the unit" }
        if scalar.properties.isWhitespace {
            return "whitespace (not allowed in unit strings)"
        }
        return "'\(scalar)'"
    }

    private func unexpected(expected: String) -> UnitError {
        guard current != nil else {
            return error(
                .unexpectedEnd,
                "unit string \"\(text)\" ends at position \(index); expected \(expected)")
        }
        return error(
            .unexpectedCharacter,
            "unexpected \(describeCurrent()) at position \(index) in \"\(text)\"; expected \(expected)")
    }

    private func error(_ code: UnitError.Code, _ message: String) -> UnitError {
        UnitError(code: code, message: message, text: text, position: index)
    }
}
