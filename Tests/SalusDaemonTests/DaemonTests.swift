#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SalusProto
import SalusRPC
import Synchronization
import Testing

@Suite("salusd as a person runs it")
struct DaemonTests {
    static let echo = SalusMethods.Diagnostics.echo
    static let sleep = SalusMethods.Diagnostics.sleep

    @Test("without path flags it uses XDG_RUNTIME_DIR and XDG_DATA_HOME, and prints its sockets")
    func defaultPaths() async throws {
        let daemon = try await DaemonHarness.start(defaultPaths: true)
        #expect(daemon.socketPath.hasSuffix("xdg-runtime/salus/salus.sock"))
        #expect(FileManager.default.fileExists(atPath: daemon.dataDirectory.appendingPathComponent("salus.sqlite").path))
        #expect(daemon.output.contains("app socket:   \(daemon.socketPath)"))
        #expect(daemon.output.contains("admin socket: \(daemon.adminSocketPath)"))
        for path in [daemon.socketPath, daemon.adminSocketPath] {
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600, "\(path) has mode \(String(info.st_mode & 0o777, radix: 8))")
        }
        var runtime = stat()
        #expect(stat((daemon.socketPath as NSString).deletingLastPathComponent, &runtime) == 0)
        #expect(runtime.st_mode & 0o077 == 0, "the runtime folder is open to others")
        #expect(try await daemon.stop() == 0)
    }

    @Test("--socket-group makes the app socket 0660 with that group; the admin socket stays 0600")
    func socketGroup() async throws {
        let group = getegid()
        let daemon = try await DaemonHarness.start(arguments: ["--socket-group", "\(group)"])
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        #expect(info.st_gid == group)
        #expect(stat(daemon.adminSocketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(try await daemon.stop() == 0)
    }

    @Test("a second daemon on a live socket refuses to start; a stale socket file is replaced")
    func liveAndStaleSockets() async throws {
        let first = try await DaemonHarness.start()
        let second = try await DaemonHarness.run(
            DaemonHarness.binary("salusd"),
            ["--socket", first.socketPath, "--admin-socket", first.directory.appendingPathComponent("other-admin.sock").path,
             "--data-dir", first.directory.appendingPathComponent("other-data").path],
            timeout: .seconds(60)
        )
        #expect(second.status != 0)
        #expect(second.output.contains("another salusd is running"))
        // A second `make run`: the same sockets and data. It is refused before it loads a plugin
        // or checks a database (nothing of the running daemon's is touched, even at debug level),
        // and it says how to run a second one.
        let plugins = first.directory.appendingPathComponent("plugins", isDirectory: true)
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: plugins.appendingPathComponent("libSalusCore.so"), withDestinationURL: DaemonHarness.binDirectory.appendingPathComponent("libSalusCore.so"))
        let again = try await DaemonHarness.run(
            DaemonHarness.binary("salusd"),
            ["--socket", first.socketPath, "--admin-socket", first.adminSocketPath, "--data-dir", first.dataDirectory.path,
             "--plugins-dir", plugins.path, "--log-level", "debug"],
            timeout: .seconds(60)
        )
        #expect(again.status != 0)
        #expect(again.output.contains("another salusd is running: \(first.socketPath) accepts connections"), "\(again.output)")
        #expect(again.output.contains("--socket PATH --admin-socket PATH --data-dir DIR"), "\(again.output)")
        #expect(!again.output.contains("plugin") && !again.output.contains("database") && !again.output.contains("migrat"), "\(again.output)")
        #expect(try await first.stop(signal: SIGKILL) != 0)
        // SIGKILL left the socket files behind: a new daemon replaces them.
        #expect(FileManager.default.fileExists(atPath: first.socketPath))
        let third = try await DaemonHarness.start(arguments: [])
        #expect(try await third.stop() == 0)
    }

    @Test("SIGTERM: GoAway, calls in flight finish, exit 0")
    func gracefulShutdown() async throws {
        let daemon = try await DaemonHarness.start()
        let client = try await RPCClient.connect(unixSocketPath: daemon.socketPath)
        var request = Salus_V1_SleepRequest()
        request.milliseconds = 3_000
        let sleep = request
        final class Counter: Sendable { let value = Mutex(0) }
        let started = Counter()
        let calls = (0..<4).map { _ in
            Task { () throws -> Salus_V1_SleepResponse in
                started.value.withLock { $0 += 1 }
                return try await client.unary(Self.sleep, request: sleep)
            }
        }
        // The calls are in flight once an echo sent after them on the same connection is
        // answered: the server reads a connection's frames in order.
        while started.value.withLock({ $0 }) < 4 { await Task.yield() }
        let echo: Salus_V1_EchoResponse = try await client.unary(SalusMethods.Diagnostics.echo, request: Salus_V1_EchoRequest())
        #expect(echo.text.isEmpty)
        kill(daemon.process.processIdentifier, SIGTERM)
        // GoAway arrives while the calls are still running (each sleeps 3 s) ...
        let deadline = ContinuousClock.now + .seconds(10)
        while !client.isGoingAway && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(client.isGoingAway)
        // ... and every call in flight still finishes.
        for call in calls {
            #expect(try await call.value.sleptMilliseconds == 3_000)
        }
        #expect(try await daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        await client.close()
    }

    @Test("salusctl finds the admin socket from --admin-socket, then SALUS_ADMIN_SOCKET")
    func salusctlFindsTheDaemon() async throws {
        let daemon = try await DaemonHarness.start()
        let salusctl = DaemonHarness.binary("salusctl")
        let byFlag = try await DaemonHarness.run(salusctl, ["status", "--admin-socket", daemon.adminSocketPath])
        #expect(byFlag.status == 0)
        #expect(byFlag.output.contains("salusd 0.1.0, protocol 1"))
        #expect(byFlag.output.contains("service salus.v1.Session"))
        #expect(byFlag.output.contains(
            "512 connections, 256 calls per connection, 32 authorization requests waiting per app, attachments up to 100 MiB"), "\(byFlag.output)")
        let byEnvironment = try await DaemonHarness.run(salusctl, ["status"], environment: ["SALUS_ADMIN_SOCKET": daemon.adminSocketPath])
        #expect(byEnvironment.status == 0)
        #expect(byEnvironment.output.contains("admin socket: \(daemon.adminSocketPath)"))
        let nowhere = daemon.directory.appendingPathComponent("none.sock").path
        let missing = try await DaemonHarness.run(salusctl, ["status", "--admin-socket", nowhere])
        #expect(missing.status != 0)
        // One clear line: the path once, the reason in words, how to start salusd or point at it.
        #expect(missing.output.contains("cannot reach salusd: cannot connect to \(nowhere): no such file or directory (no socket there"), "\(missing.output)")
        #expect(missing.output.components(separatedBy: nowhere).count == 2, "\(missing.output)")
        #expect(!missing.output.contains("connect(descriptor") && !missing.output.contains("errno"), "\(missing.output)")
        #expect(missing.output.contains("SALUS_ADMIN_SOCKET") && missing.output.contains("--admin-socket") && missing.output.contains("make run"), "\(missing.output)")
        #expect(missing.output.contains("this path came from --admin-socket"), "\(missing.output)")
        // A socket file that nothing listens on any more (a daemon that was killed).
        let stale = daemon.directory.appendingPathComponent("stale.sock").path
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            _ = stale.utf8CString.withUnsafeBytes { buffer.copyMemory(from: $0) }
        }
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
        #expect(bound == 0)
        close(listener)
        let refused = try await DaemonHarness.run(salusctl, ["status"], environment: ["SALUS_ADMIN_SOCKET": stale])
        #expect(refused.output.contains("connection refused (the socket is there but nothing is listening"), "\(refused.output)")
        #expect(refused.output.contains("this path came from SALUS_ADMIN_SOCKET"), "\(refused.output)")
        #expect(try await daemon.stop() == 0)
    }

    @Test("a first start with the bundled plugins prints the ready banner after one line at most: plugin loads, migrations and checks are debug lines")
    func bannerFirst() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let before = try #require(daemon.output.components(separatedBy: "salusd 0.1.0 ready").first)
        let lines = before.split(separator: "\n")
        // A new store says once that its schema was made; nothing else comes before the banner.
        #expect(lines.count <= 1, "\(lines.count) lines before the banner: \(before)")
        #expect(!before.contains("plugin loaded") && !before.contains("database checked"), "\(before)")
        #expect(try await daemon.stop() == 0)
        // A second start of the same store prints nothing at all before it.
        let again = try await DaemonHarness.start(arguments: ["--data-dir", daemon.dataDirectory.path], bundledPlugins: true)
        let second = try #require(again.output.components(separatedBy: "salusd 0.1.0 ready").first)
        #expect(second.split(separator: "\n").isEmpty, "\(second)")
        #expect(try await again.stop() == 0)
    }

    @Test("bad flags get a message naming the flag and the value")
    func badFlags() async throws {
        let result = try await DaemonHarness.run(DaemonHarness.binary("salusd"), ["--log-level", "loud"], timeout: .seconds(60))
        #expect(result.status != 0)
        #expect(result.output.contains("--log-level"))
        #expect(result.output.contains("loud"))
    }
}
