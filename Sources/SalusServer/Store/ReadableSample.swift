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
        let notFound = RPCError(
            code: .notFound, message: "uuid: \(uuid.uuidString) is not \(what) this app may read",
            reason: .notFound, field: "uuid", value: uuid.uuidString,
            expected: "the UUID of \(what) this app may read")
        guard let sample = try await readable(uuid, in: store, caller: caller) else { throw notFound }
        guard sample.kind == kind else {
            throw RPCError.invalidArgument(
                field: "uuid", value: uuid.uuidString,
                expected: "the UUID of \(what); this is a \(sample.kind.rawValue) sample of \(sample.type)")
        }
        return sample
    }

    /// The sample `uuid`, of any type, when `caller` may read it as a sample query would show
    /// it; nil when there is none or it may not. Permission is decided first, on the row's type
    /// and app alone (`SampleStore.readKey`): reading the whole row first, a damaged row's
    /// error (naming the row and its column) went to an app that may not read the sample, and
    /// told it the UUID exists.
    func readable(_ uuid: UUID, in store: SampleStore, caller: Caller) async throws -> Sample? {
        guard let key = try await storeCall({ try await store.readKey(uuid: uuid) }) else { return nil }
        let access = readAccess(caller, type: key.type.rawValue)
        let admitted: Bool =
            switch access {
            case .all: true
            case .own(let appID, let objects): key.appID == appID || objects.contains(uuid)
            case .nothing: false
            }
        guard admitted, let sample = try await storeCall({ try await store.sample(uuid: uuid) }), access.admits(sample)
        else { return nil }
        return sample
    }
}
