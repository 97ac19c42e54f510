import Foundation
import SalusModel
import SalusProto
import SalusRPC
import Testing

/// salus.v1.Catalogue: the daemon's unit table and types, for any caller on either socket.
@Suite("Catalogue")
struct CatalogueServiceTests {
    @Test("any app, without a grant, reads the units the daemon knows with their conversions, and the loaded types; the owner reads the same")
    func catalogue() async throws {
        let server = try await ServerHarness.start()
        let stranger = try await server.app("org.example.stranger")
        let catalogue: Salus_V1_CatalogueResponse = try await stranger.unary(SalusMethods.Catalogue.get, request: Salus_V1_CatalogueRequest())
        let units = Dictionary(catalogue.units.map { ($0.unit, $0) }, uniquingKeysWith: { first, _ in first })

        // The units the Python client's own copy refused, as the daemon converts them.
        #expect(units["ml"]?.canonical == "mL")
        #expect(units["ml"]?.referenceUnit == "L" && units["ml"]?.one == 0.001)
        #expect(units["fL"]?.referenceUnit == "L" && units["fL"]?.one == 1e-15)
        #expect(units["µg"]?.canonical == "mcg")
        #expect(units["µg"]?.referenceUnit == "g" && units["µg"]?.one == 1e-6)
        #expect(units["D"]?.dimension == "1/length")
        #expect(units["D"]?.referenceUnit == "D" && units["D"]?.thirtySevenAndAHalf == 37.5)
        #expect(units["degF"]?.referenceUnit == "K")
        #expect(abs((units["degF"]?.thirtySevenAndAHalf ?? 0) - 276.205_555_555_555_6) < 1e-9, "37.5 °F is 3.06 °C")
        #expect(units["min"]?.one == 60, "min is the minute, not milli-inch")
        #expect(units["count/min"]?.referenceUnit == "Hz", "a type's canonical unit is listed too")
        #expect(catalogue.units.count == Set(catalogue.units.map(\.unit)).count, "each unit once")

        let liter = try #require(catalogue.symbols.first { $0.symbol == "L" })
        #expect(liter.otherSpellings == ["l"] && liter.takesPrefix && liter.dimension == ["length": 3])
        #expect(liter.mantissa == 1 && liter.powerOfTen == -3 && liter.scale == .linear)
        let micro = try #require(catalogue.prefixes.first { $0.symbol == "mc" })
        #expect(micro.powerOfTen == -6 && micro.otherSpellings.contains("µ"))
        #expect(catalogue.prefixes.contains { $0.symbol == "f" && $0.powerOfTen == -15 })

        let steps = try #require(catalogue.types.first { $0.identifier == "HKQuantityTypeIdentifierStepCount" })
        #expect(steps.kind == .quantity && steps.canonicalUnit == "count")
        #expect(catalogue.types.map(\.identifier) == catalogue.types.map(\.identifier).sorted())

        let owner = try await server.owner()
        let fromOwner: Salus_V1_CatalogueResponse = try await owner.unary(SalusMethods.Catalogue.get, request: Salus_V1_CatalogueRequest())
        #expect(fromOwner == catalogue)
        await stranger.close()
        await owner.close()
        await server.stop()
    }

    @Test("an app with no permission has unit strings described by the daemon's parser: dimension and conversion, or an error naming the string, what is wrong and what was expected")
    func describeUnits() async throws {
        let server = try await ServerHarness.start()
        let stranger = try await server.app("org.example.stranger")
        let asked = ["µg", "kcal/(kg*hr)", "degF", "degC/min", "dBASPL", "dBASPL/s", "mmol<180.15588>/L", "kmin", "furlong", "m/s/s", ""]
        let response: Salus_V1_DescribeUnitsResponse = try await stranger.unary(
            SalusMethods.Catalogue.describeUnits, request: Salus_V1_DescribeUnitsRequest.with { $0.units = asked })
        #expect(response.units.map(\.unit) == asked, "one description per string, in the order asked")
        let byUnit = Dictionary(response.units.map { ($0.unit, $0) }, uniquingKeysWith: { first, _ in first })

        let micro = try #require(byUnit["µg"]?.meaning)
        #expect(micro.canonical == "mcg" && micro.dimension == ["mass": 1] && micro.dimensionText == "mass")
        #expect(micro.scale == .linear && micro.mantissa == 1 && micro.powerOfTen == -9, "1 µg is 10⁻⁹ kg")
        let rate = try #require(byUnit["kcal/(kg*hr)"]?.meaning)
        #expect(rate.canonical == "kcal/hr·kg" && rate.dimension == ["length": 2, "time": -3])
        #expect(abs(rate.mantissa * pow(10, Double(rate.powerOfTen)) - 4184.0 / 3600) < 1e-12, "W/kg")
        let fahrenheit = try #require(byUnit["degF"]?.meaning)
        #expect(fahrenheit.scale == .temperature && abs(fahrenheit.mantissa - 5.0 / 9) < 1e-15)
        #expect(abs(fahrenheit.offset - (273.15 - 160.0 / 9)) < 1e-9, "0 °F is 255.37 K")
        let interval = try #require(byUnit["degC/min"]?.meaning)
        #expect(interval.scale == .linear && interval.offset == 0, "inside a compound unit a degree is an interval")
        #expect(byUnit["dBASPL"]?.meaning.scale == .soundPressureLevel)
        #expect(byUnit["dBASPL/s"]?.meaning.containsSoundPressureLevel == true)
        #expect(byUnit["mmol<180.15588>/L"]?.meaning.dimension == ["mass": 1, "length": -3])

        let prefixed = try #require(problem(byUnit["kmin"]))
        #expect(prefixed.code == "prefixNotAllowed" && prefixed.message.contains("kmin") && prefixed.position == 0)
        let unknown = try #require(problem(byUnit["furlong"]))
        #expect(unknown.code == "unknownUnit" && unknown.message.contains("\"furlong\"") && !unknown.expected.isEmpty)
        #expect(byUnit["m/s/s"]?.problem.code == "multipleDivisions")
        #expect(byUnit[""]?.problem.code == "emptyUnit" && byUnit[""]?.problem.expected.contains("count/min") == true)

        // Too many strings is refused as a whole, naming the field and the limit.
        do {
            let _: Salus_V1_DescribeUnitsResponse = try await stranger.unary(
                SalusMethods.Catalogue.describeUnits,
                request: Salus_V1_DescribeUnitsRequest.with { $0.units = Array(repeating: "kg", count: 1_025) })
            Issue.record("1,025 unit strings were accepted")
        } catch let error as RPCError {
            #expect(error.code == .invalidArgument && error.detail?.field == "units" && error.detail?.expected == "at most 1024 per call")
        }
        await stranger.close()
        await server.stop()
    }

    private func problem(_ description: Salus_V1_UnitDescription?) -> Salus_V1_UnitProblem? {
        if case .problem(let problem)? = description?.result { problem } else { nil }
    }
}
