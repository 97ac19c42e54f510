import SalusModel

/// The unit a quantity metadata value is compared in: the coherent base unit of its dimension
/// (`g`, `m`, `s`, `K`, …), so that `5348 cm` and `53.48 m` compare equal.
enum BaseUnit {
    private static let symbols: [BaseDimension: String] = [
        .mass: "g", .length: "m", .time: "s", .temperature: "K", .amountOfSubstance: "mol",
        .angle: "rad", .internationalUnit: "IU", .hearingLevel: "dBHL", .effortScore: "appleEffortScore",
        .prismPower: "prismDiopter",
    ]

    /// The base unit of `dimension`, or nil for dimensions with electric current or luminous
    /// intensity, which have no base symbol in the unit grammar.
    static func unit(for dimension: SalusModel.Dimension) -> SalusUnit? {
        if dimension.isDimensionless { return .count }
        var factors: [String] = []
        for base in BaseDimension.allCases {
            guard let exponent = dimension.exponents[base], exponent != 0 else { continue }
            guard let symbol = symbols[base] else { return nil }
            factors.append(exponent == 1 ? symbol : "\(symbol)^\(exponent)")
        }
        return try? SalusUnit(parsing: factors.joined(separator: "*"))
    }

    /// `quantity` in its dimension's base unit with the dimension's description, or nil when it
    /// cannot be converted.
    static func normalize(_ quantity: Quantity) -> (value: Double, dimension: String)? {
        let dimension = quantity.unit.dimension
        guard let base = unit(for: dimension), let value = try? quantity.doubleValue(for: base) else { return nil }
        return (value, dimension.description)
    }
}
