import CSalusPeer
import Foundation
import SalusSpawn
import Testing

@testable import SalusServer

#if canImport(Glibc)
import Glibc
#endif

/// A peer known by its sandbox: the `/.flatpak-info` text, and the look at the process.
@Suite("Sandbox identity")
struct SandboxIdentityTests {
    /// A `/.flatpak-info` as `flatpak run` (1.14) writes it into a sandbox: the app, the
    /// instance, the context the app's manifest and the owner's overrides give it.
    static let flatpakInfo = """
        [Application]
        name=org.example.Flat
        runtime=runtime/org.freedesktop.Platform/x86_64/24.08

        [Instance]
        instance-id=1167527928
        instance-path=/home/ada/.var/app/org.example.Flat
        app-path=/var/lib/flatpak/app/org.example.Flat/x86_64/stable/6a1c2d0e9f4b/files
        app-commit=6a1c2d0e9f4b
        runtime-path=/var/lib/flatpak/runtime/org.freedesktop.Platform/x86_64/24.08/4ba2d4a7248a/files
        runtime-commit=4ba2d4a7248a
        branch=stable
        arch=x86_64
        flatpak-version=1.14.6
        session-bus-proxy=true
        system-bus-proxy=true

        [Context]
        shared=network;ipc;
        sockets=x11;wayland;pulseaudio;fallback-x11;
        devices=dri;
        filesystems=xdg-run/salus:ro;

        [Session Bus Policy]
        org.freedesktop.Notifications=talk

        """

    @Test("a real .flatpak-info names its app: [Application] name")
    func realText() throws {
        #expect(try FlatpakInfo(bytes: Array(Self.flatpakInfo.utf8)).appID == "org.example.Flat")
        // Comments, blank lines, spaces around '=' and CRLF line ends are a key file's too.
        let spaced = "# written by flatpak\r\n\r\n[Application]\r\nname = org.example.Flat\r\n"
        #expect(try FlatpakInfo(bytes: Array(spaced.utf8)).appID == "org.example.Flat")
    }

    @Test(
        "a .flatpak-info that does not name a valid app is refused, saying why",
        arguments: [
            ("not a key file", "MZ\u{1}\u{2} this is not ini\n", "is not a key file"),
            ("key before any group", "name=org.example.Flat\n[Application]\n", "a key before the first [group]"),
            ("unclosed group", "[Application\nname=org.example.Flat\n", "a group line must be [NAME]"),
            ("empty", "", "no [Application] group"),
            ("no [Application]", "[Instance]\ninstance-id=1\n", "no [Application] group"),
            ("name missing", "[Application]\nruntime=runtime/x\n", "[Application] name is missing or empty"),
            ("name empty", "[Application]\nname=\n", "[Application] name is missing or empty"),
            ("two elements", "[Application]\nname=org.example\n", "not a valid app id"),
            ("element starting with a digit", "[Application]\nname=org.1example.Flat\n", "not a valid app id"),
            ("'-' before the last element", "[Application]\nname=org.ex-ample.Flat\n", "not a valid app id"),
            ("empty element", "[Application]\nname=org..Flat\n", "not a valid app id"),
            ("space", "[Application]\nname=org.example.Fl\\sat\n", "not a valid app id"),
            ("path", "[Application]\nname=org.example.Flat/../x\n", "not a valid app id"),
            ("too long", "[Application]\nname=org.example.\(String(repeating: "a", count: 250))\n", "not a valid app id"),
            ("bad escape", "[Application]\nname=org.example.\\qFlat\n", "an escape other than"),
        ])
    func refusals(_ name: String, _ text: String, _ reason: String) {
        #expect(throws: IdentityRefusal.self, "\(name)") { try FlatpakInfo(bytes: Array(text.utf8)) }
        do {
            _ = try FlatpakInfo(bytes: Array(text.utf8))
        } catch {
            #expect(error.description.contains(reason), "\(name): \(error.description)")
        }
    }

