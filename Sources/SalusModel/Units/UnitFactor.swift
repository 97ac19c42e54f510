import Foundation

/// One factor of a unit: an optionally prefixed symbol (with a molar mass for `mol<…>`) raised
/// to a non-zero integer power.
struct UnitFactor: Hashable, Sendable {
    var prefix: MetricPrefix
    var symbol: UnitSymbol
    /// Grams per mole; set only when `symbol` is `.mole` and the text gave `<…>`.
    var molarMass: Double?
    var exponent: Int

    /// What identifies the factor apart from its exponent; equal keys merge when multiplied.
    struct Key: Hashable, Sendable {
        var prefix: MetricPrefix
        var symbol: UnitSymbol
        var molarMass: Double?
    }

    var key: Key { Key(prefix: prefix, symbol: symbol, molarMass: molarMass) }

    /// The dimension of the factor including its exponent.
    var dimension: Dimension {
        let base: Dimension = (symbol == .mole && molarMass != nil) ? .mass : symbol.dimension
        return base.raised(to: exponent)
    }

    /// The unit's name without the exponent ("kg", "mmol<180.1558800000541>").
    var name: String {
        var text = prefix.symbol + symbol.symbol
        if let molarMass {
            text += "<\(Self.formatMolarMass(molarMass))>"
        }
        return text
    }

    /// The factor printed with the absolute value of its exponent.
    var magnitudeText: String {
        let power = abs(exponent)
        return power == 1 ? name : "\(name)^\(power)"
    }

    /// The factor printed with its signed exponent.
    var signedText: String {
        exponent == 1 ? name : "\(name)^\(exponent)"
    }

    /// Prints a number so that parsing it gives the same `Double` (integers without ".0").
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return "\(value)"
    }

    /// Prints a molar mass with 16 significant digits, as HealthKit does
    /// (`mol<180.1558800000541>` for its blood-glucose constant 180.15588000005408).
    static func formatMolarMass(_ value: Double) -> String {
        String(format: "%.16g", value)
    }

    /// Rounds a molar mass to what `formatMolarMass` prints, so printing and parsing agree.
    ///
    /// Reading the 16-digit decimal back gives a `Double` that prints as the same 16 digits.
    static func normalizeMolarMass(_ value: Double) -> Double {
        Double(formatMolarMass(value)) ?? value
    }

    /// Whether `self` prints before `other` among a unit's factors.
    static func canonicallyPrecedes(_ lhs: UnitFactor, _ rhs: UnitFactor) -> Bool {
        if lhs.symbol != rhs.symbol { return lhs.symbol.order < rhs.symbol.order }
        if lhs.prefix != rhs.prefix { return lhs.prefix.powerOfTen < rhs.prefix.powerOfTen }
        return (lhs.molarMass ?? 0) < (rhs.molarMass ?? 0)
    }

    /// Merges factors with equal keys, drops zero exponents and sorts into canonical order.
    static func normalize(_ factors: [UnitFactor]) -> [UnitFactor] {
        var merged: [Key: Int] = [:]
        var firstSeen: [Key: UnitFactor] = [:]
        for factor in factors {
            merged[factor.key, default: 0] += factor.exponent
            if firstSeen[factor.key] == nil { firstSeen[factor.key] = factor }
        }
        var result: [UnitFactor] = []
        for (key, exponent) in merged where exponent != 0 {
            var factor = firstSeen[key]!
            factor.exponent = exponent
            result.append(factor)
        }
        return result.sorted(by: canonicallyPrecedes)
    }
}
