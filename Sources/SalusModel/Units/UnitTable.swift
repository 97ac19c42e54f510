/// The unit grammar's table as plain values, for clients that convert with the daemon's own
/// table instead of a copy (`salus.v1.Catalogue`, the Python client): every named unit with its
/// spellings, dimension and scale, every SI prefix with its spellings, and the units known by
/// name (each spelling of each symbol, with each spelling of each prefix it takes).
package enum UnitTable {
    /// How values of a named unit relate to the coherent SI unit of its dimension.
    package enum Scale: Hashable, Sendable {
        /// value × mantissa × 10^powerOfTen.
        case linear
        /// A temperature: bare, kelvin = value × mantissa + offset; inside a compound unit, an
        /// interval of `mantissa` kelvin.
        case temperature
        /// A sound pressure level: pascal = 2×10⁻⁵ × 10^(value/20); converts only bare.
        case soundPressureLevel
    }

    /// A named unit of the grammar, before any prefix, exponent or molar mass.
    package struct Symbol: Hashable, Sendable {
        /// As the daemon prints it ("L", "degC").
        package var symbol: String
        /// Other spellings the parser accepts ("l" for "L").
        package var otherSpellings: [String]
        /// The exponent of each base dimension (`BaseDimension` raw values); empty for counts.
        package var dimension: [String: Int]
        package var scale: Scale
        /// With `powerOfTen`, the size in coherent SI units (linear), or kelvin per degree.
        package var mantissa: Double
        package var powerOfTen: Int
        /// The kelvin at 0 of a temperature unit (273.15 for degC); 0 otherwise.
        package var offset: Double
        /// Whether SI prefixes apply.
        package var takesPrefix: Bool
    }

    /// An SI prefix.
    package struct Prefix: Hashable, Sendable {
        /// As the daemon prints it ("k", "mc").
        package var symbol: String
        /// Other spellings the parser accepts ("µ" and "μ" for "mc").
        package var otherSpellings: [String]
        package var powerOfTen: Int
    }

    /// Every named unit, in the order compound units print their factors.
    package static let symbols: [Symbol] = UnitSymbol.allCases.map { symbol in
        let (scale, mantissa, powerOfTen, offset): (Scale, Double, Int, Double) =
            switch symbol.scale {
            case .linear(let mantissa, let powerOfTen): (.linear, mantissa, powerOfTen, 0)
            case .temperature(let kelvinPerDegree):
                (.temperature, kelvinPerDegree, 0, symbol == .kelvin ? 0 : 273.15 - (symbol == .degreeFahrenheit ? 32 * 5.0 / 9.0 : 0))
            case .soundPressureLevel: (.soundPressureLevel, 1, 0, 0)
            }
        return Symbol(
            symbol: symbol.symbol,
            otherSpellings: UnitSymbol.bySpelling.filter { $0.value == symbol && $0.key != symbol.symbol }.keys.sorted(),
            dimension: Dictionary(uniqueKeysWithValues: symbol.dimension.exponents.map { ($0.key.rawValue, $0.value) }),
            scale: scale, mantissa: mantissa, powerOfTen: powerOfTen, offset: offset, takesPrefix: symbol.takesPrefix)
    }

    /// Every SI prefix (not "none"), smallest first.
    package static let prefixes: [Prefix] = MetricPrefix.allCases.filter { $0 != .none }.sorted { $0.rawValue < $1.rawValue }
        .map { prefix in
            Prefix(
                symbol: prefix.symbol,
                otherSpellings: MetricPrefix.spellings.filter { $0.1 == prefix && $0.0 != prefix.symbol }.map(\.0),
                powerOfTen: prefix.powerOfTen)
        }

    /// Every unit known by name: each spelling of each named unit and, where prefixes apply,
    /// with each spelling of each prefix, that parses as that prefix on that unit ("kg", "µg",
    /// "ml", "fL"; not "min", which is the minute), in table order.
    package static let namedUnits: [String] = {
        var names: [String] = []
        for symbol in UnitSymbol.allCases {
            let spellings = [symbol.symbol] + UnitSymbol.bySpelling.filter { $0.value == symbol && $0.key != symbol.symbol }.keys.sorted()
            for spelling in spellings {
                names.append(spelling)
                guard symbol.takesPrefix else { continue }
                for (prefixSpelling, prefix) in MetricPrefix.spellings {
                    let name = prefixSpelling + spelling
                    guard let parsed = try? SalusUnit(parsing: name), parsed == SalusUnit(symbol, prefix: prefix) else { continue }
                    names.append(name)
                }
            }
        }
        return names
    }()

    /// The unit values of `unit`'s dimension are given in by ``referenceUnit(for:)``: the first
    /// unprefixed named unit of that dimension with a linear scale (kelvin for temperatures),
    /// or `unit` itself when no named unit has its dimension ("count/min" has that of "Hz").
    package static func referenceUnit(for unit: SalusUnit) -> SalusUnit {
        if unit.dimension == .temperature { return SalusUnit(.kelvin) }
        for symbol in UnitSymbol.allCases where symbol.dimension == unit.dimension {
            if case .linear = symbol.scale { return SalusUnit(symbol) }
        }
        return unit
    }

    /// How values of a unit relate to the coherent SI unit of its dimension, for a client that
    /// converts with the daemon's parser instead of its own (`salus.v1.Catalogue/DescribeUnits`).
    package struct Description: Hashable, Sendable {
        /// The canonical text ("mcg" for "µg").
        package var canonical: String
        /// The exponent of each base dimension that is not zero; empty for count and %.
        package var dimension: [String: Int]
        /// `.temperature` and `.soundPressureLevel` only for a bare such unit ("degF", "dBASPL");
        /// a compound unit is `.linear`, its degrees intervals.
        package var scale: Scale
        /// `.linear`: the unit is mantissa × 10^powerOfTen coherent SI units; `.temperature`:
        /// mantissa kelvin per degree.
        package var mantissa: Double
        package var powerOfTen: Int
        /// `.temperature`: the kelvin at 0 of the unit.
        package var offset: Double
        /// A compound unit with dBASPL inside: it converts to nothing but an equal unit.
        package var containsSoundPressureLevel: Bool
    }

    /// The daemon's description of `unit` (see ``Description``).
    package static func describe(_ unit: SalusUnit) -> Description {
        let dimension = Dictionary(uniqueKeysWithValues: unit.dimension.exponents.map { ($0.key.rawValue, $0.value) })
        let (mantissa, powerOfTen) = unit.scale
        var description = Description(
            canonical: unit.description, dimension: dimension, scale: .linear, mantissa: mantissa, powerOfTen: powerOfTen,
            offset: 0, containsSoundPressureLevel: false)
        if let bare = unit.bareSymbol, let entry = symbols.first(where: { $0.symbol == bare.symbol }), entry.scale != .linear {
            description.scale = entry.scale
            description.mantissa = entry.mantissa
            description.powerOfTen = entry.powerOfTen
            description.offset = entry.offset
        } else if unit.factors.contains(where: { $0.symbol == .decibelASoundPressureLevel }) {
            description.containsSoundPressureLevel = true
        }
        return description
    }
}
