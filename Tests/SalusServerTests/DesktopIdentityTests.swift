import Foundation
import Logging
import SalusProto
import SalusRPC
import SalusSpawn
import Testing

@testable import SalusServer

#if canImport(Glibc)
import Glibc
#endif

/// Apps as a desktop starts them, known on the shared app socket: a Snap by its AppArmor label, a
/// host app by the systemd scope its launcher made (weak: the owner decides per app whether that
/// is enough), and a launch in a sandbox told apart from a plain one. The peers are real child
/// processes; the connection is in process, identified as the app socket identifies it.
@Suite("Desktop identities in use")
struct DesktopIdentityTests {
    static let steps = "HKQuantityTypeIdentifierStepCount"

    /// A client of the shared app socket whose peer is taken to be `pid` (with the socket label
    /// `label`): the identification is the daemon's own, run on that process.
    static func peer(_ server: ServerHarness, pid: pid_t, label: String? = nil) async throws -> RPCClient {
        let identify = server.services.appIdentification
        let facts = PeerFacts(credentials: PeerCredentials(pid: pid, uid: getuid(), gid: getgid()), pidfd: nil, securityLabel: label)
        return try await server.services.server.connectInProcess(
            router: server.services.appRouter, listener: server.services.appListener,
            identification: { _ in identify(facts) })
    }

    static func sharing(_ client: RPCClient, _ type: String = steps) async throws -> Salus_V1_SharingStatus {
        var request = Salus_V1_AuthorizationStatusRequest()
        request.type = type
        return try await client.unary(SalusMethods.Authorization.authorizationStatus, request: request).status
    }

    static func pending(_ owner: RPCClient) async throws -> [Salus_V1_ConsentRequest] {
        var requests: [Salus_V1_ConsentRequest] = []
        try await waitUntil("a pending request") {
            requests = try await owner.unary(SalusMethods.Consent.listRequests, request: Salus_V1_ListRequestsRequest()).requests
            return !requests.isEmpty
        }
        return requests
    }

    static func answer(_ owner: RPCClient, _ id: String, read: [String] = [], share: [String] = []) async throws -> Salus_V1_ConsentRequest {
        var answer = Salus_V1_AnswerRequestRequest()
        answer.requestID = id
        answer.grantRead = read
        answer.grantShare = share
        return try await owner.unary(SalusMethods.Consent.answerRequest, request: answer)
    }

    /// A process in a real cgroup named as GNOME names an app's scope, under a cgroup v2 folder
    /// of its own (needs root and a writable cgroup2 mount; nil otherwise).
    final class ScopedProcess {
        let child: ChildProcess
        let folder: String
        let scope: String
        var pid: pid_t { child.processIdentifier }

        init?(unit: String) throws {
            let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
            var cgroup2: String?
            for line in mounts.split(separator: "\n") {
                let fields = line.split(separator: " ")
                if fields.count > 2, fields[2] == "cgroup2" { cgroup2 = String(fields[1]); break }
            }
            guard getuid() == 0, let root = cgroup2 else { return nil }
            folder = root + "/salus-test-\(UUID().uuidString.prefix(8))"
            scope = folder + "/app.slice/" + unit
            guard mkdir(folder, 0o755) == 0 else { return nil }
            guard mkdir(folder + "/app.slice", 0o755) == 0, mkdir(scope, 0o755) == 0 else {
                rmdir(folder)
                return nil
            }
            child = try ChildProcess(executable: "/bin/sleep", arguments: ["3600"])
            try "\(child.processIdentifier)\n".write(toFile: scope + "/cgroup.procs", atomically: false, encoding: .utf8)
        }

        var cgroupText: String { (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? "" }

        deinit {
            child.send(SIGKILL)
            child.waitUntilExit()
            rmdir(scope)
            rmdir(folder + "/app.slice")
            rmdir(folder)
        }
    }

