import Foundation
import SalusModel
import SalusRPC
import SalusStore

extension AuthorizationEngine {
    /// The sample `uuid` of `kind` (named `what` in errors: "a workout route"), when `caller` may
    /// read it as a sample query would show it (read permission, or its own sample with share
    /// permission), for the calls that stream a sample's series (voltages, route locations).
    ///
    /// A sample that does not exist and one the caller may not read give the same NOT_FOUND
    /// naming `uuid`, so a denied reader learns nothing; a readable sample of another kind is
    /// INVALID_ARGUMENT naming `uuid`.
    func readableSample(_ uuid: UUID, of kind: ObjectKind, named what: String, in store: SampleStore, caller: Caller)
        async throws -> Sample
    {
        let sample = try await storeCall { try await store.sample(uuid: uuid) }
        guard let sample, readAccess(caller, type: sample.type.rawValue).admits(sample) else {
            throw RPCError(
                code: .notFound, message: "uuid: \(uuid.uuidString) is not \(what) this app may read",
                reason: .notFound, field: "uuid", value: uuid.uuidString,
                expected: "the UUID of \(what) this app may read")
        }
        guard sample.kind == kind else {
            throw RPCError.invalidArgument(
                field: "uuid", value: uuid.uuidString,
                expected: "the UUID of \(what); this is a \(sample.kind.rawValue) sample of \(sample.type)")
        }
        return sample
    }
}
