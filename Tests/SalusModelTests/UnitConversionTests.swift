import Foundation
import Testing

@testable import SalusModel

/// Whether two values agree to a relative tolerance.
func approximatelyEqual(_ lhs: Double, _ rhs: Double, relative: Double = 1e-12) -> Bool {
    abs(lhs - rhs) <= relative * max(abs(lhs), abs(rhs), 1e-300)
}

@Suite("Unit conversion")
struct UnitConversionTests {
    static let dimensionDescriptionsCases: [(String, String)] = [
        ("g", "mass"), ("m", "length"), ("s", "time"), ("kcal", "energy"), ("W", "power"),
        ("mmHg", "pressure"), ("dBASPL", "pressure"), ("mL", "volume"), ("m/s", "length/time"),
        ("count/min", "1/time"), ("count", "dimensionless"), ("%", "dimensionless"),
        ("mg/dL", "mass/length^3"), ("degC", "temperature"), ("V", "electric potential"),
        ("S", "electric conductance"), ("lx", "illuminance"), ("IU", "international unit"),
        ("mol", "amount of substance"), ("m/s^2", "length/time^2"), ("D", "1/length"),
        ("kcal/(kg*hr)", "length^2/time^3"),
    ]

    static let separateDimensionsCases: [(String, String)] = [
        ("mg/dL", "mmol/L"), ("IU", "mg"), ("dBHL", "dBASPL"), ("rad", "count"),
        ("prismDiopter", "deg"), ("appleEffortScore", "count"), ("degC", "count"),
        ("mL", "g"), ("V", "W"), ("S", "count"), ("lx", "W"),
    ]

    static let temperaturesCases: [(Double, String, String, Double)] = [
        (98.6, "degF", "degC", 37.0),
        (37.0, "degC", "degF", 98.6),
        (-40.0, "degF", "degC", -40.0),
        (-40.0, "degC", "degF", -40.0),
        (0.0, "degC", "K", 273.15),
        (300.0, "K", "degC", 26.85),
        (32.0, "degF", "K", 273.15),
        (212.0, "degF", "degC", 100.0),
    ]

    static let roundFiguresCases: [(Double, String, String, Double)] = [
        (1.0, "kJ", "kcal", 1 / 4.184),
        (180.0, "deg", "rad", Double.pi),
        (1.0, "mL/min·kg", "L/hr·kg", 0.06),
        (1.0, "mL/min·kg", "mL/(kg*min)", 1),
        (10.0, "km/hr", "m/s", 10 / 3.6),
        (1.0, "m/s^2", "km/hr^2", 12960),
        (5.0, "kcal/(kg*hr)", "J/kg·s", 5 * 4184 / 3600.0),
        (1.0, "degC/min", "K/s", 1 / 60.0),
        (9.0, "degF/hr", "degC/hr", 5),
    ]

    static let exactFiguresCases: [(Double, String, String, Double)] = [
        (1.0, "mi", "m", 1609.344),
        (1.0, "in", "m", 0.0254),
        (1.0, "ft", "in", 12),
        (1.0, "yd", "ft", 3),
        (1.0, "fl_oz_us", "mL", 29.5735295625),
        (1.0, "fl_oz_imp", "mL", 28.4130625),
        (1.0, "cup_us", "mL", 236.5882365),
        (1.0, "cup_imp", "mL", 284.130625),
        (1.0, "pt_us", "mL", 473.176473),
        (1.0, "pt_imp", "mL", 568.26125),
        (1.0, "lb", "kg", 0.45359237),
        (16.0, "oz", "lb", 1),
        (1.0, "st", "lb", 14),
        (1.0, "kcal", "kJ", 4.184),
        (1.0, "cal", "J", 4.184),
        (1.0, "Cal", "kcal", 1),
        (1.0, "mmHg", "Pa", 133.322387415),
        (1.0, "inHg", "Pa", 3386.389),
        (1.0, "atm", "kPa", 101.325),
        (1.0, "cmAq", "Pa", 98.0665),
        (1.0, "d", "hr", 24),
        (1.0, "hr", "s", 3600),
        (1.0, "min", "s", 60),
        (60.0, "count/min", "count/s", 1),
        (1.0, "count/s", "Hz", 1),
        (1.0, "count", "%", 100),
        (1.0, "D", "m^-1", 1),
        (1.0, "W", "J/s", 1),
        (1.0, "L", "dm^3", 1),
    ]

