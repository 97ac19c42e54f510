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
}
