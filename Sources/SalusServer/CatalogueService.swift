import SalusModel
import SalusPluginHost
import SalusProto
import SalusRPC

/// salus.v1.Catalogue/Get: the daemon's unit table and its loaded types, for clients that
/// convert units or resolve short type names with the daemon's own tables (the Python client).
/// Reference information, not health data: registered on both sockets, answered to any caller
/// without Hello or permission. The answer is built once (the registry is frozen after start).
package enum CatalogueService {
    /// Adds the method to `router`.
    package static func register(into router: inout RPCRouter, registry: TypeRegistry) {
        let catalogue = Self.response(registry)
        router.registerUnary(SalusMethods.Catalogue.get) { (_: Salus_V1_CatalogueRequest, _) -> Salus_V1_CatalogueResponse in
            catalogue
        }
    }

    static func response(_ registry: TypeRegistry) -> Salus_V1_CatalogueResponse {
        var response = Salus_V1_CatalogueResponse()
        response.symbols = UnitTable.symbols.map { symbol in
            Salus_V1_UnitSymbol.with {
                $0.symbol = symbol.symbol
                $0.otherSpellings = symbol.otherSpellings
                $0.dimension = symbol.dimension.mapValues { Int32($0) }
                $0.scale = switch symbol.scale {
                case .linear: .linear
                case .temperature: .temperature
                case .soundPressureLevel: .soundPressureLevel
                }
                $0.mantissa = symbol.mantissa
                $0.powerOfTen = Int32(symbol.powerOfTen)
                $0.offset = symbol.offset
                $0.takesPrefix = symbol.takesPrefix
            }
        }
        response.prefixes = UnitTable.prefixes.map { prefix in
            Salus_V1_UnitPrefix.with {
                $0.symbol = prefix.symbol
                $0.otherSpellings = prefix.otherSpellings
                $0.powerOfTen = Int32(prefix.powerOfTen)
            }
        }
        let types = registry.sortedTypes
        var seen = Set<String>()
        let named = UnitTable.namedUnits
        let canonical = types.filter { $0.kind == .quantity }.map(\.canonicalUnitText)
        for text in named + canonical where seen.insert(text).inserted {
            guard let conversion = conversion(text) else { continue }
            response.units.append(conversion)
        }
        response.types = types.map(TypesService.definition)
        return response
    }

    /// The daemon's conversion of `text` to its dimension's reference unit; nil for a unit that
    /// does not parse (a plugin's canonical unit always does).
    static func conversion(_ text: String) -> Salus_V1_UnitConversion? {
        guard let unit = try? SalusUnit(parsing: text) else { return nil }
        let reference = UnitTable.referenceUnit(for: unit)
        guard let one = try? unit.convert(1, to: reference), let more = try? unit.convert(37.5, to: reference) else { return nil }
        return Salus_V1_UnitConversion.with {
            $0.unit = text
            $0.canonical = unit.description
            $0.dimension = unit.dimension.description
            $0.referenceUnit = reference.description
            $0.one = one
            $0.thirtySevenAndAHalf = more
        }
    }
}