    private func convert(_ value: Double, _ from: String, _ to: String) throws -> Double {
        try SalusUnit(parsing: from).convert(value, to: SalusUnit(parsing: to))
    }

    @Test(
        "Exact definitions give exact figures",
        arguments: Self.exactFiguresCases)
    func exactFigures(value: Double, from: String, to: String, expected: Double) throws {
        #expect(try convert(value, from, to) == expected)
    }

    @Test(
        "Round figures come back within rounding",
        arguments: Self.roundFiguresCases)
    func roundFigures(value: Double, from: String, to: String, expected: Double) throws {
        #expect(approximatelyEqual(try convert(value, from, to), expected))
    }

    @Test(
        "Temperatures convert affinely when bare",
        arguments: Self.temperaturesCases)
    func temperatures(value: Double, from: String, to: String, expected: Double) throws {
        #expect(approximatelyEqual(try convert(value, from, to), expected))
    }

    @Test("Blood glucose converts through the molar mass")
    func glucose() throws {
        let mmol = try convert(100, "mg/dL", "mmol<180.15588>/L")
        #expect(approximatelyEqual(mmol, 1000 / 180.15588))
        #expect(abs(mmol - 5.55) < 0.01)
        let back = try convert(mmol, "mmol<180.15588>/L", "mg/dL")
        #expect(approximatelyEqual(back, 100))
        let canonical = try convert(5.5, "mmol<180.1558800000541>/L", "mg/dL")
        #expect(approximatelyEqual(canonical, 5.5 * 18.015588000005408))
    }

    @Test("A kJ energy record reads back in kcal")
    func energyRecord() throws {
        let record = Quantity(value: 2092, unit: .kilojoule)
        let kcal = try record.converted(to: .kilocalorie)
        #expect(kcal.unit == .kilocalorie)
        #expect(approximatelyEqual(kcal.value, 500))
        #expect(approximatelyEqual(try record.doubleValue(for: .kilocalorie), 500))
    }

    @Test("Sound pressure level converts logarithmically when bare")
    func soundPressure() throws {
        #expect(approximatelyEqual(try convert(0, "dBASPL", "Pa"), 2e-5))
        #expect(approximatelyEqual(try convert(20, "dBASPL", "mPa"), 0.2))
        #expect(approximatelyEqual(try convert(2, "Pa", "dBASPL"), 100))
        let error = try #require(throws: UnitError.self) { try convert(1, "dBASPL/s", "Pa/s") }
        #expect(error.code == .unsupportedConversion)
    }

    @Test("Converting across dimensions names both dimensions")
    func incompatible() throws {
        let error = try #require(throws: UnitError.self) { try convert(1, "kcal", "m") }
        #expect(error.code == .incompatibleDimensions)
        #expect(error.message == "cannot convert kcal (energy) to m (length)")
        #expect(!SalusUnit.kilocalorie.isCompatible(with: .meter))
    }

    @Test(
        "Separate dimensions never mix",
        arguments: Self.separateDimensionsCases)
    func separateDimensions(from: String, to: String) throws {
        #expect(throws: UnitError.self) { try convert(1, from, to) }
    }

    @Test(
        "Dimensions describe themselves readably",
        arguments: Self.dimensionDescriptionsCases)
    func dimensionDescriptions(unit: String, expected: String) throws {
        #expect(try SalusUnit(parsing: unit).dimension.description == expected)
    }

    @Test("Equal units convert without change")
    func identity() throws {
        #expect(try convert(0.1 + 0.2, "kcal", "kcal") == 0.1 + 0.2)
        #expect(try convert(42, "dBASPL", "dBASPL") == 42)
    }
}
