/// A named unit of the grammar (before any prefix, exponent or molar mass).
///
/// The declaration order is the order in which factors print, which puts time before mass so that
/// compound units print as Apple Health exports show them (`mL/min·kg`, `kcal/hr·kg`).
enum UnitSymbol: String, CaseIterable, Hashable, Sendable {
    case count
    case percent = "%"
    case internationalUnit = "IU"
    case appleEffortScore
    case decibelASoundPressureLevel = "dBASPL"
    case decibelHearingLevel = "dBHL"
    case joule = "J"
    case smallCalorie = "cal"
    case kilocalorie = "kcal"
    case largeCalorie = "Cal"
    case watt = "W"
    case meter = "m"
    case inch = "in"
    case foot = "ft"
    case yard = "yd"
    case mile = "mi"
    case liter = "L"
    case fluidOunceUS = "fl_oz_us"
    case fluidOunceImperial = "fl_oz_imp"
    case cupUS = "cup_us"
    case cupImperial = "cup_imp"
    case pintUS = "pt_us"
    case pintImperial = "pt_imp"
    case pascal = "Pa"
    case millimeterOfMercury = "mmHg"
    case centimeterOfWater = "cmAq"
    case atmosphere = "atm"
    case inchOfMercury = "inHg"
    case kelvin = "K"
    case degreeCelsius = "degC"
    case degreeFahrenheit = "degF"
    case volt = "V"
    case siemens = "S"
    case hertz = "Hz"
    case lux = "lx"
    case diopter = "D"
    case prismDiopter
    case radian = "rad"
    case degree = "deg"
    case second = "s"
    case minute = "min"
    case hour = "hr"
    case day = "d"
    case gram = "g"
    case ounce = "oz"
    case pound = "lb"
    case stone = "st"
    case mole = "mol"

    /// The printed symbol.
    var symbol: String { rawValue }

    /// The canonical position of this symbol among a unit's factors.
    var order: Int { Self.orderTable[self]! }

    private static let orderTable: [UnitSymbol: Int] = Dictionary(
        uniqueKeysWithValues: allCases.enumerated().map { ($0.element, $0.offset) }
    )

    /// Symbol lookup, with `l` accepted as another spelling of the liter.
    static let bySpelling: [String: UnitSymbol] = {
        var table = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
        table["l"] = .liter
        return table
    }()

    /// Whether SI prefixes apply (the units with a `…UnitWithMetricPrefix:` in HealthKit).
    var takesPrefix: Bool {
        switch self {
        case .gram, .meter, .liter, .second, .joule, .pascal, .siemens, .hertz, .volt, .watt,
            .mole, .lux, .radian:
            true
        default:
            false
        }
    }

    /// How values in this unit relate to the coherent SI unit of its dimension.
    enum Scale {
        /// value × mantissa × 10^powerOfTen; kept apart so decimal factors stay exact.
        case linear(mantissa: Double, powerOfTen: Int)
        /// A temperature: converted affinely when bare, as an interval of this many kelvin
        /// inside a compound unit.
        case temperature(kelvinPerDegree: Double)
        /// A sound pressure level: pascal = 2×10⁻⁵ × 10^(value/20); usable only bare.
        case soundPressureLevel
    }

