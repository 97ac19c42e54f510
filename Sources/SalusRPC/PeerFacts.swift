#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore

/// What the kernel says of a connection's peer at accept, beyond its credentials, for a listener
/// that identifies apps by their sandbox (xdg-desktop-portal's way): a pidfd of the process that
/// connected and its security label. Neither can be forged by the peer.
package struct PeerFacts: Sendable {
    /// SO_PEERCRED, as ``ConnectionContext/peer``.
    package var credentials: PeerCredentials
    /// A pidfd of the process that connected (SO_PEERPIDFD, Linux 6.5), nil on older kernels:
    /// the identification then opens one itself from `credentials.pid`. Closed by the server
    /// once the identification returns.
    package var pidfd: CInt?
    /// The peer's LSM label (SO_PEERSEC; AppArmor's `snap.NAME.APP (enforce)` for a Snap), nil
    /// where no security module labels sockets.
    package var securityLabel: String?

    package init(credentials: PeerCredentials, pidfd: CInt?, securityLabel: String?) {
        self.credentials = credentials
        self.pidfd = pidfd
        self.securityLabel = securityLabel
    }
}

/// Decides who a peer is from ``PeerFacts``, once at accept; the facts it returns are kept as
/// ``ConnectionContext/identity``. It must not keep `pidfd`, and runs on the event loop (a few
/// small reads of /proc, nothing that waits).
package typealias PeerIdentification = @Sendable (PeerFacts) -> [String: String]

/// A label of at most 255 bytes and its terminating NUL, the size SO_PEERSEC is read into.
private struct LabelBuffer {
    var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
                UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}

extension PeerFacts {
    /// SO_PEERPIDFD; not in Glibc's module.
    static let peerPidfdOption: CInt = 77
    /// SO_PEERSEC; not in Glibc's module.
    static let peerSecurityOption: CInt = 31

    /// Reads the pidfd and the label of `channel`'s peer; either is nil where the kernel does
    /// not give it.
    static func read(from channel: any Channel, credentials: PeerCredentials) -> EventLoopFuture<PeerFacts> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(PeerFacts(credentials: credentials, pidfd: nil, securityLabel: nil))
        }
        let pidfd: EventLoopFuture<CInt?> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(peerPidfdOption)
        ).map { (descriptor: CInt) -> CInt? in descriptor >= 0 ? descriptor : nil }.recover { _ in nil }
        let label: EventLoopFuture<String?> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(peerSecurityOption)
        ).map { (buffer: LabelBuffer) -> String? in
            let text = withUnsafeBytes(of: buffer.bytes) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            return text.isEmpty ? nil : text
        }.recover { _ in nil }
        return pidfd.and(label).map { PeerFacts(credentials: credentials, pidfd: $0.0, securityLabel: $0.1) }
    }
}