    @Test("bytes that are not UTF-8 are refused")
    func notUTF8() {
        #expect(throws: IdentityRefusal("/.flatpak-info is not a key file: not UTF-8 text")) {
            try FlatpakInfo(bytes: Array("[Application]\nname=org.example.".utf8) + [0xff, 0xfe, 0x0a])
        }
    }

    @Test("Flatpak's id rules: '-' only in the last element, at least three elements")
    func idRules() {
        #expect(FlatpakInfo.isValidFlatpakID("org.example.Flat"))
        #expect(FlatpakInfo.isValidFlatpakID("io.github.some_one.App-Name"))
        #expect(!FlatpakInfo.isValidFlatpakID("io.git-hub.App"))
        #expect(!FlatpakInfo.isValidFlatpakID("org.example"))
        #expect(!FlatpakInfo.isValidFlatpakID(".org.example.Flat"))
    }

    @Test("a process in the daemon's mount namespace is on the host")
    func hostProcess() throws {
        #expect(try PeerSandbox.inspect(pid: getpid(), uid: getuid(), pidfd: nil) == .host)
    }

    @Test("a peer that exits before or during the check is refused: its pid may be another's by then")
    func processGone() throws {
        let child = try ChildProcess(executable: "/bin/true")
        let pidfd = csalus_pidfd_open(child.processIdentifier)
        child.waitUntilExit()
        defer { if pidfd >= 0 { close(pidfd) } }
        // With the kernel's pidfd of the connection (SO_PEERPIDFD) and without one (SO_PEERCRED's pid).
        #expect(pidfd >= 0)
        #expect(throws: IdentityRefusal.self) { try PeerSandbox.inspect(pid: child.processIdentifier, uid: getuid(), pidfd: pidfd) }
        #expect(throws: IdentityRefusal.self) { try PeerSandbox.inspect(pid: child.processIdentifier, uid: getuid(), pidfd: nil) }
        do {
            _ = try PeerSandbox.inspect(pid: child.processIdentifier, uid: getuid(), pidfd: pidfd)
        } catch {
            #expect(error.description.contains("is gone") || error.description.contains("exited during the check"), "\(error)")
        }
    }

    @Test("a sandbox whose user namespace another user made is refused, .flatpak-info or not")
    func otherUserNamespace() async throws {
        guard getuid() == 0, let bwrap = Self.executable("bwrap"), let setpriv = Self.executable("setpriv") else { return }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("salus-userns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        chmod(folder.path, 0o755)
        let info = folder.appendingPathComponent("flatpak-info")
        try Self.flatpakInfo.write(to: info, atomically: true, encoding: .utf8)
        chmod(info.path, 0o644)
        // uid 65534 makes the sandbox (and its user namespace), as a second person's Flatpak would.
        let sandbox = try ChildProcess(
            executable: setpriv.path,
            arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", bwrap.path, "--unshare-user", "--unshare-pid",
                        "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                        "--symlink", "usr/bin", "/bin", "--ro-bind", info.path, "/.flatpak-info", "--proc", "/proc", "--dev", "/dev",
                        "--", "/bin/sleep", "3600"],  // killed at the end; a loaded run may reach the check late
            standardOutput: .null, standardError: .null)
        defer { sandbox.send(SIGKILL); sandbox.waitUntilExit() }
        // bwrap's child (the sleep) is the process to look at; wait until it runs in its root.
        var inner: pid_t?
        let deadline = ContinuousClock.now + .seconds(30)  // bwrap starts slowly on a loaded machine
        while inner == nil, ContinuousClock.now < deadline {
            inner = Self.sandboxedChild(of: sandbox.processIdentifier)
            if inner == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        // Once more after the deadline: a test pool kept busy by other suites may resume this
        // task only after it, when the sandbox has long been running.
        if inner == nil { inner = Self.sandboxedChild(of: sandbox.processIdentifier) }
        let pid = try #require(inner, "bwrap did not start its sandbox")
        do {
            let found = try PeerSandbox.inspect(pid: pid, uid: 65534, pidfd: nil)
            Issue.record("taken as \(found)")
        } catch {
            #expect(error.description.contains("user namespace made by uid 65534"), "\(error)")
        }
    }

    /// The first process below `parent` whose root holds a `.flatpak-info`.
    static func sandboxedChild(of parent: pid_t) -> pid_t? {
        var frontier = [parent]
        while let pid = frontier.popLast() {
            if pid != parent, access("/proc/\(pid)/root/.flatpak-info", F_OK) == 0 { return pid }
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            frontier += children.split(separator: " ").compactMap { pid_t($0) }
        }
        return nil
    }

    static func executable(_ name: String) -> URL? {
        for folder in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
            return URL(fileURLWithPath: folder + "/" + name)
        }
        return nil
    }
}

/// The names a desktop gives its apps, read in one place each.
@Suite("Desktop app names")
struct DesktopAppNameTests {
    @Test("snapd's AppArmor labels: snap.NAME.APP (enforce) is a snap app; hooks, unconfined and complain mode are not")
    func snapLabels() {
        #expect(SnapLabel(label: "snap.spotify.spotify (enforce)") == SnapLabel(label: "snap.spotify.spotify (enforce)\n"))
        let firefox = SnapLabel(label: "snap.firefox.geckodriver (enforce)")
        #expect(firefox?.snap == "firefox" && firefox?.app == "geckodriver")
        #expect(SnapLabel(label: "snap.code-insiders.code-insiders (enforce)")?.snap == "code-insiders")
        for label in ["unconfined", "snap.firefox.hook.configure (enforce)", "snap.firefox.firefox (complain)",
                      "/usr/bin/man (enforce)", "snap..firefox (enforce)", "snap.Firefox.firefox (enforce)", ""] {
            #expect(SnapLabel(label: label) == nil, "\(label)")
        }
    }

    @Test("/proc/PID/cgroup of apps started by GNOME, KDE and Flatpak names launcher and app id; a terminal's shell is no app")
    func systemdScopes() {
        let gnome = SystemdScope(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Calculator-12641.scope\n")
        #expect(gnome == SystemdScope(launcher: "gnome", appID: "org.gnome.Calculator"))
        let kde = SystemdScope(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.kde.konsole-8b3c7f1a9e6d4c1f8a2b5d0e7c9f1a3b.scope\n")
        #expect(kde == SystemdScope(launcher: nil, appID: "org.kde.konsole"))
        let escaped = SystemdScope(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.example.my\\x2dapp-2201.scope\n")
        #expect(escaped?.appID == "org.example.my-app")
        let service = SystemdScope(cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Evolution\\x2dalarm\\x2dnotify@autostart.service\n")
        #expect(service == SystemdScope(launcher: nil, appID: "org.gnome.Evolution-alarm-notify"))
        let v1 = SystemdScope(cgroup: "12:pids:/user.slice\n1:name=systemd:/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.mozilla.firefox-41563.scope\n")
        #expect(v1 == SystemdScope(launcher: "flatpak", appID: "org.mozilla.firefox"))
        for text in ["0::/user.slice/user-1000.slice/session-2.scope\n",
                     "0::/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-5f1c.scope\n",
                     "0::/\n", "", "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-a-b-c-1.scope\n"] {
            #expect(SystemdScope(cgroup: text) == nil, "\(text)")
        }
    }
}
