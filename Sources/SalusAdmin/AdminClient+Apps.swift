import Foundation
import SalusKit
import SalusProto
import SalusRPC
import SalusWire

/// Apps: the owner's registry (salus.v1.Consent).
extension AdminClient {
    /// Registers an app, or updates its name and usage texts. An app may ask to read only with
    /// a read usage text, and to write only with a write usage text. Throws ``SalusError``
    /// (``SalusError/Code/invalidArgument``) for an empty or malformed app id or name.
    public func addApp(_ appID: String, name: String, readUsage: String = "", writeUsage: String = "") async throws -> AppInfo {
        var request = Salus_V1_AddAppRequest()
        request.appID = appID
        request.name = name
        request.readUsage = readUsage
        request.writeUsage = writeUsage
        return try AppInfo(try await call(SalusMethods.Consent.addApp, request))
    }

    /// Every registered app, with its policy, grants and pending requests.
    public func apps() async throws -> [AppInfo] {
        try await call(SalusMethods.Consent.listApps, Salus_V1_ListAppsRequest()).apps.map(AppInfo.init)
    }

    /// One app. Throws ``SalusError`` (``SalusError/Code/notFound``) for an app not registered.
    public func app(_ appID: String) async throws -> AppInfo {
        try AppInfo(try await call(SalusMethods.Consent.showApp, appRequest(appID)))
    }

    /// Returns the app to "not determined" for every type and object; its pending requests are
    /// dropped. Throws ``SalusError`` (``SalusError/Code/notFound``) for an app not registered.
    @discardableResult
    public func resetApp(_ appID: String) async throws -> AppInfo {
        try AppInfo(try await call(SalusMethods.Consent.resetApp, appRequest(appID)))
    }

    /// Forgets the app; its samples stay, attributed to it. Throws ``SalusError``
    /// (``SalusError/Code/notFound``) for an app not registered.
    public func removeApp(_ appID: String) async throws {
        _ = try await call(SalusMethods.Consent.removeApp, appRequest(appID))
    }

    /// Sets how the app's new requests are answered. Throws ``SalusError`` for an app not
    /// registered, or a policy the daemon refuses (type lists with other than
    /// ``ConsentPolicy/Kind/grantListed``, an unknown type).
    @discardableResult
    public func setPolicy(_ policy: ConsentPolicy, for appID: String) async throws -> AppInfo {
        var request = Salus_V1_SetPolicyRequest()
        request.appID = appID
        request.policy = policy.proto
        return try AppInfo(try await call(SalusMethods.Consent.setPolicy, request))
    }

    /// Sets read and share decisions directly, without a request; a revocation stops open
    /// queries delivering the type at once. A decision of ``ConsentDecision/notDetermined``
    /// leaves that direction as it is. Throws ``SalusError`` for an app not registered or an
    /// unknown type.
    @discardableResult
    public func setGrants(_ grants: [TypeGrant], for appID: String) async throws -> AppInfo {
        var request = Salus_V1_SetGrantsRequest()
        request.appID = appID
        request.grants = grants.map { grant in
            var typeGrant = Salus_V1_TypeGrant()
            typeGrant.type = grant.type
            typeGrant.read = grant.read.proto
            typeGrant.share = grant.share.proto
            return typeGrant
        }
        return try AppInfo(try await call(SalusMethods.Consent.setGrants, request))
    }

    /// Grants the app read access to objects of a type authorized per object (a clinical
    /// document, a prescription), without a request. Throws ``SalusError`` for an app not
    /// registered, a type not authorized per object, or an object not of that type.
    @discardableResult
    public func grantObjects(_ uuids: [UUID], type: String, to appID: String) async throws -> AppInfo {
        var request = Salus_V1_GrantObjectsRequest()
        request.appID = appID
        request.type = type
        request.uuids = uuids.map(WireUUID.bytes)
        return try AppInfo(try await call(SalusMethods.Consent.grantObjects, request))
    }