    @Test("a host app in its desktop scope is known by it, weakly: it asks, gets none of the app's grants, and can be granted only once the owner accepts a weak identity")
    func scopeIsWeakUntilAccepted() async throws {
        guard let process = try ScopedProcess(unit: "app-gnome-org.example.Scoped-4242.scope") else { return }
        #expect(process.cgroupText.contains("/app.slice/app-gnome-org.example.Scoped-4242.scope"), "\(process.cgroupText)")
        #expect(try PeerSandbox.inspect(pid: process.pid, uid: getuid(), pidfd: nil) == .scope(SystemdScope(launcher: "gnome", appID: "org.example.Scoped")))

        let server = try await ServerHarness.start(developmentMode: false)
        let registry = server.services.authorization.apps
        _ = try await registry.addApp(id: "org.example.Scoped", name: "Scoped", readUsage: "to count", writeUsage: "to record")
        // The app's grants, as a launch or a Flatpak of the same id was given them.
        _ = try await registry.setGrants("org.example.Scoped", read: [Self.steps: .granted], share: [Self.steps: .granted])
        let owner = try await server.owner()
        let launched = try await server.launchedApp("org.example.Scoped")
        let scoped = try await Self.peer(server, pid: process.pid)
        #expect(try await Self.sharing(launched) == .sharingAuthorized)
        // The scope's caller is the app, but none of its decisions reach it.
        #expect(try await Self.sharing(scoped) == .notDetermined)

        // It may ask; the owner sees how weak the identity is and can only decline.
        let asking = Task {
            var request = Salus_V1_AuthorizationRequest()
            request.share = [Self.steps]
            return try await scoped.unary(SalusMethods.Authorization.requestAuthorization, request: request).handled
        }
        var request = try #require(try await Self.pending(owner).first)
        #expect(request.appID == "org.example.Scoped")
        #expect(request.identity == "scope")
        #expect(request.identityStrength == .weak)
        do {
            _ = try await Self.answer(owner, request.id, share: [Self.steps])
            Issue.record("a grant to a weak identity was taken before the owner accepted one")
        } catch let error as RPCError {
            #expect(error.code == .failedPrecondition, "\(error)")
            #expect(error.message.contains("salusctl apps trust org.example.Scoped --weak-identity"), "\(error.message)")
        }
        // Declining answers the call and leaves the app's decisions as they were.
        _ = try await Self.answer(owner, request.id)
        #expect(try await asking.value)
        #expect(try await Self.sharing(launched) == .sharingAuthorized)
        #expect(registry.record("org.example.Scoped")?.share[Self.steps] == .granted)

        // Accepted: the scope's caller is the app, with its decisions, and may be granted.
        var accept = Salus_V1_SetWeakIdentityRequest()
        accept.appID = "org.example.Scoped"
        accept.accepted = true
        #expect(try await owner.unary(SalusMethods.Consent.setWeakIdentity, request: accept).acceptsWeakIdentity)
        #expect(try await Self.sharing(scoped) == .sharingAuthorized)
        _ = try await registry.reset("org.example.Scoped")
        let again = Task {
            var request = Salus_V1_AuthorizationRequest()
            request.share = [Self.steps]
            return try await scoped.unary(SalusMethods.Authorization.requestAuthorization, request: request).handled
        }
        request = try #require(try await Self.pending(owner).first)
        #expect(request.identityStrength == .weak)
        _ = try await Self.answer(owner, request.id, share: [Self.steps])
        #expect(try await again.value)
        #expect(try await Self.sharing(scoped) == .sharingAuthorized)
        // Kept over a restart, and undone by the owner.
        await owner.close()
        await server.stop()
        let restarted = try await server.restart()
        #expect(restarted.services.authorization.apps.record("org.example.Scoped")?.acceptsWeakIdentity == true)
        _ = try await restarted.services.authorization.apps.setAcceptsWeakIdentity("org.example.Scoped", false)
        let scopedAgain = try await Self.peer(restarted, pid: process.pid)
        #expect(try await Self.sharing(scopedAgain) == .notDetermined)
        await restarted.stop()
    }

    @Test("a weak identity is never answered by the app's policy: the owner decides")
    func policyDoesNotAnswerWeak() async throws {
        guard let process = try ScopedProcess(unit: "app-kde-org.example.Policy-7.scope") else { return }
        let server = try await ServerHarness.start(developmentMode: false)
        let registry = server.services.authorization.apps
        _ = try await registry.addApp(id: "org.example.Policy", name: "Policy", readUsage: "r", writeUsage: "w")
        _ = try await registry.setPolicy("org.example.Policy", ConsentPolicy(kind: .grantAll))
        let owner = try await server.owner()
        let scoped = try await Self.peer(server, pid: process.pid)
        let asking = Task {
            var request = Salus_V1_AuthorizationRequest()
            request.read = [Self.steps]
            return try await scoped.unary(SalusMethods.Authorization.requestAuthorization, request: request).handled
        }
        let request = try #require(try await Self.pending(owner).first)
        #expect(request.identity == "scope")
        _ = try await Self.answer(owner, request.id)
        #expect(try await asking.value)
        #expect(registry.record("org.example.Policy")?.read[Self.steps] == nil)
        await server.stop()
    }

