import SalusProto
import SalusRPC

/// The service edge of authorization: the parts' refusals as wire errors. Only the services
/// (the types that register RPC methods) use these.
extension RPCError {
    /// The wire error for a refusal of the access policy.
    static func from(_ error: AccessError) -> RPCError {
        switch error.code {
        case .invalidArgument:
            return .invalidArgument(field: error.field, value: error.value, expected: error.expected, message: error.message)
        case .notRegistered:
            return RPCError(code: .failedPrecondition, message: error.message, reason: .notFound, field: error.field, value: error.value, expected: error.expected)
        case .notDetermined:
            return RPCError(code: .permissionDenied, message: error.message, reason: .authorizationNotDetermined, field: error.field, value: error.value, expected: error.expected)
        case .denied:
            return RPCError(code: .permissionDenied, message: error.message, reason: .authorizationDenied, field: error.field, value: error.value, expected: error.expected)
        }
    }

    /// The wire error for a refusal of the app registry.
    static func from(_ error: AppRegistryError) -> RPCError {
        switch error.code {
        case .invalidArgument:
            return .invalidArgument(field: error.field, value: error.value, expected: error.expected, message: error.message)
        case .notFound:
            return RPCError(code: .notFound, message: error.message, reason: .notFound, field: error.field, value: error.value, expected: error.expected)
        case .notSaved:
            return RPCError(code: .internal, message: error.message, reason: .databaseInaccessible, field: error.field, value: error.value, expected: error.expected)
        }
    }

    /// The wire error for a refusal of the consent queue.
    static func from(_ error: ConsentError) -> RPCError {
        switch error.code {
        case .invalidArgument:
            return .invalidArgument(field: error.field, value: error.value, expected: error.expected, message: error.message)
        case .notFound:
            return RPCError(code: .notFound, message: error.message, reason: .notFound, field: error.field, value: error.value, expected: error.expected)
        case .notSaved:
            return RPCError(code: .internal, message: error.message, reason: .databaseInaccessible, field: error.field, value: error.value, expected: error.expected)
        }
    }
}

/// Runs authorization work for a service method, turning the parts' refusals into wire errors.
func authorizationCall<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as AccessError {
        throw RPCError.from(error)
    } catch let error as AppRegistryError {
        throw RPCError.from(error)
    } catch let error as ConsentError {
        throw RPCError.from(error)
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
