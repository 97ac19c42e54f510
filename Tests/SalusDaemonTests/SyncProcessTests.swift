import Foundation
import SalusKit
import SalusModel
import SalusSpawn
import SalusSync
import SalusTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `salus-sync` executable, launched by the owner as an app (`salusctl launch`), against a
/// real salusd and a real PostgreSQL server.
@Suite(.enabled(if: SyncPostgresServer.unavailableReason == nil, "\(SyncPostgresServer.unavailableReason ?? "")"))
struct SyncProcessTests {
    typealias S = SyncSupport

    @Test("kill -9 of salus-sync 20 times while it commits, with saves and deletions between: the server's rows equal the store")
    func killNineTwentyTimes() async throws {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let server = try await serverStart
        let owner = try await Authz.owner(daemon)
        let stepsID = S.steps.identifier.rawValue
        try await Authz.register(owner, S.syncApp)
        try await Authz.grant(owner, S.syncApp, stepsID, read: .granted, share: .granted)
        try await Authz.register(owner, "org.example.pedometer")
        try await Authz.grant(owner, "org.example.pedometer", stepsID, read: .granted, share: .granted)
        let app = try await DaemonClients.store(daemon, "org.example.pedometer")
        var saved: [UUID] = []
        for chunk in 0..<4 {
            saved += try await app.save(S.steps(1_000, from: chunk * 1_000)).map(\.uuid)
        }

        // The connection string travels in a file only the owner reads, never on the command line.
        let databaseFile = daemon.directory.appendingPathComponent("database.conf")
        try server.connectionString.write(to: databaseFile, atomically: true, encoding: .utf8)
        chmod(databaseFile.path, 0o600)
        let statusFile = daemon.directory.appendingPathComponent("sync-status.json").path
        let arguments = [
            "launch", "--admin-socket", daemon.adminSocketPath, "--app", S.syncApp, "--",
            DaemonHarness.binary("salus-sync").path, "run", "--person", "p1", "--origin", "laptop", "--types", stepsID,
            "--database-file", databaseFile.path, "--status-file", statusFile, "--batch-size", "25", "--poll-interval", "50",
            "--maximum-backoff", "200",
        ]
        func anchor() async throws -> Int64 {
            (try? await S.scalar(server, "SELECT anchor FROM salus.feeds WHERE person_id = 'p1'", as: Int64.self)) ?? 0
        }

        var anchorsAtKill: [Int64] = []
        for round in 0..<20 {
            let before = try await anchor()
            let sync = try BackgroundProgram(
                DaemonHarness.binary("salusctl"), arguments, log: daemon.directory.appendingPathComponent("sync-\(round).log"))
            // Kill it once it has committed something (or after 3 s), a few milliseconds later.
            let deadline = ContinuousClock.now + .seconds(3)
            while try await anchor() == before, sync.process.isRunning, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...15)))
            #expect(sync.process.isRunning, "salus-sync exited early: \(sync.output)")
            sync.process.send(SIGKILL)
            #expect(try await sync.waitForExit() == .signalled(SIGKILL))
            anchorsAtKill.append(try await anchor())
            // Changes between the runs: new samples, and deletions of synced and unsynced ones.
            saved += try await app.save(S.steps(15, from: 10_000 + round * 15)).map(\.uuid)
            let victims = [saved.remove(at: Int.random(in: 0..<saved.count)), saved.remove(at: Int.random(in: 0..<saved.count))]
            #expect(try await app.delete(uuids: victims) == 2)
        }
        // The kills came while it was committing: the server's anchor moved between them.
        #expect(Set(anchorsAtKill).count > 10, "anchors at the kills: \(anchorsAtKill)")

        let last = try BackgroundProgram(DaemonHarness.binary("salusctl"), arguments, log: daemon.directory.appendingPathComponent("sync-last.log"))
        try await S.waitForMirror(daemon, server, timeout: .seconds(30))
        let rows = try await server.sampleUUIDs()
        #expect(rows == Set(saved))
        #expect(try await S.scalar(server, "SELECT count(*) FROM salus.samples", as: Int64.self) == Int64(saved.count))
        // Stopped with SIGTERM, it exits cleanly and says where it stands.
        last.process.send(SIGTERM)
        #expect(try await last.waitForExit() == .exited(0), "\(last.output)")
        let status = try #require(SyncStatus.read(from: statusFile))
        #expect(status.phase == .stopped)
        #expect(status.anchor == UInt64(try await anchor()))
        await app.close()
        await owner.close()
    }

    @Test("salus-sync status: the server's anchor, the lag behind the store and the last error")
    func statusCommand() async throws {
        async let serverStart = SyncPostgresServer.start()
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let server = try await serverStart
        let app = try await DaemonClients.store(daemon, "org.example.pedometer")
        _ = try await app.save(S.steps(12))
        let statusFile = daemon.directory.appendingPathComponent("sync-status.json").path
        let (_, task) = S.start(daemon, server, options: S.options(statusFile: statusFile))
        try await S.waitForMirror(daemon, server)
        task.cancel()
        _ = try? await task.value
        _ = try await app.save(S.steps(4, from: 100))

        let environment = [DatabaseSettings.environmentVariable: server.connectionString, "SALUS_SOCKET": daemon.socketPath]
        let common = ["--person", "p1", "--origin", "laptop", "--types", S.steps.identifier.rawValue, "--status-file", statusFile]
        let text = try await DaemonHarness.run(DaemonHarness.binary("salus-sync"), ["status"] + common, environment: environment)
        #expect(text.status == 0, "\(text.output)")
        #expect(text.output.contains("server anchor: 12"))
        #expect(text.output.contains("lag: 4 changes"))
        #expect(text.output.contains("last error: none"))

        // The server down: the status fails, names the server unreachable, and still tells the
        // changes waiting in the store (after the anchor of the process's last status).
        try await server.stopServer()
        let down = try await DaemonHarness.run(DaemonHarness.binary("salus-sync"), ["status"] + common, environment: environment)
        #expect(down.status != 0, "\(down.output)")
        #expect(down.output.contains("lag: 4 changes"), "\(down.output)")
        #expect(down.output.contains("unreachable: PostgreSQL"), "\(down.output)")
        let json = try await DaemonHarness.run(DaemonHarness.binary("salus-sync"), ["status", "--json"] + common, environment: environment)
        #expect(json.status == down.status, "\(json.output)")
        #expect(json.output.contains("\"unreachable\"") && json.output.contains("\"changes\" : 4"), "\(json.output)")

        // No connection string anywhere: a clear error naming where it is looked for.
        let missing = try await DaemonHarness.run(
            DaemonHarness.binary("salus-sync"), ["status"] + common, environment: [DatabaseSettings.environmentVariable: ""])
        #expect(missing.status != 0)
        #expect(missing.output.contains(DatabaseSettings.environmentVariable) && missing.output.contains("--database-file"))
        await app.close()
    }
}

