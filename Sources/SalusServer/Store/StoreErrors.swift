import SalusModel
import SalusRPC
import SalusProto
import SalusStore
import SalusWire

extension RPCError {
    /// The wire error for a store refusal.
    ///
    /// A UUID that is another app's and one that does not exist give the same error, so an
    /// app cannot learn which UUIDs other apps wrote.
    static func from(_ error: StoreError) -> RPCError {
        let field = error.field ?? ""
        let value = error.value ?? ""
        let expected = error.expected ?? ""
        switch error.code {
        case .invalidArgument:
            return RPCError(code: .invalidArgument, message: error.message, reason: .invalidArgument, field: field, value: value, expected: expected)
        case .anchorExpired:
            return RPCError(code: .failedPrecondition, message: error.message, reason: .anchorExpired, field: field, value: value, expected: expected)
        case .notFound, .notOwner:
            return RPCError(
                code: .notFound,
                message: "\(field.isEmpty ? "uuid" : field): \(value) is not a sample this app may delete",
                reason: .notFound, field: field, value: value, expected: "the UUID of a sample this app saved"
            )
        case .resourceExhausted:
            return RPCError(
                code: .resourceExhausted, message: error.message, reason: .resourceExhausted, field: field, value: value,
                expected: expected)
        case .closed:
            return RPCError(code: .unavailable, message: "the store is closing", reason: .unavailable)
        default:
            return RPCError(code: .internal, message: error.message, reason: .databaseInaccessible)
        }
    }

    /// The wire error for a sample that breaks the model's rules.
    static func from(_ error: ValidationError) -> RPCError {
        RPCError(
            code: .invalidArgument,
            message: error.description,
            reason: .invalidArgument,
            field: error.field, value: error.value, expected: error.expected
        )
    }
}

/// Runs store work, turning store and validation errors into wire errors.
func storeCall<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as StoreError {
        throw RPCError.from(error)
    } catch let error as ValidationError {
        throw RPCError.from(error)
    }
}

/// The model predicate of a request's `salus.v1.Predicate`, refused as INVALID_ARGUMENT naming
/// the node's path under `path`.
func modelPredicate(_ wire: Salus_V1_Predicate, path: String = "predicate") throws(RPCError) -> SamplePredicate {
    do {
        return try SamplePredicate(wire: wire, path: path)
    } catch {
        throw RPCError.from(error)
    }
}