    /// The scale of the unprefixed symbol (a `mol` with a molar mass is scaled separately).
    var scale: Scale {
        switch self {
        case .count: .linear(mantissa: 1, powerOfTen: 0)
        case .percent: .linear(mantissa: 1, powerOfTen: -2)
        case .internationalUnit, .appleEffortScore, .decibelHearingLevel, .prismDiopter:
            .linear(mantissa: 1, powerOfTen: 0)
        case .decibelASoundPressureLevel: .soundPressureLevel
        case .joule: .linear(mantissa: 1, powerOfTen: 0)
        case .smallCalorie: .linear(mantissa: 4.184, powerOfTen: 0)
        case .kilocalorie, .largeCalorie: .linear(mantissa: 4.184, powerOfTen: 3)
        case .watt: .linear(mantissa: 1, powerOfTen: 0)
        case .meter: .linear(mantissa: 1, powerOfTen: 0)
        case .inch: .linear(mantissa: 254, powerOfTen: -4)
        case .foot: .linear(mantissa: 3048, powerOfTen: -4)
        case .yard: .linear(mantissa: 9144, powerOfTen: -4)
        case .mile: .linear(mantissa: 1_609_344, powerOfTen: -3)
        case .liter: .linear(mantissa: 1, powerOfTen: -3)
        case .fluidOunceUS: .linear(mantissa: 29.5735295625, powerOfTen: -6)
        case .fluidOunceImperial: .linear(mantissa: 28.4130625, powerOfTen: -6)
        case .cupUS: .linear(mantissa: 236.5882365, powerOfTen: -6)
        case .cupImperial: .linear(mantissa: 284.130625, powerOfTen: -6)
        case .pintUS: .linear(mantissa: 473.176473, powerOfTen: -6)
        case .pintImperial: .linear(mantissa: 568.26125, powerOfTen: -6)
        case .pascal: .linear(mantissa: 1, powerOfTen: 0)
        case .millimeterOfMercury: .linear(mantissa: 133.322387415, powerOfTen: 0)
        case .centimeterOfWater: .linear(mantissa: 98.0665, powerOfTen: 0)
        case .atmosphere: .linear(mantissa: 101_325, powerOfTen: 0)
        case .inchOfMercury: .linear(mantissa: 3386.389, powerOfTen: 0)
        case .kelvin: .temperature(kelvinPerDegree: 1)
        case .degreeCelsius: .temperature(kelvinPerDegree: 1)
        case .degreeFahrenheit: .temperature(kelvinPerDegree: 5.0 / 9.0)
        case .volt, .siemens, .hertz, .lux, .diopter, .radian:
            .linear(mantissa: 1, powerOfTen: 0)
        case .degree: .linear(mantissa: Double.pi / 180, powerOfTen: 0)
        case .second: .linear(mantissa: 1, powerOfTen: 0)
        case .minute: .linear(mantissa: 60, powerOfTen: 0)
        case .hour: .linear(mantissa: 3600, powerOfTen: 0)
        case .day: .linear(mantissa: 86400, powerOfTen: 0)
        case .gram: .linear(mantissa: 1, powerOfTen: -3)
        case .ounce: .linear(mantissa: 28.349523125, powerOfTen: -3)
        case .pound: .linear(mantissa: 45_359_237, powerOfTen: -8)
        case .stone: .linear(mantissa: 635_029_318, powerOfTen: -8)
        case .mole: .linear(mantissa: 1, powerOfTen: 0)
        }
    }

    /// The dimension of the symbol (a `mol` with a molar mass measures mass instead).
    var dimension: Dimension {
        switch self {
        case .count, .percent: .dimensionless
        case .internationalUnit: .internationalUnit
        case .appleEffortScore: .effortScore
        case .decibelASoundPressureLevel: .pressure
        case .decibelHearingLevel: .hearingLevel
        case .joule, .smallCalorie, .kilocalorie, .largeCalorie: .energy
        case .watt: .power
        case .meter, .inch, .foot, .yard, .mile: .length
        case .liter, .fluidOunceUS, .fluidOunceImperial, .cupUS, .cupImperial, .pintUS, .pintImperial:
            .volume
        case .pascal, .millimeterOfMercury, .centimeterOfWater, .atmosphere, .inchOfMercury: .pressure
        case .kelvin, .degreeCelsius, .degreeFahrenheit: .temperature
        case .volt: .electricPotential
        case .siemens: .electricConductance
        case .hertz: .frequency
        case .lux: .illuminance
        case .diopter: Dimension([.length: -1])
        case .prismDiopter: .prismPower
        case .radian, .degree: .angle
        case .second, .minute, .hour, .day: .time
        case .gram, .ounce, .pound, .stone: .mass
        case .mole: .amountOfSubstance
        }
    }
}
