#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CSalusPeer

/// What a peer's process says about its sandbox, read through /proc as xdg-desktop-portal
/// reads it, pinned by a pidfd so that a pid that exits, or is reused, during the look is
/// noticed instead of lending another process's sandbox.
///
/// The rules, each with its reason:
/// 1. **Pin the process.** The pidfd is the kernel's (SO_PEERPIDFD) where it gives one, else one
///    opened from SO_PEERCRED's pid; /proc/PID is opened, then the pidfd must still run, so the
///    folder is that process's. It is asked again after the file is read. A process that ends
///    meanwhile is refused (its pid could be another's by then).
/// 2. **A host process is never a sandbox.** A peer that shares the daemon's mount namespace is
///    on the host, whatever `/.flatpak-info` holds there (root can write one at `/`), and a
///    host process cannot give itself a root of its own without a mount namespace.
/// 3. **Only the sandbox's own root counts.** The file is opened from the peer's root
///    (/proc/PID/root), never following a link, and must be a regular file.
/// 4. **Only the owner's sandboxes.** The peer must run as the daemon's uid, in the daemon's user
///    namespace or one the daemon's uid made (Flatpak's bubblewrap makes one as the user). A
///    namespace someone else made is refused: its mapping is not the owner's doing.
/// 5. **A Flatpak before a Snap before a scope.** A peer without a Flatpak sandbox whose socket
///    carries snapd's AppArmor label `snap.NAME.APP` is that snap (the kernel sets the label);
///    otherwise its systemd unit in /proc/PID/cgroup, `app-<launcher>-<app id>-<random>.scope`,
///    names a desktop app, weakly (any program of the owner can make such a scope). A scope
///    that says Flatpak without a Flatpak sandbox is refused: Flatpak never starts an app
///    outside one. A scope whose app id is not one Salus takes (`firefox.desktop`'s `firefox`
///    is, `my app` is not) leaves the peer unidentified.
enum PeerSandbox {
    /// What the look found, strongest first.
    enum Finding: Equatable, Sendable {
        /// Not an app Salus knows: no Flatpak sandbox, no snap's confinement, no app scope.
        case host
        /// A Flatpak sandbox naming this app.
        case flatpak(FlatpakInfo)
        /// A snap app, by its AppArmor label (SO_PEERSEC).
        case snap(SnapLabel)
        /// A host app the desktop started in a systemd scope: a weak identity.
        case scope(SystemdScope)
    }

    /// Looks at process `pid` (with `pidfd`, or one opened here) whose socket's security label
    /// is `securityLabel`: a Flatpak sandbox first, then a snap's AppArmor label, then a
    /// desktop app's systemd scope. Throws why a peer that looks like one cannot be identified.
    static func inspect(pid: pid_t, uid: uid_t, pidfd given: CInt?, securityLabel: String? = nil) throws(IdentityRefusal) -> Finding {
        try withProcess(pid: pid, pidfd: given) { (process, pidfd) throws(IdentityRefusal) -> Finding in
            if try namespace(process, "mnt", pid) != namespace(AT_FDCWD, "/proc/self/ns/mnt", pid),
               let info = try flatpakInfo(process, pidfd: pidfd, pid: pid, uid: uid) {
                return .flatpak(info)
            }
            if let label = securityLabel, let snap = SnapLabel(label: label) {
                guard uid == getuid() else {
                    throw IdentityRefusal("the snap peer process \(pid) (\(snap.appID)) runs as uid \(uid), not as the daemon's owner (uid \(getuid()))")
                }
                try checkUserNamespace(process, pid)
                return .snap(snap)
            }
            let cgroup = try readFile(process, "cgroup", limit: 64 * 1024, pid: pid)
            try stillRunning(pidfd, pid)
            guard let text = String(validating: cgroup, as: UTF8.self), let scope = SystemdScope(cgroup: text) else { return .host }
            if scope.launcher == "flatpak" {
                throw IdentityRefusal("peer process \(pid) is in the systemd scope of Flatpak app \(scope.appID) but in no Flatpak sandbox")
            }
            guard AppRegistry.isValidAppID(scope.appID) else { return .host }
            guard uid == getuid() else {
                throw IdentityRefusal("the peer process \(pid) in the scope of \(scope.appID) runs as uid \(uid), not as the daemon's owner (uid \(getuid()))")
            }
            return .scope(scope)
        }
    }

