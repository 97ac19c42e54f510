import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Who is calling, through real sockets: launcher sockets and the owner-only admin socket.
@Suite("Caller identity")
struct AuthorizationIdentityTests {
    static let salusctl = DaemonHarness.binary("salusctl")

    @Test("salusctl launch runs the command with the app's own socket; only connections through it are that app")
    func launcher() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let owner = try await Authz.owner(daemon)
        try await Authz.register(owner, "org.example.walker")
        try await Authz.grant(owner, "org.example.walker", Authz.steps, read: .granted, share: .granted)
        let result = try await DaemonHarness.run(
            Self.salusctl, ["launch", "--admin-socket", daemon.adminSocketPath, "--app", "org.example.walker", "--", "/bin/sh", "-c", "echo \"$SALUS_SOCKET\""],
            timeout: .seconds(60))
        #expect(result.status == 0, "\(result.output)")
        let socket = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(socket.hasSuffix("/apps/org.example.walker.sock"), "\(result.output)")

        // Through its socket the app is org.example.walker, whatever it declares.
        let launched = try await Authz.app(daemon, "org.example.pretender", socket: socket)
        _ = try await Authz.save(launched, [Authz.sample(value: 5, start: 1_700_000_000_000_000)])
        #expect(try await Authz.batches(launched).flatMap(\.samples).map(\.sourceRevision.appID) == ["org.example.walker"])
        // A process that did not come through the launcher cannot act as the app.
        let impostor = try await Authz.app(daemon, "org.example.walker")
        let refused = await Authz.error { _ = try await Authz.save(impostor, [Authz.sample(value: 6, start: 1_700_000_000_000_000)]) }
        #expect(refused?.code == .unauthenticated)

