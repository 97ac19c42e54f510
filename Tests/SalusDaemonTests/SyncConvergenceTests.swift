import Foundation
import NIOCore
import PostgresNIO
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusSync
import SalusTestSupport
import Testing

/// Two stores of one person (a laptop and a desktop), each with its salusd and its salus-sync,
/// converging through one PostgreSQL server.
@Suite(.enabled(if: SyncPostgresServer.unavailableReason == nil, "\(SyncPostgresServer.unavailableReason ?? "")"))
struct SyncConvergenceTests {
    typealias S = SyncSupport

    /// One machine: its daemon, the per-app socket of the sync app, and its engine once started.
    struct Machine {
        var daemon: DaemonHarness
        var origin: String
        var syncSocket: String

        /// A daemon with `org.salus.sync` registered, made the sync agent unless `agent` is
        /// false, and given its own socket (what `salusctl launch` does).
        static func start(_ origin: String, agent: Bool = true, arguments: [String] = ["--dev", "--authorization", "open"]) async throws
            -> Machine
        {
            let daemon = try await DaemonHarness.start(arguments: arguments, bundledPlugins: true)
            let owner = try await Authz.owner(daemon)
            _ = try await Authz.register(owner, S.syncApp)
            if agent { try await setAgent(owner) }
            var request = Salus_V1_AppRequest()
            request.appID = S.syncApp
            let endpoint: Salus_V1_AppEndpoint = try await owner.unary(SalusMethods.Consent.createAppEndpoint, request: request)
            await owner.close()
            return Machine(daemon: daemon, origin: origin, syncSocket: endpoint.socketPath)
        }

        /// A server, a laptop and a desktop, started together; `desktop` says how the desktop starts.
        static func startTwo(
            desktop: @escaping @Sendable () async throws -> Machine = { try await Machine.start("desktop") }
        ) async throws -> (SyncPostgresServer, Machine, Machine) {
            async let serverStart = SyncPostgresServer.start()
            async let laptopStart = Machine.start("laptop")
            async let desktopStart = desktop()
            return try await (serverStart, laptopStart, desktopStart)
        }

        static func setAgent(_ owner: RPCClient) async throws {
            var request = Salus_V1_SetSyncAgentRequest()
            request.appID = S.syncApp
            request.syncAgent = true
            let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.setSyncAgent, request: request)
        }

        func sync(
            _ server: SyncPostgresServer, types: [SampleType], pollInterval: Duration? = nil
        ) -> (SyncEngine, Task<Void, any Error>) {
            var options = S.options(types)
            options.origin = origin
            if let pollInterval { options.pollInterval = pollInterval }
            let engine = SyncEngine(options: options, database: server.settings, storeSocket: syncSocket, appID: S.syncApp, logger: S.logger)
            return (engine, Task { try await engine.run() })
        }

        /// Every sample of `types` in the store, as the owner sees it.
        func samples(_ types: [SampleType]) async throws -> Set<Sample> {
            let owner = HealthStore(client: try await Authz.owner(daemon))
            let result = try await AnchoredObjectQueryDescriptor(predicates: types.map { SampleTypePredicate($0) }).result(for: owner)
            await owner.close()
            return Set(result.addedSamples)
        }

