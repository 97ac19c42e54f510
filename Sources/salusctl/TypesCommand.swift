import ArgumentParser
import Foundation
import SalusProto
import SalusRPC

/// `salusctl types`: every registered type with kind, unit, aggregation, area and values;
/// `--kind` and `--area` narrow the list.
struct Types: AdminCommand {
    static let configuration = CommandConfiguration(
        abstract: "List registered data types, workout activity types and metadata keys.",
        discussion: """
            --kind and --area select the types listed; the workout activity types and metadata keys \
            are listed in full. --json prints every field of every entry, defaults included: a raw \
            value of 0 (inBed, notSet) appears as "rawValue": 0 and an absent value as null.
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "List only the types of this kind: \(Types.kindNames.joined(separator: ", ")).", valueName: "kind"))
    var kind: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "List only the types of this area, as their plugins declare it (activity, body, vitals, "
                + "nutrition, symptoms, ...; the table's AREA column).",
            valueName: "area"))
    var area: String?

    func validate() throws {
        if let kind, Self.kind(named: kind) == nil {
            throw ValidationError(
                "unknown kind \"\(kind)\"; expected one of: \(Self.kindNames.joined(separator: ", "))")
        }
    }

    func run(client: RPCClient) async throws {
        let response = try await client.listTypes()
        let selected = try select(response.types)
        if json {
            print(try TypeListingJSON.text(of: response, types: selected))
            return
        }
        var rows = [["IDENTIFIER", "KIND", "UNIT", "AGGREGATION", "AREA", "PLUGIN", "VALUES"]]
        for info in selected {
            let type = info.definition
            var values = type.cases.map { "\($0.name) \($0.rawValue)" }
            values += type.deprecatedAliases.map { "\($0.name) \($0.rawValue) (deprecated)" }
            values += type.valueGroups.map { "\($0.name) {\($0.rawValues.map(String.init).joined(separator: ","))}" }
            if type.characteristicValueType == .date { values.append("date") }
            var flags: [String] = []
            if type.readOnlyForApps { flags.append("read-only") }
            if type.perObjectReadAuthorization { flags.append("per-object read") }
            if !type.requiredMetadataKeys.isEmpty { flags.append("requires " + type.requiredMetadataKeys.map(\.key).joined(separator: ",")) }
            rows.append([
                type.identifier, Self.name(type.kind), type.canonicalUnit.isEmpty ? "-" : type.canonicalUnit,
                Self.name(type.aggregationStyle), type.area.isEmpty ? "-" : type.area, info.pluginID,
                (values + flags.map { "[\($0)]" }).joined(separator: ", "),
            ])
        }
        print(Table.render(rows))
        if kind == nil && area == nil {
            print("\n\(response.types.count) types, \(response.workoutActivityTypes.count) workout activity types, \(response.metadataKeys.count) metadata keys")
            print("workout activity types: " + response.workoutActivityTypes.map { "\($0.definition.name) \($0.definition.rawValue)" }.joined(separator: ", "))
        } else {
            let filters = [kind.map { "kind \($0)" }, area.map { "area \($0)" }].compactMap { $0 }
            print("\n\(selected.count) of \(response.types.count) types (\(filters.joined(separator: ", ")))")
        }
    }

    /// The types `--kind` and `--area` select, in the daemon's order. An area no registered type
    /// declares is an error that lists the areas there are.
    func select(_ types: [Salus_V1_RegisteredTypeInfo]) throws -> [Salus_V1_RegisteredTypeInfo] {
        var selected = types
        if let kind, let wanted = Self.kind(named: kind) {
            selected = selected.filter { $0.definition.kind == wanted }
        }
        if let area {
            let areas = Set(types.map(\.definition.area)).subtracting([""]).sorted()
            guard areas.contains(area) else {
                throw CommandFailure(
                    "unknown area \"\(area)\"; the registered types' areas are: \(areas.joined(separator: ", "))")
            }
            selected = selected.filter { $0.definition.area == area }
        }
        return selected
    }

    /// The names `--kind` accepts, one per object kind, as the table prints them.
    static let kindNames = Salus_V1_ObjectKind.allCases.filter { $0 != .unspecified }.map { name($0) }

    /// The object kind a `--kind` name stands for.
    static func kind(named text: String) -> Salus_V1_ObjectKind? {
        Salus_V1_ObjectKind.allCases.first { $0 != .unspecified && name($0) == text }
    }

    /// "quantity", "visionPrescription": the proto name without its prefix, in lowerCamelCase.
    static func name(_ kind: Salus_V1_ObjectKind) -> String {
        kind == .unspecified ? "-" : lowerCamel(TypeListingJSON.name(kind), dropping: "OBJECT_KIND_")
    }

    /// "cumulative", "discreteArithmetic".
    static func name(_ style: Salus_V1_AggregationStyle) -> String {
        style == .unspecified ? "-" : lowerCamel(TypeListingJSON.name(style), dropping: "AGGREGATION_STYLE_")
    }

    /// `VISION_PRESCRIPTION` → `visionPrescription`, after dropping `prefix`.
    static func lowerCamel(_ protoName: String, dropping prefix: String) -> String {
        let words = protoName.dropFirst(protoName.hasPrefix(prefix) ? prefix.count : 0)
            .split(separator: "_").map { $0.lowercased() }
        guard let first = words.first else { return protoName }
        return first + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
