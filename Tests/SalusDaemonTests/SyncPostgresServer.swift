import Foundation
import Logging
import PostgresNIO
import SalusSync
import SalusTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A real PostgreSQL server (Debian's `postgresql` package) in a fresh temporary folder, on a
/// private Unix socket, for the sync tests.
///
/// `initdb` and `postgres` refuse to run as root; tests running as root run them as the
/// `postgres` user (`runuser -u postgres --`) in a folder that user owns. ``unavailableReason``
/// says why the tests are skipped when neither works. The server is stopped (immediately) and its
/// folder removed when the value is released.
final class SyncPostgresServer: @unchecked Sendable {
    /// The folder of the binaries (`initdb`, `pg_ctl`).
    static let binaries = URL(fileURLWithPath: ProcessInfo.processInfo.environment["SALUS_PG_BIN"] ?? "/usr/lib/postgresql/15/bin")

    /// Why a server cannot be started here, or nil when it can.
    static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: binaries.appendingPathComponent("initdb").path) else {
            return "PostgreSQL is not installed at \(binaries.path) (Debian's postgresql package; scripts/setup installs it)"
        }
        if getuid() == 0 {
            guard getpwnam("postgres") != nil else { return "running as root and there is no postgres user to run the server as" }
            guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser") || FileManager.default.isExecutableFile(atPath: "/sbin/runuser") else {
                return "running as root and runuser is missing"
            }
        }
        return nil
    }()

    let directory: URL
    var dataDirectory: URL { directory.appendingPathComponent("data") }
    /// The folder of the server's Unix socket.
    var socketDirectory: String { directory.path }
    /// The port: 5432 on the private socket; a free one on 127.0.0.1 with TLS.
    private(set) var port = 5432
    /// With TLS: the certificate authority that signed the server's certificate (for
    /// `localhost` only), in PEM.
    var certificateAuthority: String { directory.appendingPathComponent("ca.pem").path }
    private var serverOptions: String = ""
    private let owner: (uid: uid_t, gid: gid_t)?

    private init(directory: URL, owner: (uid: uid_t, gid: gid_t)?) {
        self.directory = directory
        self.owner = owner
    }

    deinit {
        if FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("postmaster.pid").path) {
            let (executable, arguments) = commandLine(["pg_ctl", "-D", dataDirectory.path, "-m", "immediate", "-w", "stop"])
            _ = try? DaemonHarness.spawn(executable, arguments, log: directory.appendingPathComponent("commands.log").path).waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Creates a cluster (user `salus`, trust authentication) and starts it: on the private Unix
    /// socket only, or with `tls` also on 127.0.0.1 with TLS, its certificate for `localhost`
    /// signed by a certificate authority made for the test (``certificateAuthority``).
    static func start(tls: Bool = false) async throws -> SyncPostgresServer {
        if let unavailableReason { throw HarnessError(unavailableReason) }
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "pg")
        var owner: (uid: uid_t, gid: gid_t)? = nil
        if getuid() == 0, let entry = getpwnam("postgres") {
            owner = (entry.pointee.pw_uid, entry.pointee.pw_gid)
            chown(directory.path, entry.pointee.pw_uid, entry.pointee.pw_gid)
        }
        let server = SyncPostgresServer(directory: directory, owner: owner)
        try await server.pg([
            "initdb", "-D", server.dataDirectory.path, "-U", "salus", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions",
        ])
        if tls {
            try await server.makeCertificates()
            server.serverOptions = " -c ssl=on -c ssl_cert_file=\(directory.path)/server.pem -c ssl_key_file=\(directory.path)/server.key"
            server.serverOptions += " -c listen_addresses=127.0.0.1"
            for attempt in 1...3 {
                server.port = Int.random(in: 20_000...60_000)
                do {
                    try await server.startServer()
                    break
                } catch {
                    if attempt == 3 { throw error }
                }
            }
        } else {
            server.serverOptions = " -c listen_addresses=''"
            try await server.startServer()
        }
        return server
    }

    /// A certificate authority and a server certificate for `localhost` (P-256), owned by the
    /// server's user.
    private func makeCertificates() async throws {
        let folder = directory.path
        try "subjectAltName=DNS:localhost\n".write(toFile: "\(folder)/server.ext", atomically: true, encoding: .utf8)
        let commands: [[String]] = [
            ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "\(folder)/ca.key",
             "-out", "\(folder)/ca.pem", "-days", "2", "-subj", "/CN=Salus sync test CA"],
            ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "\(folder)/server.key",
             "-out", "\(folder)/server.csr", "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", "\(folder)/server.csr", "-CA", "\(folder)/ca.pem", "-CAkey", "\(folder)/ca.key", "-CAcreateserial",
             "-out", "\(folder)/server.pem", "-days", "2", "-extfile", "\(folder)/server.ext"],
        ]
        for arguments in commands {
            let result = try await DaemonHarness.run(URL(fileURLWithPath: "/usr/bin/openssl"), arguments, timeout: .seconds(30))
            guard result.status == 0 else { throw HarnessError("openssl \(arguments.joined(separator: " ")) failed: \(result.output)") }
        }
        chmod("\(folder)/server.key", 0o600)
        if let owner {
            for file in ["server.key", "server.pem", "ca.pem"] { chown("\(folder)/\(file)", owner.uid, owner.gid) }
        }
    }

    /// Starts the server (again).
    func startServer() async throws {
        try await pg([
            "pg_ctl", "-D", dataDirectory.path, "-l", directory.appendingPathComponent("server.log").path, "-w", "-t", "30",
            "-o", "-p \(port) -k \(socketDirectory)\(serverOptions) -c fsync=off -c synchronous_commit=off -c full_page_writes=off",
            "start",
        ])
    }

    /// Stops the server: `fast` rolls back open transactions and closes connections.
    func stopServer(mode: String = "fast") async throws {
        try await pg(["pg_ctl", "-D", dataDirectory.path, "-m", mode, "-w", "-t", "30", "stop"])
    }

    /// Makes the server check `role`'s password (scram-sha-256) on its socket, where every other
    /// role stays trusted, and waits until the server has read the new rule.
    func requirePassword(for role: String) async throws {
        let rules = dataDirectory.appendingPathComponent("pg_hba.conf")
        let text = try String(contentsOf: rules, encoding: .utf8)
        // Written in place: the file keeps its owner (the server's user).
        try "local all \(role) scram-sha-256\n\(text)".write(to: rules, atomically: false, encoding: .utf8)
        try await withConnection { connection in
            _ = try await connection.query("SELECT pg_reload_conf()", logger: Logger(label: "sync-test")).collect()
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            // Trusted, a wrong password connects; once the rule is read, it fails.
            let connected = try? await PostgresConnection.connect(
                configuration: PostgresConnection.Configuration(
                    unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: role, password: "not the password", database: "postgres"),
                id: 98, logger: Logger(label: "sync-test"))
            guard let connected else { return }
            try? await connected.close()
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessError("the server did not start checking \(role)'s password")
    }

    /// Sends `signal` to the server and every process it started (SIGSTOP: a server that
    /// accepts connections and answers nothing; SIGCONT: it goes on).
    func signalServer(_ signal: Int32) throws {
        let pidFile = dataDirectory.appendingPathComponent("postmaster.pid").path
        guard let first = try String(contentsOfFile: pidFile, encoding: .utf8).split(separator: "\n").first,
            let postmaster = Int32(first.trimmingCharacters(in: .whitespaces))
        else { throw HarnessError("no server process in \(pidFile)") }
        var processes = [postmaster]
        for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // "pid (comm) state ppid ...": the parent is the second field after the name.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == postmaster { processes.append(pid) }
        }
        for pid in processes { kill(pid, signal) }
    }

    /// The connection settings of this server.
    var settings: DatabaseSettings {
        DatabaseSettings(socketDirectory: socketDirectory, port: port, user: "salus", database: "postgres", tlsMode: .disable)
    }

    /// The connection string for `SALUS_SYNC_DATABASE` or a `--database-file`.
    var connectionString: String { "host=\(socketDirectory) port=\(port) user=salus dbname=postgres sslmode=disable" }

    /// Runs `body` on a new connection.
    func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await PostgresConnection.connect(
            configuration: try settings.postgresConfiguration(), id: 99, logger: Logger(label: "sync-test"))
        do {
            let value = try await body(connection)
            try? await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The UUIDs in `salus.samples` for `person`.
    func sampleUUIDs(person: String = "p1") async throws -> Set<UUID> {
        try await uuids(in: "salus.samples", person: person)
    }

    /// The UUIDs in `salus.tombstones` for `person`.
    func tombstoneUUIDs(person: String = "p1") async throws -> Set<UUID> {
        try await uuids(in: "salus.tombstones", person: person)
    }

    private func uuids(in table: String, person: String) async throws -> Set<UUID> {
        try await withConnection { connection in
            var uuids: Set<UUID> = []
            for try await uuid in try await connection.query(
                "SELECT uuid FROM \(unescaped: table) WHERE person_id = \(person)", logger: Logger(label: "sync-test")
            ).decode(UUID.self) {
                uuids.insert(uuid)
            }
            return uuids
        }
    }

    private func commandLine(_ arguments: [String]) -> (executable: URL, arguments: [String]) {
        let program = Self.binaries.appendingPathComponent(arguments[0]).path
        if owner != nil {
            return (URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", program] + arguments.dropFirst())
        }
        return (URL(fileURLWithPath: program), Array(arguments.dropFirst()))
    }

    private func pg(_ arguments: [String]) async throws {
        let (executable, rest) = commandLine(arguments)
        let log = directory.appendingPathComponent("commands.log").path
        let process = try DaemonHarness.spawn(executable, rest, log: log)
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning {
            if ContinuousClock.now >= deadline {
                process.send(SIGKILL)
                process.waitUntilExit()
                throw HarnessError("\(arguments.joined(separator: " ")) did not finish within 60 s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let ended = process.waitUntilExit()
        guard ended == .exited(0) else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let serverLog = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            throw HarnessError("\(arguments.joined(separator: " ")) ended with \(ended):\n\(output)\n\(serverLog)")
        }
    }
}