    /// Whether process `pid` is confined as `salusctl launch --sandbox` confines an app: in a
    /// mount namespace of its own, where none of `hidden` (the admin socket, the apps' socket
    /// folder, the data folder) is at its path, each looked up from the peer's root with the
    /// peer's links (RESOLVE_IN_ROOT). False for a host process, one that can reach any of
    /// them, one that exits during the look, or where the look fails.
    static func isConfined(pid: pid_t, pidfd given: CInt?, hidden: [String]) -> Bool {
        (try? withProcess(pid: pid, pidfd: given) { (process, pidfd) throws(IdentityRefusal) -> Bool in
            guard try namespace(process, "mnt", pid) != namespace(AT_FDCWD, "/proc/self/ns/mnt", pid) else { return false }
            let root = openat(process, "root", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard root >= 0 else { return false }
            defer { close(root) }
            for path in hidden {
                let found = csalus_open_in_root(root, String(path.drop { $0 == "/" }))
                if found >= 0 { close(found); return false }
                guard errno == ENOENT || errno == ENOTDIR else { return false }
            }
            try stillRunning(pidfd, pid)
            return true
        }) ?? false
    }

    /// Runs `body` with /proc/PID open and the process pinned by `pidfd` (the one given, or one
    /// opened here), after checking that the pidfd still runs, so the folder is that process's.
    private static func withProcess<T>(
        pid: pid_t, pidfd given: CInt?, _ body: (CInt, CInt) throws(IdentityRefusal) -> T
    ) throws(IdentityRefusal) -> T {
        var opened: CInt = -1
        defer { if opened >= 0 { close(opened) } }
        let pidfd: CInt
        if let given {
            pidfd = given
        } else {
            opened = csalus_pidfd_open(pid)
            guard opened >= 0 else { throw IdentityRefusal("the peer process \(pid) is gone: \(String(cString: strerror(errno)))") }
            pidfd = opened
        }
        let process = open("/proc/\(pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard process >= 0 else { throw IdentityRefusal("the peer process \(pid) is gone: /proc/\(pid): \(String(cString: strerror(errno)))") }
        defer { close(process) }
        try stillRunning(pidfd, pid)
        return try body(process, pidfd)
    }

    /// The `/.flatpak-info` of a peer in a mount namespace of its own, nil when it has none.
    private static func flatpakInfo(_ process: CInt, pidfd: CInt, pid: pid_t, uid: uid_t) throws(IdentityRefusal) -> FlatpakInfo? {
        let root = openat(process, "root", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else {
            throw IdentityRefusal("cannot look into the root of peer process \(pid): \(String(cString: strerror(errno)))")
        }
        defer { close(root) }
        let file = openat(root, ".flatpak-info", O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else {
            let error = errno
            try stillRunning(pidfd, pid)
            if error == ENOENT { return nil }
            throw IdentityRefusal("cannot open /.flatpak-info of peer process \(pid): \(String(cString: strerror(error)))")
        }
        defer { close(file) }
        var status = stat()
        guard fstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw IdentityRefusal("/.flatpak-info of peer process \(pid) is not a regular file")
        }
        try checkUserNamespace(process, pid)
        guard uid == getuid() else {
            throw IdentityRefusal("the sandboxed peer process \(pid) runs as uid \(uid), not as the daemon's owner (uid \(getuid()))")
        }
        var bytes: [UInt8] = []
        while bytes.count <= FlatpakInfo.maximumSize, readChunk(file, into: &bytes) {}
        guard bytes.count <= FlatpakInfo.maximumSize else {
            throw IdentityRefusal("/.flatpak-info of peer process \(pid) is larger than \(FlatpakInfo.maximumSize) bytes")
        }
        try stillRunning(pidfd, pid)
        return try FlatpakInfo(bytes: bytes)
    }

    /// The bytes of /proc/PID/`name`, at most `limit`.
    private static func readFile(_ process: CInt, _ name: String, limit: Int, pid: pid_t) throws(IdentityRefusal) -> [UInt8] {
        let file = openat(process, name, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else {
            throw IdentityRefusal("cannot read /proc/\(pid)/\(name) of the peer: \(String(cString: strerror(errno)))")
        }
        defer { close(file) }
        var bytes: [UInt8] = []
        while bytes.count <= limit, readChunk(file, into: &bytes) {}
        return Array(bytes.prefix(limit))
    }

    private static func stillRunning(_ pidfd: CInt, _ pid: pid_t) throws(IdentityRefusal) {
        guard csalus_pidfd_is_running(pidfd) == 1 else {
            throw IdentityRefusal("the peer process \(pid) exited during the check")
        }
    }

    /// The namespace `name` of the process folder `process` (or the path `name` when `process`
    /// is AT_FDCWD), as (device, inode).
    private static func namespace(_ process: CInt, _ name: String, _ pid: pid_t) throws(IdentityRefusal) -> [UInt64] {
        var status = stat()
        let path = process == AT_FDCWD ? name : "ns/" + name
        guard fstatat(process, path, &status, 0) == 0 else {
            throw IdentityRefusal("cannot read the \(name) namespace of peer process \(pid): \(String(cString: strerror(errno)))")
        }
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }

    private static func checkUserNamespace(_ process: CInt, _ pid: pid_t) throws(IdentityRefusal) {
        guard try namespace(process, "user", pid) != namespace(AT_FDCWD, "/proc/self/ns/user", pid) else { return }
        let descriptor = openat(process, "ns/user", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw IdentityRefusal("peer process \(pid) is in another user namespace, which the daemon cannot look into: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var owner: uid_t = 0
        guard csalus_user_namespace_owner(descriptor, &owner) == 0 else {
            throw IdentityRefusal("peer process \(pid) is in another user namespace, whose owner cannot be read: \(String(cString: strerror(errno)))")
        }
        guard owner == getuid() else {
            throw IdentityRefusal("peer process \(pid) is in a user namespace made by uid \(owner), not by the daemon's owner (uid \(getuid()))")
        }
    }

    private static func readChunk(_ descriptor: CInt, into bytes: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            bytes.append(contentsOf: chunk[..<count])
            return true
        }
    }
}
