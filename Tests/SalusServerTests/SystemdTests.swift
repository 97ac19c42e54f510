import Foundation
import SalusServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("systemd's socket-activation variables")
struct SystemdTests {
    @Test("sockets meant for this process are taken in order with their names")
    func named() throws {
        let passed = try #require(try Systemd.passedDescriptors(
            environment: ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "app:admin"], processID: 42))
        #expect(passed.map(\.name) == ["app", "admin"])
        #expect(passed.map(\.descriptor) == [3, 4])
    }

    @Test("without LISTEN_FDNAMES every socket is named unknown")
    func unnamed() throws {
        let passed = try #require(try Systemd.passedDescriptors(environment: ["LISTEN_PID": "7", "LISTEN_FDS": "2"], processID: 7))
        #expect(passed.map(\.name) == ["unknown", "unknown"])
    }

    @Test("variables meant for another process, or none at all, mean a daemon started by hand")
    func notForUs() throws {
        #expect(try Systemd.passedDescriptors(environment: ["LISTEN_PID": "41", "LISTEN_FDS": "2"], processID: 42) == nil)
        #expect(try Systemd.passedDescriptors(environment: [:], processID: 42) == nil)
        #expect(try Systemd.passedDescriptors(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "0"], processID: 42) == nil)
    }

    @Test("a malformed count or a name list of the wrong length is an error that quotes it")
    func malformed() throws {
        let count = #expect(throws: DaemonError.self) {
            try Systemd.passedDescriptors(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "two"], processID: 42)
        }
        #expect(count?.description.contains("LISTEN_FDS: 'two'") == true)
        let names = #expect(throws: DaemonError.self) {
            try Systemd.passedDescriptors(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "app"], processID: 42)
        }
        #expect(names?.description.contains("names 1 sockets; LISTEN_FDS says 2") == true)
    }

    /// A Unix stream socket bound to `path`, listening when `listening`.
    private func makeSocket(at path: String, listening: Bool) throws -> CInt {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: Array(path.utf8))
            buffer[path.utf8.count] = 0
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        if listening { try #require(listen(fd, 8) == 0) }
        return fd
    }

    @Test("unnamed sockets are told apart by the file each is bound to; a socket that does not listen is refused")
    func byPath() throws {
        let folder = "/tmp/salus-systemd-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let admin = try makeSocket(at: folder + "/admin.sock", listening: true)
        let app = try makeSocket(at: folder + "/salus.sock", listening: true)
        let idle = try makeSocket(at: folder + "/other.sock", listening: false)
        defer { close(admin); close(app); close(idle) }

        #expect(Systemd.boundPath(of: app) == folder + "/salus.sock")
        let sockets = try Systemd.activatedSockets([("salusd.socket", admin), ("salusd.socket", app)])
        #expect(sockets == ActivatedSockets(app: app, admin: admin))
        #expect(try Systemd.activatedSockets([("admin", app), ("app", admin)]) == ActivatedSockets(app: admin, admin: app))

        let missing = #expect(throws: DaemonError.self) { try Systemd.activatedSockets([("unknown", app)]) }
        #expect(missing?.description.contains("expected one named 'admin' or bound to admin.sock") == true)
        let notListening = #expect(throws: DaemonError.self) { try Systemd.activatedSockets([("app", idle), ("admin", admin)]) }
        #expect(notListening?.description.contains("is not a listening socket") == true)
    }

    @Test("READY=1 reaches a NOTIFY_SOCKET given as a path or as an abstract name; nothing is sent without one")
    func notify() throws {
        let name = "salus-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        for target in ["/tmp/\(name)", "@\(name)"] {
            let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            try #require(receiver >= 0)
            defer { close(receiver); if target.hasPrefix("/") { unlink(target) } }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            var bytes = Array(target.utf8)
            if target.hasPrefix("@") { bytes[0] = 0 }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (target.hasPrefix("@") ? 0 : 1))
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, length) }
            }
            try #require(bound == 0)

            #expect(Systemd.notify("READY=1", environment: ["NOTIFY_SOCKET": target]))
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = recv(receiver, &buffer, buffer.count, 0)
            #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "READY=1", "\(target)")
        }
        #expect(!Systemd.notify("READY=1", environment: [:]))
    }
}
