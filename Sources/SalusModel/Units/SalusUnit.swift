import Foundation
import Synchronization

/// A unit of measure in HealthKit's unit-string grammar: `count/min`, `kcal`, `mg/dL`,
/// `mmol<180.1558800000541>/L`, `kcal/(kg*hr)`, `m/s^2`.
///
/// **Grammar.** Symbols: g, oz, lb, st; m, in, ft, yd, mi; L (or l), fl_oz_us, fl_oz_imp, cup_us,
/// cup_imp, pt_us, pt_imp; s, min, hr, d; J, cal, kcal, Cal (= kcal); W; K, degC, degF; count, %;
/// Pa, mmHg, cmAq, atm, inHg, dBASPL; S; V; Hz; lx; dBHL; IU; D, prismDiopter; rad, deg;
/// appleEffortScore; mol and `mol<grams per mole>`. SI prefixes (f p n mc µ μ m c d da h k M G T)
/// apply to g, m, L, s, J, W, Pa, S, Hz, V, mol, lx and rad, as in HealthKit. Factors multiply
/// with `*`, `·` (U+00B7) or `.`; `^` raises to an integer power (`m^2`, `s^-1`); parentheses
/// group. As HealthKit documents, multiplication binds tighter than division and a group holds at
/// most one `/`, so `mL/min·kg` means `mL/(min·kg)`; a second `/` is an error rather than a guess.
/// Whitespace is rejected.
///
/// **Canonical form.** A unit is the product of its factors; equal factors merge (`m*m` is
/// `m^2`), and factors that cancel disappear (a unit whose factors all cancel is `count`). The
/// description lists the factors with positive exponents, then `/` and the others, each group in
/// a fixed order (time before mass) joined by `·`: `kcal/(kg*hr)` prints `kcal/hr·kg`, as Apple
/// Health exports print it; `s^-1` prints `s^-1`; micro prints as `mc`; a molar mass prints with
/// 16 significant digits, as HealthKit prints it (molar masses are rounded to that on parsing, so
/// `mol<180.15588000005408>` and `mol<180.1558800000541>` are equal). Parsing a description gives
/// an equal unit. Equality is on the canonical form: `mL` and `cm^3` are compatible but not equal.
///
/// **Conversions.** Factors are exact where the definitions are (lb = 0.45359237 kg,
/// in = 0.0254 m, mi = 1609.344 m, fl_oz_us = 29.5735295625 mL, cup_us = 236.5882365 mL,
/// cal = 4.184 J, mmHg = 133.322387415 Pa, inHg = 3386.389 Pa). `mol<M>` measures mass (M grams),
/// so `mg/dL` converts to `mmol<180.15588>/L`; a bare `mol` measures amount of substance and does
/// not. Temperatures convert affinely (98.6 degF = 37 degC) only between two bare temperature
/// units; inside a compound unit (`degC/min`) a degree is an interval (1 degF = 5/9 K). `dBASPL`
/// converts to pressure on HealthKit's logarithmic scale (2×10⁻⁵ Pa × 10^(dB/20)) only when bare.
public struct SalusUnit: Hashable, Sendable, CustomStringConvertible {
    /// The factors in canonical order; never empty.
    let factors: [UnitFactor]
    /// The canonical text, made once: samples print their unit often.
    private let canonicalText: String
    /// The physical dimension; units convert into each other exactly when these are equal. Made
    /// once: every conversion of a sample's value to its type's unit compares two.
    public let dimension: Dimension
    /// The size of the unit in coherent SI units, as mantissa × 10^powerOfTen, made once.
    let scale: (mantissa: Double, powerOfTen: Int)

    init(factors: [UnitFactor]) {
        let normalized = UnitFactor.normalize(factors)
        self.factors =
            normalized.isEmpty
            ? [UnitFactor(prefix: .none, symbol: .count, molarMass: nil, exponent: 1)] : normalized
        self.canonicalText = Self.text(of: self.factors)
        self.dimension = self.factors.reduce(Dimension.dimensionless) { $0 * $1.dimension }
        self.scale = Self.scale(of: self.factors)
    }

    public static func == (lhs: SalusUnit, rhs: SalusUnit) -> Bool { lhs.factors == rhs.factors }

    public func hash(into hasher: inout Hasher) { hasher.combine(factors) }

    init(_ symbol: UnitSymbol, prefix: MetricPrefix = .none, molarMass: Double? = nil) {
        self.init(factors: [UnitFactor(prefix: prefix, symbol: symbol, molarMass: molarMass, exponent: 1)])
    }

    /// Parses a unit string; throws an error that names the offending text and its position.
    public init(parsing text: String) throws(UnitError) {
        if let known = Self.parsed.withLock({ $0[text] }) {
            self = known
            return
        }
        var parser = UnitParser(text)
        self.init(factors: try parser.parse())
        let unit = self
        Self.parsed.withLock { cache in
            if cache.count >= 1_024 { cache.removeAll(keepingCapacity: true) }
            cache[text] = unit
        }
    }

