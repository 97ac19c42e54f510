import ArgumentParser
import Foundation
import SalusProto
import SalusRPC

/// `salusctl priority`: the owner's source priority per type, which merged statistics follow.
struct Priority: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or set which apps win when several recorded the same time.",
        subcommands: [Show.self, Set.self]
    )

    /// `salusctl priority show TYPE`.
    struct Show: AdminCommand {
        static let configuration = CommandConfiguration(abstract: "Show the source priority of a type, highest first.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The quantity type: identifier or short name.", valueName: "type"))
        var type: String

        func run(client: RPCClient) async throws {
            let identifier = try await Priority.resolve(type, client: client)
            var request = Salus_V1_SourcePriorityRequest()
            request.type = identifier
            let response: Salus_V1_SourcePriority = try await client.unary(
                SalusMethods.Statistics.getSourcePriority, request: request)
            Priority.print(response)
        }
    }

    /// `salusctl priority set TYPE SOURCE...`.
    struct Set: AdminCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set the source priority of a type, highest first; no source clears it.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: ArgumentHelp("The quantity type: identifier or short name.", valueName: "type"))
        var type: String

        @Argument(help: ArgumentHelp("App ids, highest priority first.", valueName: "source"))
        var sources: [String] = []

        func run(client: RPCClient) async throws {
            let identifier = try await Priority.resolve(type, client: client)
            var request = Salus_V1_SourcePriority()
            request.type = identifier
            request.sources = sources
            let response: Salus_V1_SourcePriority = try await client.unary(
                SalusMethods.Statistics.setSourcePriority, request: request)
            Priority.print(response)
        }
    }

    static func resolve(_ name: String, client: RPCClient) async throws -> String {
        let types = try await client.listTypes()
        return try Registry(types).resolve(name).identifier
    }

    static func print(_ priority: Salus_V1_SourcePriority) {
        if priority.sources.isEmpty {
            Swift.print("\(priority.type): no source priority (the most recently saved sample wins an overlap)")
            return
        }
        Swift.print("\(priority.type), highest first:")
        for (index, source) in priority.sources.enumerated() { Swift.print("  \(index + 1). \(source)") }
        Swift.print("  (other sources rank below these)")
    }
}
