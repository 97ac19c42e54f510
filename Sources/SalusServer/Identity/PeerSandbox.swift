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
enum PeerSandbox {
    /// What the look found.
    enum Finding: Equatable, Sendable {
        /// Not in a sandbox Salus knows (the daemon's mount namespace, or no `/.flatpak-info`).
        case host
        /// A Flatpak sandbox naming this app.
        case flatpak(FlatpakInfo)
    }

    /// Looks at process `pid` (with `pidfd`, or one opened here); throws why a peer that looks
    /// sandboxed cannot be identified.
    static func inspect(pid: pid_t, uid: uid_t, pidfd given: CInt?) throws(IdentityRefusal) -> Finding {
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

        guard try namespace(process, "mnt", pid) != namespace(AT_FDCWD, "/proc/self/ns/mnt", pid) else { return .host }

        let root = openat(process, "root", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else {
            throw IdentityRefusal("cannot look into the root of peer process \(pid): \(String(cString: strerror(errno)))")
        }
        defer { close(root) }
        let file = openat(root, ".flatpak-info", O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard file >= 0 else {
            let error = errno
            try stillRunning(pidfd, pid)
            if error == ENOENT { return .host }
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
        return .flatpak(try FlatpakInfo(bytes: bytes))
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