    /// Withdraws the app's read access to objects. Throws ``SalusError`` for an app not
    /// registered.
    @discardableResult
    public func withdrawObjects(_ uuids: [UUID], from appID: String) async throws -> AppInfo {
        var request = Salus_V1_WithdrawObjectsRequest()
        request.appID = appID
        request.uuids = uuids.map(WireUUID.bytes)
        return try AppInfo(try await call(SalusMethods.Consent.withdrawObjects, request))
    }

    /// Makes the app the store's sync agent (or no longer, with `false`): it may then save
    /// samples with the UUIDs, sources and dates another store gave them. Throws
    /// ``SalusError`` for an app not registered.
    @discardableResult
    public func setSyncAgent(_ appID: String, _ isSyncAgent: Bool) async throws -> AppInfo {
        var request = Salus_V1_SetSyncAgentRequest()
        request.appID = appID
        request.syncAgent = isSyncAgent
        return try AppInfo(try await call(SalusMethods.Consent.setSyncAgent, request))
    }

    /// Creates (or returns) the app's own socket, through which connections are this app
    /// (`salusctl launch`); returns its path. Throws ``SalusError`` for an app not registered.
    public func appEndpoint(_ appID: String) async throws -> String {
        try await call(SalusMethods.Consent.createAppEndpoint, appRequest(appID)).socketPath
    }

    private func appRequest(_ appID: String) -> Salus_V1_AppRequest {
        var request = Salus_V1_AppRequest()
        request.appID = appID
        return request
    }
}

/// Consent requests: the apps' questions the owner answers (salus.v1.Consent).
extension AdminClient {
    /// The pending requests, oldest first.
    public func pendingRequests() async throws -> [ConsentRequest] {
        try await call(SalusMethods.Consent.listRequests, Salus_V1_ListRequestsRequest()).requests.map(ConsentRequest.init)
    }

    /// Answers a request: grants what `answer` lists and denies every other type and object the
    /// request asks. Returns the request, answered. Throws ``SalusError``
    /// (``SalusError/Code/notFound``) for a request not pending, or
    /// (``SalusError/Code/invalidArgument``) for a type or object the request did not ask.
    @discardableResult
    public func answer(_ answer: ConsentAnswer) async throws -> ConsentRequest {
        var request = Salus_V1_AnswerRequestRequest()
        request.requestID = answer.requestID
        request.grantRead = answer.grantRead
        request.grantShare = answer.grantShare
        request.objects = answer.objects.map(WireUUID.bytes)
        return try ConsentRequest(try await call(SalusMethods.Consent.answerRequest, request))
    }

    /// The pending requests now, then each new one as it arrives, until the iteration ends
    /// (which cancels the call) or the daemon stops (the sequence throws ``SalusError``).
    public func watchRequests() -> AsyncThrowingStream<ConsentRequest, any Error> {
        stream(SalusMethods.Consent.watchRequests, Salus_V1_ListRequestsRequest(), ConsentRequest.init)
    }
}

/// The source priority of a type, which merged statistics follow (salus.v1.Statistics).
extension AdminClient {
    /// The source priority of a quantity type (its identifier). Throws ``SalusError`` for an
    /// unknown type.
    public func sourcePriority(of type: String) async throws -> SourcePriority {
        var request = Salus_V1_SourcePriorityRequest()
        request.type = type
        let response = try await call(SalusMethods.Statistics.getSourcePriority, request)
        return SourcePriority(type: response.type, sources: response.sources)
    }

    /// Sets the source priority of a quantity type, highest first; no source clears it.
    /// Throws ``SalusError`` for an unknown type or an app id given twice.
    @discardableResult
    public func setSourcePriority(_ sources: [String], of type: String) async throws -> SourcePriority {
        var request = Salus_V1_SourcePriority()
        request.type = type
        request.sources = sources
        let response = try await call(SalusMethods.Statistics.setSourcePriority, request)
        return SourcePriority(type: response.type, sources: response.sources)
    }
}
