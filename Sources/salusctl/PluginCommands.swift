import ArgumentParser
import Foundation
import SalusProto
import SalusRPC
import SwiftProtobuf

/// `salusctl plugins`: the loaded plugins with versions and paths, and the refused ones with
/// their reasons.
struct Plugins: AdminCommand {
    static let configuration = CommandConfiguration(abstract: "List loaded and refused plugins.")

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    func run(client: RPCClient) async throws {
        let response: Salus_V1_ListPluginsResponse = try await client.unary(
            SalusMethods.Admin.listPlugins, request: Salus_V1_ListPluginsRequest())
        if json {
            print(try response.jsonString(options: jsonOptions))
            return
        }
        print("plugin directories: \(response.directories.isEmpty ? "(none)" : response.directories.joined(separator: ", "))")
        var rows = [["ID", "VERSION", "ABI", "TYPES", "VALIDATOR", "PATH"]]
        for plugin in response.loaded {
            rows.append([
                plugin.id + (plugin.bundled ? " (bundled)" : ""), plugin.version, "\(plugin.abiMajor).\(plugin.abiMinor)",
                "\(plugin.typeIdentifiers.count)", plugin.hasValidator_p ? "yes" : "no", plugin.path,
            ])
        }
        print(Table.render(rows))
        if !response.refused.isEmpty {
            print("\nrefused:")
            for plugin in response.refused {
                print("  \(plugin.path): [\(plugin.code)] \(plugin.reason)")
            }
        }
    }
}

/// `salusctl types`: every registered type with kind, unit, aggregation and values.
struct Types: AdminCommand {
    static let configuration = CommandConfiguration(abstract: "List registered data types, workout activity types and metadata keys.")

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    func run(client: RPCClient) async throws {
        let response = try await client.listTypes()
        if json {
            print(try response.jsonString(options: jsonOptions))
            return
        }
        var rows = [["IDENTIFIER", "KIND", "UNIT", "AGGREGATION", "PLUGIN", "VALUES"]]
        for info in response.types {
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
                Self.name(type.aggregationStyle), info.pluginID,
                (values + flags.map { "[\($0)]" }).joined(separator: ", "),
            ])
        }
        print(Table.render(rows))
        print("\n\(response.types.count) types, \(response.workoutActivityTypes.count) workout activity types, \(response.metadataKeys.count) metadata keys")
        print("workout activity types: " + response.workoutActivityTypes.map { "\($0.definition.name) \($0.definition.rawValue)" }.joined(separator: ", "))
    }

    static func name(_ kind: Salus_V1_ObjectKind) -> String {
        switch kind {
        case .quantity: "quantity"
        case .category: "category"
        case .characteristic: "characteristic"
        case .workout: "workout"
        case .visionPrescription: "visionPrescription"
        case .document: "document"
        case .correlation: "correlation"
        case .unspecified, .UNRECOGNIZED: "-"
        }
    }

    static func name(_ style: Salus_V1_AggregationStyle) -> String {
        switch style {
        case .cumulative: "cumulative"
        case .discreteArithmetic: "discreteArithmetic"
        case .discreteTemporallyWeighted: "discreteTemporallyWeighted"
        case .discreteEquivalentContinuousLevel: "discreteEquivalentContinuousLevel"
        case .unspecified, .UNRECOGNIZED: "-"
        }
    }
}

/// The responses' proto3 JSON mapping, with raw values as numbers. As in every proto3 JSON, a
/// field at its zero value is omitted: a case without "rawValue" has raw value 0 (inBed, notSet).
let jsonOptions: JSONEncodingOptions = {
    var options = JSONEncodingOptions()
    options.alwaysPrintInt64sAsNumbers = true
    return options
}()

/// Left-aligned columns separated by two spaces.
enum Table {
    static func render(_ rows: [[String]]) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() where index < columns - 1 {
                widths[index] = max(widths[index], cell.count)
            }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