    @Test("a host process in a scope that names a Flatpak app, outside any Flatpak sandbox, is refused: UNAUTHENTICATED, saying why")
    func flatpakScopeWithoutSandbox() async throws {
        guard let process = try ScopedProcess(unit: "app-flatpak-org.example.Flat-41563.scope") else { return }
        #expect(throws: IdentityRefusal.self) { try PeerSandbox.inspect(pid: process.pid, uid: getuid(), pidfd: nil) }
        let server = try await ServerHarness.start(developmentMode: false)
        let peer = try await Self.peer(server, pid: process.pid)
        do {
            _ = try await Self.sharing(peer)
            Issue.record("served")
        } catch let error as RPCError {
            #expect(error.code == .unauthenticated)
            #expect(error.message.contains("systemd scope of Flatpak app org.example.Flat but in no Flatpak sandbox"), "\(error.message)")
        }
        // The daemon serves on.
        _ = try await server.services.authorization.apps.addApp(id: "org.example.other", name: "Other", readUsage: "r", writeUsage: "w")
        let launched = try await server.launchedApp("org.example.other")
        #expect(try await Self.sharing(launched) == .notDetermined)
        await server.stop()
    }

    @Test("a Snap app is known by its AppArmor label as snap.NAME, with a strong identity the owner can grant")
    func snapIsStrong() async throws {
        let child = try ChildProcess(executable: "/bin/sleep", arguments: ["3600"])
        defer { child.send(SIGKILL); child.waitUntilExit() }
        // SO_PEERSEC's text for an app of a strictly confined snap, as the kernel gives it.
        let label = "snap.health-diary.health-diary (enforce)"
        #expect(try PeerSandbox.inspect(pid: child.processIdentifier, uid: getuid(), pidfd: nil, securityLabel: label)
            == .snap(try #require(SnapLabel(label: label))))
        let server = try await ServerHarness.start(developmentMode: false)
        _ = try await server.services.authorization.apps.addApp(id: "snap.health-diary", name: "Health diary", readUsage: "r", writeUsage: "w")
        let owner = try await server.owner()
        let snap = try await Self.peer(server, pid: child.processIdentifier, label: label)
        let asking = Task {
            var request = Salus_V1_AuthorizationRequest()
            request.share = [Self.steps]
            return try await snap.unary(SalusMethods.Authorization.requestAuthorization, request: request).handled
        }
        let request = try #require(try await Self.pending(owner).first)
        #expect(request.appID == "snap.health-diary")
        #expect(request.identity == "snap")
        #expect(request.identityStrength == .strong)
        _ = try await Self.answer(owner, request.id, share: [Self.steps])
        #expect(try await asking.value)
        #expect(try await Self.sharing(snap) == .sharingAuthorized)
        // A label that is not a snap app's (a hook, complain mode, unconfined) names nothing.
        for other in ["snap.health-diary.hook.configure (enforce)", "snap.health-diary.health-diary (complain)", "unconfined"] {
            #expect(try PeerSandbox.inspect(pid: child.processIdentifier, uid: getuid(), pidfd: nil, securityLabel: other) == .host, "\(other)")
        }
        await server.stop()
    }

    @Test("a launch in a sandbox that hides the admin socket, the apps' sockets and the data folder is told apart from a plain launch")
    func sandboxedLaunchToldApart() async throws {
        guard let bwrap = SandboxIdentityTests.executable("bwrap") else { return }
        let folder = try ServerHarness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let admin = folder.appendingPathComponent("admin.sock").path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: admin, contents: nil)
        let hidden = [admin, folder.appendingPathComponent("apps").path, data]
        // A host process is a plain launch.
        #expect(!PeerSandbox.isConfined(pid: getpid(), pidfd: nil, hidden: hidden))

        func sandbox(_ extra: [String]) async throws -> (ChildProcess, pid_t?) {
            let marker = "salus-confined-\(UUID().uuidString.prefix(8))"
            let child = try ChildProcess(
                executable: bwrap.path,
                arguments: ["--die-with-parent", "--unshare-pid", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
                            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
                            "--tmpfs", "/tmp", "--dir", "/tmp/\(marker)"] + extra + ["--", "/bin/sleep", "3600"],
                standardOutput: .null, standardError: .null)
            var inner: pid_t?
            let deadline = ContinuousClock.now + .seconds(30)
            while inner == nil, ContinuousClock.now < deadline {
                inner = Self.descendant(of: child.processIdentifier) { access("/proc/\($0)/root/tmp/\(marker)", F_OK) == 0 }
                if inner == nil { try await Task.sleep(for: .milliseconds(10)) }  // never block the test pool's threads
            }
            // Once more after the deadline: a test pool kept busy by other suites may resume this
            // task only after it, when the sandbox has long been running.
            if inner == nil {
                inner = Self.descendant(of: child.processIdentifier) { access("/proc/\($0)/root/tmp/\(marker)", F_OK) == 0 }
            }
            return (child, inner)
        }
        let (confined, confinedPID) = try await sandbox([])
        defer { confined.send(SIGKILL); confined.waitUntilExit() }
        #expect(PeerSandbox.isConfined(pid: try #require(confinedPID, "bwrap did not start"), pidfd: nil, hidden: hidden))
        // The same sandbox with the data folder bound in (salusctl launch --sandbox --bind) is a plain launch.
        let (open, openPID) = try await sandbox(["--bind", folder.path, folder.path])
        defer { open.send(SIGKILL); open.waitUntilExit() }
        #expect(!PeerSandbox.isConfined(pid: try #require(openPID, "bwrap did not start"), pidfd: nil, hidden: hidden))
        // A path is looked up in the sandbox's root, its links too: /alias links to the folder's
        // host path, which the sandbox does not hold (a lookup from the daemon's root would find it).
        let (linked, linkedPID) = try await sandbox(["--symlink", folder.path, "/alias"])
        defer { linked.send(SIGKILL); linked.waitUntilExit() }
        let linkedInside = try #require(linkedPID, "bwrap did not start")
        #expect(PeerSandbox.isConfined(pid: linkedInside, pidfd: nil, hidden: ["/alias/data"]))
        #expect(!PeerSandbox.isConfined(pid: linkedInside, pidfd: nil, hidden: ["/alias/data", "/usr/bin"]))

        // The app's own socket says which it was.
        let server = try await ServerHarness.start(developmentMode: false)
        _ = try await server.services.authorization.apps.addApp(id: "org.example.boxed", name: "Boxed", readUsage: "r", writeUsage: "w")
        let owner = try await server.owner()
        let identify = PeerIdentifier.launched(hidden: hidden)
        for (pid, identity) in [(try #require(confinedPID), "sandboxedLaunch"), (getpid(), "launcher")] {
            let facts = PeerFacts(credentials: PeerCredentials(pid: pid, uid: getuid(), gid: getgid()), pidfd: nil, securityLabel: nil)
            let app = try await server.services.server.connectInProcess(
                router: server.services.appRouter, listener: SalusServices.launchedAppListener("org.example.boxed"),
                identification: { _ in identify(facts) })
            let asking = Task {
                var request = Salus_V1_AuthorizationRequest()
                request.share = [Self.steps]
                return try await app.unary(SalusMethods.Authorization.requestAuthorization, request: request).handled
            }
            let request = try #require(try await Self.pending(owner).first)
            #expect(request.identity == identity)
            #expect(request.identityStrength == .strong)
            _ = try await Self.answer(owner, request.id)
            #expect(try await asking.value)
            _ = try await server.services.authorization.apps.reset("org.example.boxed")
        }
        await server.stop()
    }

    /// The first process below `parent` for which `matches` holds.
    static func descendant(of parent: pid_t, _ matches: (pid_t) -> Bool) -> pid_t? {
        var frontier = [parent]
        while let pid = frontier.popLast() {
            if pid != parent, matches(pid) { return pid }
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            frontier += children.split(separator: " ").compactMap { pid_t($0) }
        }
        return nil
    }
}
