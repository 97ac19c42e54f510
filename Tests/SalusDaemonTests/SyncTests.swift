import Foundation
import PostgresNIO
import SalusKit
import SalusModel
import SalusSync
import SalusTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `salus-sync` against a real salusd and a real PostgreSQL server.
@Suite(.enabled(if: SyncPostgresServer.unavailableReason == nil, "\(SyncPostgresServer.unavailableReason ?? "")"))
struct SyncTests {
    typealias S = SyncSupport

    @Test("initial sync, then incremental saves and deletions; columns, JSONB and tombstones; status lag")
    func initialIncrementalDeletes() async throws {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let server = try await serverStart
        let app = try await DaemonClients.store(daemon, "org.example.pedometer")
        let device = Device(name: "Band", manufacturer: "Acme", model: "B2", firmwareVersion: "1.4")
        let initial = try await app.save(S.steps(250, device: device, metadata: ["HKWasUserEntered": .bool(false), "note": .string("walk")]))

        let statusFile = daemon.directory.appendingPathComponent("status.json").path
        let options = S.options(statusFile: statusFile)
        let (engine, task) = S.start(daemon, server, options: options)
        try await S.waitForMirror(daemon, server)

        // Columns a care team queries, with the metadata as JSONB and the source the store assigned.
        let uuid = initial[0].uuid
        let row = try await server.withConnection { connection in
            try await connection.query(
                """
                SELECT type, kind, quantity_value, quantity_unit, source_app_id, device_manufacturer, device_firmware_version,
                    metadata->>'note', (metadata->'HKWasUserEntered')::text, origin, length(payload) > 0
                FROM salus.samples WHERE person_id = 'p1' AND uuid = \(uuid)
                """, logger: S.logger
            ).collect().first?.decode((String, String, Double, String, String, String?, String?, String?, String?, String, Bool).self)
        }
        let columns = try #require(row)
        #expect(columns.0 == "HKQuantityTypeIdentifierStepCount" && columns.1 == "quantity")
        #expect(columns.2 == 10 && columns.3 == "count")
        #expect(columns.4 == "org.example.pedometer")
        #expect(columns.5 == "Acme" && columns.6 == "1.4")
        #expect(columns.7 == "walk" && columns.8 == "false")
        #expect(columns.9 == "laptop" && columns.10)

        // Incremental: new samples and deletions arrive on the live feed.
        _ = try await app.save(S.steps(20, from: 1_000))
        let deleted = initial.prefix(7).map(\.uuid)
        #expect(try await app.delete(uuids: deleted) == 7)
        try await S.waitForMirror(daemon, server)
        #expect(try await server.sampleUUIDs().count == 263)
        #expect(try await server.tombstoneUUIDs() == Set(deleted))
        // The engine counts (and writes its status file) just after the server has a batch.
        try await S.waitUntil("the engine to count its changes", timeout: .seconds(10)) {
            (engine.currentStatus.changesCommitted >= 250 + 20 + 7, "\(engine.currentStatus.changesCommitted)")
        }

        // Status: nothing behind; then, with the engine stopped, exactly the new changes.
        let report = await StatusReport.gather(options: options, database: server.settings, storeSocket: daemon.socketPath, appID: S.syncApp, logger: S.logger)
        #expect(report.lag == SyncLag(changes: 0, atLeast: false, seconds: 0))
        #expect(report.process?.phase == .live)
        #expect(report.process?.revokedTypes == [])
        #expect(engine.currentStatus.changesCommitted == 250 + 20 + 7)
        task.cancel()
        _ = try? await task.value
        _ = try await app.save(S.steps(3, from: 2_000))
        let behind = await StatusReport.gather(options: options, database: server.settings, storeSocket: daemon.socketPath, appID: S.syncApp, logger: S.logger)
        #expect(behind.lag?.changes == 3)
        #expect((behind.lag?.seconds ?? -1) >= 0)
        #expect(behind.text.contains("lag: 3 changes"))
        await app.close()
    }

    @Test("an unknown type stops the engine with an error naming it, instead of retrying for ever")
    func unknownTypeStops() async throws {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let server = try await serverStart
        let (engine, task) = S.start(daemon, server, options: S.options([S.steps, SampleType("org.example.NoSuchType")]))
        let error = await #expect(throws: SyncError.self) { try await task.value }
        #expect(error?.code == .configuration)
        #expect(error?.description.contains("org.example.NoSuchType") == true, "\(String(describing: error))")
        #expect(engine.currentStatus.phase == .stopped)
    }

