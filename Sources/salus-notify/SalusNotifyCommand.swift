import ArgumentParser
import Foundation
import Logging
import SalusNotify
import SalusRPC

/// salus-notify: the owner's consent requests as desktop notifications (a systemd user service).
@main
struct SalusNotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salus-notify",
        abstract: "Show apps' authorization requests as desktop notifications, with Allow, Deny and Review.",
        discussion: """
            Follows the requests on salusd's admin socket (as salusctl consent watch does) and shows each \
            through the desktop's notification server (org.freedesktop.Notifications on the session bus \
            that DBUS_SESSION_BUS_ADDRESS names). Allow grants everything the request asks, Deny grants \
            nothing, Review opens salusctl consent watch in a terminal (xdg-terminal-exec, else \
            x-terminal-emulator). Without a session bus it keeps following and logs that once; when salusd \
            restarts it connects again. Enable it with: systemctl --user enable --now salus-notify.service
            """)

    @Option(name: .long, help: ArgumentHelp("Path of the daemon's admin socket.", valueName: "path"))
    var adminSocket: String?

    @Option(name: .long, help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level: '\(logLevel)' is not a level; expected trace, debug, info, notice, warning, error or critical")
        }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel)!
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "salus-notify")
        let environment = ProcessInfo.processInfo.environment
        let socket = adminSocket ?? DefaultPaths.adminSocket()
        let review = ReviewTerminal.command(
            ReviewTerminal.watchCommand(adminSocket: adminSocket, executable: DefaultPaths.currentExecutable(), path: environment["PATH"] ?? ""),
            path: environment["PATH"] ?? "")
        var options = ConsentNotifier.Options(
            busAddress: environment["DBUS_SESSION_BUS_ADDRESS"],
            connect: {
                var configuration = RPCClient.Configuration()
                configuration.clientName = "salus-notify"
                return try await RPCClient.connect(unixSocketPath: socket, configuration: configuration)
            },
            openReview: { ReviewTerminal.open(review, logger: logger) })
        options.maximumRetryDelay = .seconds(5)
        await ConsentNotifier(options: options, logger: logger).run()
    }
}
