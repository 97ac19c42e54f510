import Foundation
import SalusModel
import SalusRPC
import SalusStore

extension StoreService {
    /// Deleting by UUID needs share permission for the type of every sample the app is
    /// deleting. The types are read from the rows of the app's own samples among `uuids`
    /// (`SampleStore.deletionKeys`, one read): the app may hold no share decision for such a type
    /// at all, once the owner took its share permission back to not determined (`SetGrants`)
    /// after it saved them, and looking only at the types it holds decisions for let it delete
    /// those (`DeletionShareTests`). A type no loaded plugin declares is left to
    /// `checkDeclaredTypes`, and UUIDs of other apps' samples or none to the store, which refuses
    /// others' and missing ones alike.
    func checkShareForDeletion(_ uuids: [UUID], caller: Caller) async throws {
        let candidates = authorization.typesWithShareDecisions(caller).sorted()
        guard !candidates.isEmpty else {
            // Nothing was ever decided: as HealthKit, "not determined" before anything else.
            try authorization.checkShare(caller, types: ["(any type)"])
            return
        }
        // An app allowed to write no type at all is refused as a save would be.
        if !candidates.contains(where: { authorization.sharingStatus(caller, type: $0) == .authorized }) {
            try authorization.checkShare(caller, types: candidates)
        }
        let keys = try await storeCall { try await store.deletionKeys(uuids: uuids) }
        let types = Set(keys.values.lazy.filter { $0.appID == caller.appID }.map(\.type.rawValue))
        for type in types.sorted() where registry.type(type) != nil {
            try authorization.checkShare(caller, types: [type])
        }
    }
}

extension AuthorizationEngine {
    /// The predicate a read of `type` by `caller` runs: the caller's own (nil: every sample),
    /// each workout-statistic test in it limited to what the caller may read of the statistic's
    /// type, AND-ed with the caller's read access to `type`.
    ///
    /// Every read of samples by a predicate goes through it (sample, anchored, live, sources
    /// and correlation member queries, deletions by predicate), so a type the caller may not
    /// read can neither be seen nor tested: a workout filtered on a statistic of such a type
    /// matches as if the workout had no such statistic. A path that built its predicate by hand
    /// could skip one of the two steps, as sources queries once skipped the second and let an
    /// app bisect a heart rate it was denied.
    func readPredicate(_ predicate: SamplePredicate?, of type: String, for caller: Caller) -> SamplePredicate? {
        readAccess(caller, type: type).restrict(predicate?.limitingWorkoutStatistics { readAccess(caller, type: $0.rawValue) })
    }
}

extension StoreService {
    /// The predicate a read of `type` by `caller` runs (`AuthorizationEngine.readPredicate`),
    /// after the caller's own predicate is checked as it was written: a predicate the store
    /// refuses is refused with the same error, naming the same node, whether or not the caller
    /// may read the type or the statistics it tests. Narrowed first, a denied caller's node
    /// would be named under `and[0]`, and a statistic test on a type it may not read would be
    /// dropped unchecked: either refusal would tell the app it was denied.
    func readPredicate(
        _ predicate: SamplePredicate?, of type: TypeIdentifier, for caller: Caller, path: String = "predicate"
    ) throws(RPCError) -> SamplePredicate? {
        do {
            try store.checkPredicate(predicate, of: type, path: path)
        } catch {
            throw RPCError.from(error)
        }
        return authorization.readPredicate(predicate, of: type.rawValue, for: caller)
    }
}