    /// Units parsed so far, by their text: stores and services parse the same few strings
    /// for every sample.
    private static let parsed = Mutex<[String: SalusUnit]>([:])

    /// The canonical unit string (see the type's documentation); it parses back to `self`.
    public var description: String { canonicalText }

    private static func text(of factors: [UnitFactor]) -> String {
        let numerator = factors.filter { $0.exponent > 0 }
        let denominator = factors.filter { $0.exponent < 0 }
        if numerator.isEmpty {
            return denominator.map(\.signedText).joined(separator: "·")
        }
        let top = numerator.map(\.magnitudeText).joined(separator: "·")
        if denominator.isEmpty { return top }
        return top + "/" + denominator.map(\.magnitudeText).joined(separator: "·")
    }

    /// Whether values in this unit can be converted to `other` (their dimensions are equal).
    public func isCompatible(with other: SalusUnit) -> Bool {
        dimension == other.dimension
    }

    /// Converts a value in this unit to `target`.
    ///
    /// Throws `incompatibleDimensions` when the dimensions differ, and `unsupportedConversion`
    /// when a logarithmic unit (`dBASPL`) appears inside a compound unit. Converting to an equal
    /// unit returns the value unchanged.
    public func convert(_ value: Double, to target: SalusUnit) throws(UnitError) -> Double {
        if self == target { return value }
        guard isCompatible(with: target) else {
            throw UnitError(
                code: .incompatibleDimensions,
                message: "cannot convert \(self) (\(dimension)) to \(target) (\(target.dimension))")
        }
        if let from = bareSymbol, let to = target.bareSymbol,
            case .temperature = from.scale, case .temperature = to.scale
        {
            return Self.fromCelsius(Self.toCelsius(value, from), to)
        }
        let pascal = SalusUnit.pascal
        if bareSymbol == .decibelASoundPressureLevel {
            let pressure = 2e-5 * pow(10, value / 20)
            return try pascal.convert(pressure, to: target)
        }
        if target.bareSymbol == .decibelASoundPressureLevel {
            let pressure = try convert(value, to: pascal)
            return 20 * log10(pressure / 2e-5)
        }
        func logarithmic(_ unit: SalusUnit) -> Bool { unit.factors.contains { $0.symbol == .decibelASoundPressureLevel } }
        if let unit = logarithmic(self) ? self : logarithmic(target) ? target : nil {
            throw UnitError(
                code: .unsupportedConversion,
                message: "cannot convert \(self) to \(target): dBASPL is logarithmic and converts "
                    + "only on its own, not inside the compound unit \(unit)")
        }
        let from = scale
        let to = target.scale
        return Self.scaled(value * from.mantissa / to.mantissa, byPowerOfTen: from.powerOfTen - to.powerOfTen)
    }

    /// The unit's single symbol when it is one unprefixed factor with exponent 1.
    var bareSymbol: UnitSymbol? {
        guard factors.count == 1, let only = factors.first, only.exponent == 1, only.prefix == .none else {
            return nil
        }
        return only.symbol
    }

    /// The size of a unit of `factors` in coherent SI units, as mantissa × 10^powerOfTen.
    private static func scale(of factors: [UnitFactor]) -> (mantissa: Double, powerOfTen: Int) {
        var mantissa = 1.0
        var powerOfTen = 0
        for factor in factors {
            var factorMantissa: Double
            var factorPower = factor.prefix.powerOfTen
            if let molarMass = factor.molarMass {
                factorMantissa = molarMass
                factorPower -= 3
            } else {
                switch factor.symbol.scale {
                case .linear(let m, let p):
                    factorMantissa = m
                    factorPower += p
                case .temperature(let kelvinPerDegree):
                    factorMantissa = kelvinPerDegree
                case .soundPressureLevel:
                    factorMantissa = 1
                }
            }
            let magnitude = abs(factor.exponent)
            var raised = 1.0
            for _ in 0..<magnitude { raised *= factorMantissa }
            mantissa = factor.exponent > 0 ? mantissa * raised : mantissa / raised
            powerOfTen += factorPower * factor.exponent
        }
        return (mantissa, powerOfTen)
    }

    private static let exactPowersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// value × 10^power, with one correctly rounded operation when 10^|power| is exact.
    private static func scaled(_ value: Double, byPowerOfTen power: Int) -> Double {
        if power == 0 { return value }
        let magnitude = abs(power)
        let factor = magnitude < exactPowersOfTen.count ? exactPowersOfTen[magnitude] : pow(10, Double(magnitude))
        return power > 0 ? value * factor : value / factor
    }

    private static func toCelsius(_ value: Double, _ symbol: UnitSymbol) -> Double {
        switch symbol {
        case .kelvin: value - 273.15
        case .degreeFahrenheit: (value - 32) * 5 / 9
        default: value
        }
    }

    private static func fromCelsius(_ value: Double, _ symbol: UnitSymbol) -> Double {
        switch symbol {
        case .kelvin: value + 273.15
        case .degreeFahrenheit: value * 9 / 5 + 32
        default: value
        }
    }
}

