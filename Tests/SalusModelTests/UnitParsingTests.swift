import Foundation
import Testing

@testable import SalusModel

@Suite("Unit parsing and printing")
struct UnitParsingTests {
    static let malformedCases: [(String, UnitError.Code, Int)] = [
        ("", UnitError.Code.emptyUnit, 0),
        ("kcal/(kg*hr", .unbalancedParenthesis, 5),
        ("kcal/kg)", .unbalancedParenthesis, 7),
        (")", .unbalancedParenthesis, 0),
        ("(", .unexpectedEnd, 1),
        ("m/", .unexpectedEnd, 2),
        ("m^", .invalidExponent, 2),
        ("m^x", .invalidExponent, 2),
        ("m^12345", .invalidExponent, 2),
        // Powers of groups multiply: the second would give m^99980001, and more of them once
        // overflowed Int and trapped the process that parsed a client's unit.
        ("((m^9999)^9999)", .invalidExponent, 10),
        ("(((((m^9999)^9999)^9999)^9999)^9999)", .invalidExponent, 13),
        ("(m^-5000)^2", .invalidExponent, 10),
        // Equal factors add up: m^10098 has no canonical text that parses.
        ("ks*m^99*m^9999", .invalidExponent, 0),
        ("m /s", .unexpectedCharacter, 1),
        (" m", .unexpectedCharacter, 0),
        ("m/s/s", .multipleDivisions, 3),
        ("kmin", .prefixNotAllowed, 0),
        ("kdegC", .prefixNotAllowed, 0),
        ("mcount", .prefixNotAllowed, 0),
        ("mol<>", .invalidMolarMass, 4),
        ("mol<-1>", .invalidMolarMass, 4),
        ("mol<abc>", .invalidMolarMass, 4),
        ("mol<180", .invalidMolarMass, 3),
        ("g<180>", .invalidMolarMass, 1),
        ("m**s", .unexpectedCharacter, 2),
        ("1/s", .unexpectedCharacter, 0),
    ]

    static let prefixesCases: [(String, String, Double)] = [
        ("mcg", "g", 1e-6), ("\u{00B5}g", "g", 1e-6), ("dL", "L", 0.1), ("kJ", "J", 1000),
        ("ms", "s", 0.001), ("mL", "L", 0.001), ("cm", "m", 0.01), ("kg", "g", 1000),
        ("ng", "g", 1e-9), ("pg", "g", 1e-12), ("fg", "g", 1e-15), ("dam", "m", 10),
        ("hPa", "Pa", 100), ("MHz", "Hz", 1e6), ("GW", "W", 1e9), ("TJ", "J", 1e12),
        ("mV", "V", 1e-3), ("mS", "S", 1e-3), ("klx", "lx", 1000), ("mrad", "rad", 1e-3),
        ("mmol", "mol", 1e-3),
    ]

    static let canonicalizationCases: [(String, String)] = [
        ("kcal/(kg*hr)", "kcal/hr·kg"),
        ("kcal/(hr·kg)", "kcal/hr·kg"),
        ("kcal/hr.kg", "kcal/hr·kg"),
        ("mL/(kg*min)", "mL/min·kg"),
        ("mL/min*kg", "mL/min·kg"),
        ("\u{00B5}g", "mcg"),
        ("\u{03BC}g", "mcg"),
        ("l", "L"),
        ("ml", "mL"),
        ("m*m", "m^2"),
        ("m^2/m", "m"),
        ("dL/dL", "count"),
        ("(m/s)^2", "m^2/s^2"),
        ("(m^99)^99", "m^9801"),
        ("m^9999*m^-9999*s", "s"),
        ("s^-1", "s^-1"),
        ("kg.m^-1.s^-2", "kg/m·s^2"),
        ("kg/m.s^2", "kg/m·s^2"),
        ("mmol<180.15588000005408>/L", "mmol<180.1558800000541>/L"),
        ("mol<180>", "mol<180>"),
        ("(count/min)", "count/min"),
    ]

    @Test(
        "Canonical strings print as given",
        arguments: [
            "count", "count/min", "count/s", "kcal", "Cal", "kJ", "mg/dL", "mmol<180.1558800000541>/L",
            "mL/min·kg", "kcal/hr·kg", "m/s", "m/s^2", "degC", "degF", "K", "%", "dBASPL", "dBHL",
            "mcg", "ms", "cm", "fl_oz_us", "fl_oz_imp", "cup_us", "cup_imp", "pt_us", "pt_imp", "mmHg",
            "cmAq", "atm", "inHg", "S", "Hz", "V", "W", "lx", "IU", "D", "prismDiopter", "deg", "rad",
            "appleEffortScore", "st", "lb", "oz", "yd", "mi", "ft", "in", "hr", "d", "s^-1", "mol",
        ])
    func canonicalRoundTrip(text: String) throws {
        let unit = try SalusUnit(parsing: text)
        #expect(unit.description == text)
        #expect(try SalusUnit(parsing: unit.description) == unit)
    }

