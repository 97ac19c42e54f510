import ArgumentParser
import Foundation
import Logging
import SalusKit
import SalusSync

#if canImport(Glibc)
import Glibc
#endif

/// `salus-sync`: mirrors the person's store to PostgreSQL and saves the server's inbox back.
@main
struct SalusSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "salus-sync",
        abstract: "Mirror the store's granted types to PostgreSQL, and the server's inbox back.",
        discussion: """
            An app like any other: register it (salusctl apps add org.salus.sync ...), grant it the \
            types, and start it with salusctl launch --app org.salus.sync -- salus-sync run .... \
            Each of the person's machines runs it against the same server with its own --origin; \
            made the store's sync agent (salusctl apps sync-agent org.salus.sync), it also brings \
            the other machines' samples and deletions into this store. \
            The connection string never comes from the command line (every user sees it in ps). \
            Give --database-file PATH, a file only you may read (chmod 600; a file that its group \
            or others may read is refused); or, under systemd, the credential \(DatabaseSettings.credentialName) \
            (LoadCredential=\(DatabaseSettings.credentialName):PATH, read from $\(DatabaseSettings.credentialsDirectoryVariable)). \
            \(DatabaseSettings.environmentVariable) is read last, and only as a fallback: a process's environment \
            is readable through ps e and /proc/PID/environ by your other processes and by root, and is \
            passed to every child. The string is a URL, \
            postgresql://user@host/db?sslmode=verify-full&sslrootcert=ca.pem, or key=value pairs \
            (host=/run/postgresql dbname=care). Without user=, the user is the one salus-sync runs as \
            (its effective user id's name, as libpq's; not $USER, and never postgres), and without \
            dbname=, the database of that name. \
            A configuration that cannot work (a bad option or connection string; the server refusing \
            the password, the role, the database or a permission) stops run with exit status 64 and \
            its reason on one line; anything else (the server or the daemon away) is retried. \
            status exits 0 when the server and the store answered, 69 when one could not be asked \
            (the lag is still counted, from the status file), 64 when the server refuses the string.
            """,
        subcommands: [Run.self, Status.self, Bench.self],
        defaultSubcommand: Run.self
    )
}

/// Where the server and the store are, and who this app is: every subcommand's.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "A file holding the PostgreSQL connection string, mode 0600 (preferred to \(DatabaseSettings.environmentVariable), which other processes can read).",
        valueName: "path"))
    var databaseFile: String?

    @Option(name: .long, help: ArgumentHelp("The daemon's app socket (default: SALUS_SOCKET, as salusctl launch sets it).", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("The app id declared to a daemon in development mode (default: SALUS_APP_ID, else org.salus.sync).", valueName: "app-id"))
    var appID: String = ProcessInfo.processInfo.environment["SALUS_APP_ID"] ?? "org.salus.sync"

    /// The server's settings, from the file or the environment.
    func database() throws -> DatabaseSettings {
        do {
            return try DatabaseSettings.load(file: databaseFile)
        } catch {
            throw stop(error)
        }
    }
}

/// What `run` and `status` need: the feed, the server and the store.
struct FeedOptions: ParsableArguments {
    @Option(name: .long, help: "The person's id on the server (the same on each of the person's machines).")
    var person: String

