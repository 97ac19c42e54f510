#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore

/// Who is on the other end of a Unix-socket connection, as the kernel reported it when the
/// peer connected (SO_PEERCRED): it cannot be forged by the peer.
package struct PeerCredentials: Hashable, Sendable, CustomStringConvertible {
    package var pid: Int32
    package var uid: UInt32
    package var gid: UInt32

    package init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// The credentials of this process (for in-process connections).
    package static var current: PeerCredentials {
        PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid())
    }

    package var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}

/// `struct ucred` from <sys/socket.h>, which Glibc's Swift module does not export.
private struct UCred: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

extension PeerCredentials {
    /// Reads SO_PEERCRED from a connected Unix-socket channel.
    static func read(from channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(.current)
        }
        let future: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET),
            name: SocketOptionName(SO_PEERCRED)
        )
        return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }
    }
}