        func statistics(_ type: SampleType) async throws -> Double {
            let owner = HealthStore(client: try await Authz.owner(daemon))
            let statistics = try await StatisticsQueryDescriptor(predicate: SampleTypePredicate(type), options: [.cumulativeSum]).result(for: owner)
            await owner.close()
            return statistics.sumQuantity()?.value ?? 0
        }
    }

    /// The server's `superseded` tombstones: samples that lost on their sync identifier.
    static func superseded(_ server: SyncPostgresServer) async throws -> Int64? {
        try await S.scalar(
            server, "SELECT count(*)::bigint FROM salus.tombstones WHERE person_id = 'p1' AND reason = 'superseded'", as: Int64.self)
    }

    /// Waits until both stores hold the same samples of `types` and the server's rows are those.
    static func waitForConvergence(_ laptop: Machine, _ desktop: Machine, _ server: SyncPostgresServer, types: [SampleType], count: Int) async throws {
        try await S.waitUntil("both stores and the server to hold the same \(count) samples", timeout: .seconds(60)) {
            let left = try await laptop.samples(types)
            let right = try await desktop.samples(types)
            let rows = try await server.sampleUUIDs()
            let done = left == right && left.count == count && Set(left.map(\.uuid)) == rows
            return (done, "laptop \(left.count), desktop \(right.count), server \(rows.count), differing \(left.symmetricDifference(right).count)")
        }
    }

    @Test("two daemons converge after interleaved saves and deletes on both: the same UUIDs, sources and creation dates, equal statistics, nothing echoed")
    func twoDaemonsConverge() async throws {
        let (server, laptop, desktop) = try await Machine.startTwo()
        let onLaptop = try await DaemonClients.store(laptop.daemon, "org.example.pedometer")
        let onDesktop = try await DaemonClients.store(desktop.daemon, "org.example.pedometer")
        let watch = try await DaemonClients.store(desktop.daemon, "org.example.watch")

        // Each machine has its own samples before the first sync.
        let laptopFirst = try await onLaptop.save(S.steps(30))
        let desktopFirst = try await onDesktop.save(S.steps(20, from: 100))
        let watchFirst = try await watch.save(S.steps(10, from: 10, device: Device(name: "Watch", manufacturer: "Acme")))
        let (laptopEngine, laptopTask) = laptop.sync(server, types: [S.steps])
        let (desktopEngine, desktopTask) = desktop.sync(server, types: [S.steps])
        defer {
            laptopTask.cancel()
            desktopTask.cancel()
        }
        try await Self.waitForConvergence(laptop, desktop, server, types: [S.steps], count: 60)

        // Interleaved: each machine saves, and deletes samples the other one made.
        let laptopMore = try await onLaptop.save(S.steps(5, from: 200))
        #expect(try await onDesktop.delete(uuids: laptopFirst.prefix(3).map(\.uuid)) == 3)
        #expect(try await onLaptop.delete(uuids: desktopFirst.prefix(2).map(\.uuid) + [laptopMore[0].uuid]) == 3)
        _ = try await onDesktop.save(S.steps(4, from: 300))
        #expect(try await watch.delete(uuids: [watchFirst[0].uuid]) == 1)
        try await Self.waitForConvergence(laptop, desktop, server, types: [S.steps], count: 60 + 5 + 4 - 3 - 3 - 1)

        // The same samples: UUID, value, dates, source revision, device and creation date.
        let laptopSamples = try await laptop.samples([S.steps])
        #expect(laptopSamples == (try await desktop.samples([S.steps])))
        #expect(laptopSamples.contains { $0.sourceRevision.appID == "org.example.watch" && $0.device?.name == "Watch" })
        // Statistics are equal on both machines (they rank the same sources the same way).
        let laptopSum = try await laptop.statistics(S.steps)
        #expect(laptopSum > 0)
        #expect(laptopSum == (try await desktop.statistics(S.steps)))

        // Nothing was sent back: each row keeps the origin of the machine that made the sample,
        // and each deletion reached the server once, from the machine that made it.
        let origins = try await server.withConnection { connection in
            try await connection.query(
                "SELECT origin, count(*)::bigint FROM salus.samples WHERE person_id = 'p1' GROUP BY origin ORDER BY origin",
                logger: S.logger
            ).collect().map { try $0.decode((String, Int64).self) }
        }
        let rowsByOrigin = Dictionary(uniqueKeysWithValues: origins.map { ($0.0, Int($0.1)) })
        #expect(rowsByOrigin == ["laptop": 30 + 5 - 3 - 1, "desktop": 20 + 10 + 4 - 2 - 1])
        // Its own changes only: 30 + 5 saves (one of them deleted again, which the feed may
        // report as the deletion alone) and 3 deletions; the desktop 34 saves and 4 deletions.
        // An engine counts a batch just after the server has it: wait for the counts to reach
        // their floor, then check they stopped there.
        try await S.waitUntil("each engine to count what it sent") {
            let (laptopCount, desktopCount) = (laptopEngine.currentStatus.changesCommitted, desktopEngine.currentStatus.changesCommitted)
            return (laptopCount >= 37 && desktopCount >= 20 + 10 + 4 + 3 + 1, "laptop \(laptopCount), desktop \(desktopCount)")
        }
        #expect((37...38).contains(laptopEngine.currentStatus.changesCommitted), "the laptop sent its own changes only")
        #expect(desktopEngine.currentStatus.changesCommitted == 20 + 10 + 4 + 3 + 1, "the desktop sent its own changes only")
        #expect((laptopEngine.currentStatus.replicasApplied ?? 0) > 0)
        #expect((desktopEngine.currentStatus.replicasApplied ?? 0) > 0)
        await onLaptop.close()
        await onDesktop.close()
        await watch.close()
    }

    @Test("one sync identifier edited on both machines: the higher version wins; on equal versions the one the server saw first; a store that is not the sync agent says so and still sends")
    func concurrentEdits() async throws {
        let (server, laptop, desktop) = try await Machine.startTwo { try await Machine.start("desktop", agent: false) }
        let onLaptop = try await DaemonClients.store(laptop.daemon, "org.example.scale")
        let onDesktop = try await DaemonClients.store(desktop.daemon, "org.example.scale")
        func weight(_ kilograms: Double, _ identifier: String, version: Double, minute: Int) -> Sample {
            let at = Date(timeIntervalSince1970: 1_780_000_000 + Double(minute * 60))
            return .quantity(
                .bodyMass, Quantity(value: kilograms, unit: try! SalusUnit(parsing: "kg")), start: at, end: at,
                metadata: [MetadataKey.syncIdentifier: .string(identifier), MetadataKey.syncVersion: .number(version)])
        }
        func kilograms(_ machine: Machine) async throws -> [Double] {
            try await machine.samples([S.bodyMass]).compactMap { sample -> Double? in
                guard case .quantity(let quantity) = sample.value else { return nil }
                return try? quantity.doubleValue(for: SalusUnit(parsing: "kg"))
            }.sorted()
        }

        // The laptop syncs first: the server sees its "weigh-1" v1 and "weigh-2" v1 first.
        let (_, laptopTask) = laptop.sync(server, types: [S.bodyMass])
        defer { laptopTask.cancel() }
        _ = try await onLaptop.save([weight(70, "weigh-1", version: 1, minute: 0), weight(81, "weigh-2", version: 1, minute: 5)])
        try await S.waitUntil("the laptop's two entries on the server") {
            let rows = try await server.sampleUUIDs()
            return (rows.count == 2, "\(rows.count) rows")
        }
        // Meanwhile the desktop, offline, edited both: "weigh-1" at an equal version, "weigh-2"
        // at a higher one.
        _ = try await onDesktop.save([weight(71, "weigh-1", version: 1, minute: 0), weight(80, "weigh-2", version: 2, minute: 5)])

        // Its salus-sync is not the sync agent yet: it reports that, and still sends.
        let (desktopEngine, desktopTask) = desktop.sync(server, types: [S.bodyMass])
        defer { desktopTask.cancel() }
        try await S.waitUntil("the desktop to report that it is not the sync agent") {
            let status = desktopEngine.currentStatus
            return (status.lastErrorCode == SyncError.Code.notSyncAgent.rawValue, "\(status.phase) \(status.lastErrorCode ?? "-")")
        }
        #expect(desktopEngine.currentStatus.lastError?.contains("salusctl apps sync-agent") == true)
        try await S.waitUntil("the desktop's changes to reach the server") {
            (desktopEngine.currentStatus.changesCommitted >= 2, "\(desktopEngine.currentStatus.changesCommitted)")
        }

        // The owner makes it the sync agent: both machines end with the laptop's "weigh-1"
        // (equal versions: the server saw it first) and the desktop's "weigh-2" (higher version).
        let owner = try await Authz.owner(desktop.daemon)
        try await Machine.setAgent(owner)
        await owner.close()
        try await S.waitUntil("both stores to hold 70 kg and 80 kg", timeout: .seconds(60)) {
            let left = try await kilograms(laptop)
            let right = try await kilograms(desktop)
            return (left == [70, 80] && right == [70, 80], "laptop \(left), desktop \(right)")
        }
        #expect(try await laptop.samples([S.bodyMass]) == (try await desktop.samples([S.bodyMass])))
        let serverValues = try await server.withConnection { connection in
            try await connection.query(
                "SELECT quantity_value FROM salus.samples WHERE person_id = 'p1' ORDER BY quantity_value", logger: S.logger
            ).collect().map { try $0.decode(Double.self) }
        }
        #expect(serverValues == [70, 80])
        let superseded = try await Self.superseded(server)
        #expect(superseded == 2, "the desktop's 71 kg and the laptop's 81 kg")
        await onLaptop.close()
        await onDesktop.close()
    }

    @Test("a sample deleted and saved again under the same sync identifier and version, sent in one batch, keeps the new sample")
    func replacedInOneBatch() async throws {
        async let serverStart = SyncPostgresServer.start()
        async let laptopStart = Machine.start("laptop")
        let (server, laptop) = try await (serverStart, laptopStart)
        let scale = try await DaemonClients.store(laptop.daemon, "org.example.scale")
        let at = Date(timeIntervalSince1970: 1_780_000_000)
        func weight(_ kilograms: Double) -> Sample {
            .quantity(
                .bodyMass, Quantity(value: kilograms, unit: try! SalusUnit(parsing: "kg")), start: at, end: at,
                metadata: [MetadataKey.syncIdentifier: .string("weigh-1"), MetadataKey.syncVersion: .number(2)])
        }
        let first = try await scale.save(weight(70))
        var (_, task) = laptop.sync(server, types: [S.bodyMass])
        try await S.waitUntil("the first entry on the server") {
            let rows = try await server.sampleUUIDs()
            return (rows == [first.uuid], "\(rows.count) rows")
        }
        task.cancel()
        _ = try? await task.value
        // While salus-sync is stopped: the entry deleted, then saved again with the same version.
        #expect(try await scale.delete(uuids: [first.uuid]) == 1)
        let second = try await scale.save(weight(72))
        #expect(second.outcome == .saved)
        (_, task) = laptop.sync(server, types: [S.bodyMass])
        defer { task.cancel() }
        try await S.waitUntil("the new entry on the server, the old one a tombstone") {
            let rows = try await server.sampleUUIDs()
            let tombstones = try await server.tombstoneUUIDs()
            return (rows == [second.uuid] && tombstones == [first.uuid], "rows \(rows.count), tombstones \(tombstones.count)")
        }
        // Several polls later the store still has it: the server did not declare it superseded.
        try await Task.sleep(for: .milliseconds(800))
        #expect(try await laptop.samples([S.bodyMass]).map(\.uuid) == [second.uuid])
        let superseded = try await Self.superseded(server)
        #expect(superseded == 0)
        await scale.close()
    }

    @Test("samples that together pass the 4 MiB frame reach the other machine: a pull's run of samples is saved in several replica saves")
    func largeSamples() async throws {
        let (server, laptop, desktop) = try await Machine.startTwo()
        let onLaptop = try await DaemonClients.store(laptop.daemon, "org.example.pedometer")
        // Ten steps of about 440 KB each (a 240,000-byte note, a 200,000-byte device name), each
        // under the sample bound: 4.4 MB together, one pull's batch.
        let samples = S.steps(
            10, device: Device(name: String(repeating: "d", count: 200_000)),
            metadata: ["org.example.note": .string(String(repeating: "n", count: 240_000))])
        _ = try await onLaptop.save(Array(samples.prefix(5)))
        _ = try await onLaptop.save(Array(samples.suffix(5)))
        let (laptopEngine, laptopTask) = laptop.sync(server, types: [S.steps])
        defer { laptopTask.cancel() }
        // All ten on the server before the desktop's first pull, which takes them at once. The
        // whole suite's load can make the first push slow: the laptop's last error is named.
        do {
            try await S.waitUntil("the laptop's samples on the server", timeout: .seconds(90)) {
                let rows = try await server.sampleUUIDs().count
                return (rows == 10, "\(rows) rows")
            }
        } catch {
            Issue.record("the laptop's last error: \(laptopEngine.currentStatus.lastError ?? "none")")
            throw error
        }
        let (desktopEngine, desktopTask) = desktop.sync(server, types: [S.steps])
        defer { desktopTask.cancel() }
        do {
            try await Self.waitForConvergence(laptop, desktop, server, types: [S.steps], count: 10)
        } catch {
            Issue.record("the desktop's last error: \(desktopEngine.currentStatus.lastError ?? "none")")
            throw error
        }
        await onLaptop.close()
    }

    @Test("a sample on the server that the store refuses (past the sample bound, sent by an earlier version) is skipped and named in the status; the samples after it in the same pull arrive")
    func refusedSampleSkipped() async throws {
        let (server, laptop, desktop) = try await Machine.startTwo()
        let onLaptop = try await DaemonClients.store(laptop.daemon, "org.example.pedometer")
        _ = try await onLaptop.save(S.steps(6))
        await onLaptop.close()
        let saved = try await S.storeUUIDs(laptop.daemon)
        let (_, laptopTask) = laptop.sync(server, types: [S.steps])
        try await S.waitForMirror(laptop.daemon, server, timeout: .seconds(90))
        laptopTask.cancel()
        // The second sample pushed grows a 600,000-byte note on the server: past what a store
        // takes (`Validation.maximumSampleBytes`), as a row an earlier version sent may be.
        var note = Salus_V1_Sample()
        var text = Salus_V1_MetadataValue()
        text.stringValue = String(repeating: "n", count: 600_000)
        note.metadata["org.example.note"] = text
        let grown = ByteBuffer(bytes: try note.serializedBytes() as [UInt8])
        let refused = try #require(
            try await S.scalar(server, "SELECT uuid FROM salus.samples WHERE person_id = 'p1' ORDER BY seq LIMIT 1 OFFSET 1", as: UUID.self))
        try await server.withConnection { connection in
            _ = try await connection.query(
                "UPDATE salus.samples SET payload = payload || \(grown) WHERE person_id = 'p1' AND uuid = \(refused)", logger: S.logger)
        }

        let (desktopEngine, desktopTask) = desktop.sync(server, types: [S.steps])
        defer { desktopTask.cancel() }
        try await S.waitUntil("the five other samples on the desktop", timeout: .seconds(60)) {
            let held = try await S.storeUUIDs(desktop.daemon)
            return (held == saved.subtracting([refused]), "\(held.count) held; last error: \(desktopEngine.currentStatus.lastError ?? "none")")
        }
        let status = desktopEngine.currentStatus
        #expect(status.lastError?.contains(refused.uuidString) == true, "\(status.lastError ?? "none")")
        #expect(status.lastError?.contains("samples[1].metadata") == true, "\(status.lastError ?? "none")")
    }

    @Test("a change reaches the other machine when the server announces it, long before the next poll")
    func announcedChanges() async throws {
        let (server, laptop, desktop) = try await Machine.startTwo()
        let onLaptop = try await DaemonClients.store(laptop.daemon, "org.example.pedometer")
        let (laptopEngine, laptopTask) = laptop.sync(server, types: [S.steps], pollInterval: .seconds(20))
        let (desktopEngine, desktopTask) = desktop.sync(server, types: [S.steps], pollInterval: .seconds(20))
        defer {
            laptopTask.cancel()
            desktopTask.cancel()
        }
        try await S.waitUntil("both engines live") {
            (laptopEngine.currentStatus.phase == .live && desktopEngine.currentStatus.phase == .live, "")
        }
        // Let each pull make its first look and start waiting.
        try await Task.sleep(for: .seconds(1))
        for round in 0..<3 {
            let began = ContinuousClock.now
            let saved = try await onLaptop.save(S.steps(1, from: round))
            try await S.waitUntil("the laptop's sample on the desktop", timeout: .seconds(15)) {
                let there = try await desktop.samples([S.steps]).contains { $0.uuid == saved[0].uuid }
                return (there, "")
            }
            let elapsed = ContinuousClock.now - began
            // Half the poll: only the announcement can explain it (5 s was missed under load).
            #expect(elapsed < .seconds(10), "round \(round): \(elapsed), with a 20 s poll")
        }
        await onLaptop.close()
    }

    @Test("a store that does not let the sync agent write a synced type says so, goes on, and pulls once the owner grants it")
    func pulledTypeNotWritable() async throws {
        let (server, laptop, desktop) = try await Machine.startTwo { try await Machine.start("desktop", arguments: ["--dev"]) }
        let owner = try await Authz.owner(desktop.daemon)
        try await Authz.grant(owner, S.syncApp, Authz.steps, read: .granted, share: .denied)
        let onLaptop = try await DaemonClients.store(laptop.daemon, "org.example.pedometer")
        let saved = try await onLaptop.save(S.steps(5))
        let (_, laptopTask) = laptop.sync(server, types: [S.steps])
        let (desktopEngine, desktopTask) = desktop.sync(server, types: [S.steps])
        defer {
            laptopTask.cancel()
            desktopTask.cancel()
        }
        try await S.waitUntil("the desktop to report the type it may not write") {
            let status = desktopEngine.currentStatus
            return (status.lastErrorCode == SyncError.Code.accessRevoked.rawValue, "\(status.phase) \(status.lastErrorCode ?? "-")")
        }
        let status = desktopEngine.currentStatus
        #expect(status.phase == .live, "the feed to the server goes on")
        #expect(status.lastError?.contains("salusctl apps grant \(S.syncApp) --share") == true, "\(status.lastError ?? "-")")
        #expect(status.lastError?.contains(Authz.steps) == true)
        #expect(try await desktop.samples([S.steps]).isEmpty)

        try await Authz.grant(owner, S.syncApp, Authz.steps, read: .granted, share: .granted)
        await owner.close()
        try await S.waitUntil("the laptop's samples on the desktop once granted", timeout: .seconds(60)) {
            let there = Set(try await desktop.samples([S.steps]).map(\.uuid))
            return (there == Set(saved.map(\.uuid)), "\(there.count) of \(saved.count)")
        }
        await onLaptop.close()
    }
}
