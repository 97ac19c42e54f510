#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation

/// The daemon's two listening sockets when systemd bound them (socket activation).
package struct ActivatedSockets: Sendable, Equatable {
    /// The app socket's descriptor.
    package var app: CInt
    /// The admin socket's descriptor.
    package var admin: CInt

    /// Both descriptors as given.
    package init(app: CInt, admin: CInt) {
        self.app = app
        self.admin = admin
    }
}

/// The two systemd protocols the daemon speaks, as sd_listen_fds(3) and sd_notify(3) document
/// them, without libsystemd:
///
/// 1. Socket activation. systemd passes listening sockets as descriptors 3, 4, … with
///    `LISTEN_PID` (the process they are meant for), `LISTEN_FDS` (how many) and
///    `LISTEN_FDNAMES` (their names, colon-separated). The daemon takes them only when
///    `LISTEN_PID` is its own pid: a child that inherited the variables must not take its
///    parent's sockets. It then unsets the variables, so that programs it starts do not see them.
/// 2. Readiness. With `Type=notify`, systemd waits for `READY=1` on the datagram socket named
///    in `NOTIFY_SOCKET` (a path, or an abstract name written with a leading `@`) before it
///    counts the service as started.
package enum Systemd {
    /// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
    static let firstDescriptor: CInt = 3

    /// The sockets passed to the process `processID`, by name; nil when none were passed to it.
    /// A socket without a name in `LISTEN_FDNAMES` is named `unknown`, as in sd_listen_fds(3).
    ///
    /// Throws ``DaemonError`` when the variables are meant for this process but malformed.
    package static func passedDescriptors(environment: [String: String], processID: pid_t) throws -> [(name: String, descriptor: CInt)]? {
        guard let pidText = environment["LISTEN_PID"], let countText = environment["LISTEN_FDS"] else { return nil }
        guard let pid = pid_t(pidText), pid == processID else { return nil }
        guard let count = Int(countText), count >= 0, count < 1024 else {
            throw DaemonError("LISTEN_FDS: '\(countText)' is not a number of descriptors")
        }
        guard count > 0 else { return nil }
        let names = environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) } ?? []
        guard names.isEmpty || names.count == count else {
            throw DaemonError("LISTEN_FDNAMES: '\(environment["LISTEN_FDNAMES"] ?? "")' names \(names.count) sockets; LISTEN_FDS says \(count)")
        }
        return (0..<count).map { index in
            (name: names.isEmpty ? "unknown" : names[index], descriptor: firstDescriptor + CInt(index))
        }
    }

    /// Which passed socket is the app socket and which the admin socket: by name (`app`,
    /// `admin`: `systemd-socket-activate --fdname=app:admin`), else by the file name the socket
    /// is bound to (`salus.sock`, `admin.sock`: one socket unit with two `ListenStream=`, whose
    /// sockets systemd names alike). Each must be a listening Unix stream socket.
    ///
    /// Throws ``DaemonError`` naming what was passed when the two cannot be told apart.
    package static func activatedSockets(_ passed: [(name: String, descriptor: CInt)]) throws -> ActivatedSockets {
        func pick(name: String, file: String) throws -> CInt {
            let byName = passed.filter { $0.name == name }
            let chosen = byName.isEmpty ? passed.filter { boundPath(of: $0.descriptor).map { ($0 as NSString).lastPathComponent == file } ?? false } : byName
            guard chosen.count == 1, let descriptor = chosen.first?.descriptor else {
                let described = passed.map { "\($0.descriptor) '\($0.name)' at \(boundPath(of: $0.descriptor) ?? "?")" }.joined(separator: ", ")
                throw DaemonError("systemd passed \(passed.count) sockets (\(described)); expected one named '\(name)' or bound to \(file)")
            }
            var accepting: CInt = 0
            var length = socklen_t(MemoryLayout<CInt>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0, accepting != 0 else {
                throw DaemonError("the '\(name)' socket systemd passed (descriptor \(descriptor)) is not a listening socket")
            }
            return descriptor
        }
        return ActivatedSockets(app: try pick(name: "app", file: "salus.sock"), admin: try pick(name: "admin", file: "admin.sock"))
    }

    /// Takes the sockets systemd passed to this process, if any: unsets the `LISTEN_*`
    /// variables and marks the descriptors close-on-exec so nothing the daemon starts inherits
    /// them. Nil when the daemon was started by hand.
    package static func takeActivatedSockets() throws -> ActivatedSockets? {
        guard let passed = try passedDescriptors(environment: ProcessInfo.processInfo.environment, processID: getpid()) else {
            return nil
        }
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(name) }
        for entry in passed {
            let flags = fcntl(entry.descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(entry.descriptor, F_SETFD, flags | FD_CLOEXEC) }
        }
        return try activatedSockets(passed)
    }

    /// The path a Unix socket is bound to, or nil (not a Unix socket, or unnamed).
    package static func boundPath(of descriptor: CInt) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let path = withUnsafeBytes(of: &address.sun_path) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return path.isEmpty ? nil : path
    }

    /// The address of the Unix socket `target`: a path, or an abstract name written with a
    /// leading `@`; nil when it is too long.
    package static func unixAddress(_ target: String) -> (sockaddr_un, socklen_t)? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(target.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        // An abstract address is exactly as long as its name; a path includes its terminator.
        return (address, socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1)))
    }

    /// Sends `state` (`READY=1`, `STOPPING=1`, …) to the service manager when `NOTIFY_SOCKET`
    /// names one; returns whether it was sent. Without `NOTIFY_SOCKET` it does nothing.
    @discardableResult
    package static func notify(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let target = environment["NOTIFY_SOCKET"], !target.isEmpty,
              target.hasPrefix("/") || target.hasPrefix("@"),
              let (initial, length) = unixAddress(target) else { return false }
        var address = initial
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
            }
        }
        return sent == message.count
    }
}