    @Option(name: .long, help: "This store's name among the person's machines (default: the host name).")
    var origin: String = ProcessInfo.processInfo.hostName

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp(
        "The types to sync (identifiers). A type added later is sent from the start of its history; a type left out keeps its rows on the server as they were.",
        valueName: "type"))
    var types: [String]

    @Option(name: .long, help: ArgumentHelp("The status file (default: $XDG_STATE_HOME/salus-sync/PERSON@ORIGIN.json).", valueName: "path"))
    var statusFile: String?

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if person.isEmpty { throw ValidationError("--person: empty; expected the person's id on the server") }
        if types.isEmpty { throw ValidationError("--types: none given; expected at least one type identifier") }
    }

    var syncOptions: SyncOptions {
        var options = SyncOptions(person: person, origin: origin, types: types.map { SampleType($0) })
        options.statusFile = statusFile ?? SyncStatus.defaultPath(person: person, origin: origin)
        return options
    }

}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow the store's changes and the server's inbox until stopped (SIGTERM, SIGINT).")

    @OptionGroup var feed: FeedOptions

    @Option(name: .long, help: "Changes per PostgreSQL transaction while catching up.")
    var batchSize: Int = 2_000

    @Option(name: .long, help: ArgumentHelp("How often the inbox and the app's access are looked at, in milliseconds.", valueName: "ms"))
    var pollInterval: Int = 1_000

    @Option(name: .long, help: ArgumentHelp("The longest wait between reconnections, in milliseconds.", valueName: "ms"))
    var maximumBackoff: Int = 30_000

    @Flag(name: .long, help: "Do not save the server's inbox into the store.")
    var noInbox = false

    @Flag(name: .long, help: "Do not bring the person's other machines' samples and deletions into this store (it needs the app to be the store's sync agent: salusctl apps sync-agent).")
    var noPull = false

    @Option(name: .long, help: ArgumentHelp("Log level (trace, debug, info, notice, warning, error).", valueName: "level"))
    var logLevel: String = "info"

    func validate() throws {
        if batchSize < 1 { throw ValidationError("--batch-size: \(batchSize); expected at least 1") }
        if pollInterval < 1 { throw ValidationError("--poll-interval: \(pollInterval); expected at least 1 ms") }
        if maximumBackoff < 1 { throw ValidationError("--maximum-backoff: \(maximumBackoff); expected at least 1 ms") }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level: '\(logLevel)'; expected trace, debug, info, notice, warning, error or critical")
        }
    }

    func run() async throws {
        var options = feed.syncOptions
        options.batchSize = batchSize
        options.pollInterval = .milliseconds(pollInterval)
        options.maximumBackoff = .milliseconds(maximumBackoff)
        options.initialBackoff = min(options.initialBackoff, options.maximumBackoff)
        options.inbox = !noInbox
        options.pull = !noPull
        var logger = Logger(label: "salus-sync")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let database = try feed.connection.database()
        let engine = SyncEngine(
            options: options, database: database, storeSocket: feed.connection.socket, appID: feed.connection.appID, logger: logger)
        logger.info("salus-sync starting", metadata: ["person": "\(options.person)", "origin": "\(options.origin)", "server": "\(database.redacted)"])
        let task = Task { try await engine.run() }
        // A parent may have left these blocked (they are inherited); they must reach the handlers.
        var stopping = sigset_t()
        sigemptyset(&stopping)
        sigaddset(&stopping, SIGTERM)
        sigaddset(&stopping, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &stopping, nil)
        let signals = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number)
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
        defer { signals.forEach { $0.cancel() } }
        do {
            try await task.value
        } catch let error as SyncError {
            throw stop(error)
        }
    }
}

/// Ends the command for a configuration that cannot work: its reason on one line of standard
/// error, and exit status 64 (`EX_USAGE`), on which a systemd unit can say not to restart it
/// (`RestartPreventExitStatus=64`).
func stop(_ error: SyncError) -> ExitCode {
    FileHandle.standardError.write(Data("salus-sync: \(error.description.replacingOccurrences(of: "\n", with: " "))\n".utf8))
    return ExitCode(64)
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the feed's position on the server, its lag behind the store and the last error.")

    @OptionGroup var feed: FeedOptions

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    func run() async throws {
        var logger = Logger(label: "salus-sync")
        logger.logLevel = .error
        let report = await StatusReport.gather(
            options: feed.syncOptions, database: try feed.connection.database(), storeSocket: feed.connection.socket,
            appID: feed.connection.appID, logger: logger)
        if json {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.text)
        }
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }
}

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Save step samples into the store, time their sync into a fresh person, then the lag of live changes.",
        discussion: """
            Needs a daemon that lets this app write and read steps (salusd --dev --authorization open) and \
            a server (--database-file, the \(DatabaseSettings.credentialName) credential or \(DatabaseSettings.environmentVariable)). The bench's person is left on the server.
            """)

    @Option(name: .long, help: "Samples to save and sync.")
    var samples: Int = 1_000_000

    @Option(name: .long, help: "Changes per PostgreSQL transaction.")
    var batchSize: Int = 5_000

    @Option(name: .long, help: "Live changes timed one by one after the sync.")
    var liveTrials: Int = 50

    @Option(name: .long, help: ArgumentHelp(
        "A second daemon's socket for this app, where the owner made it the sync agent (another machine): it pulls everything, then the live changes.",
        valueName: "path"))
    var peerSocket: String?

    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        if samples < 1 { throw ValidationError("--samples: \(samples); expected at least 1") }
        if batchSize < 1 { throw ValidationError("--batch-size: \(batchSize); expected at least 1") }
        if liveTrials < 0 { throw ValidationError("--live-trials: \(liveTrials); expected 0 or more") }
    }

    func run() async throws {
        var logger = Logger(label: "salus-sync")
        logger.logLevel = .warning
        let figures = try await SyncBench.run(
            samples: samples, batchSize: batchSize, liveTrials: liveTrials, database: try connection.database(),
            storeSocket: connection.socket, appID: connection.appID, peerSocket: peerSocket, logger: logger
        ) { line in
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(figures), as: UTF8.self))
    }
}
