import ArgumentParser
import Foundation
import SalusAdmin

/// `salusctl priority`: the owner's source priority per type, which merged statistics follow.
struct Priority: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or set which apps win when several recorded the same time.",
        subcommands: [Show.self, Set.self]
    )

    /// `salusctl priority show TYPE`.
    struct Show: OwnerCommand {
        static let configuration = CommandConfiguration(abstract: "Show the source priority of a type, highest first.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The quantity type: identifier or short name.", valueName: "type"))
        var type: String

        func run(admin: AdminClient) async throws {
            Priority.print(try await admin.sourcePriority(of: try await admin.sampleTypeIdentifier(for: type)))
        }
    }

    /// `salusctl priority set TYPE SOURCE...`.
    struct Set: OwnerCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the source priority of a type, highest first; no source clears it.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The quantity type: identifier or short name.", valueName: "type"))
        var type: String

        @Argument(help: ArgumentHelp("App ids, highest priority first.", valueName: "source"))
        var sources: [String] = []

        func run(admin: AdminClient) async throws {
            Priority.print(try await admin.setSourcePriority(sources, of: try await admin.sampleTypeIdentifier(for: type)))
        }
    }

    static func print(_ priority: SourcePriority) {
        if priority.sources.isEmpty {
            Swift.print("\(priority.type): no source priority (the most recently saved sample wins an overlap)")
            return
        }
        Swift.print("\(priority.type), highest first:")
        for (index, source) in priority.sources.enumerated() { Swift.print("  \(index + 1). \(source)") }
        Swift.print("  (other sources rank below these)")
    }
}
