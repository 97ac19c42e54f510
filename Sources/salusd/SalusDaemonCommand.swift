#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import Foundation
import Logging
import SalusPluginHost
import SalusRPC
import SalusServer

@main
struct SalusDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salusd",
        abstract: "The Salus health-data daemon: stores one person's samples and serves apps over Unix sockets.",
        discussion: """
            Sockets default to $XDG_RUNTIME_DIR/salus/ (else /tmp/salus-<uid>/), data to \
            $XDG_DATA_HOME/salus/ (else ~/.local/share/salus/). SIGTERM or SIGINT: GoAway to \
            clients, calls in flight finish, exit 0. Started by systemd (salusd.socket), it \
            serves the sockets passed in LISTEN_FDS (named app and admin, or bound to \
            salus.sock and admin.sock), sends READY=1 to NOTIFY_SOCKET and logs to the journal.
            """,
        version: SalusDaemon.version
    )

    @Option(name: .long, help: ArgumentHelp("Folder of the database.", valueName: "dir"))
    var dataDir: String?

    @Option(name: .long, help: ArgumentHelp("Path of the app socket.", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Path of the admin socket (owner only).", valueName: "path"))
    var adminSocket: String?

    @Option(name: .long, help: ArgumentHelp(
        "A folder of plugins (*.so) to load; repeatable. Default: <prefix>/lib/salus/plugins beside <prefix>/bin/salusd, when it exists.",
        valueName: "dir"))
    var pluginsDir: [String] = []

    @Option(name: .long, help: ArgumentHelp("A group allowed to use the app socket (mode 0660).", valueName: "group"))
    var socketGroup: String?

    @Option(name: .long, help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String = "info"

    @Flag(name: .long, help: "Development mode: accept app ids that clients declare in Hello, marked unverified.")
    var dev = false

    @Option(name: .long, help: ArgumentHelp("enforce (default) or open: every app may read and write every type (needs --dev).", valueName: "mode"))
    var authorization: String = "enforce"

    @Option(name: .long, help: ArgumentHelp("Seconds calls in flight may take to finish on shutdown.", valueName: "seconds"))
    var drainTimeout: Double = 10

    @Option(name: .long, help: ArgumentHelp("How long deletions are kept for anchored queries: 30d, 12h, 90m, 45s or seconds.", valueName: "duration"))
    var tombstoneRetention: String = "30d"

    @Option(name: .long, help: ArgumentHelp("How often expired deletions are purged: 1h (default), 90m, 45s or seconds.", valueName: "duration"))
    var tombstonePurgeInterval: String = "1h"

    @Option(name: .long, help: ArgumentHelp("The largest attachment accepted, in MiB (reported in Hello's limits).", valueName: "MiB"))
    var maxAttachmentSize: Int = 100

    @Option(name: .long, help: ArgumentHelp("Connections of apps open at once over every socket.", valueName: "count"))
    var maxConnections: Int = ClientLimits().maxConnections

    @Option(name: .long, help: ArgumentHelp("Connections one app keeps open at once.", valueName: "count"))
    var maxConnectionsPerApp: Int = ClientLimits().maxConnectionsPerApp

    @Option(name: .long, help: ArgumentHelp("Calls one app has open at once over all its connections.", valueName: "count"))
    var maxCallsPerApp: Int = ClientLimits().maxCallsPerApp

    @Option(name: .long, help: ArgumentHelp(
        "MiB buffered for one app's calls at once: unread requests, gathered input (a route's locations), unread responses.",
        valueName: "MiB"))
    var maxBufferedPerApp: Int = ClientLimits().maxBufferedBytesPerApp / (1024 * 1024)

    @Option(name: .long, help: ArgumentHelp("Connections of the owner's admin socket open at once (a reserve apps never use).", valueName: "count"))
    var maxOwnerConnections: Int = ClientLimits().maxOwnerConnections

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp(
        "Check the plugins (*.so) in these folders, print what would load and why anything would not, and exit (1 if anything was refused).",
        valueName: "dir"))
    var checkPlugins: [String] = []

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level: '\(logLevel)' is not a level; expected one of trace, debug, info, notice, warning, error, critical")
        }
        guard authorization == "enforce" || authorization == "open" else {
            throw ValidationError("--authorization: '\(authorization)' is not a mode; expected enforce or open")
        }
        if authorization == "open" && !dev {
            throw ValidationError("--authorization open: only a development daemon may skip authorization; add --dev")
        }
        guard drainTimeout >= 0, drainTimeout <= 86_400 else {
            throw ValidationError("--drain-timeout: '\(drainTimeout)' must be a number of seconds from 0 to 86400")
        }
        guard (1...1_048_576).contains(maxAttachmentSize) else {
            throw ValidationError("--max-attachment-size: '\(maxAttachmentSize)' is not a size; expected 1 to 1048576 MiB")
        }
        for (flag, value) in [
            ("--max-connections", maxConnections), ("--max-connections-per-app", maxConnectionsPerApp),
            ("--max-calls-per-app", maxCallsPerApp), ("--max-owner-connections", maxOwnerConnections),
        ] where !(1...1_000_000).contains(value) {
            throw ValidationError("\(flag): '\(value)' is not a count; expected 1 to 1000000")
        }
        guard (1...65_536).contains(maxBufferedPerApp) else {
            throw ValidationError("--max-buffered-per-app: '\(maxBufferedPerApp)' is not a size; expected 1 to 65536 MiB")
        }
        guard Self.duration(tombstonePurgeInterval) != nil else {
            throw ValidationError("--tombstone-purge-interval: '\(tombstonePurgeInterval)' is not a duration; expected a positive number with d, h, m or s (1h, 90m, 45s)")
        }
        guard Self.duration(tombstoneRetention) != nil else {
            throw ValidationError("--tombstone-retention: '\(tombstoneRetention)' is not a duration; expected a positive number with d, h, m or s (30d, 12h, 90m, 45s)")
        }
    }

    /// "30d", "12h", "90m", "45s" or plain seconds; nil when not a positive duration of at
    /// most 100 years (a larger one would not fit the milliseconds of a `Duration`'s count).
    static func duration(_ text: String) -> Duration? {
        let units: [Character: Double] = ["d": 86_400, "h": 3_600, "m": 60, "s": 1]
        var number = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            number = text.dropLast()
            scale = unit
        }
        guard let value = Double(number), value.isFinite, value > 0, value * scale <= 100 * 365 * 86_400 else { return nil }
        return .milliseconds(Int64(value * scale * 1000))
    }

    /// ArgumentParser's entry point, after one thing: the malloc arena limit, set before any other
    /// thread is started (MallocArenas says why). Set in `run()`, it came after the concurrency
    /// pool's threads had made a second arena, which glibc keeps using: salusd's peak in the FIT
    /// folder import was 64.3 MiB with the limit set there, 61.6-62.1 with `MALLOC_ARENA_MAX=1`.
    static func main() async {
        MallocArenas.limit(environment: ProcessInfo.processInfo.environment)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    func run() async throws {
        if !checkPlugins.isEmpty {
            let report = PluginHost.check(directories: checkPlugins)
            print(report.summary)
            if !report.isClean { throw ExitCode(1) }
            return
        }
        // Sockets, the database and everything else the daemon creates are the owner's only.
        umask(0o077)
        let level = Logger.Level(rawValue: logLevel)!
        // Under systemd (stderr is the journal stream): structured entries through the journal's
        // native socket, else priority-prefixed lines on stderr.
        let journal = JournalSocket.standardErrorIsJournal()
        let journalSocket = journal ? JournalSocket() : nil
        LoggingSystem.bootstrap { label in
            if let journalSocket { return JournalNativeLogHandler(label: label, logLevel: level, socket: journalSocket) }
            if journal { return JournalLogHandler(label: label, logLevel: level) }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "salusd")

        var group: gid_t?
        if let socketGroup {
            if let number = gid_t(socketGroup) {
                group = number
            } else if let entry = getgrnam(socketGroup) {
                group = entry.pointee.gr_gid
            } else {
                throw ValidationError("--socket-group: no group named '\(socketGroup)'")
            }
        }
        var configuration = DaemonConfiguration(
            dataDirectory: dataDir ?? DefaultPaths.dataDirectory(),
            socketPath: socket ?? DefaultPaths.runtimeDirectory() + "/salus.sock",
            adminSocketPath: adminSocket ?? DefaultPaths.runtimeDirectory() + "/admin.sock",
            pluginDirectories: pluginsDir.isEmpty ? DefaultPaths.pluginDirectories(executable: DefaultPaths.currentExecutable()) : pluginsDir,
            socketGroup: group,
            developmentMode: dev,
            drainTimeout: .milliseconds(Int(drainTimeout * 1000)),
            tombstoneRetention: Self.duration(tombstoneRetention)!
        )
        configuration.openAuthorization = authorization == "open"
        configuration.tombstonePurgeInterval = Self.duration(tombstonePurgeInterval)!
        do {
            if let activated = try Systemd.takeActivatedSockets() {
                configuration.activatedSockets = activated
                // Per-app sockets go beside the app socket, wherever systemd bound it.
                if socket == nil, let path = Systemd.boundPath(of: activated.app) { configuration.socketPath = path }
                if adminSocket == nil, let path = Systemd.boundPath(of: activated.admin) { configuration.adminSocketPath = path }
            }
        } catch let error as DaemonError {
            logger.critical("\(error.description)")
            throw ExitCode(1)
        }
        configuration.maxAttachmentSize = Int64(maxAttachmentSize) * 1024 * 1024
        configuration.limits.maxConnections = maxConnections
        configuration.limits.maxConnectionsPerApp = maxConnectionsPerApp
        configuration.limits.maxCallsPerApp = maxCallsPerApp
        configuration.limits.maxBufferedBytesPerApp = maxBufferedPerApp * 1024 * 1024
        configuration.limits.maxOwnerConnections = maxOwnerConnections
        let daemon = SalusDaemon(configuration: configuration, logger: logger) { report in
            FileHandle.standardOutput.write(Data((report + "\n").utf8))
            Systemd.notify("READY=1")
        }
        do {
            try await daemon.run()
            // Everything the daemon owns is closed by now: the listeners drained and removed
            // their sockets, the store closed and stamped its files, the authorization decisions
            // were written. The process ends here, without exit(3): exit runs the libraries'
            // destructors (libxml2's xmlCleanupParser, once anything parsed XML; libstdc++'s
            // and ICU's static objects) on this thread while Dispatch and NIO threads still run,
            // and a task may still be releasing the services' objects (seen under gdb: the
            // authorization engine's type registry freed on a worker thread as exit began).
            // A destructor racing a thread that still uses its library is a crash after
            // "stopped" (docs/reliability.md, "A stop is a clean exit").
            fflush(nil)
            _exit(0)
        } catch let error as DaemonError {
            logger.critical("\(error.description)")
            throw ExitCode(1)
        } catch let error as RPCError {
            logger.critical("\(error.message)")
            throw ExitCode(1)
        }
    }
}