    @Test("the server down for a while, then back: nothing lost, the error reported meanwhile")
    func serverDownThenBack() async throws {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let server = try await serverStart
        let app = try await DaemonClients.store(daemon, "org.example.pedometer")
        let first = try await app.save(S.steps(40))
        let (engine, task) = S.start(daemon, server)
        defer { task.cancel() }
        try await S.waitForMirror(daemon, server)

        try await server.stopServer()
        _ = try await app.save(S.steps(30, from: 500))
        _ = try await app.delete(uuids: first.prefix(5).map(\.uuid))
        // The message says whether the engine committed anything after the server stopped (a
        // later anchor, more than 40 changes) or nothing (40: no batch came, or its commit
        // never ended).
        try await S.waitUntil("the engine to report the server down") {
            let status = engine.currentStatus
            return (
                status.lastErrorCode == "server" && status.phase == .retrying,
                "\(status.phase) \(status.lastError ?? "-"), anchor \(status.anchor), \(status.changesCommitted) changes committed"
            )
        }
        try await server.startServer()
        try await S.waitForMirror(daemon, server)
        #expect(try await server.sampleUUIDs().count == 65)
        #expect(try await server.tombstoneUUIDs().count == 5)
        try await S.waitUntil("the error to clear after a commit") {
            (engine.currentStatus.lastError == nil, engine.currentStatus.lastError ?? "")
        }
        await app.close()
    }

    /// How the server goes away in ``idleEngineOutage(_:)``.
    enum Outage: String, CaseIterable, Sendable {
        /// Shut down: connections are closed.
        case stopped
        /// Its processes stopped with SIGSTOP: connections stay open and nothing is answered.
        case frozen
    }

    @Test(
        "an idle engine gives up on a server that is stopped or stops answering, within the answer timeout, and is live again once it is back",
        arguments: Outage.allCases)
    func idleEngineOutage(_ outage: Outage) async throws {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let server = try await serverStart
        let app = try await DaemonClients.store(daemon, "org.example.pedometer")
        _ = try await app.save(S.steps(3))
        let (engine, task) = S.start(daemon, server)
        defer { task.cancel() }
        try await S.waitForMirror(daemon, server)
        try await S.waitUntil("the engine to be live") { (engine.currentStatus.phase == .live, "\(engine.currentStatus.phase)") }

        // Nothing to send: only the inbox and pull polls (every 100 ms) talk to the server. When
        // it is frozen, the inbox, the pull and the error report each wait on a statement (5 s
        // answer timeout in these options).
        switch outage {
        case .stopped: try await server.stopServer()
        case .frozen: try server.signalServer(SIGSTOP)
        }
        var gaveUp: (any Error)? = nil
        do {
            try await S.waitUntil("the engine to give up on the server", timeout: .seconds(30)) {
                let status = engine.currentStatus
                return (status.phase == .retrying && status.lastErrorCode == "server", "\(status.phase) \(status.lastError ?? "-")")
            }
        } catch {
            gaveUp = error
        }
        switch outage {
        case .stopped: try await server.startServer()
        case .frozen: try server.signalServer(SIGCONT)
        }
        if let gaveUp { throw gaveUp }
        try await S.waitUntil("the engine to be live again") { (engine.currentStatus.phase == .live, "\(engine.currentStatus.phase)") }
        await app.close()
    }

    @Test("a live feed that delivers nothing while the store has changes ends the session, and the next one reads them")
    func stalledFeedRecovers() async throws {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let server = try await serverStart
        let app = try await DaemonClients.store(daemon, "org.example.pedometer")
        _ = try await app.save(S.steps(40))
        var options = S.options()
        // Every live update is lost: only the check can bring the later saves to the server.
        options.droppingLiveUpdates = true
        options.feedCheckInterval = .milliseconds(200)
        let (engine, task) = S.start(daemon, server, options: options)
        defer { task.cancel() }
        try await S.waitForMirror(daemon, server)
        _ = try await app.save(S.steps(30, from: 500))
        try await S.waitForMirror(daemon, server)
        // The engine counts a batch just after the server has it.
        try await S.waitUntil("the engine to count 70 changes", timeout: .seconds(10)) {
            (engine.currentStatus.changesCommitted >= 70, "\(engine.currentStatus.changesCommitted)")
        }
        #expect(engine.currentStatus.changesCommitted == 70)
        await app.close()
    }

