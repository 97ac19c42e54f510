import SalusProto
import SalusRPC

extension AdminClient {
    /// Whether a weak identity is enough for the app (`true`), or no longer (`false`). A weak
    /// identity is a systemd scope (`app-gnome-ID-1234.scope`): the desktop starts apps in one,
    /// but any program of yours can make one of any name. Until you accept it, a caller known
    /// only that way gets none of the app's decisions, and its requests can only be declined
    /// (docs/security.md, "Who is calling: the identities"). Throws ``SalusError`` for an app
    /// not registered.
    @discardableResult
    public func setAcceptsWeakIdentity(_ appID: String, _ accepted: Bool) async throws -> AppInfo {
        var request = Salus_V1_SetWeakIdentityRequest()
        request.appID = appID
        request.accepted = accepted
        return try AppInfo(try await call(SalusMethods.Consent.setWeakIdentity, request))
    }
}
