/// One independent axis that a unit can measure along.
///
/// Besides the SI base quantities this includes the dimensions that HealthKit keeps apart from
/// everything else (international units, hearing level, effort score, prism power), so that no
/// conversion can cross into or out of them.
public enum BaseDimension: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// Mass (kg); also what `mol<molar mass>` measures.
    case mass
    /// Length (m).
    case length
    /// Time (s).
    case time
    /// Thermodynamic temperature (K).
    case temperature
    /// Amount of substance (mol) for a `mol` given without a molar mass.
    case amountOfSubstance
    /// Electric current (A), needed for volts and siemens.
    case electricCurrent
    /// Luminous intensity (cd), needed for lux.
    case luminousIntensity
    /// Plane angle (rad); kept apart from dimensionless counts.
    case angle
    /// Biological activity in international units (IU).
    case internationalUnit
    /// Hearing sensitivity in decibels hearing level (dBHL).
    case hearingLevel
    /// Apple's workout effort score (appleEffortScore).
    case effortScore
    /// Optical prism power (prismDiopter).
    case prismPower

    /// The readable name used in dimension descriptions ("amount of substance").
    public var description: String {
        switch self {
        case .mass: "mass"
        case .length: "length"
        case .time: "time"
        case .temperature: "temperature"
        case .amountOfSubstance: "amount of substance"
        case .electricCurrent: "electric current"
        case .luminousIntensity: "luminous intensity"
        case .angle: "angle"
        case .internationalUnit: "international unit"
        case .hearingLevel: "hearing level"
        case .effortScore: "effort score"
        case .prismPower: "prism power"
        }
    }
}

/// The physical dimension of a unit: an integer exponent for each base dimension.
///
/// Two units convert into each other exactly when their dimensions are equal. Counts and
/// percentages are dimensionless (all exponents zero), so `count/min` has the dimension of `Hz`.
/// The description names common dimensions ("energy", "pressure") and spells out the rest as a
/// quotient of base dimensions ("length/time").
public struct Dimension: Hashable, Sendable, CustomStringConvertible {
    /// The non-zero exponents; a base dimension that is absent has exponent zero.
    public let exponents: [BaseDimension: Int]

    /// Creates a dimension from exponents; zero exponents are dropped.
    public init(_ exponents: [BaseDimension: Int]) {
        self.exponents = exponents.filter { $0.value != 0 }
    }

    /// The exponent of one base dimension (zero when absent).
    public func exponent(of base: BaseDimension) -> Int {
        exponents[base] ?? 0
    }

    /// Whether every exponent is zero (counts, percentages, ratios such as `mL/L`).
    public var isDimensionless: Bool { exponents.isEmpty }

    /// The dimension of a product of two quantities.
    public static func * (lhs: Dimension, rhs: Dimension) -> Dimension {
        Dimension(lhs.exponents.merging(rhs.exponents, uniquingKeysWith: +))
    }

    /// The dimension of a quotient of two quantities.
    public static func / (lhs: Dimension, rhs: Dimension) -> Dimension {
        lhs * rhs.raised(to: -1)
    }

    /// This dimension raised to an integer power.
    public func raised(to power: Int) -> Dimension {
        Dimension(exponents.mapValues { $0 * power })
    }

    /// No dimension: counts and percentages.
    public static let dimensionless = Dimension([:])
    /// Mass.
    public static let mass = Dimension([.mass: 1])
    /// Length.
    public static let length = Dimension([.length: 1])
    /// Time.
    public static let time = Dimension([.time: 1])
    /// Temperature.
    public static let temperature = Dimension([.temperature: 1])
    /// Amount of substance (a `mol` without a molar mass).
    public static let amountOfSubstance = Dimension([.amountOfSubstance: 1])
    /// Electric current.
    public static let electricCurrent = Dimension([.electricCurrent: 1])
    /// Luminous intensity.
    public static let luminousIntensity = Dimension([.luminousIntensity: 1])
    /// Plane angle.
    public static let angle = Dimension([.angle: 1])
    /// International units of biological activity.
    public static let internationalUnit = Dimension([.internationalUnit: 1])
    /// Hearing level.
    public static let hearingLevel = Dimension([.hearingLevel: 1])
    /// Apple's effort score.
    public static let effortScore = Dimension([.effortScore: 1])
    /// Prism power.
    public static let prismPower = Dimension([.prismPower: 1])
    /// Area (length²).
    public static let area = Dimension([.length: 2])
    /// Volume (length³).
    public static let volume = Dimension([.length: 3])
    /// Frequency (1/time).
    public static let frequency = Dimension([.time: -1])
    /// Energy (mass·length²/time²).
    public static let energy = Dimension([.mass: 1, .length: 2, .time: -2])
    /// Power (energy/time).
    public static let power = Dimension([.mass: 1, .length: 2, .time: -3])
    /// Pressure (force/area).
    public static let pressure = Dimension([.mass: 1, .length: -1, .time: -2])
    /// Electric potential difference (power/current).
    public static let electricPotential = Dimension([.mass: 1, .length: 2, .time: -3, .electricCurrent: -1])
    /// Electric conductance (current/potential).
    public static let electricConductance = Dimension([.mass: -1, .length: -2, .time: 3, .electricCurrent: 2])
    /// Illuminance (luminous flux per area).
    public static let illuminance = Dimension([.luminousIntensity: 1, .length: -2])

    private static let names: [Dimension: String] = [
        .dimensionless: "dimensionless",
        .area: "area",
        .volume: "volume",
        .energy: "energy",
        .power: "power",
        .pressure: "pressure",
        .electricPotential: "electric potential",
        .electricConductance: "electric conductance",
        .illuminance: "illuminance",
    ]

    /// A readable name: "energy", "volume", "length/time", "mass/volume" is spelled out as
    /// "mass/length^3", and a pure reciprocal as "1/time".
    public var description: String {
        if let name = Self.names[self] { return name }
        let ordered = BaseDimension.allCases.compactMap { base in
            exponents[base].map { (base, $0) }
        }
        func term(_ base: BaseDimension, _ exponent: Int) -> String {
            exponent == 1 ? base.description : "\(base.description)^\(exponent)"
        }
        let numerator = ordered.filter { $0.1 > 0 }.map { term($0.0, $0.1) }
        let denominator = ordered.filter { $0.1 < 0 }.map { term($0.0, -$0.1) }
        let top = numerator.isEmpty ? "1" : numerator.joined(separator: "·")
        return denominator.isEmpty ? top : "\(top)/\(denominator.joined(separator: "·"))"
    }
}
