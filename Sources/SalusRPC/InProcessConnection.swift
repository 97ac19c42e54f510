#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore

extension RPCServer {
    /// A client connected to this server through a socketpair: no socket file, the same
    /// framing and the same code paths as a real connection. For service tests and tools.
    package func connectInProcess(
        router: RPCRouter,
        listener: ListenerInfo,
        admission: Admission? = nil,
        identification: PeerIdentification? = nil,
        configuration: RPCClient.Configuration = .init()
    ) async throws -> RPCClient {
        var descriptors: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0 else {
            throw RPCError(code: .internal, message: "socketpair failed: \(String(cString: strerror(errno)))")
        }
        do {
            try await serve(connectedSocket: descriptors[0], router: router, listener: listener, admission: admission, identification: identification)
        } catch {
            close(descriptors[0])
            close(descriptors[1])
            throw error
        }
        return try await RPCClient.connect(connectedSocket: descriptors[1], configuration: configuration)
    }
}
