import Foundation
import SalusKit
import SalusProto
import SalusRPC

/// The owner's typed API over the daemon's admin socket, as SalusKit's ``HealthStore`` is an
/// app's over the app socket: apps and what each may read and write, the pending consent
/// requests, the source priority of a type, the registered types.
///
/// ```swift
/// let admin = try await AdminClient.connect()
/// defer { Task { await admin.close() } }
/// let app = try await admin.addApp("org.example.diary", name: "Sleep diary", readUsage: "Shows your nights")
/// for try await request in admin.watchRequests() { ... }
/// ```
///
/// Every call throws ``SalusError`` with the daemon's code and message when the daemon refuses
/// it (an unknown app is ``SalusError/Code/notFound``, a bad argument
/// ``SalusError/Code/invalidArgument`` naming the field, the value and what was expected), or
/// when the connection is lost.
public final class AdminClient: Sendable {
    /// The connection to the admin socket.
    package let rpc: RPCClient

    /// A client over an open connection to the admin socket (or the daemon's admin router in
    /// process, for tests). ``close()`` closes it.
    package init(rpc: RPCClient) {
        self.rpc = rpc
    }

    /// Where the daemon's admin socket is when no path is given: `$SALUS_ADMIN_SOCKET`, else
    /// `$XDG_RUNTIME_DIR/salus/admin.sock` (or `/tmp/salus-<uid>/admin.sock`).
    public static var defaultSocketPath: String { DefaultPaths.adminSocket() }

    /// Connects to the admin socket at `socketPath` (default ``defaultSocketPath``), naming
    /// itself `clientName` in Hello. Throws ``SalusError`` (``SalusError/Code/unavailable``)
    /// when nothing answers there or the daemon refuses the connection.
    public static func connect(socketPath: String? = nil, clientName: String = "salusctl") async throws -> AdminClient {
        var configuration = RPCClient.Configuration()
        configuration.clientName = clientName
        do {
            return AdminClient(rpc: try await RPCClient.connect(
                unixSocketPath: socketPath ?? defaultSocketPath, configuration: configuration))
        } catch let error as RPCError {
            throw SalusError(error)
        }
    }

    /// Closes the connection; calls still running end with an error.
    public func close() async {
        await rpc.close()
    }

    /// One unary call, its RPC error as a ``SalusError``.
    func call<Request, Response>(_ method: UnaryMethod<Request, Response>, _ request: Request) async throws -> Response {
        do {
            return try await rpc.unary(method, request: request)
        } catch let error as RPCError {
            throw SalusError(error)
        }
    }

    /// The responses of a server-streaming call as values, its RPC error as a ``SalusError``;
    /// ending the iteration early cancels the call.
    func stream<Request, Response, Value: Sendable>(
        _ method: ServerStreamingMethod<Request, Response>, _ request: Request,
        _ transform: @escaping @Sendable (Response) throws -> Value
    ) -> AsyncThrowingStream<Value, any Error> {
        let rpc = self.rpc
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await response in try rpc.serverStreaming(method, request: request) {
                        continuation.yield(try transform(response))
                    }
                    continuation.finish()
                } catch let error as RPCError {
                    continuation.finish(throwing: SalusError(error))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
