import Foundation
import Logging
import PostgresNIO
import SalusKit
import SalusModel

/// What `salus-sync bench` measured.
package struct SyncBenchFigures: Codable, Sendable {
    /// Samples saved into the store first, and how fast (for scale, not the figure measured).
    package var samples: Int
    /// Samples per second of the saves into the store.
    package var storeSavesPerSecond: Double
    /// Seconds from start to the last change committed on the server.
    package var syncSeconds: Double
    /// Changes read from the store's feed and committed, per second.
    package var changesPerSecond: Double
    /// Rows in `salus.samples` at the end, per second of the sync.
    package var serverRowsPerSecond: Double
    /// Changes per PostgreSQL transaction.
    package var batchSize: Int
    /// Lag of a live change (saved into the store, until its row is on the server), in
    /// milliseconds: median and worst of the trials.
    package var liveLagMedianMilliseconds: Double
    /// The worst trial.
    package var liveLagMaxMilliseconds: Double
    /// Trials of the live lag.
    package var liveTrials: Int
    /// With a peer store: seconds until it held every sample of the server (pulled and saved as
    /// replicas), and replicas per second.
    package var peerPullSeconds: Double?
    /// Replicas saved in the peer store per second.
    package var peerReplicasPerSecond: Double?
    /// A live change from its save in the first store to its replica in the peer store, in
    /// milliseconds (median and worst), with the poll interval used.
    package var peerLiveLagMedianMilliseconds: Double?
    /// The worst trial.
    package var peerLiveLagMaxMilliseconds: Double?
    /// The peer's poll interval, in milliseconds (a change waits for the next poll).
    package var peerPollIntervalMilliseconds: Double?
}

