#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import SalusModel
import SalusRPC

/// Who is calling, as the daemon knows it: the kernel's credentials and the app id with how
/// it is known. Never taken from a request's payload.
package struct Caller: Sendable, Hashable {
    /// How the app id is known.
    package enum AppIDSource: String, Sendable, Hashable {
        /// The connection came through a socket the daemon made for this app (trusted).
        case launcher
        /// As `launcher`, from a process in a mount namespace of its own that reaches neither
        /// the admin socket, the apps' sockets nor the data folder at their paths
        /// (`salusctl launch --sandbox`; ``PeerSandbox/isConfined(pid:pidfd:hidden:)``).
        case sandboxedLaunch
        /// The peer runs in a Flatpak sandbox whose `/.flatpak-info` names the app (trusted:
        /// the sandbox is made by Flatpak, outside the app's reach).
        case flatpak
        /// The peer is confined by snapd's AppArmor profile `snap.NAME.APP`; the app id is
        /// `snap.NAME` (trusted: the label is the kernel's).
        case snap
        /// The peer runs in a systemd unit `app-<launcher>-<app id>-<random>.scope` (weak: any
        /// program of the owner can make such a scope). Its decisions count only when the owner
        /// accepts a weak identity for the app (``AppRecord/acceptsWeakIdentity``).
        case scope
        /// The client declared it in Hello (unverified).
        case selfDeclared
        /// The owner's admin socket.
        case owner
    }

    package var peer: PeerCredentials
    package var appID: String
    package var appIDSource: AppIDSource
    /// The app's display name (its Hello client name until apps are registered).
    package var appName: String
    package var appVersion: String?

    /// Whether the app id is known from the connection (launcher socket or admin socket),
    /// not from what the client said.
    package var isVerified: Bool { appIDSource != .selfDeclared }

    /// Whether the app id is known only by what any program of the owner could set up as well
    /// (a systemd scope): such a caller is granted nothing unless the owner accepts a weak
    /// identity for the app.
    package var isWeak: Bool { appIDSource.isWeak }

    /// The app id as logs and listings show it: "org.example.app (unverified)" when declared.
    package var label: String { isVerified ? appID : appID + " (unverified)" }

    /// The listener attribute that marks a development daemon's app socket, whose clients may
    /// declare their app id in Hello.
    package static let developmentAttribute = "development-mode"

    /// The listener attribute that carries the app id of an app's own socket (`salusctl launch`).
    package static let launchedAppAttribute = "app-id"

    /// The connection identity (``PeerIdentifier``) that carries the app id of a sandboxed peer.
    static let sandboxAppAttribute = "sandbox-app-id"
    /// The connection identity that says how the sandboxed peer was known (an ``AppIDSource``).
    static let identityAttribute = "identified-by"
    /// The connection identity that says why a peer that looked sandboxed was not identified.
    static let identityRefusalAttribute = "identity-refusal"

    /// The caller of a call: the admin socket's owner, the app of the per-app socket the
    /// connection came through, or (only on a development daemon's app socket, whose listener
    /// carries `developmentAttribute`) the app id declared in Hello, marked unverified.
    static func resolve(_ context: ServerContext) throws(RPCError) -> Caller {
        let developmentMode = context.connection.listener.attributes[developmentAttribute] == "true"
        if context.connection.listener.label == "admin" {
            return Caller(peer: context.peer, appID: "owner", appIDSource: .owner, appName: "owner", appVersion: nil)
        }
        let hello = context.connection.helloRequest
        let name = hello.flatMap { $0.clientName.isEmpty ? nil : $0.clientName }
        let version = hello.flatMap { $0.clientVersion.isEmpty ? nil : $0.clientVersion }
        let identity = context.connection.identity
        if let launched = context.connection.listener.attributes[launchedAppAttribute], !launched.isEmpty {
            let source: AppIDSource = identity[identityAttribute] == AppIDSource.sandboxedLaunch.rawValue ? .sandboxedLaunch : .launcher
            return Caller(peer: context.peer, appID: launched, appIDSource: source, appName: name ?? launched, appVersion: version)
        }
        if let sandboxed = identity[sandboxAppAttribute], let source = identity[identityAttribute].flatMap(AppIDSource.init(rawValue:)),
           [.flatpak, .snap, .scope].contains(source) {
            // On a development daemon an id declared in Hello goes before a scope's: a program
            // run from a terminal that the desktop started is in the terminal's scope.
            let declaredInstead = source == .scope && developmentMode && hello.map { !$0.declaredAppID.isEmpty } == true
            if !declaredInstead {
                return Caller(peer: context.peer, appID: sandboxed, appIDSource: source, appName: name ?? sandboxed, appVersion: version)
            }
        }
        if let refusal = identity[identityRefusalAttribute] {
            throw RPCError(
                code: .unauthenticated,
                message: "this connection's sandbox does not identify an app: \(refusal)",
                reason: .unauthenticated,
                field: "sandbox", value: refusal, expected: "a Flatpak sandbox whose /.flatpak-info names a valid app id, a Snap, a desktop app's systemd scope, or the app's own socket (salusctl launch --app ID)"
            )
        }
        if developmentMode, let hello, !hello.declaredAppID.isEmpty {
            return Caller(peer: context.peer, appID: hello.declaredAppID, appIDSource: .selfDeclared, appName: name ?? hello.declaredAppID, appVersion: version)
        }
        let declared = hello?.declaredAppID ?? ""
        throw RPCError(
            code: .unauthenticated,
            message: declared.isEmpty
                ? "this connection is not an app's: start the app with `salusctl launch --app APP-ID -- COMMAND...` (salusd --dev also accepts an app id declared in Hello)"
                : "the app id \(declared) declared in Hello is accepted only by a daemon in development mode (salusd --dev); start the app with `salusctl launch --app \(declared) -- COMMAND...`",
            reason: .unauthenticated,
            field: "appId", value: declared, expected: "a connection through the app's own socket (salusctl launch --app ID)"
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

extension Caller.AppIDSource {
    /// Known only by what any program of the owner could set up as well (a systemd scope).
    package var isWeak: Bool {
        switch self {
        case .scope: true
        case .launcher, .sandboxedLaunch, .flatpak, .snap, .selfDeclared, .owner: false
        }
    }
}
