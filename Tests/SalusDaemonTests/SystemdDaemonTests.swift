import Foundation
import SalusRPC
import SalusSpawn
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// salusd under systemd's protocols: started by socket activation on the first connection
/// (with Debian's `systemd-socket-activate`, which passes sockets exactly as systemd does), and
/// readiness sent to `NOTIFY_SOCKET`.
@Suite("salusd under systemd")
struct SystemdDaemonTests {
    static let activate = DaemonHarness.findExecutable("systemd-socket-activate")

    @Test(
        "the first connection starts salusd on the sockets systemd passed, named or told apart by their files",
        .enabled(if: activate != nil, "needs systemd-socket-activate (Debian's systemd package)"),
        arguments: [true, false]
    )
    func socketActivation(named: Bool) async throws {
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "salus-activate")
        defer { try? FileManager.default.removeItem(at: directory) }
        let appSocket = directory.appendingPathComponent("salus.sock").path
        let adminSocket = directory.appendingPathComponent("admin.sock").path
        let log = directory.appendingPathComponent("salusd.log")
        var arguments = ["-l", appSocket, "-l", adminSocket]
        if named { arguments.append("--fdname=app:admin") }
        arguments += [
            DaemonHarness.binary("salusd").path, "--data-dir", directory.appendingPathComponent("data").path, "--dev",
        ]
        let activation = try BackgroundProgram(try #require(Self.activate), arguments, log: log)

        // The sockets listen before salusd runs; nothing is started until a client connects.
        let deadline = ContinuousClock.now + .seconds(20)
        while !(FileManager.default.fileExists(atPath: appSocket) && FileManager.default.fileExists(atPath: adminSocket)) {
            guard activation.process.isRunning, ContinuousClock.now < deadline else {
                Issue.record("systemd-socket-activate did not listen on both sockets: \(activation.output)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!activation.output.contains(" ready"))

        // The admin socket answers salusctl, the app socket answers an app.
        let status = try await DaemonHarness.run(DaemonHarness.binary("salusctl"), ["status", "--admin-socket", adminSocket], timeout: .seconds(60))
        #expect(status.status == 0, "\(status.output)\n\(activation.output)")
        #expect(status.output.contains("salusd 0.1.0"))
        #expect(status.output.contains("service salus.v1.Admin"))
        var configuration = RPCClient.Configuration()
        configuration.declaredAppID = "org.example.activated"
        let app = try await RPCClient.connect(unixSocketPath: appSocket, configuration: configuration)
        #expect(app.serverHello?.serverName == "salusd")
        #expect(app.serverHello?.services.contains { $0.name == "salus.v1.Admin" } == false)
        await app.close()
        #expect(activation.output.contains("app socket:   \(appSocket)"))
        #expect(activation.output.contains("admin socket: \(adminSocket)"))

        // SIGTERM stops it cleanly, and the socket files systemd owns stay in place.
        activation.process.send(SIGTERM)
        #expect(try await activation.waitForExit(timeout: .seconds(30)) == .exited(0), "\(activation.output)")
        #expect(FileManager.default.fileExists(atPath: appSocket))
        #expect(FileManager.default.fileExists(atPath: adminSocket))
    }

    @Test("salusctl setup writes units that start the salusd of its prefix, and creates the data folder the unit opens")
    func setup() async throws {
        let home = try DaemonHarness.makeTemporaryDirectory(prefix: "salus-setup")
        defer { try? FileManager.default.removeItem(at: home) }
        // An installed prefix: <prefix>/bin/salusd.
        let prefix = home.appendingPathComponent("prefix").path
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: prefix + "/bin/salusd", withDestinationPath: DaemonHarness.binary("salusd").path)
        let result = try await DaemonHarness.run(
            DaemonHarness.binary("salusctl"), ["setup", "--prefix", prefix, "--no-enable"],
            environment: ["HOME": home.path, "XDG_CONFIG_HOME": ""], timeout: .seconds(60))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("systemctl --user enable --now salusd.socket"))
        let units = home.appendingPathComponent(".config/systemd/user")
        let service = try String(contentsOf: units.appendingPathComponent("salusd.service"), encoding: .utf8)
        let socket = try String(contentsOf: units.appendingPathComponent("salusd.socket"), encoding: .utf8)
        #expect(service.contains("\nExecStart=\(prefix)/bin/salusd --data-dir %h/.local/share/salus\n"))
        #expect(service.contains("\nType=notify\n"))
        #expect(service.contains("\nReadWritePaths=%h/.local/share/salus %t/salus\n"))
        #expect(socket.contains("\nListenStream=%t/salus/salus.sock\nListenStream=%t/salus/admin.sock\n"))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(".local/share/salus").path, isDirectory: &isDirectory))
        #expect(isDirectory.boolValue)

        let missing = try await DaemonHarness.run(
            DaemonHarness.binary("salusctl"), ["setup", "--prefix", home.path, "--no-enable"],
            environment: ["HOME": home.path], timeout: .seconds(60))
        #expect(missing.status != 0)
        #expect(missing.output.contains("--prefix: no salusd at \(home.path)/bin/salusd"))
    }

    @Test("salusd sends READY=1 to NOTIFY_SOCKET once both sockets accept")
    func readiness() async throws {
        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "salus-notify")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("notify").path
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        try #require(receiver >= 0)
        defer { close(receiver) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: Array(path.utf8))
            buffer[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        // A guard against a daemon that never sends: the test fails instead of hanging.
        var limit = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))

        let daemon = try await DaemonHarness.start(environment: ["NOTIFY_SOCKET": path])
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = recv(receiver, &buffer, buffer.count, 0)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "READY=1")
        #expect(DaemonHarness.canConnect(toUnixSocket: daemon.adminSocketPath))
        #expect(try await daemon.stop() == 0)
    }
}