        let unregistered = try await DaemonHarness.run(
            Self.salusctl, ["launch", "--admin-socket", daemon.adminSocketPath, "--app", "org.example.nobody", "--", "/bin/true"], timeout: .seconds(60))
        #expect(unregistered.status != 0)
        #expect(unregistered.output.contains("org.example.nobody"))
        for client in [launched, impostor, owner] { await client.close() }
        #expect(try await daemon.stop() == 0)
    }

    @Test("salusctl launch starts its command with no signal blocked or ignored, so Ctrl-C and kill reach the app")
    func launchedSignals() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let owner = try await Authz.owner(daemon)
        try await Authz.register(owner, "org.example.walker")
        let result = try await DaemonHarness.run(
            Self.salusctl, ["launch", "--admin-socket", daemon.adminSocketPath, "--app", "org.example.walker", "--", "/bin/grep", "^Sig[BI]", "/proc/self/status"],
            timeout: .seconds(60))
        #expect(result.status == 0, "\(result.output)")
        let masks = Dictionary(uniqueKeysWithValues: result.output.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        })
        #expect(masks["SigBlk"] == "0000000000000000", "\(result.output)")
        #expect(masks["SigIgn"] == "0000000000000000", "\(result.output)")
        await owner.close()
        #expect(try await daemon.stop() == 0)
    }

    @Test("salusctl launch --sandbox: the app reaches its own socket and its calls work, never the admin socket, another app's socket or salus.sqlite")
    func sandboxedLaunch() async throws {
        try #require(DaemonHarness.findExecutable("bwrap") != nil, "bubblewrap is not installed (scripts/setup installs it)")
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let owner = try await Authz.owner(daemon)
        for app in ["org.example.walker", "org.example.weekly"] { try await Authz.register(owner, app) }
        try await Authz.grant(owner, "org.example.walker", Authz.steps, read: .granted, share: .granted)
        // Another app's socket exists, and holds a walk.
        let other = try await DaemonHarness.run(
            Self.salusctl, ["launch", "--admin-socket", daemon.adminSocketPath, "--app", "org.example.walker", "--", "/bin/sh", "-c", "echo \"$SALUS_SOCKET\""],
            timeout: .seconds(60))
        let otherSocket = other.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let walker = try await Authz.app(daemon, "org.example.walker", socket: otherSocket)
        _ = try await Authz.save(walker, [Authz.sample(value: 3210, start: 1_700_000_000_000_000)])
        await walker.close()

        let report = DaemonHarness.binary("WeeklyReport").path
        let database = daemon.dataDirectory.appendingPathComponent("salus.sqlite").path
        let script = """
            for path in "$1" "$2" "$3" "$4"; do
              if [ -e "$path" ] || (exec 3<"$path") 2>/dev/null; then echo "reachable: $path"; fi
            done
            echo "socket: $SALUS_SOCKET"
            exec "$5" once --anchor-file /tmp/anchor --time-zone UTC
            """
        let arguments = ["launch", "--admin-socket", daemon.adminSocketPath, "--app", "org.example.weekly", "--sandbox", "--ro-bind", report,
                         "--", "/bin/sh", "-c", script, "sh", daemon.adminSocketPath, otherSocket, database, daemon.dataDirectory.path, report]
        let launch = Task { try await DaemonHarness.run(Self.salusctl, arguments, timeout: .seconds(60)) }
        // The owner is asked about a sandboxed launch, told apart from a plain one.
        let request = try #require(try await Authz.pendingRequests(owner).first, "no request; daemon:\n\(daemon.output)")
        #expect(request.appID == "org.example.weekly")
        #expect(request.identity == "sandboxedLaunch")
        #expect(request.identityStrength == .strong)
        var answer = Salus_V1_AnswerRequestRequest()
        answer.requestID = request.id
        answer.grantRead = [Authz.steps]
        let _: Salus_V1_ConsentRequest = try await owner.unary(SalusMethods.Consent.answerRequest, request: answer)
        let result = try await launch.value
        #expect(result.status == 0, "\(result.output)\ndaemon:\n\(daemon.output)")
        #expect(!result.output.contains("reachable:"), "\(result.output)")
        #expect(result.output.contains("socket: /run/user/\(getuid())/salus/salus.sock"), "\(result.output)")
        #expect(result.output.contains("\"steps\":3210"), "\(result.output)")
        await owner.close()
        #expect(try await daemon.stop() == 0)
    }

    @Test("the admin socket refuses another uid with PERMISSION_DENIED, even when the file lets it connect")
    func otherUID() async throws {
        guard getuid() == 0, let setpriv = DaemonHarness.findExecutable("setpriv") else { return }
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        // Open the path to uid 65534 so that the daemon's own uid check is what refuses it.
        var folder = URL(fileURLWithPath: daemon.adminSocketPath).deletingLastPathComponent()
        while folder.path != "/" {
            chmod(folder.path, 0o755)
            if folder.path == daemon.directory.path { break }
            folder.deleteLastPathComponent()
        }
        chmod(daemon.adminSocketPath, 0o666)
        let binary = daemon.directory.appendingPathComponent("salusctl")
        try FileManager.default.copyItem(at: Self.salusctl, to: binary)
        chmod(binary.path, 0o755)
        // A process forked by another test while the copy's file was open for writing holds it
        // open until it execs, and exec then fails with ETXTBSY ("Text file busy"): ask again.
        var result = try await DaemonHarness.run(
            setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path, "apps", "list", "--admin-socket", daemon.adminSocketPath],
            timeout: .seconds(60))
        for _ in 0..<20 where result.output.contains("Text file busy") {
            try await Task.sleep(for: .milliseconds(100))
            result = try await DaemonHarness.run(
                setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path, "apps", "list", "--admin-socket", daemon.adminSocketPath],
                timeout: .seconds(60))
        }
        #expect(result.status != 0)
        #expect(result.output.contains("uid 65534"), "\(result.output)")
        #expect(result.output.contains("serves only its owner"), "\(result.output)")
        #expect(try await daemon.stop() == 0)
    }
}
