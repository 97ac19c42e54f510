/// An amount with its unit, as HealthKit's `HKQuantity`: `5348 cm`, `91.4 degF`, `72 count/min`.
///
/// Equality compares value and unit as stored: `1 km` and `1000 m` are compatible but not equal;
/// convert first to compare magnitudes.
public struct Quantity: Hashable, Sendable, CustomStringConvertible {
    /// The number, in `unit`.
    public var value: Double
    /// The unit `value` is expressed in.
    public var unit: SalusUnit

    /// Creates a quantity.
    public init(value: Double, unit: SalusUnit) {
        self.value = value
        self.unit = unit
    }

    /// Parses `"<number> <unit>"` as Apple Health exports write quantity metadata (`"5348 cm"`).
    ///
    /// Exactly one space separates the number from the unit string; the number must be finite.
    public init(parsing text: String) throws(UnitError) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, let value = Double(parts[0]), value.isFinite else {
            throw UnitError(
                code: .unexpectedCharacter,
                message: "invalid quantity \"\(text)\"; expected a finite number, one space and a unit, "
                    + "as in \"5348 cm\"",
                text: text, position: 0)
        }
        self.init(value: value, unit: try SalusUnit(parsing: String(parts[1])))
    }

    /// `"<value> <unit>"`, which `init(parsing:)` reads back.
    public var description: String { "\(UnitFactor.format(value)) \(unit)" }

    /// Whether this quantity can be expressed in `unit`.
    public func isCompatible(with unit: SalusUnit) -> Bool {
        self.unit.isCompatible(with: unit)
    }

    /// The value expressed in `unit`; throws when the dimensions differ.
    public func doubleValue(for unit: SalusUnit) throws(UnitError) -> Double {
        try self.unit.convert(value, to: unit)
    }

    /// The same amount expressed in `unit`; throws when the dimensions differ.
    public func converted(to unit: SalusUnit) throws(UnitError) -> Quantity {
        Quantity(value: try doubleValue(for: unit), unit: unit)
    }
}
