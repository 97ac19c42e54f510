#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SalusModel
import SalusRPC

/// Who is calling, as the daemon knows it: the kernel's credentials and the app id with how
/// it is known. Never taken from a request's payload.
public struct Caller: Sendable, Hashable {
    /// How the app id is known.
    public enum AppIDSource: String, Sendable, Hashable {
        /// The connection came through a socket the daemon made for this app (trusted).
        case launcher
        /// The client declared it in Hello (unverified).
        case selfDeclared
        /// The owner's admin socket.
        case owner
    }

    public var peer: PeerCredentials
    public var appID: String
    public var appIDSource: AppIDSource
    /// The app's display name (its Hello client name until apps are registered).
    public var appName: String
    public var appVersion: String?

    /// The caller of a call: the listener's app id, else the id declared in Hello.
    static func resolve(_ context: ServerContext) throws(RPCError) -> Caller {
        if context.connection.listener.label == "admin" {
            return Caller(peer: context.peer, appID: "owner", appIDSource: .owner, appName: "owner", appVersion: nil)
        }
        if let launched = context.connection.listener.attributes["app-id"], !launched.isEmpty {
            return Caller(peer: context.peer, appID: launched, appIDSource: .launcher, appName: launched, appVersion: nil)
        }
        if let hello = context.connection.helloRequest, !hello.declaredAppID.isEmpty {
            return Caller(
                peer: context.peer,
                appID: hello.declaredAppID,
                appIDSource: .selfDeclared,
                appName: hello.clientName.isEmpty ? hello.declaredAppID : hello.clientName,
                appVersion: hello.clientVersion.isEmpty ? nil : hello.clientVersion
            )
        }
        throw RPCError(
            code: .unauthenticated,
            message: "this connection has no app id: declare one in salus.v1.Session/Hello (app_id) before calling the store",
            reason: .unauthenticated,
            field: "app_id", value: "", expected: "an app id such as org.example.sleepdiary"
        )
    }

    /// The source revision of samples this caller saves.
    var sourceRevision: SourceRevision {
        SourceRevision(
            appID: appID,
            name: appName,
            version: appVersion,
            productType: Self.machine.productType,
            osVersion: Self.machine.osVersion
        )
    }

    private static let machine: (productType: String, osVersion: String) = {
        var names = utsname()
        uname(&names)
        func text<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
        let release = text(names.release)
        let version = release.split(whereSeparator: { !$0.isNumber && $0 != "." }).first.map(String.init) ?? release
        return ("Linux " + text(names.machine), version)
    }()
}