extension SalusUnit {
    /// The product of two units (`kcal` times `hr^-1` is `kcal/hr`).
    public func multiplied(by other: SalusUnit) -> SalusUnit {
        SalusUnit(factors: factors + other.factors)
    }

    /// The quotient of two units (`count` divided by `min` is `count/min`).
    public func divided(by other: SalusUnit) -> SalusUnit {
        multiplied(by: other.raised(toPower: -1))
    }

    /// This unit raised to an integer power (`m` to 2 is `m^2`; to 0 is `count`).
    public func raised(toPower power: Int) -> SalusUnit {
        SalusUnit(factors: factors.map { factor in
            var raised = factor
            raised.exponent *= power
            return raised
        })
    }

    /// The reciprocal unit (`s` gives `s^-1`).
    public var reciprocal: SalusUnit { raised(toPower: -1) }

    /// `count`: a dimensionless number of things.
    public static let count = SalusUnit(.count)
    /// `%`: converts to `count` as 1/100, as HealthKit's unit table defines it.
    public static let percent = SalusUnit(.percent)
    /// `g`.
    public static let gram = SalusUnit(.gram)
    /// `kg`.
    public static let kilogram = SalusUnit(.gram, prefix: .kilo)
    /// `lb`.
    public static let pound = SalusUnit(.pound)
    /// `m`.
    public static let meter = SalusUnit(.meter)
    /// `cm`.
    public static let centimeter = SalusUnit(.meter, prefix: .centi)
    /// `km`.
    public static let kilometer = SalusUnit(.meter, prefix: .kilo)
    /// `mi`.
    public static let mile = SalusUnit(.mile)
    /// `L`.
    public static let liter = SalusUnit(.liter)
    /// `mL`.
    public static let milliliter = SalusUnit(.liter, prefix: .milli)
    /// `s`.
    public static let second = SalusUnit(.second)
    /// `ms`.
    public static let millisecond = SalusUnit(.second, prefix: .milli)
    /// `min`.
    public static let minute = SalusUnit(.minute)
    /// `hr`.
    public static let hour = SalusUnit(.hour)
    /// `d`.
    public static let day = SalusUnit(.day)
    /// `J`.
    public static let joule = SalusUnit(.joule)
    /// `kJ`.
    public static let kilojoule = SalusUnit(.joule, prefix: .kilo)
    /// `kcal`.
    public static let kilocalorie = SalusUnit(.kilocalorie)
    /// `W`.
    public static let watt = SalusUnit(.watt)
    /// `K`.
    public static let kelvin = SalusUnit(.kelvin)
    /// `degC`.
    public static let degreeCelsius = SalusUnit(.degreeCelsius)
    /// `degF`.
    public static let degreeFahrenheit = SalusUnit(.degreeFahrenheit)
    /// `Pa`.
    public static let pascal = SalusUnit(.pascal)
    /// `mmHg`.
    public static let millimeterOfMercury = SalusUnit(.millimeterOfMercury)
    /// `count/min`, the unit heart rates are usually shown in.
    public static let countPerMinute = SalusUnit.count.divided(by: .minute)
    /// `count/s`, HealthKit's canonical heart-rate unit.
    public static let countPerSecond = SalusUnit.count.divided(by: .second)
    /// `dBASPL`: A-weighted sound pressure level.
    public static let decibelASoundPressureLevel = SalusUnit(.decibelASoundPressureLevel)
    /// `dBHL`: hearing level.
    public static let decibelHearingLevel = SalusUnit(.decibelHearingLevel)
    /// `IU`: international units.
    public static let internationalUnit = SalusUnit(.internationalUnit)
    /// `D`: diopters (1/m), for lens sphere, cylinder and add power.
    public static let diopter = SalusUnit(.diopter)
    /// `prismDiopter`: prism power.
    public static let prismDiopter = SalusUnit(.prismDiopter)
    /// `deg`: degrees of angle.
    public static let degreeAngle = SalusUnit(.degree)
    /// `rad`: radians.
    public static let radianAngle = SalusUnit(.radian)
    /// `appleEffortScore`.
    public static let appleEffortScore = SalusUnit(.appleEffortScore)

    /// A `mol<molarMass>` unit with a prefix: a mass of `molarMass` grams per mole.
    ///
    /// `molarMass` must be positive and finite; it is rounded to 16 significant digits. The
    /// blood-glucose molar mass is `SalusUnit.molarMassBloodGlucose`.
    public static func mole(prefix: MetricPrefix = .none, molarMass: Double) -> SalusUnit {
        precondition(molarMass.isFinite && molarMass > 0, "molar mass must be positive and finite")
        return SalusUnit(.mole, prefix: prefix, molarMass: UnitFactor.normalizeMolarMass(molarMass))
    }

    /// HealthKit's molar mass of blood glucose in grams per mole (`HKUnitMolarMassBloodGlucose`).
    public static let molarMassBloodGlucose = 180.15588000005408
}

extension SalusUnit: Codable {
    /// Decodes a unit from its string; a string that does not parse is a data-corruption error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            self = try SalusUnit(parsing: text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    /// Encodes the unit as its canonical string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
