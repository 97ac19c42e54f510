import Foundation
import SalusProto
import SalusRPC
import SalusSpawn
import SalusTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Apps known by their Flatpak sandbox on the shared app socket, through real bubblewrap
/// sandboxes shaped as Flatpak makes them.
@Suite("Flatpak identity")
struct FlatpakIdentityTests {
    static let report = DaemonHarness.binary("WeeklyReport")

    static func flatpakInfo(_ appID: String) -> String {
        """
        [Application]
        name=\(appID)
        runtime=runtime/org.freedesktop.Platform/x86_64/24.08

        [Instance]
        instance-id=1167527928
        branch=stable
        arch=x86_64
        flatpak-version=1.14.6

        [Context]
        filesystems=xdg-run/salus:ro;

        """
    }

    /// bwrap's arguments for a sandbox as `flatpak run` makes one: a fresh root of its own with
    /// the system read-only, `/.flatpak-info` at the root, the daemon's app socket at
    /// `$XDG_RUNTIME_DIR/salus/salus.sock` (what `flatpak override --filesystem=xdg-run/salus:ro`
    /// binds) and nothing else of the owner's.
    static func flatpakSandbox(info: String, socket: String, runtime: String) -> [String] {
        var arguments = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--new-session"]
        for folder in ["/usr", "/etc", "/opt"] { arguments += ["--ro-bind-try", folder, folder] }
        for link in ["lib", "lib64", "bin", "sbin"] { arguments += ["--symlink", "usr/\(link)", "/\(link)"] }
        arguments += ["--ro-bind", DaemonHarness.binDirectory.path, DaemonHarness.binDirectory.path]
        arguments += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", runtime + "/salus"]
        arguments += ["--ro-bind", socket, runtime + "/salus/salus.sock", "--ro-bind", info, "/.flatpak-info"]
        arguments += ["--clearenv", "--setenv", "XDG_RUNTIME_DIR", runtime, "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "TZ", "UTC"]
        return arguments
    }

    @Test("an app in a Flatpak sandbox is known by its /.flatpak-info on the shared socket, asks for steps and is answered")
    func sandboxedApp() async throws {
        let bwrap = try #require(DaemonHarness.findExecutable("bwrap"), "bubblewrap is not installed (scripts/setup installs it)")
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let owner = try await Authz.owner(daemon)
        try await Authz.register(owner, "org.example.Flat")
        let info = daemon.directory.appendingPathComponent("flatpak-info")
        try Self.flatpakInfo("org.example.Flat").write(to: info, atomically: true, encoding: .utf8)

        let runtime = "/run/user/\(getuid())"
        let app = try ChildProcess(
            executable: bwrap.path,
            arguments: Self.flatpakSandbox(info: info.path, socket: daemon.socketPath, runtime: runtime)
                + ["--", Self.report.path, "once", "--anchor-file", "/tmp/anchor"],
            standardOutput: .pipe, standardError: .output)
        let output = Task.detached { String(decoding: ChildProcess.readToEnd(app.outputDescriptor), as: UTF8.self) }

        // The request reaches the owner under the sandbox's app id, marked as identified by it.
        let requests = try await Authz.pendingRequests(owner)
        let request = try #require(requests.first, "no request; daemon:\n\(daemon.output)")
        #expect(request.appID == "org.example.Flat")
        #expect(request.identity == "flatpak")
        #expect(request.read == [Authz.steps])
        var answer = Salus_V1_AnswerRequestRequest()
        answer.requestID = request.id
        answer.grantRead = [Authz.steps]
        let _: Salus_V1_ConsentRequest = try await owner.unary(SalusMethods.Consent.answerRequest, request: answer)

        let ended = app.waitUntilExit()
        let said = await output.value
        #expect(ended == .exited(0), "the sandboxed app said:\n\(said)\ndaemon:\n\(daemon.output)")
        #expect(daemon.output.contains("peer identified by its Flatpak sandbox"), "\(daemon.output)")
        await owner.close()
        #expect(try await daemon.stop() == 0)
    }

    @Test("a host process that writes its own .flatpak-info under /tmp is not taken for a Flatpak")
    func hostImpostor() async throws {
        let daemon = try await DaemonHarness.start(bundledPlugins: true)
        let owner = try await Authz.owner(daemon)
        try await Authz.register(owner, "org.example.Flat")
        try await Authz.policy(owner, "org.example.Flat", .grantAll)
        let folder = daemon.directory.appendingPathComponent("impostor")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Self.flatpakInfo("org.example.Flat").write(to: folder.appendingPathComponent(".flatpak-info"), atomically: true, encoding: .utf8)
        let result = try await DaemonHarness.run(
            Self.report, ["once", "--anchor-file", folder.appendingPathComponent("anchor").path], in: folder,
            environment: ["SALUS_SOCKET": daemon.socketPath], timeout: .seconds(60))
        #expect(result.status != 0, "\(result.output)")
        #expect(result.output.contains("accepted only by a daemon in development mode"), "\(result.output)")
        #expect(!daemon.output.contains("peer identified by its Flatpak sandbox"), "\(daemon.output)")
        await owner.close()
        #expect(try await daemon.stop() == 0)
    }
}
