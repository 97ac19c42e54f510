import Logging
import SalusRPC

/// The shared app socket's ``PeerIdentification``: who a peer is from its sandbox, decided once
/// at accept. A peer that is identified carries its app id and how it was known
/// (``Caller/identityAttribute``); one that looked sandboxed but could not be identified carries
/// the reason (``Caller/identityRefusalAttribute``), logged here and told to it with
/// UNAUTHENTICATED on its calls. A host process carries nothing.
enum PeerIdentifier {
    static func identification(logger: Logger) -> PeerIdentification {
        { facts in
            let peer = facts.credentials
            do {
                switch try PeerSandbox.inspect(pid: peer.pid, uid: peer.uid, pidfd: facts.pidfd) {
                case .host:
                    return [:]
                case .flatpak(let info):
                    logger.info("peer identified by its Flatpak sandbox", metadata: ["app": "\(info.appID)", "peer": "\(peer)"])
                    return [Caller.sandboxAppAttribute: info.appID, Caller.identityAttribute: Caller.AppIDSource.flatpak.rawValue]
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