/// `salus-sync bench`: saves `samples` step samples into the store, syncs them into a fresh
/// person on the server and times it, then times the lag of single live changes.
///
/// Needs a daemon that lets the app write and read steps (`salusd --dev --authorization open`,
/// or the app granted) and a server; the person is new (`bench-<pid>`) and left on the server.
package enum SyncBench {
    /// Runs the bench and returns the figures; `progress` gets one line per phase.
    package static func run(
        samples: Int, batchSize: Int, liveTrials: Int, database: DatabaseSettings, storeSocket: String?, appID: String,
        peerSocket: String? = nil, logger: Logger, progress: (String) -> Void
    ) async throws -> SyncBenchFigures {
        let person = "bench-\(getpid())-\(Int(Date().timeIntervalSince1970))"
        let store = try await HealthStore.connect(socketPath: storeSocket, appID: appID, appName: "Salus Sync bench")
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let clock = ContinuousClock()
        var saved = 0
        let saveStart = clock.now
        while saved < samples {
            let count = min(5_000, samples - saved)
            let batch = (0..<count).map { index -> Sample in
                let start = base.addingTimeInterval(Double(saved + index) * 60)
                return .quantity(.stepCount, Quantity(value: Double(index % 200), unit: .count), start: start, end: start.addingTimeInterval(60))
            }
            _ = try await store.save(batch)
            saved += count
        }
        let saveSeconds = seconds(clock.now - saveStart)
        await store.close()
        progress("saved \(samples) samples into the store in \(format(saveSeconds)) s")

        var options = SyncOptions(person: person, origin: "bench", types: [.quantity(.stepCount)])
        options.batchSize = batchSize
        options.inbox = false
        options.requestAuthorization = false
        options.pollInterval = .seconds(1)
        let engine = SyncEngine(options: options, database: database, storeSocket: storeSocket, appID: appID, logger: logger)
        let syncStart = clock.now
        let task = Task { try await engine.run() }
        defer { task.cancel() }
        let watcher = try await PostgresMirror.connect(database, person: person, origin: "bench", logger: logger)
        do {
            var figures = try await measure(
                samples: samples, batchSize: batchSize, liveTrials: liveTrials, person: person, base: base, saveSeconds: saveSeconds,
                syncStart: syncStart, engine: engine, watcher: watcher, storeSocket: storeSocket, appID: appID, logger: logger,
                progress: progress)
            if let peerSocket {
                try await measurePeer(
                    &figures, person: person, base: base, database: database, storeSocket: storeSocket, peerSocket: peerSocket,
                    appID: appID, logger: logger, progress: progress)
            }
            await watcher.close()
            return figures
        } catch {
            await watcher.close()
            throw error
        }
    }

    private static func measure(
        samples: Int, batchSize: Int, liveTrials: Int, person: String, base: Date, saveSeconds: Double,
        syncStart: ContinuousClock.Instant, engine: SyncEngine, watcher: PostgresMirror, storeSocket: String?, appID: String, logger: Logger,
        progress: (String) -> Void
    ) async throws -> SyncBenchFigures {
        let clock = ContinuousClock()
        func rows() async throws -> Int64 {
            try await watcher.connection.query("SELECT count(*) FROM salus.samples WHERE person_id = \(person)", logger: logger)
                .collect().first?.decode(Int64.self) ?? 0
        }
        var reported: String? = nil
        while engine.currentStatus.changesCommitted < Int64(samples) {
            let status = engine.currentStatus
            if status.phase == .stopped {
                throw SyncError(.configuration, "the sync stopped: \(status.lastError ?? "no error recorded")")
            }
            if let error = status.lastError, status.phase == .retrying, error != reported {
                progress("retrying: \(error)")
                reported = error
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let syncSeconds = seconds(clock.now - syncStart)
        let rowCount = try await rows()
        progress("synced \(engine.currentStatus.changesCommitted) changes, \(rowCount) rows in \(format(syncSeconds)) s")

        // A connection of its own for the live changes, made now: one left idle through a long
        // sync may have been closed by the daemon.
        let store = try await HealthStore.connect(socketPath: storeSocket, appID: appID, appName: "Salus Sync bench")
        var lags: [Double] = []
        for trial in 0..<liveTrials {
            let start = base.addingTimeInterval(-Double(trial + 1) * 60)
            let began = clock.now
            let result = try await store.save(.quantity(.stepCount, Quantity(value: 1, unit: .count), start: start, end: start.addingTimeInterval(60)))
            while try await watcher.connection.query(
                "SELECT 1 FROM salus.samples WHERE person_id = \(person) AND uuid = \(result.uuid)", logger: logger
            ).collect().isEmpty {
                try await Task.sleep(for: .milliseconds(1))
            }
            lags.append(seconds(clock.now - began) * 1_000)
        }
        await store.close()
        lags.sort()
        return SyncBenchFigures(
            samples: samples, storeSavesPerSecond: Double(samples) / saveSeconds, syncSeconds: syncSeconds,
            changesPerSecond: Double(samples) / syncSeconds, serverRowsPerSecond: Double(rowCount) / syncSeconds,
            batchSize: batchSize, liveLagMedianMilliseconds: lags.isEmpty ? 0 : lags[lags.count / 2],
            liveLagMaxMilliseconds: lags.last ?? 0, liveTrials: liveTrials)
    }

    /// A second store (another machine) pulls everything the first one sent, as replicas; then
    /// single live changes go from the first store to the second.
    private static func measurePeer(
        _ figures: inout SyncBenchFigures, person: String, base: Date, database: DatabaseSettings, storeSocket: String?,
        peerSocket: String, appID: String, logger: Logger, progress: (String) -> Void
    ) async throws {
        let clock = ContinuousClock()
        let expected = Int64(figures.samples + figures.liveTrials)
        var options = SyncOptions(person: person, origin: "bench-peer", types: [.quantity(.stepCount)])
        options.batchSize = figures.batchSize
        options.inbox = false
        options.requestAuthorization = false
        options.pollInterval = .milliseconds(100)
        let peer = SyncEngine(options: options, database: database, storeSocket: peerSocket, appID: appID, logger: logger)
        let started = clock.now
        let task = Task { try await peer.run() }
        defer { task.cancel() }
        func waitFor(_ count: Int64) async throws {
            while (peer.currentStatus.replicasApplied ?? 0) < count {
                let status = peer.currentStatus
                if status.phase == .stopped || status.lastErrorCode == SyncError.Code.notSyncAgent.rawValue {
                    throw SyncError(.configuration, "the peer stopped: \(status.lastError ?? "no error recorded")")
                }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        try await waitFor(expected)
        let pullSeconds = seconds(clock.now - started)
        progress("the peer store saved \(expected) replicas in \(format(pullSeconds)) s")

        let store = try await HealthStore.connect(socketPath: storeSocket, appID: appID, appName: "Salus Sync bench")
        var lags: [Double] = []
        for trial in 0..<figures.liveTrials {
            let start = base.addingTimeInterval(-Double(figures.liveTrials + trial + 1) * 60)
            let began = clock.now
            _ = try await store.save(.quantity(.stepCount, Quantity(value: 1, unit: .count), start: start, end: start.addingTimeInterval(60)))
            try await waitFor(expected + Int64(trial + 1))
            lags.append(seconds(clock.now - began) * 1_000)
        }
        await store.close()
        lags.sort()
        figures.peerPullSeconds = pullSeconds
        figures.peerReplicasPerSecond = Double(expected) / pullSeconds
        figures.peerLiveLagMedianMilliseconds = lags.isEmpty ? nil : lags[lags.count / 2]
        figures.peerLiveLagMaxMilliseconds = lags.last
        figures.peerPollIntervalMilliseconds = 100
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
