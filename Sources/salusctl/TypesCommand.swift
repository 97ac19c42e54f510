import ArgumentParser
import Foundation
import SalusAdmin
import SalusModel

/// `salusctl types`: every registered type with kind, unit, aggregation, area and values;
/// `--kind` and `--area` narrow the list.
struct Types: OwnerCommand {
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

    func run(admin: AdminClient) async throws {
        let listing = try await admin.types()
        let selected = try select(listing.types)
        if json {
            print(try AdminJSON.text(types: selected, of: listing))
            return
        }
        var rows = [["IDENTIFIER", "KIND", "UNIT", "AGGREGATION", "AREA", "PLUGIN", "VALUES"]]
        for type in selected {
            var values = type.cases.map { "\($0.name) \($0.rawValue)" }
            values += type.deprecatedAliases.map { "\($0.name) \($0.rawValue) (deprecated)" }
            values += type.valueGroups.map { "\($0.name) {\($0.rawValues.map(String.init).joined(separator: ","))}" }
            if type.characteristicValue == .date { values.append("date") }
            var flags: [String] = []
            if type.readOnlyForApps { flags.append("read-only") }
            if type.perObjectReadAuthorization { flags.append("per-object read") }
            if !type.requiredMetadataKeys.isEmpty { flags.append("requires " + type.requiredMetadataKeys.map(\.key).joined(separator: ",")) }
            rows.append([
                type.identifier, type.kind?.rawValue ?? "-", type.canonicalUnit.isEmpty ? "-" : type.canonicalUnit,
                type.aggregation?.rawValue ?? "-", type.area.isEmpty ? "-" : type.area, type.pluginID,
                (values + flags.map { "[\($0)]" }).joined(separator: ", "),
            ])
        }
        print(Table.render(rows))
        if kind == nil && area == nil {
            print("\n\(listing.types.count) types, \(listing.workoutActivityTypes.count) workout activity types, \(listing.metadataKeys.count) metadata keys")
            print("workout activity types: " + listing.workoutActivityTypes.map { "\($0.name) \($0.rawValue)" }.joined(separator: ", "))
        } else {
            let filters = [kind.map { "kind \($0)" }, area.map { "area \($0)" }].compactMap { $0 }
            print("\n\(selected.count) of \(listing.types.count) types (\(filters.joined(separator: ", ")))")
        }
    }

    /// The types `--kind` and `--area` select, in the daemon's order. An area no registered type
    /// declares is an error that lists the areas there are.
    func select(_ types: [RegisteredType]) throws -> [RegisteredType] {
        var selected = types
        if let kind, let wanted = Self.kind(named: kind) {
            selected = selected.filter { $0.kind == wanted }
        }
        if let area {
            let areas = Set(types.map(\.area)).subtracting([""]).sorted()
            guard areas.contains(area) else {
                throw CommandFailure(
                    "unknown area \"\(area)\"; the registered types' areas are: \(areas.joined(separator: ", "))")
            }
            selected = selected.filter { $0.area == area }
        }
        return selected
    }

    /// The names `--kind` accepts, one per object kind, as the table prints them.
    static let kindNames = ObjectKind.allCases.map(\.rawValue)

    /// The object kind a `--kind` name stands for.
    static func kind(named text: String) -> ObjectKind? {
        ObjectKind(rawValue: text)
    }
}