extension SyncProcessTests {
    @Test("a configuration that cannot work ends salus-sync run at once with status 64 and its reason in one line")
    func configurationExitStatus() async throws {
        let server = try await SyncPostgresServer.start()
        let folder = try DaemonHarness.makeTemporaryDirectory(prefix: "sync")
        defer { try? FileManager.default.removeItem(at: folder) }
        let databaseFile = folder.appendingPathComponent("database.conf")
        try "host=\(server.socketDirectory) port=\(server.port) user=salus dbname=nosuchdb sslmode=disable"
            .write(to: databaseFile, atomically: true, encoding: .utf8)
        chmod(databaseFile.path, 0o600)
        let result = try await DaemonHarness.run(
            DaemonHarness.binary("salus-sync"),
            [
                "run", "--person", "p1", "--origin", "laptop", "--types", S.steps.identifier.rawValue, "--database-file", databaseFile.path,
                "--status-file", folder.appendingPathComponent("status.json").path, "--log-level", "warning",
            ], environment: ["SALUS_SOCKET": folder.appendingPathComponent("no-store.sock").path], timeout: .seconds(30))
        #expect(result.status == 64, "\(result.output)")
        let lines = result.output.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(lines.count == 1, "\(result.output)")
        #expect(lines.first?.contains("database \"nosuchdb\" does not exist") == true, "\(result.output)")
        let status = try #require(SyncStatus.read(from: folder.appendingPathComponent("status.json").path))
        #expect(status.phase == .stopped && status.lastErrorCode == "configuration")
    }
}

/// `sslmode=verify-full` against a server with a certificate for `localhost`.
@Suite(.enabled(if: SyncPostgresServer.unavailableReason == nil && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"),
                "PostgreSQL and openssl are needed"))
struct SyncTLSTests {
    @Test("verify-full connects to the host its certificate names, and refuses another name or another authority")
    func verifyFull() async throws {
        let server = try await SyncPostgresServer.start(tls: true)
        func settings(host: String, authority: String) throws -> DatabaseSettings {
            try DatabaseSettings.parse(
                "postgresql://salus@\(host):\(server.port)/postgres?sslmode=verify-full&sslrootcert=\(authority)")
        }
        let mirror = try await PostgresMirror.connect(
            try settings(host: "localhost", authority: server.certificateAuthority), person: "p1", origin: "laptop", logger: SyncSupport.logger)
        let state = try await mirror.open()
        #expect(state.anchor == 0)
        let encrypted = try await mirror.connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: SyncSupport.logger)
            .collect().first?.decode(Bool.self)
        #expect(encrypted == true)
        await mirror.close()

        // The certificate names localhost, not 127.0.0.1.
        let wrongName = await #expect(throws: SyncError.self) {
            let wrong = try await PostgresMirror.connect(
                try settings(host: "127.0.0.1", authority: server.certificateAuthority), person: "p1", origin: "laptop", logger: SyncSupport.logger)
            await wrong.close()
        }
        // Another authority did not sign it.
        let otherAuthority = server.directory.appendingPathComponent("other-ca.pem").path
        let made = try await DaemonHarness.run(URL(fileURLWithPath: "/usr/bin/openssl"), [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", server.directory.appendingPathComponent("other-ca.key").path, "-out", otherAuthority, "-days", "2", "-subj", "/CN=Other",
        ])
        #expect(made.status == 0)
        let wrongAuthority = await #expect(throws: SyncError.self) {
            let wrong = try await PostgresMirror.connect(
                try settings(host: "localhost", authority: otherAuthority), person: "p1", origin: "laptop", logger: SyncSupport.logger)
            await wrong.close()
        }
        #expect(wrongName?.description.contains("failedToValidateHostname") == true, "\(String(describing: wrongName))")
        #expect(wrongAuthority?.description.contains("CERTIFICATE_VERIFY_FAILED") == true, "\(String(describing: wrongAuthority))")
    }
}
