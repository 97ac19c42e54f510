import Foundation
import SalusProto
import SalusRPC
import SalusWire

/// salus.v1.Consent, on the admin socket only: the owner registers apps, answers requests,
/// sets policies and grants, and asks for per-app sockets (`salusctl launch`).
package struct ConsentService: Sendable {

    let engine: AuthorizationEngine
    /// Makes (or finds) the per-app socket of an app and returns its path.
    let makeEndpoint: @Sendable (String) async throws -> String

    /// The service over `engine`; `makeEndpoint` creates per-app sockets.
    package init(engine: AuthorizationEngine, makeEndpoint: @escaping @Sendable (String) async throws -> String) {
        self.engine = engine
        self.makeEndpoint = makeEndpoint
    }

    /// Adds the methods to the admin socket's router.
    package func register(into router: inout RPCRouter) {
        let engine = self.engine
        router.registerUnary(SalusMethods.Consent.addApp, onEventLoop: false) { (request: Salus_V1_AddAppRequest, _) in
            Self.info(try await authorizationCall {
                try await engine.apps.addApp(id: request.appID, name: request.name, readUsage: request.readUsage, writeUsage: request.writeUsage)
            }, engine)
        }
        router.registerUnary(SalusMethods.Consent.listApps, onEventLoop: false) { (_: Salus_V1_ListAppsRequest, _) in
            var response = Salus_V1_ListAppsResponse()
            response.apps = engine.apps.apps().map { Self.info($0, engine) }
            return response
        }
        router.registerUnary(SalusMethods.Consent.showApp, onEventLoop: false) { (request: Salus_V1_AppRequest, _) in
            Self.info(try await authorizationCall { try engine.apps.app(request.appID) }, engine)
        }
        router.registerUnary(SalusMethods.Consent.resetApp, onEventLoop: false) { (request: Salus_V1_AppRequest, _) in
            Self.info(try await authorizationCall { try await engine.reset(request.appID) }, engine)
        }
        router.registerUnary(SalusMethods.Consent.removeApp, onEventLoop: false) { (request: Salus_V1_AppRequest, _) in
            try await authorizationCall { try await engine.remove(request.appID) }
            return Salus_V1_RemoveAppResponse()
        }
        router.registerUnary(SalusMethods.Consent.setPolicy, onEventLoop: false) { (request: Salus_V1_SetPolicyRequest, _) in
            let policy = try Self.policy(request.policy)
            return Self.info(try await authorizationCall { try await engine.apps.setPolicy(request.appID, policy) }, engine)
        }
        router.registerUnary(SalusMethods.Consent.setSyncAgent, onEventLoop: false) { (request: Salus_V1_SetSyncAgentRequest, _) in
            Self.info(try await authorizationCall { try await engine.apps.setSyncAgent(request.appID, request.syncAgent) }, engine)
        }
        router.registerUnary(SalusMethods.Consent.setGrants, onEventLoop: false) { (request: Salus_V1_SetGrantsRequest, _) in
            var read: [String: Decision] = [:]
            var share: [String: Decision] = [:]
            for grant in request.grants {
                if let decision = Self.decision(grant.read) { read[grant.type] = decision }
                if let decision = Self.decision(grant.share) { share[grant.type] = decision }
            }
            return Self.info(try await authorizationCall { try await engine.apps.setGrants(request.appID, read: read, share: share) }, engine)
        }
        router.registerUnary(SalusMethods.Consent.setWeakIdentity, onEventLoop: false) { (request: Salus_V1_SetWeakIdentityRequest, _) in
            Self.info(try await authorizationCall { try await engine.apps.setAcceptsWeakIdentity(request.appID, request.accepted) }, engine)
        }
        router.registerUnary(SalusMethods.Consent.withdrawObjects, onEventLoop: false) { (request: Salus_V1_WithdrawObjectsRequest, _) in
            var uuids = Set<UUID>()
            for (index, bytes) in request.uuids.enumerated() {
                guard let uuid = WireUUID.uuid(bytes) else {
                    throw RPCError.invalidArgument(field: "uuids[\(index)]", value: "\(bytes.count) bytes", expected: "16 bytes")
                }
                uuids.insert(uuid)
            }
            return Self.info(try await authorizationCall { try await engine.apps.withdraw(request.appID, objects: uuids) }, engine)
        }
        router.registerUnary(SalusMethods.Consent.grantObjects, onEventLoop: false) { (request: Salus_V1_GrantObjectsRequest, _) in
            guard engine.policy.types[request.type]?.perObjectRead == true else {
                throw RPCError.invalidArgument(
                    field: "type", value: request.type,
                    expected: "a type authorized per object, such as HKDocumentTypeIdentifierCDA or HKVisionPrescriptionTypeIdentifier")
            }
            guard !request.uuids.isEmpty else {
                throw RPCError.invalidArgument(field: "uuids", value: "0 UUIDs", expected: "at least one object's UUID")
            }
            var uuids = Set<UUID>()
            for (index, bytes) in request.uuids.enumerated() {
                guard let uuid = WireUUID.uuid(bytes) else {
                    throw RPCError.invalidArgument(field: "uuids[\(index)]", value: "\(bytes.count) bytes", expected: "16 bytes")
                }
                uuids.insert(uuid)
            }
            return Self.info(try await authorizationCall { try await engine.apps.grant(request.appID, type: request.type, objects: uuids) }, engine)
        }
        router.registerUnary(SalusMethods.Consent.listRequests, onEventLoop: false) { (_: Salus_V1_ListRequestsRequest, _) in
            var response = Salus_V1_ListRequestsResponse()
            response.requests = engine.consent.pending().map { Self.request($0, engine) }
            return response
        }
        router.registerUnary(SalusMethods.Consent.answerRequest, onEventLoop: false) { (request: Salus_V1_AnswerRequestRequest, _) in
            var objects = Set<UUID>()
            for (index, bytes) in request.objects.enumerated() {
                guard let uuid = WireUUID.uuid(bytes) else {
                    throw RPCError.invalidArgument(field: "objects[\(index)]", value: "\(bytes.count) bytes", expected: "16 bytes")
                }
                objects.insert(uuid)
            }
            let answer = ConsentAnswer(grantRead: Set(request.grantRead), grantShare: Set(request.grantShare), objects: objects)
            let answered = try await authorizationCall { try await engine.consent.answer(request.requestID, answer) }
            var wire = Self.request(answered, engine)
            wire.state = .answered
            return wire
        }
        router.registerServerStreaming(SalusMethods.Consent.watchRequests, onEventLoop: false) { (_: Salus_V1_ListRequestsRequest, writer: RPCWriter<Salus_V1_ConsentRequest>, _) in
            for await pending in engine.consent.watch() {
                try await writer.write(Self.request(pending, engine))
            }
        }
        router.registerUnary(SalusMethods.Consent.createAppEndpoint, onEventLoop: false) { (request: Salus_V1_AppRequest, _) in
            _ = try await authorizationCall { try engine.apps.app(request.appID) }
            var response = Salus_V1_AppEndpoint()
            response.appID = request.appID
            response.socketPath = try await makeEndpoint(request.appID)
            return response
        }
    }

    // MARK: Conversions

    static func decision(_ wire: Salus_V1_Decision) -> Decision? {
        switch wire {
        case .granted: return .granted
        case .denied: return .denied
        default: return nil
        }
    }

    static func wire(_ decision: Decision?) -> Salus_V1_Decision {
        switch decision {
        case .granted: return .granted
        case .denied: return .denied
        case nil: return .notDetermined
        }
    }

    static func policy(_ wire: Salus_V1_Policy) throws(RPCError) -> ConsentPolicy {
        let kind: ConsentPolicy.Kind
        switch wire.kind {
        case .ask: kind = .ask
        case .grantAll: kind = .grantAll
        case .denyAll: kind = .denyAll
        case .grantListed: kind = .grantListed
        case .UNRECOGNIZED(let value):
            throw RPCError.invalidArgument(field: "policy.kind", value: "\(value)", expected: "ASK, GRANT_ALL, DENY_ALL or GRANT_LISTED")
        }
        return ConsentPolicy(kind: kind, read: wire.read, share: wire.share, afterMilliseconds: wire.afterMs)
    }

    static func wire(_ policy: ConsentPolicy) -> Salus_V1_Policy {
        var wire = Salus_V1_Policy()
        switch policy.kind {
        case .ask: wire.kind = .ask
        case .grantAll: wire.kind = .grantAll
        case .denyAll: wire.kind = .denyAll
        case .grantListed: wire.kind = .grantListed
        }
        wire.read = policy.read
        wire.share = policy.share
        wire.afterMs = policy.afterMilliseconds
        return wire
    }

    static func info(_ record: AppRecord, _ engine: AuthorizationEngine) -> Salus_V1_AppInfo {
        var info = Salus_V1_AppInfo()
        info.appID = record.id
        info.name = record.name
        info.readUsage = record.readUsage
        info.writeUsage = record.writeUsage
        info.policy = wire(record.policy)
        info.grants = Set(record.read.keys).union(record.share.keys).sorted().map { type in
            var grant = Salus_V1_TypeGrant()
            grant.type = type
            grant.read = wire(record.read[type])
            grant.share = wire(record.share[type])
            return grant
        }
        info.objects = record.objects.keys.sorted().flatMap { type in
            (record.objects[type] ?? []).sorted { $0.uuidString < $1.uuidString }.map { uuid in
                var object = Salus_V1_ObjectGrant()
                object.type = type
                object.uuid = WireUUID.bytes(uuid)
                return object
            }
        }
        info.pending = engine.consent.pending(of: record.id).map { request($0, engine) }
        info.endpoint = engine.apps.endpoint(for: record.id) ?? ""
        info.syncAgent = record.isSyncAgent
        info.acceptsWeakIdentity = record.acceptsWeakIdentity
        return info
    }

    /// How far a request's identity holds (docs/security.md, "Who is calling: the identities"):
    /// strong when the app cannot choose it (the owner's launch gave it its own socket, its
    /// Flatpak sandbox or its snap's AppArmor label names it), weak when any program of the
    /// owner could set it up as well (a systemd scope), unverified when the app declared it. A
    /// new way of knowing an app must be placed here: the switch has no default.
    static func identityStrength(_ identity: String) -> Salus_V1_IdentityStrength {
        switch Caller.AppIDSource(rawValue: identity) {
        case .launcher, .sandboxedLaunch, .flatpak, .snap, .owner: .strong
        case .scope: .weak
        case .selfDeclared, nil: .unverified
        }
    }

    static func request(_ request: PendingRequest, _ engine: AuthorizationEngine) -> Salus_V1_ConsentRequest {
        var wire = Salus_V1_ConsentRequest()
        wire.id = request.id
        wire.appID = request.appID
        let app = engine.apps.record(request.appID)
        wire.appName = app?.name ?? request.appID
        wire.readUsage = app?.readUsage ?? ""
        wire.writeUsage = app?.writeUsage ?? ""
        wire.share = request.share
        wire.read = request.read
        wire.objectType = request.objectType ?? ""
        wire.objects = request.objects.map { object in
            var wire = Salus_V1_RequestedObject()
            wire.uuid = WireUUID.bytes(object.uuid)
            wire.source = object.source
            wire.startDate = WireDate.microseconds(object.startDate)
            return wire
        }
        wire.state = .pending
        wire.identity = request.identity
        wire.identityStrength = identityStrength(request.identity)
        wire.createdMs = Int64(request.created.timeIntervalSince1970 * 1000)
        return wire
    }
}
