import Foundation
import Testing

@testable import SalusModel

/// The units the HealthKit catalogue's types need: each parses, prints a text that parses back
/// to the same unit, converts as its definition says (through its printed text as well as its
/// original spelling), and refuses the dimensions it does not have.
@Suite("The catalogue's units")
struct CatalogueUnitTests {
    /// (unit as HealthKit writes it, a unit of the same dimension, a value, that value converted).
    static let conversions: [(String, String, Double, Double)] = [
        ("mmHg", "kPa", 120, 120 * 0.133322387415),
        ("mg/dL", "mmol<180.15588000005408>/L", 180.15588000005408, 10),
        ("mmol<180.15588000005408>/L", "mg/dL", 5.5, 5.5 * 18.015588000005408),
        ("mmol<180.15588000005408>/L", "g/L", 1, 0.18015588000005408),
        ("%", "count", 97, 0.97),
        ("dBASPL", "Pa", 100, 2),
        ("dBHL", "dBHL", 25, 25),
        ("mL/(kg*min)", "L/(kg*hr)", 45, 2.7),
        ("ml/(kg*min)", "mL/min·kg", 45, 45),
        ("IU", "IU", 4.5, 4.5),
        ("mcg", "mg", 400, 0.4),
        ("S", "mS", 0.002, 2),
        ("lx", "klx", 12_000, 12),
        ("count/min", "count/s", 72, 1.2),
        ("count/s", "count/min", 0.25, 15),
        ("kcal/(kg*hr)", "J/(kg*s)", 3.6, 4.184),
        ("appleEffortScore", "appleEffortScore", 7, 7),
        ("Cal", "kcal", 250, 250),
        ("Cal", "kJ", 1, 4.184),
        ("L/min", "mL/s", 6, 100),
        ("mL", "fl_oz_us", 29.5735295625, 1),
        ("ms", "s", 1500, 1.5),
        ("W", "J/s", 250, 250),
        ("degC", "degF", 37, 98.6),
    ]

    /// Units that must not convert into each other (different dimensions).
    static let refusals: [(String, String)] = [
        ("dBHL", "dBASPL"), ("IU", "mg"), ("appleEffortScore", "count"), ("S", "count"), ("lx", "W"),
        ("mmol<180.15588000005408>/L", "mol/L"), ("ml/(kg*min)", "mL/min"), ("kcal/(kg*hr)", "kcal/hr"),
        ("mmHg", "m"), ("Cal", "W"),
    ]

    @Test("Round trip through text and conversion", arguments: Self.conversions)
    func roundTrip(text: String, target: String, value: Double, expected: Double) throws {
        let unit = try SalusUnit(parsing: text)
        let printed = try SalusUnit(parsing: unit.description)
        #expect(printed == unit, "\(text) prints as \(unit.description)")
        #expect(printed.description == unit.description)
        let to = try SalusUnit(parsing: target)
        #expect(approximatelyEqual(try unit.convert(value, to: to), expected))
        #expect(approximatelyEqual(try printed.convert(value, to: to), expected))
        // And back.
        #expect(approximatelyEqual(try to.convert(expected, to: unit), value))
    }

    @Test("Different dimensions are refused", arguments: Self.refusals)
    func dimensions(from: String, to: String) throws {
        let error = try #require(throws: UnitError.self) {
            try SalusUnit(parsing: from).convert(1, to: SalusUnit(parsing: to))
        }
        #expect(error.code == .incompatibleDimensions)
    }

    @Test("HealthKit's two spellings of VO2 max are one unit, printed canonically")
    func lowerCaseMilliliter() throws {
        let lower = try SalusUnit(parsing: "ml/(kg*min)")
        let upper = try SalusUnit(parsing: "mL/(kg*min)")
        #expect(lower == upper)
        #expect(lower.description == "mL/min·kg")
        #expect(try SalusUnit(parsing: "Cal") != SalusUnit.kilocalorie, "a large calorie is its own symbol")
        #expect(try SalusUnit(parsing: "Cal").description == "Cal")
    }

    /// The catalogue file's own canonical units: every one parses and prints back to itself.
    @Test("Every canonical unit in the catalogue parses and reads back equal")
    func everyCatalogueUnit() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/healthkit-reference/healthkit-catalogue.tsv")
        let text = try String(contentsOf: url, encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        let column = try #require(lines.first?.firstIndex(of: "canonical_unit"))
        let units = Set(lines.dropFirst().map { String($0[column]) }.filter { !$0.isEmpty })
        #expect(units.count > 20)
        for spelling in units {
            let unit = try SalusUnit(parsing: spelling)
            #expect(try SalusUnit(parsing: unit.description) == unit, "\(spelling)")
        }
    }
}
