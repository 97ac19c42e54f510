import Foundation
import Logging
import SalusKit
import SalusModel
import SalusRPC
import SalusServer
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's services in this process, for service tests: a fresh data folder, the bundled
/// plugins, and ``SalusServices`` — the very assembly `salusd` serves — with clients connected
/// through `connectInProcess` (a socketpair: the same framing and code paths as a socket, but no
/// socket file and no process).
///
/// ```swift
/// let server = try await ServerHarness.start()
/// let app = try await server.app("org.example.app")
/// // ... calls ...
/// try await server.stop()
/// ```
///
/// Apps connect as on the app socket: on a development server (the default) they declare their
/// app id in Hello; ``launchedApp(_:declaring:)`` connects as through an app's own socket. The
/// owner connects as on the admin socket, with its admission check. The folder is removed when
/// the harness is released.
final class ServerHarness: Sendable {
    /// The temporary folder: `data/` and `plugins/`.
    let directory: URL
    /// The data folder (the daemon's `--data-dir`).
    let dataDirectory: URL
    /// The assembled services: the store, the authorization engine (its app registry and
    /// consent queue), the routers.
    let services: SalusServices
    /// The logger the services were opened with (a restart keeps it).
    let logger: Logger
    /// Types registered beside the bundled plugins' (a restart keeps them).
    let additionalTypes: [TypeRules]
    /// The harness whose folder this one reuses (a restart), kept alive so that its folder is.
    private let previous: ServerHarness?

    private init(
        directory: URL, dataDirectory: URL, services: SalusServices, logger: Logger, additionalTypes: [TypeRules],
        previous: ServerHarness?
    ) {
        self.directory = directory
        self.dataDirectory = dataDirectory
        self.services = services
        self.logger = logger
        self.additionalTypes = additionalTypes
        self.previous = previous
    }

    /// The authorization database (`authorization.sqlite` in the data folder), where the app
    /// registry persists every decision.
    var authorizationDatabase: URL { URL(fileURLWithPath: services.configuration.authorizationDatabasePath) }

    deinit {
        if previous == nil { try? FileManager.default.removeItem(at: directory) }
    }

    /// The bundled plugins, as the daemon tests pass them with `--plugins-dir`.
    static let bundled = [
        "SalusCore", "SalusSleep", "SalusReproductive", "SalusMobility", "SalusVision", "SalusWheelchair",
        "SalusVitals", "SalusNutrition", "SalusHearing", "SalusSymptoms", "SalusLab", "SalusMindfulness", "SalusClinical",
    ]

    /// Opens the services over a new folder: development mode (apps declare their id) unless
    /// `developmentMode` is false; `openAuthorization` as `salusd --authorization open`; logging
    /// to `logger` (default: warnings and worse, to the console); `additionalTypes` registered
    /// beside the bundled plugins' types (kinds no bundled plugin declares yet).
    static func start(
        developmentMode: Bool = true,
        openAuthorization: Bool = false,
        tombstoneRetention: Duration = .seconds(30 * 86_400),
        logger: Logger? = nil,
        additionalTypes: [TypeRules] = [],
        maxAttachmentSize: Int64? = nil,
        limits: ClientLimits? = nil
    ) async throws -> ServerHarness {
        let directory = try makeTemporaryDirectory()
        do {
            let plugins = directory.appendingPathComponent("plugins", isDirectory: true)
            try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
            // Links, not copies: one library file is loaded once per process, however many
            // harnesses load it.
            for name in bundled {
                let library = "lib\(name).so"
                try FileManager.default.createSymbolicLink(
                    at: plugins.appendingPathComponent(library), withDestinationURL: binDirectory.appendingPathComponent(library))
            }
            return try await open(
                directory: directory, developmentMode: developmentMode, openAuthorization: openAuthorization,
                tombstoneRetention: tombstoneRetention, logger: logger ?? quietLogger, additionalTypes: additionalTypes,
                previous: nil, maxAttachmentSize: maxAttachmentSize, limits: limits)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Opens new services over this harness's folder, as a restarted daemon would; call
    /// ``stop()`` first.
    func restart(
        developmentMode: Bool? = nil,
        openAuthorization: Bool? = nil,
        tombstoneRetention: Duration? = nil
    ) async throws -> ServerHarness {
        let configuration = services.configuration
        return try await Self.open(
            directory: directory,
            developmentMode: developmentMode ?? configuration.developmentMode,
            openAuthorization: openAuthorization ?? configuration.openAuthorization,
            tombstoneRetention: tombstoneRetention ?? configuration.tombstoneRetention,
            logger: logger, additionalTypes: additionalTypes, previous: self)
    }

    /// Warnings and worse, to the console.
    private static var quietLogger: Logger {
        var logger = Logger(label: "salus-server-tests")
        logger.logLevel = .warning
        return logger
    }

    private static func open(
        directory: URL, developmentMode: Bool, openAuthorization: Bool, tombstoneRetention: Duration, logger: Logger,
        additionalTypes: [TypeRules], previous: ServerHarness?, maxAttachmentSize: Int64? = nil, limits: ClientLimits? = nil
    ) async throws -> ServerHarness {
        let dataDirectory = directory.appendingPathComponent("data", isDirectory: true)
        var configuration = DaemonConfiguration(
            dataDirectory: dataDirectory.path,
            socketPath: directory.appendingPathComponent("app.sock").path,
            adminSocketPath: directory.appendingPathComponent("admin.sock").path,
            pluginDirectories: [directory.appendingPathComponent("plugins").path],
            developmentMode: developmentMode,
            drainTimeout: .seconds(5),
            tombstoneRetention: tombstoneRetention
        )
        configuration.openAuthorization = openAuthorization
        if let maxAttachmentSize { configuration.maxAttachmentSize = maxAttachmentSize }
        if let limits { configuration.limits = limits }
        let services = try await SalusServices.open(configuration, logger: logger, additionalTypes: additionalTypes)
        return ServerHarness(
            directory: directory, dataDirectory: dataDirectory, services: services, logger: logger,
            additionalTypes: additionalTypes, previous: previous)
    }

    /// Sends GoAway, drains the calls in flight (for at most `gracePeriod`, by default the
    /// daemon's drain timeout) and closes the store, as the daemon does on SIGTERM.
    func stop(gracePeriod: Duration? = nil) async {
        await services.server.shutdown(gracePeriod: gracePeriod ?? services.configuration.drainTimeout)
        await services.close()
    }

    // MARK: - Clients

    /// A client of the admin socket: the owner.
    func owner(clientName: String? = "owner") async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        if let clientName { configuration.clientName = clientName }
        return try await services.server.connectInProcess(
            router: services.adminRouter, listener: SalusServices.adminListener, admission: services.adminAdmission,
            configuration: configuration)
    }

    /// A client of the app socket that declares `appID` (nil: none) in Hello.
    func app(_ appID: String?, name: String? = nil, version: String? = nil) async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        if let appID {
            configuration.declaredAppID = appID
            configuration.clientName = name ?? appID
        }
        if let version { configuration.clientVersion = version }
        return try await services.server.connectInProcess(router: services.appRouter, listener: services.appListener, configuration: configuration)
    }

