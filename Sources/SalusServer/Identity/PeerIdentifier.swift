import Logging
import SalusRPC

/// The shared app socket's ``PeerIdentification``: who a peer is from its sandbox, decided once
/// at accept. A peer that is identified carries its app id and how it was known
/// (``Caller/identityAttribute``); one that looked sandboxed but could not be identified carries
/// the reason (``Caller/identityRefusalAttribute``), logged here and told to it with
/// UNAUTHENTICATED on its calls. A host process carries nothing.
///
/// ``launched(hidden:)`` is the per-app sockets' (`salusctl launch`): it only tells a sandboxed
/// launch from a plain one.
enum PeerIdentifier {
    /// The identification of an app's own socket: a peer confined as `salusctl launch --sandbox`
    /// confines it (``PeerSandbox/isConfined(pid:pidfd:hidden:)``, none of `hidden` reachable)
    /// is a sandboxed launch; any other is a plain launch. Never a refusal: the socket names
    /// the app either way.
    static func launched(hidden: [String]) -> PeerIdentification {
        { facts in
            PeerSandbox.isConfined(pid: facts.credentials.pid, pidfd: facts.pidfd, hidden: hidden)
                ? [Caller.identityAttribute: Caller.AppIDSource.sandboxedLaunch.rawValue] : [:]
        }
    }

    static func identification(logger: Logger) -> PeerIdentification {
        { facts in
            let peer = facts.credentials
            do {
                switch try PeerSandbox.inspect(pid: peer.pid, uid: peer.uid, pidfd: facts.pidfd, securityLabel: facts.securityLabel) {
                case .host:
                    return [:]
                case .flatpak(let info):
                    logger.info("peer identified by its Flatpak sandbox", metadata: ["app": "\(info.appID)", "peer": "\(peer)"])
                    return [Caller.sandboxAppAttribute: info.appID, Caller.identityAttribute: Caller.AppIDSource.flatpak.rawValue]
                case .snap(let snap):
                    logger.info("peer identified by its Snap confinement", metadata: ["app": "\(snap.appID)", "snap app": "\(snap.app)", "peer": "\(peer)"])
                    return [Caller.sandboxAppAttribute: snap.appID, Caller.identityAttribute: Caller.AppIDSource.snap.rawValue]
                case .scope(let scope):
                    logger.info("peer identified by its systemd scope (a weak identity)", metadata: [
                        "app": "\(scope.appID)", "launcher": "\(scope.launcher ?? "-")", "peer": "\(peer)",
                    ])
                    return [Caller.sandboxAppAttribute: scope.appID, Caller.identityAttribute: Caller.AppIDSource.scope.rawValue]
                }
            } catch let error as IdentityRefusal {
                logger.warning("peer not identified", metadata: ["reason": "\(error.description)", "peer": "\(peer)"])
                return [Caller.identityRefusalAttribute: error.description]
            } catch {
                return [Caller.identityRefusalAttribute: "\(error)"]
            }
        }
    }
}
