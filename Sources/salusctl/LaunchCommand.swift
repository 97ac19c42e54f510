#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import Foundation
import SalusProto
import SalusRPC
import SalusSpawn

/// `salusctl launch --app ID -- COMMAND…`: runs an app with its own socket, so that the daemon
/// knows which app is calling from the socket, not from what the app says.
struct Launch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a command as a registered app, through the app's own socket.",
        discussion: """
            Asks the daemon (admin socket) for the app's socket, then runs COMMAND in place of \
            salusctl with SALUS_SOCKET set to it; every call through that socket is the app. \
            Example: salusctl launch --app org.example.sleepdiary -- sleepdiary demo
            """
    )

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: ArgumentHelp("The registered app id the command runs as.", valueName: "app-id"))
    var app: String

    @Argument(parsing: .captureForPassthrough, help: ArgumentHelp("The command and its arguments.", valueName: "command"))
    var command: [String] = []

    func run() async throws {
        var arguments = command
        if arguments.first == "--" { arguments.removeFirst() }
        guard let program = arguments.first else {
            throw CommandFailure("COMMAND: missing; expected the app's command after --, as in salusctl launch --app \(app) -- sleepdiary demo")
        }
        var request = Salus_V1_AppRequest()
        request.appID = app
        let endpoint: Salus_V1_AppEndpoint = try await connection.withClient {
            try await ConsentCalls.call($0, SalusMethods.Consent.createAppEndpoint, request)
        }
        setenv("SALUS_SOCKET", endpoint.socketPath, 1)
        setenv("SALUS_APP_ID", app, 1)
        let failure = Exec.replaceProcess(program: program, arguments: arguments)
        throw CommandFailure("cannot run \(program): \(String(cString: strerror(failure)))")
    }
}