    @Test("a statement the server does not answer within the timeout fails with a server error and closes the connection, so the engine reconnects")
    func unansweredStatement() async throws {
        let server = try await SyncPostgresServer.start()
        let mirror = try await PostgresMirror.connect(server.settings, person: "p1", origin: "laptop", logger: S.logger)
        let quick = try await mirror.answered(within: .seconds(5)) { 42 }
        #expect(quick == 42)
        let error = await #expect(throws: SyncError.self) {
            _ = try await mirror.answered(within: .milliseconds(200)) {
                try await Task.sleep(for: .seconds(3))
                return 0
            }
        }
        #expect(error?.code == .server)
        #expect(error?.description.contains("did not answer within") == true, "\(String(describing: error))")
        #expect(mirror.connection.isClosed)
        try await server.stopServer()
    }

    @Test("an expired anchor starts a full resync that removes the rows the store no longer has")
    func expiredAnchorResync() async throws {
        async let serverStart = SyncPostgresServer.start()
        let first = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open", "--tombstone-retention", "1s"], bundledPlugins: true)
        let server = try await serverStart
        var app = try await DaemonClients.store(first, "org.example.pedometer")
        let saved = try await app.save(S.steps(30))
        var (_, task) = S.start(first, server)
        try await S.waitForMirror(first, server)
        task.cancel()
        _ = try? await task.value

        // While the sync is stopped: deletions, then their tombstones expire (purged at start).
        let gone = saved.prefix(10).map(\.uuid)
        #expect(try await app.delete(uuids: gone) == 10)
        let added = try await app.save(S.steps(4, from: 900))
        await app.close()
        try await first.stop()
        try await Task.sleep(for: .milliseconds(1_500))
        let daemon = try await DaemonHarness.start(
            arguments: ["--dev", "--authorization", "open", "--tombstone-retention", "1s", "--data-dir", first.dataDirectory.path],
            bundledPlugins: true)
        app = try await DaemonClients.store(daemon, "org.example.pedometer")
        // The server's anchor is now older than the store's tombstone horizon.
        let serverAnchor = try #require(try await S.scalar(server, "SELECT anchor FROM salus.feeds WHERE person_id = 'p1'", as: Int64.self))
        let expired = await #expect(throws: SalusError.self) {
            try await AnchoredObjectQueryDescriptor(predicates: [.samples(S.steps)], anchor: QueryAnchor(rawValue: UInt64(serverAnchor))).result(for: app)
        }
        #expect(expired?.code == .anchorExpired)
        (_, task) = S.start(daemon, server)
        defer { task.cancel() }
        try await S.waitForMirror(daemon, server)
        let rows = try await server.sampleUUIDs()
        #expect(rows.count == 24)
        #expect(rows.isDisjoint(with: gone))
        #expect(Set(added.map(\.uuid)).isSubset(of: rows))
        #expect(try await server.tombstoneUUIDs().isSuperset(of: gone))
        let generation = try await S.scalar(server, "SELECT generation FROM salus.feeds WHERE person_id = 'p1'", as: Int64.self)
        #expect(generation == 2)
        #expect(try await S.scalar(server, "SELECT resyncing FROM salus.feeds WHERE person_id = 'p1'", as: Bool.self) == false)
        await app.close()
    }

    @Test("a full resync while a type is withdrawn keeps that type's rows and tombstones none of them")
    func resyncKeepsWithdrawnType() async throws {
        let retention = ["--dev", "--tombstone-retention", "1s"]
        let setup = try await S.grantedStore(arguments: retention)
        let (server, first, owner, app) = (setup.server, setup.daemon, setup.owner, setup.app)
        let steps = Set(setup.steps.map(\.uuid))
        let pulse = try await app.save(.quantity(.heartRate, Quantity(value: 1.2, unit: try SalusUnit(parsing: "count/s")), start: Date()))
        let options = S.options([S.steps, S.heartRate])
        var (_, task) = S.start(first, server, options: options)
        try await S.waitForMirror(first, server, types: [S.steps, S.heartRate])
        task.cancel()
        _ = try? await task.value

        // While the sync is stopped: the owner withdraws steps, and a heart rate already on the
        // server is deleted. Its tombstone expires (purged at the next start), so the server's
        // anchor does too.
        try await Authz.grant(owner, S.syncApp, S.steps.identifier.rawValue, read: .denied, share: .denied)
        #expect(try await app.delete(uuids: [pulse.uuid]) == 1)
        await app.close()
        await owner.close()
        try await first.stop()
        try await Task.sleep(for: .milliseconds(1_500))
        let second = try await DaemonHarness.start(arguments: retention + ["--data-dir", first.dataDirectory.path], bundledPlugins: true)
        (_, task) = S.start(second, server, options: options)
        defer { task.cancel() }
        try await S.waitUntil("the full resync to end") {
            let generation = try await S.scalar(server, "SELECT generation FROM salus.feeds WHERE person_id = 'p1'", as: Int64.self)
            let resyncing = try await S.scalar(server, "SELECT resyncing FROM salus.feeds WHERE person_id = 'p1'", as: Bool.self)
            return (generation == 2 && resyncing == false, "generation \(generation ?? 0), resyncing \(resyncing ?? true)")
        }
        let rows = try await server.sampleUUIDs()
        let tombstones = try await server.tombstoneUUIDs()
        // The steps the resync could not read stay, with no tombstone for another machine.
        #expect(steps.isSubset(of: rows), "\(steps.subtracting(rows).count) of 5 steps removed")
        #expect(tombstones.isDisjoint(with: steps))
        // What it could read is still made whole: the deleted heart rate is gone.
        #expect(!rows.contains(pulse.uuid))
        #expect(tombstones.contains(pulse.uuid))
    }

    @Test("inbox rows: saved with sync identifier and version; re-delivery adds nothing, higher replaces, lower is ignored")
    func inboxVersions() async throws {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let server = try await serverStart
        let (_, task) = S.start(daemon, server, options: S.options([S.bodyMass]))
        defer { task.cancel() }
        // The inbox's rows refer to the person, whom the engine adds after the schema.
        try await S.waitUntil("the schema and the person") {
            let feeds = try await S.scalar(server, "SELECT count(*) FROM salus.feeds WHERE person_id = 'p1'", as: Int64.self)
            return (feeds == 1, "\(String(describing: feeds)) feeds")
        }

        func post(_ kilograms: Double, version: Double, unit: String? = "kg") async throws -> Int64 {
            let id = try await S.scalar(
                server,
                """
                INSERT INTO salus.inbox (person_id, type, start_date, quantity_value, quantity_unit, metadata, sync_identifier, sync_version)
                VALUES ('p1', 'HKQuantityTypeIdentifierBodyMass', '2026-05-01T08:00:00Z', \(kilograms), \(unit),
                        '{"clinic": "North", "HKWasUserEntered": true}', 'weight-2026-05-01', \(version))
                RETURNING id
                """, as: Int64.self)
            return try #require(id)
        }
        func outcome(_ id: Int64) async throws -> (String, String?) {
            var result: (String, String?) = ("", nil)
            try await S.waitUntil("inbox row \(id) to be applied") {
                let row = try await server.withConnection { connection in
                    try await connection.query("SELECT outcome, error FROM salus.inbox WHERE id = \(id) AND applied_at IS NOT NULL", logger: S.logger)
                        .collect().first?.decode((String, String?).self)
                }
                if let row { result = row }
                return (row != nil, "pending")
            }
            return result
        }
        func storeMasses() async throws -> [Double] {
            let owner = HealthStore(client: try await Authz.owner(daemon))
            let samples = try await AnchoredObjectQueryDescriptor(predicates: [.samples(S.bodyMass)]).result(for: owner).addedSamples
            await owner.close()
            return samples.compactMap { if case .quantity(let quantity) = $0.value { quantity.value } else { nil } }
        }

        #expect(try await outcome(try await post(70, version: 1)).0 == "saved")
        #expect(try await outcome(try await post(70, version: 1)).0 == "kept")
        #expect(try await storeMasses() == [70])
        #expect(try await outcome(try await post(71.5, version: 2)).0 == "replaced")
        #expect(try await outcome(try await post(69, version: 1)).0 == "kept")
        #expect(try await storeMasses() == [71.5])
        let rejected = try await outcome(try await post(80, version: 3, unit: nil))
        #expect(rejected.0 == "rejected")
        #expect(rejected.1?.contains("quantity_unit") == true)
        #expect(try await storeMasses() == [71.5])

        // The saved sample comes back through the feed, once, from the sync app; nothing is sent
        // back to the inbox.
        try await S.waitForMirror(daemon, server, types: [S.bodyMass])
        let row = try await server.withConnection { connection in
            try await connection.query(
                """
                SELECT source_app_id, sync_identifier, sync_version, quantity_value, metadata->>'clinic'
                FROM salus.samples WHERE person_id = 'p1' AND type = 'HKQuantityTypeIdentifierBodyMass'
                """, logger: S.logger
            ).collect().map { try $0.decode((String, String?, Double?, Double?, String?).self) }
        }
        #expect(row.count == 1)
        #expect(row.first?.0 == S.syncApp && row.first?.1 == "weight-2026-05-01" && row.first?.2 == 2 && row.first?.3 == 71.5)
        #expect(row.first?.4 == "North")
        #expect(try await S.scalar(server, "SELECT count(*) FROM salus.inbox", as: Int64.self) == 5)
        #expect(try await S.scalar(server, "SELECT count(*) FROM salus.tombstones", as: Int64.self) == 1)
    }

    @Test("a type granted again after the store purged the deletions since it was withdrawn sends all its samples")
    func grantedAgainAfterExpiry() async throws {
        let retention = ["--dev", "--tombstone-retention", "1s"]
        let setup = try await S.grantedStore(arguments: retention)
        let (server, first, app) = (setup.server, setup.daemon, setup.app)
        var owner = setup.owner
        let stepsID = S.steps.identifier.rawValue
        // The engine reaches the store through a link, moved to the second daemon's socket below.
        let link = first.directory.appendingPathComponent("store.sock").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: first.socketPath)
        let engine = SyncEngine(
            options: S.options([S.steps, S.heartRate]), database: server.settings, storeSocket: link, appID: S.syncApp,
            logger: S.logger)
        let task = Task { try await engine.run() }
        defer { task.cancel() }
        try await S.waitForMirror(first, server, types: [S.steps, S.heartRate])

        try await S.withdrawSteps(owner, reportedBy: engine)
        let meanwhile = try await app.save(S.steps(5, from: 100))
        // A deletion after the withdrawal, whose tombstone the next start purges: the store's
        // horizon passes the anchor steps were withdrawn at.
        let pulse = try await app.save(.quantity(.heartRate, Quantity(value: 1.2, unit: try SalusUnit(parsing: "count/s")), start: Date()))
        #expect(try await app.delete(uuids: [pulse.uuid]) == 1)
        try await S.waitUntil("the deletion on the server") {
            let tombstones = try await server.tombstoneUUIDs()
            return (tombstones.contains(pulse.uuid), "\(tombstones.count) tombstones")
        }
        await app.close()
        await owner.close()
        try await first.stop()
        try await Task.sleep(for: .milliseconds(1_500))
        let second = try await DaemonHarness.start(arguments: retention + ["--data-dir", first.dataDirectory.path], bundledPlugins: true)
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: second.socketPath)
        owner = try await Authz.owner(second)
        try await Authz.grant(owner, S.syncApp, stepsID, read: .granted, share: .granted)
        try await S.waitForRows(meanwhile, on: server, sentBy: engine)
        #expect(engine.currentStatus.revokedTypes.isEmpty)
        await owner.close()
    }

    @Test("a restart of salus-sync while a type is withdrawn still reports it, and a new grant sends what changed meanwhile")
    func withdrawalOutlivesRestart() async throws {
        let setup = try await S.grantedStore()
        let (server, daemon, owner, app) = (setup.server, setup.daemon, setup.owner, setup.app)
        let stepsID = S.steps.identifier.rawValue
        let options = S.options([S.steps, S.heartRate])
        let (first, firstTask) = S.start(daemon, server, options: options)
        try await S.waitForMirror(daemon, server, types: [S.steps, S.heartRate])
        try await S.withdrawSteps(owner, reportedBy: first)
        firstTask.cancel()
        _ = try? await firstTask.value

        // A new process: steps saved while withdrawn, then a heart rate the feed reads past them.
        let meanwhile = try await app.save(S.steps(5, from: 100))
        let pulse = try await app.save(.quantity(.heartRate, Quantity(value: 1.2, unit: try SalusUnit(parsing: "count/s")), start: Date()))
        let (second, secondTask) = S.start(daemon, server, options: options)
        defer { secondTask.cancel() }
        try await S.waitUntil("the later heart rate, and the withdrawal reported by the new process") {
            let rows = try await server.sampleUUIDs()
            let status = second.currentStatus
            return (rows.contains(pulse.uuid) && status.revokedTypes == [stepsID], "\(rows.count) rows, reported \(status.revokedTypes)")
        }
        #expect(try await server.sampleUUIDs().isDisjoint(with: meanwhile.map(\.uuid)))

        try await Authz.grant(owner, S.syncApp, stepsID, read: .granted, share: .granted)
        try await S.waitForRows(meanwhile, on: server, sentBy: second)
        try await S.waitUntil("the report to clear") { (second.currentStatus.revokedTypes.isEmpty, "\(second.currentStatus.revokedTypes)") }
        await app.close()
        await owner.close()
    }

    @Test("a revoked grant stops the feed for that type and is reported; other types go on")
    func revokedGrantStopsFeed() async throws {
        let setup = try await S.grantedStore()
        let (server, daemon, owner, app) = (setup.server, setup.daemon, setup.owner, setup.app)
        let stepsID = S.steps.identifier.rawValue
        let (engine, task) = S.start(daemon, server, options: S.options([S.steps, S.heartRate]))
        defer { task.cancel() }
        try await S.waitForMirror(daemon, server, types: [S.steps, S.heartRate])

        try await S.withdrawSteps(owner, reportedBy: engine)
        #expect(engine.currentStatus.lastErrorCode == "accessRevoked")
        _ = try await app.save(S.steps(5, from: 100))
        let pulse = try await app.save(.quantity(.heartRate, Quantity(value: 1.2, unit: try SalusUnit(parsing: "count/s")), start: Date()))
        // The heart-rate sample saved after the steps reaches the server: the feed has read past them.
        try await S.waitUntil("the later heart-rate sample") {
            let rows = try await server.sampleUUIDs()
            return (rows.contains(pulse.uuid), "\(rows.count) rows")
        }
        let steps = try await S.scalar(server, "SELECT count(*) FROM salus.samples WHERE type = \(stepsID)", as: Int64.self)
        #expect(steps == 5)

        // A new session (the server went away meanwhile) still knows the app had steps: the
        // owner granting them again clears the report. A heart rate saved meanwhile makes the
        // engine meet the stopped server (an idle feed would not).
        try await server.stopServer()
        _ = try await app.save(.quantity(.heartRate, Quantity(value: 1.3, unit: try SalusUnit(parsing: "count/s")), start: Date()))
        try await S.waitUntil("the engine to notice the server down") {
            (engine.currentStatus.phase == .retrying, "\(engine.currentStatus.phase)")
        }
        try await server.startServer()
        try await S.waitUntil("the engine to be live again") {
            (engine.currentStatus.phase == .live, "\(engine.currentStatus.phase)")
        }
        #expect(engine.currentStatus.revokedTypes == [stepsID])
        try await Authz.grant(owner, S.syncApp, stepsID, read: .granted, share: .granted)
        try await S.waitUntil("the report to clear once the owner grants steps again") {
            let status = engine.currentStatus
            return (status.revokedTypes.isEmpty, "\(status.revokedTypes)")
        }
        // The steps saved while they were withdrawn reach the server once they are granted again,
        // and the live feed goes on for them.
        try await S.waitUntil("the steps saved meanwhile") {
            let steps = try await S.scalar(server, "SELECT count(*) FROM salus.samples WHERE type = \(stepsID)", as: Int64.self)
            return (steps == 10, "\(steps ?? -1) steps")
        }
        _ = try await app.save(S.steps(3, from: 200))
        try await S.waitForMirror(daemon, server, types: [S.steps, S.heartRate])
        #expect(try await S.scalar(server, "SELECT count(*) FROM salus.samples WHERE type = \(stepsID)", as: Int64.self) == 13)
        #expect(engine.currentStatus.lastErrorCode == nil, "\(engine.currentStatus.lastError ?? "")")
        await app.close()
        await owner.close()
    }

    /// A heart-rate sample of 72 bpm, one minute long, `minute` minutes into the steps' day.
    static func pulse(_ minute: Int) throws -> Sample {
        let start = Date(timeIntervalSince1970: 1_780_000_000 + Double(minute * 60))
        return .quantity(.heartRate, Quantity(value: 1.2, unit: try SalusUnit(parsing: "count/s")), start: start, end: start.addingTimeInterval(60))
    }

    @Test("a type added to --types later is sent from the start of its history, and status counts it owed until it is")
    func typeAddedLater() async throws {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let server = try await serverStart
        let app = try await DaemonClients.store(daemon, "org.example.pedometer")
        let heartRateID = S.heartRate.identifier.rawValue
        // Four heart rates, then two steps: a feed of steps alone reads past the heart rates.
        let pulses = try await app.save((0..<4).map { try Self.pulse($0) })
        _ = try await app.save(S.steps(2, from: 10))
        let (_, first) = S.start(daemon, server, options: S.options([S.steps]))
        try await S.waitForMirror(daemon, server)
        first.cancel()
        _ = try? await first.value

        // Heart rate added: before the engine runs again, status counts its four samples.
        let both = S.options([S.steps, S.heartRate])
        let owed = await StatusReport.gather(options: both, database: server.settings, storeSocket: daemon.socketPath, appID: S.syncApp, logger: S.logger)
        #expect(owed.lag?.changes == 4, "\(owed.text)")
        #expect(owed.text.contains("lag: 4 changes") && owed.text.contains(heartRateID), "\(owed.text)")

        let (engine, second) = S.start(daemon, server, options: both)
        try await S.waitForMirror(daemon, server, types: [S.steps, S.heartRate], timeout: .seconds(20))
        #expect(try await server.sampleUUIDs().isSuperset(of: pulses.map(\.uuid)))
        try await S.waitUntil("the engine to be live", timeout: .seconds(20)) {
            (engine.currentStatus.phase == .live, "\(engine.currentStatus.phase)")
        }
        let caughtUp = await StatusReport.gather(options: both, database: server.settings, storeSocket: daemon.socketPath, appID: S.syncApp, logger: S.logger)
        #expect(caughtUp.lag?.changes == 0, "\(caughtUp.text)")
        #expect(!caughtUp.text.contains(heartRateID), "\(caughtUp.text)")
        second.cancel()
        _ = try? await second.value
        await app.close()
    }

    @Test("a type added to --types while the owner denies it stays owed, and is sent from the start of its history once granted")
    func typeAddedWhileDenied() async throws {
        let setup = try await S.grantedStore()
        let (server, daemon, owner, app) = (setup.server, setup.daemon, setup.owner, setup.app)
        let massID = S.bodyMass.identifier.rawValue
        try await Authz.grant(owner, "org.example.pedometer", massID, read: nil, share: .granted)
        try await Authz.grant(owner, S.syncApp, massID, read: .denied, share: .denied)
        let kilogram = try SalusUnit(parsing: "kg")
        let masses = try await app.save((0..<3).map { index in
            .quantity(.bodyMass, Quantity(value: 70 + Double(index), unit: kilogram), start: Date(timeIntervalSince1970: 1_780_000_000 + Double(index) * 86_400))
        })
        let (_, first) = S.start(daemon, server, options: S.options([S.steps]))
        try await S.waitForMirror(daemon, server)
        first.cancel()
        _ = try? await first.value

        // Body mass added while the owner denies it: nothing of it can be read, and it stays owed.
        let (engine, second) = S.start(daemon, server, options: S.options([S.steps, S.bodyMass]))
        defer { second.cancel() }
        try await S.waitUntil("the engine to be live", timeout: .seconds(20)) {
            (engine.currentStatus.phase == .live, "\(engine.currentStatus.phase)")
        }
        let later = try await app.save(S.steps(1, from: 500))
        try await S.waitForRows(later, on: server, sentBy: engine)
        #expect(try await server.sampleUUIDs().isDisjoint(with: masses.map(\.uuid)))

        try await Authz.grant(owner, S.syncApp, massID, read: .granted, share: .granted)
        try await S.waitForRows(masses, on: server, sentBy: engine)
        await app.close()
        await owner.close()
    }

    @Test("a type left out of --types keeps its rows as they were; added back, what changed meanwhile is sent, deletions included")
    func typeLeftOutThenBack() async throws {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let server = try await serverStart
        let app = try await DaemonClients.store(daemon, "org.example.pedometer")
        let both = S.options([S.steps, S.heartRate])
        let steps = try await app.save(S.steps(3))
        _ = try await app.save(try Self.pulse(0))
        let (_, first) = S.start(daemon, server, options: both)
        try await S.waitForMirror(daemon, server, types: [S.steps, S.heartRate])
        first.cancel()
        _ = try? await first.value

        // Heart rate alone: the steps' rows stay, and the steps' changes are not sent.
        let (_, second) = S.start(daemon, server, options: S.options([S.heartRate]))
        let later = try await app.save(S.steps(2, from: 100))
        #expect(try await app.delete(uuids: [steps[0].uuid]) == 1)
        let pulse = try await app.save(try Self.pulse(200))
        try await S.waitUntil("the later heart rate", timeout: .seconds(20)) {
            let rows = try await server.sampleUUIDs()
            return (rows.contains(pulse.uuid), "\(rows.count) rows")
        }
        second.cancel()
        _ = try? await second.value
        #expect(try await server.sampleUUIDs().isSuperset(of: steps.map(\.uuid)))
        #expect(try await server.sampleUUIDs().isDisjoint(with: later.map(\.uuid)))
        #expect(try await server.tombstoneUUIDs().isEmpty)

        // Steps added back: the two saved meanwhile and the deletion reach the server.
        let (_, third) = S.start(daemon, server, options: both)
        defer { third.cancel() }
        try await S.waitForMirror(daemon, server, types: [S.steps, S.heartRate], timeout: .seconds(20))
        #expect(try await server.tombstoneUUIDs() == [steps[0].uuid])
        await app.close()
    }

    @Test(
        "a configuration that cannot work stops the engine with its reason, instead of retrying for ever",
        arguments: ["a database that does not exist", "a role that does not exist", "a wrong password", "no permission on the schema"])
    func configurationThatCannotWork(_ fault: String) async throws {
        let server = try await SyncPostgresServer.start()
        var settings = server.settings
        let expected: String
        switch fault {
        case "a database that does not exist":
            settings.database = "nosuchdb"
            expected = "\"nosuchdb\" does not exist"
        case "a role that does not exist":
            settings.user = "nosuchrole"
            expected = "\"nosuchrole\" does not exist"
        case "a wrong password":
            // A role whose password the server checks (the others are trusted).
            try await server.withConnection { connection in
                try await connection.query("CREATE ROLE carer LOGIN PASSWORD 'right'", logger: S.logger)
            }
            try await server.requirePassword(for: "carer")
            settings.user = "carer"
            settings.password = "wrong"
            expected = "password authentication failed for user \"carer\""
        default:
            // The schema made by its owner; a role that may not create in it.
            let owner = try await PostgresMirror.connect(server.settings, person: "p1", origin: "laptop", logger: S.logger)
            _ = try await owner.open()
            await owner.close()
            // It may create schemas in the database (as the owner of a database made with
            // createdb -O), so the refusal is the schema's, as the README's step met it.
            try await server.withConnection { connection in
                try await connection.query("CREATE ROLE reader LOGIN", logger: S.logger)
                try await connection.query("GRANT CREATE ON DATABASE postgres TO reader", logger: S.logger)
            }
            settings.user = "reader"
            expected = "permission denied for schema salus"
        }
        // No daemon: a failing server is met first.
        let engine = SyncEngine(
            options: S.options(), database: settings, storeSocket: server.directory.appendingPathComponent("no-store.sock").path,
            appID: S.syncApp, logger: S.logger)
        let task = Task { try await engine.run() }
        defer { task.cancel() }
        // Up to 60 s: with the whole suite on two cores, the password case was still
        // "starting" after 10 s (a refusal is met once; a retry loop would never stop).
        try await S.waitUntil("the engine to stop", timeout: .seconds(60)) {
            (engine.currentStatus.phase == .stopped, "\(engine.currentStatus.phase): \(engine.currentStatus.lastError ?? "no error")")
        }
        let error = await #expect(throws: SyncError.self) { try await task.value }
        #expect(error?.code == .configuration, "\(String(describing: error))")
        #expect(error?.description.contains(expected) == true, "\(String(describing: error))")
        // One line, naming where the connection went (the redacted settings), never the password.
        #expect(error?.description.contains("user=\(settings.user)") == true, "\(String(describing: error))")
        #expect(error?.description.contains("\n") == false)
        #expect(error?.description.contains("wrong") == false, "\(String(describing: error))")
    }
}