    @Test(
        "Other spellings print canonically",
        arguments: Self.canonicalizationCases)
    func canonicalization(text: String, expected: String) throws {
        let unit = try SalusUnit(parsing: text)
        #expect(unit.description == expected)
        #expect(try SalusUnit(parsing: unit.description) == unit)
    }

    @Test(
        "Molar masses print with 16 significant digits and read back equal",
        arguments: [0.1 + 0.2, 1e-7, 123_456_789.123_456_78, 180.15588, 58.44, 1e20])
    func molarMassRoundTrip(molarMass: Double) throws {
        let unit = SalusUnit.mole(prefix: .milli, molarMass: molarMass)
        #expect(try SalusUnit(parsing: unit.description) == unit)
        #expect(try SalusUnit(parsing: unit.description).description == unit.description)
    }

    @Test("Exact symbols win over prefixed readings")
    func exactSymbolsWin() throws {
        #expect(try SalusUnit(parsing: "min") == .minute)
        #expect(try SalusUnit(parsing: "mi") == .mile)
        #expect(try SalusUnit(parsing: "d") == .day)
        #expect(try SalusUnit(parsing: "kcal") == .kilocalorie)
        #expect(try SalusUnit(parsing: "mmHg") == .millimeterOfMercury)
        #expect(try SalusUnit(parsing: "dL").dimension == .volume)
        #expect(try SalusUnit(parsing: "dam").dimension == .length)
        #expect(try SalusUnit(parsing: "mmol<180.15588>").dimension == .mass)
        #expect(try SalusUnit(parsing: "mol").dimension == .amountOfSubstance)
    }

    @Test(
        "Prefixes scale by powers of ten",
        arguments: Self.prefixesCases)
    func prefixes(text: String, base: String, factor: Double) throws {
        let value = try SalusUnit(parsing: text).convert(1, to: SalusUnit(parsing: base))
        #expect(value == factor)
    }

    @Test("The unknown unit is named with its position")
    func unknownUnit() {
        #expect {
            try SalusUnit(parsing: "fathom")
        } throws: { error in
            let error = error as! UnitError
            return error.code == .unknownUnit && error.position == 0
                && error.message.contains("\"fathom\"") && error.message.contains("position 0")
        }
        #expect {
            try SalusUnit(parsing: "count/fathom")
        } throws: { error in
            let error = error as! UnitError
            return error.code == .unknownUnit && error.position == 6
                && error.message.contains("\"fathom\" at position 6")
        }
    }

    @Test(
        "Malformed strings are refused with a code and a position",
        arguments: Self.malformedCases)
    func malformed(text: String, code: UnitError.Code, position: Int) {
        #expect {
            try SalusUnit(parsing: text)
        } throws: { error in
            let error = error as! UnitError
            return error.code == code && error.position == position && error.text == text
        }
    }

    @Test("Unbalanced parenthesis message says what was expected")
    func unbalancedMessage() throws {
        let error = try #require(throws: UnitError.self) { try SalusUnit(parsing: "kcal/(kg*hr") }
        #expect(
            error.message
                == "unbalanced '(' at position 5 in \"kcal/(kg*hr\"; expected ')' before the end of the unit")
    }

    @Test("An empty string is refused")
    func empty() throws {
        let error = try #require(throws: UnitError.self) { try SalusUnit(parsing: "") }
        #expect(error.code == .emptyUnit)
        #expect(error.description.contains("empty unit string"))
    }

    @Test("Units encode as their canonical string")
    func codable() throws {
        let unit = try SalusUnit(parsing: "kcal/(kg*hr)")
        let data = try JSONEncoder().encode([unit])
        #expect(String(decoding: data, as: UTF8.self) == #"["kcal\/hr·kg"]"#)
        #expect(try JSONDecoder().decode([SalusUnit].self, from: data) == [unit])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([SalusUnit].self, from: Data(#"["fathom"]"#.utf8))
        }
    }

    @Test("Unit arithmetic matches parsing")
    func arithmetic() throws {
        #expect(SalusUnit.count.divided(by: .minute) == (try SalusUnit(parsing: "count/min")))
        #expect(SalusUnit.meter.raised(toPower: 2) == (try SalusUnit(parsing: "m^2")))
        #expect(SalusUnit.second.reciprocal.description == "s^-1")
        let glucose = SalusUnit.mole(prefix: .milli, molarMass: SalusUnit.molarMassBloodGlucose)
        #expect(glucose.divided(by: .liter).description == "mmol<180.1558800000541>/L")
    }
}
