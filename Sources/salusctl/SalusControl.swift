import ArgumentParser
import Foundation
import SalusAdmin
import SalusKit
import SalusProto
import SalusRPC

@main
struct SalusControl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salusctl",
        abstract: "The owner's control of the Salus daemon.",
        discussion: """
            salusctl talks to the daemon's admin socket: --admin-socket, else $SALUS_ADMIN_SOCKET, \
            else $XDG_RUNTIME_DIR/salus/admin.sock (or /tmp/salus-<uid>/admin.sock).
            """,
        version: "0.1.0",
        subcommands: [Status.self, Plugins.self, Types.self, Samples.self, Apps.self, Consent.self, Launch.self, Scenario.self, Stats.self, Priority.self, Units.self, Me.self, Summary.self, Import.self, Export.self, Documents.self, Workouts.self, Prescriptions.self, Attach.self, Backup.self, Restore.self, Migrate.self, Setup.self, Report.self, Access.self]
    )
}

/// Options every subcommand takes.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Path of the daemon's admin socket.", valueName: "path"))
    var adminSocket: String?

    var adminSocketPath: String { adminSocket ?? DefaultPaths.adminSocket() }

    func connect() async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        configuration.clientName = "salusctl"
        do {
            return try await RPCClient.connect(unixSocketPath: adminSocketPath, configuration: configuration)
        } catch let error as RPCError {
            let where_ = adminSocket != nil ? "--admin-socket" : ProcessInfo.processInfo.environment["SALUS_ADMIN_SOCKET"] != nil ? "SALUS_ADMIN_SOCKET" : "the default path"
            throw CommandFailure("""
                cannot reach salusd: \(error.message). Start it (make run, or salusctl setup once for \
                socket activation), or point salusctl at its admin socket with --admin-socket or \
                SALUS_ADMIN_SOCKET (this path came from \(where_)).
                """)
        }
    }
}

/// A subcommand that calls the daemon through ``AdminClient``: ``run(admin:)`` gets a client
/// connected to the admin socket, closed when it returns or throws; a refusal of the daemon
/// (``SalusError``) is shown as its message.
protocol OwnerCommand: AsyncParsableCommand {
    var connection: ConnectionOptions { get }
    func run(admin: AdminClient) async throws
}

extension OwnerCommand {
    func run() async throws {
        try await connection.withAdmin { try await run(admin: $0) }
    }
}

extension ConnectionOptions {
    /// Runs `body` with an ``AdminClient`` of the admin socket, closing it afterwards; a
    /// ``SalusError`` becomes a ``CommandFailure`` with its message.
    func withAdmin<T>(_ body: (AdminClient) async throws -> T) async throws -> T {
        let admin = AdminClient(rpc: try await connect())
        do {
            let result = try await body(admin)
            await admin.close()
            return result
        } catch let error as SalusError {
            await admin.close()
            throw CommandFailure(error.message)
        } catch {
            await admin.close()
            throw error
        }
    }
}

/// A failure to show to the person, without a stack of types.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

struct Status: OwnerCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's version, limits and services.")

    @OptionGroup var connection: ConnectionOptions

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    func run(admin: AdminClient) async throws {
        let status = try admin.status()
        if json {
            print(try AdminJSON.text(status: status))
            return
        }
        let limits = status.limits
        print("\(status.serverName) \(status.serverVersion), protocol \(status.protocolVersion)")
        print("admin socket: \(connection.adminSocketPath)")
        print("features: \(status.features.joined(separator: ", "))")
        print("limits: frame \(limits.maxFrameSize) bytes, metadata \(limits.maxMetadataSize) bytes, window \(limits.initialWindow)/\(limits.receiveWindow) messages")
        print("        \(limits.maxConnections) connections, \(limits.maxStreamsPerConnection) calls per connection, "
              + "\(limits.maxPendingRequestsPerApp) authorization requests waiting per app, attachments up to \(limits.maxAttachmentSize / 1_048_576) MiB")
        for service in status.services {
            print("service \(service.name)")
            for method in service.methods {
                let kind = switch (method.clientStreaming, method.serverStreaming) {
                case (false, false): "unary"
                case (false, true): "server streaming"
                case (true, false): "client streaming"
                case (true, true): "bidirectional"
                }
                print("  \(method.name) (\(kind))")
            }
        }
    }
}
