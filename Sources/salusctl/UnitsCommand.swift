import ArgumentParser
import Foundation
import SalusAdmin

/// `salusctl units`: the owner's preferred unit per quantity type, which statistics use when
/// a request names no unit and which apps read to show values.
struct Units: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or set the units you prefer (km or mi, kcal or kJ, degC or degF).",
        subcommands: [Show.self, Set.self, Clear.self, List.self]
    )

    /// `salusctl units show [TYPE...]`.
    struct Show: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the unit of each type; without a type, the types you chose a unit for.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("Quantity types: identifiers or short names.", valueName: "type"))
        var types: [String] = []

        func run(admin: AdminClient) async throws {
            var identifiers: [String] = []
            for type in types { identifiers.append(try await admin.sampleTypeIdentifier(for: type)) }
            let response = try await admin.preferredUnits(of: identifiers)
            if response.isEmpty {
                Swift.print("no preferred units: every type shows in its canonical unit")
                return
            }
            Units.print(response)
        }
    }

    /// `salusctl units set TYPE UNIT`.
    struct Set: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "Set the unit a type is shown in.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The quantity type: identifier or short name.", valueName: "type"))
        var type: String

        @Argument(help: ArgumentHelp("A unit of the type's dimension, like km, mi, kcal or degF.", valueName: "unit"))
        var unit: String

        func run(admin: AdminClient) async throws {
            try await Units.set(type, unit: unit, admin: admin)
        }
    }

    /// `salusctl units clear TYPE`.
    struct Clear: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "Go back to the type's canonical unit.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The quantity type: identifier or short name.", valueName: "type"))
        var type: String

        func run(admin: AdminClient) async throws {
            try await Units.set(type, unit: nil, admin: admin)
        }
    }

    /// `salusctl units list [--json]`: every unit the daemon knows by name (and the canonical
    /// unit of every quantity type), with its dimension and the daemon's conversion of 1 and
    /// 37.5 of it to the reference unit of that dimension: salus.v1.Catalogue/Get, the table
    /// clients convert with.
    struct List: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the units the daemon knows, with their dimension and conversion.")

        @OptionGroup var connection: ConnectionOptions

        @Flag(name: .long, help: "Print the whole catalogue as JSON (salus.v1.CatalogueResponse, types included).")
        var json = false

        func run(admin: AdminClient) async throws {
            let catalogue = try await admin.unitCatalogue()
            if json {
                Swift.print(try AdminJSON.text(catalogue: catalogue))
                return
            }
            var rows = [["unit", "dimension", "1 is", "37.5 is"]]
            for unit in catalogue.units {
                rows.append([
                    unit.unit == unit.canonical ? unit.unit : "\(unit.unit) (\(unit.canonical))", unit.dimension,
                    "\(unit.one) \(unit.referenceUnit)", "\(unit.thirtySevenAndAHalf) \(unit.referenceUnit)",
                ])
            }
            Swift.print(Table.render(rows))
        }
    }

    static func set(_ type: String, unit: String?, admin: AdminClient) async throws {
        Units.print(try await admin.setPreferredUnit(unit, of: try await admin.sampleTypeIdentifier(for: type)))
    }

    static func print(_ units: [PreferredUnit]) {
        for unit in units {
            Swift.print("\(unit.type)  \(unit.unit)\(unit.isOwnerSet ? "" : "  (canonical)")")
        }
    }
}
