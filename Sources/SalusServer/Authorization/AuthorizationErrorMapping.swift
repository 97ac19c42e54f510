import SalusProto
import SalusRPC

/// An error code of one authorization part, with the wire code and reason it stands for.
protocol WireMappedCode: Hashable, Sendable {
    /// The gRPC code and the detail's reason clients get.
    var wire: (code: RPCError.Code, reason: Salus_V1_ErrorReason) { get }
}

extension AccessErrorCode: WireMappedCode {
    var wire: (code: RPCError.Code, reason: Salus_V1_ErrorReason) {
        switch self {
        case .invalidArgument: return (.invalidArgument, .invalidArgument)
        case .notRegistered: return (.failedPrecondition, .notFound)
        case .notDetermined: return (.permissionDenied, .authorizationNotDetermined)
        case .denied: return (.permissionDenied, .authorizationDenied)
        case .tooManyRequests: return (.resourceExhausted, .resourceExhausted)
        }
    }
}

extension AppRegistryErrorCode: WireMappedCode {
    var wire: (code: RPCError.Code, reason: Salus_V1_ErrorReason) {
        switch self {
        case .invalidArgument: return (.invalidArgument, .invalidArgument)
        case .notFound: return (.notFound, .notFound)
        case .notSaved: return (.internal, .databaseInaccessible)
        }
    }
}

extension ConsentErrorCode: WireMappedCode {
    var wire: (code: RPCError.Code, reason: Salus_V1_ErrorReason) {
        switch self {
        case .invalidArgument: return (.invalidArgument, .invalidArgument)
        case .notFound: return (.notFound, .notFound)
        case .notSaved: return (.internal, .databaseInaccessible)
        case .weakIdentity: return (.failedPrecondition, .unauthenticated)
        }
    }
}

/// A part's error that the service edge turns into a wire error.
protocol WireMappedError: Error {
    /// The wire error: the code's gRPC code and reason, with the message, field, value and
    /// expected unchanged.
    var rpcError: RPCError { get }
}

extension AuthorizationError: WireMappedError where Code: WireMappedCode {
    var rpcError: RPCError {
        RPCError(code: code.wire.code, message: message, reason: code.wire.reason, field: field, value: value, expected: expected)
    }
}

/// Runs authorization work for a service method, turning the parts' refusals into wire errors:
/// the service edge of authorization. Only the services (the types that register RPC methods)
/// use it.
func authorizationCall<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as any WireMappedError {
        throw error.rpcError
    }
}

extension SharingStatus {
    /// The wire form.
    var wire: Salus_V1_SharingStatus {
        switch self {
        case .notDetermined: return .notDetermined
        case .denied: return .sharingDenied
        case .authorized: return .sharingAuthorized
        }
    }
}

extension RequestStatus {
    /// The wire form.
    var wire: Salus_V1_RequestStatus {
        switch self {
        case .unnecessary: return .unnecessary
        case .shouldRequest: return .shouldRequest
        }
    }
}
