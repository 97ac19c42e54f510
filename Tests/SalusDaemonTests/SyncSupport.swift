import Foundation
import Logging
import PostgresNIO
import SalusKit
import SalusModel
import SalusRPC
import SalusSync
import SalusTestSupport

/// What the sync tests share: a daemon, a PostgreSQL server, the engine run in process, and the
/// comparison of the server's rows with the store.
enum SyncSupport {
    static let steps = SampleType.quantity(.stepCount)
    static let heartRate = SampleType.quantity(.heartRate)
    static let bodyMass = SampleType.quantity(.bodyMass)
    static let syncApp = "org.salus.sync"

    /// Options for person `p1` on store `laptop`, polling fast and retrying fast.
    static func options(_ types: [SampleType] = [steps], statusFile: String? = nil) -> SyncOptions {
        var options = SyncOptions(person: "p1", origin: "laptop", types: types)
        options.batchSize = 100
        options.pollInterval = .milliseconds(100)
        options.initialBackoff = .milliseconds(50)
        options.maximumBackoff = .milliseconds(400)
        options.answerTimeout = .seconds(5)
        options.feedCheckInterval = .seconds(2)
        options.statusFile = statusFile
        return options
    }

    /// Registers the sync app and `org.example.pedometer`; the sync app may read and write steps
    /// and heart rate, the pedometer write them.
    static func grantStepsAndHeartRate(_ owner: RPCClient) async throws {
        try await Authz.register(owner, syncApp)
        try await Authz.register(owner, "org.example.pedometer")
        for type in [steps.identifier.rawValue, heartRate.identifier.rawValue] {
            try await Authz.grant(owner, syncApp, type, read: .granted, share: .granted)
            try await Authz.grant(owner, "org.example.pedometer", type, read: nil, share: .granted)
        }
    }

    /// What ``grantedStore(arguments:)`` starts.
    struct GrantedStore {
        let server: SyncPostgresServer
        let daemon: DaemonHarness
        /// The owner's client, on `daemon`.
        let owner: RPCClient
        /// `org.example.pedometer`, which saved `steps`.
        let app: HealthStore
        let steps: [SaveResult]
    }

    /// A PostgreSQL server and a daemon started with `arguments`, whose owner let the sync app
    /// read and write steps and heart rate (``grantStepsAndHeartRate(_:)``), with five steps
    /// saved by the pedometer.
    static func grantedStore(arguments: [String] = ["--dev"]) async throws -> GrantedStore {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: arguments, bundledPlugins: true)
        let server = try await serverStart
        let owner = try await Authz.owner(daemon)
        try await grantStepsAndHeartRate(owner)
        let app = try await DaemonClients.store(daemon, "org.example.pedometer")
        let saved = try await app.save(steps(5))
        return GrantedStore(server: server, daemon: daemon, owner: owner, app: app, steps: saved)
    }

    /// The owner withdraws steps from the sync app; waits until `engine` reports it.
    static func withdrawSteps(_ owner: RPCClient, reportedBy engine: SyncEngine) async throws {
        let stepsID = steps.identifier.rawValue
        try await Authz.grant(owner, syncApp, stepsID, read: .denied, share: .denied)
        try await waitUntil("the revocation to be reported") {
            (engine.currentStatus.revokedTypes == [stepsID], "\(engine.currentStatus.revokedTypes)")
        }
    }

    /// Waits until the server has every one of `saved`, sent by `engine`.
    static func waitForRows(_ saved: [SaveResult], on server: SyncPostgresServer, sentBy engine: SyncEngine) async throws {
        try await waitUntil("the steps saved while withdrawn") {
            let rows = try await server.sampleUUIDs()
            return (Set(saved.map(\.uuid)).isSubset(of: rows), "\(rows.count) rows, \(engine.currentStatus.lastError ?? "no error")")
        }
    }

    static var logger: Logger {
        var logger = Logger(label: "salus-sync-test")
        logger.logLevel = .error
        return logger
    }

    /// The engine running in a task of its own; cancel the task to stop it.
    static func start(
        _ daemon: DaemonHarness, _ server: SyncPostgresServer, options: SyncOptions = options(), appID: String = syncApp
    ) -> (SyncEngine, Task<Void, any Error>) {
        let engine = SyncEngine(options: options, database: server.settings, storeSocket: daemon.socketPath, appID: appID, logger: logger)
        return (engine, Task { try await engine.run() })
    }

    /// Step samples from `app`, one minute each from `minute`.
    static func steps(_ count: Int, from minute: Int = 0, device: Device? = nil, metadata: [String: MetadataValue] = [:]) -> [Sample] {
        (0..<count).map { index in
            let start = Date(timeIntervalSince1970: 1_780_000_000 + Double((minute + index) * 60))
            return .quantity(
                .stepCount, Quantity(value: Double(10 + index), unit: .count), start: start, end: start.addingTimeInterval(60),
                device: device, metadata: metadata)
        }
    }

    /// Every sample of `types` the store holds now, as the owner sees it.
    static func storeUUIDs(_ daemon: DaemonHarness, types: [SampleType] = [steps]) async throws -> Set<UUID> {
        let owner = HealthStore(client: try await Authz.owner(daemon))
        let result = try await AnchoredObjectQueryDescriptor(predicates: types.map { SampleTypePredicate($0) }).result(for: owner)
        await owner.close()
        return Set(result.addedSamples.map(\.uuid))
    }

    /// Waits (polling every 50 ms, at most `timeout`) until `condition` holds; throws naming
    /// `what` with the last value (or error: the schema may not exist yet) seen otherwise.
    static func waitUntil(
        _ what: String, timeout: Duration = .seconds(180), _ condition: () async throws -> (Bool, String)
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            do {
                let (done, seen) = try await condition()
                if done { return }
                last = seen
            } catch {
                last = "\(error is PSQLError ? PostgresMirror.describe(error) : "\(error)")"
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Once more after the deadline: under the whole suite a task may resume only after it.
        if let (done, seen) = try? await condition() {
            if done { return }
            last = seen
        }
        throw HarnessError("timed out after \(timeout) waiting for \(what); last seen: \(last)")
    }

    /// Waits until the server's rows of `p1` are exactly the store's samples of `types`; 180 s by
    /// default, as `waitUntil`: the agent runs in the test process, starved under the whole suite.
    static func waitForMirror(_ daemon: DaemonHarness, _ server: SyncPostgresServer, types: [SampleType] = [steps], timeout: Duration = .seconds(180)) async throws {
        try await waitUntil("the server's rows to equal the store's samples", timeout: timeout) {
            let store = try await storeUUIDs(daemon, types: types)
            let rows = try await server.sampleUUIDs()
            return (store == rows, "store \(store.count), server \(rows.count), missing \(store.subtracting(rows).count), extra \(rows.subtracting(store).count)")
        }
    }

    /// One value from the server.
    static func scalar<T: PostgresDecodable>(_ server: SyncPostgresServer, _ query: PostgresQuery, as type: T.Type) async throws -> T? {
        try await server.withConnection { connection in
            try await connection.query(query, logger: logger).collect().first?.decode(T.self)
        }
    }
}
