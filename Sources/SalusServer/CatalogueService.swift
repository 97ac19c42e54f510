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
        router.registerUnary(SalusMethods.Catalogue.describeUnits) { (request: Salus_V1_DescribeUnitsRequest, _) in
            try describeUnits(request)
        }
    }

    /// At most this many unit strings per DescribeUnits call, each at most this many bytes.
    static let maxUnitsPerCall = 1_024
    static let maxUnitBytes = 1_024

    /// salus.v1.Catalogue/DescribeUnits: each string parsed by SalusModel's grammar, described
    /// as `UnitTable.describe` gives it, or its parse error.
    static func describeUnits(_ request: Salus_V1_DescribeUnitsRequest) throws(RPCError) -> Salus_V1_DescribeUnitsResponse {
        guard request.units.count <= maxUnitsPerCall else {
            throw .invalidArgument(
                field: "units", value: "\(request.units.count) unit strings", expected: "at most \(maxUnitsPerCall) per call")
        }
        if let index = request.units.firstIndex(where: { $0.utf8.count > maxUnitBytes }) {
            throw .invalidArgument(
                field: "units[\(index)]", value: "\(request.units[index].utf8.count) bytes", expected: "at most \(maxUnitBytes) bytes")
        }
        var response = Salus_V1_DescribeUnitsResponse()
        response.units = request.units.map { text in
            var description = Salus_V1_UnitDescription()
            description.unit = text
            do throws(UnitError) {
                let unit = try SalusUnit(parsing: text)
                let meaning = UnitTable.describe(unit)
                description.meaning = Salus_V1_UnitMeaning.with {
                    $0.canonical = meaning.canonical
                    $0.dimension = meaning.dimension.mapValues { Int32($0) }
                    $0.dimensionText = unit.dimension.description
                    $0.scale = switch meaning.scale {
                    case .linear: .linear
                    case .temperature: .temperature
                    case .soundPressureLevel: .soundPressureLevel
                    }
                    $0.mantissa = meaning.mantissa
                    $0.powerOfTen = Int32(meaning.powerOfTen)
                    $0.offset = meaning.offset
                    $0.containsSoundPressureLevel = meaning.containsSoundPressureLevel
                }
            } catch {
                description.problem = Salus_V1_UnitProblem.with {
                    $0.code = error.code.rawValue
                    $0.message = error.message
                    $0.position = error.position.map { Int32(clamping: $0) } ?? -1
                    if let range = error.message.range(of: "; expected ") {
                        $0.expected = String(error.message[range.upperBound...])
                    } else {
                        $0.expected = "a HealthKit unit string such as \"kg\", \"count/min\" or \"mmol<180.15588>/L\""
                    }
                }
            }
            return description
        }
        return response
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