    /// A client of `appID`'s own socket (`salusctl launch`), declaring `declared` in Hello.
    func launchedApp(_ appID: String, declaring declared: String? = nil) async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        if let declared {
            configuration.declaredAppID = declared
            configuration.clientName = declared
        }
        return try await services.server.connectInProcess(
            router: services.appRouter, listener: SalusServices.launchedAppListener(appID), configuration: configuration)
    }

    /// SalusKit's store for an app, as `HealthStore.connect(appID:appName:appVersion:)` makes it.
    func healthStore(_ appID: String, name: String? = nil, version: String = "") async throws -> HealthStore {
        HealthStore(client: try await app(appID, name: name, version: version))
    }

    // MARK: - Where the built products are

    /// The folder of the built products: `$SALUS_BIN_DIR` when set, else the folder of this test
    /// process's executable (the test bundle is built beside the plugin libraries).
    static var binDirectory: URL {
        if let configured = ProcessInfo.processInfo.environment["SALUS_BIN_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent()
    }

    /// A new folder readable only by this user (mode 0700).
    static func makeTemporaryDirectory() throws -> URL {
        var base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        if base.isEmpty || base.utf8.count > 60 { base = "/tmp" }
        var template = Array((base.hasSuffix("/") ? base : base + "/").utf8CString.dropLast())
        template += Array("salus-server-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else {
            throw HarnessError("cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: path, isDirectory: true)
    }
}

/// A failure of the harness itself.
struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Waits until `condition` holds, checking every 20 ms; throws after `timeout`. A last resort
/// for conditions that no stream reports.
func waitUntil(timeout: Duration = .seconds(10), _ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw HarnessError("timed out after \(timeout) waiting until \(what)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// The highest anchor a stream has delivered so far, and waits for one to arrive.
actor AnchorWaiter {
    private var latest: UInt64 = 0
    private var nextID = 0
    private var waiters: [Int: (target: UInt64, continuation: CheckedContinuation<Bool, Never>)] = [:]

    /// The highest anchor delivered.
    var highest: UInt64 { latest }

    /// Records a delivery at `anchor`.
    func record(_ anchor: UInt64) {
        latest = max(latest, anchor)
        for (id, waiter) in waiters where waiter.target <= latest {
            waiters[id] = nil
            waiter.continuation.resume(returning: true)
        }
    }

    /// Whether a delivery at or after `target` arrives within `timeout`. Every wait expects a
    /// delivery, so the timeout is only paid on failure: long enough for a machine running the
    /// whole suite on two cores.
    func wait(for target: UInt64, timeout: Duration = .seconds(30)) async -> Bool {
        if latest >= target { return true }
        let id = nextID
        nextID += 1
        return await withCheckedContinuation { continuation in
            waiters[id] = (target, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        waiters.removeValue(forKey: id)?.continuation.resume(returning: false)
    }
}

/// Values a background task records, read by the test.
final class Recorded<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    /// Everything recorded so far, in order.
    var items: [Element] { storage.withLock { $0 } }

    /// Records one value.
    func append(_ element: Element) { storage.withLock { $0.append(element) } }

    /// Records values in order.
    func append(contentsOf elements: [Element]) { storage.withLock { $0 += elements } }
}
