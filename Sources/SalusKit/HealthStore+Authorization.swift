import SalusModel
import SalusProto
import SalusRPC

/// Whether an app may write a type, as HealthKit's `HKAuthorizationStatus`. Read permission is
/// never disclosed: an app that may not read a type sees the same as when there is no data.
public enum SharingAuthorizationStatus: Sendable, Hashable {
    /// The owner has not been asked about writing this type.
    case notDetermined
    /// The owner refused writing this type.
    case sharingDenied
    /// The owner allowed writing this type.
    case sharingAuthorized
}

/// Whether asking for a set of types would show the owner anything new, as HealthKit's
/// `HKAuthorizationRequestStatus`.
public enum AuthorizationRequestStatus: Sendable, Hashable {
    /// Some type has not been answered: requesting would ask the owner.
    case shouldRequest
    /// Every type has been answered: requesting completes at once.
    case unnecessary
    /// The daemon's answer could not be read.
    case unknown
}

extension HealthStore {
    /// Asks the owner to let this app write `share` and read `read`, and returns when the
    /// request has been handled: answered by the owner (in `salusctl consent`), by a policy,
    /// or at once when nothing is new. Returning says the request was handled, never what was
    /// granted; check ``authorizationStatus(for:)`` for writing, and expect reads the owner
    /// refused to look like no data.
    ///
    /// Fails with ``SalusError/Code/invalidArgument`` naming the missing usage description
    /// (the owner registers the app with one text for reading and one for writing) or a type
    /// that cannot be asked for this way (read-only types in `share`, per-object types in
    /// `read`).
    public func requestAuthorization(toShare share: Set<SampleType>, read: Set<SampleType>) async throws(SalusError) {
        let _: Salus_V1_AuthorizationResponse = try await mappingErrors {
            try await client.unary(SalusMethods.Authorization.requestAuthorization, request: Self.request(share: share, read: read))
        }
    }

    /// Whether ``requestAuthorization(toShare:read:)`` with these types would ask the owner
    /// anything new.
    public func statusForAuthorizationRequest(toShare share: Set<SampleType>, read: Set<SampleType>) async throws(SalusError) -> AuthorizationRequestStatus {
        let response: Salus_V1_RequestStatusResponse = try await mappingErrors {
            try await client.unary(SalusMethods.Authorization.requestStatus, request: Self.request(share: share, read: read))
        }
        switch response.status {
        case .shouldRequest: return .shouldRequest
        case .unnecessary: return .unnecessary
        default: return .unknown
        }
    }

    /// Whether this app may write `type`.
    public func authorizationStatus(for type: SampleType) async throws(SalusError) -> SharingAuthorizationStatus {
        var request = Salus_V1_AuthorizationStatusRequest()
        request.type = type.identifier.rawValue
        let response: Salus_V1_AuthorizationStatusResponse = try await mappingErrors {
            try await client.unary(SalusMethods.Authorization.authorizationStatus, request: request)
        }
        switch response.status {
        case .sharingAuthorized: return .sharingAuthorized
        case .sharingDenied: return .sharingDenied
        default: return .notDetermined
        }
    }

    /// Asks the owner which objects of a per-object type (vision prescriptions) this app may
    /// read: the request lists the objects matching `predicate`, and the owner picks. Objects
    /// added later need a new request.
    public func requestPerObjectReadAuthorization(for type: SampleType, predicate: SamplePredicate? = nil) async throws(SalusError) {
        var request = Salus_V1_PerObjectReadRequest()
        request.type = type.identifier.rawValue
        if let predicate { request.predicate = predicate.wire }
        let _: Salus_V1_AuthorizationResponse = try await mappingErrors {
            try await client.unary(SalusMethods.Authorization.requestPerObjectReadAuthorization, request: request)
        }
    }

    static func request(share: Set<SampleType>, read: Set<SampleType>) -> Salus_V1_AuthorizationRequest {
        var request = Salus_V1_AuthorizationRequest()
        request.share = share.map(\.identifier.rawValue).sorted()
        request.read = read.map(\.identifier.rawValue).sorted()
        return request
    }
}
