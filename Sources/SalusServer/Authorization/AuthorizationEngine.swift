import Foundation
import Logging
import SalusModel
import SalusPluginHost
import SalusStore

/// Authorization as the services see it: a thin facade that joins the three parts, each in its
/// own file with its own errors.
///
/// - `AppRegistry`: the registered apps, the owner's decisions and policies, written through to
///   `authorization.sqlite`.
/// - `ConsentQueue`: pending requests, the apps' calls waiting on them, the owner's watchers.
/// - `AccessPolicy`: the rules, a pure function of an app's record and the caller.
///
/// The facade only looks up the caller's record and hands it to the policy, so every check
/// uses the decisions of the moment. It never sees the wire: the services map the parts'
/// errors to `RPCError`.
package final class AuthorizationEngine: Sendable {
    /// The type registry, for the services' own checks of type identifiers.
    let registry: TypeRegistry
    /// Declared app ids are accepted (marked unverified).
    package let developmentMode: Bool
    /// The registered apps and the owner's decisions.
    package let apps: AppRegistry
    /// The requests waiting for the owner.
    package let consent: ConsentQueue
    /// The rules.
    package let policy: AccessPolicy

    /// Nothing is enforced: every app may read and write every type (development only).
    package var open: Bool { policy.open }

    /// An engine; `databasePath` nil keeps everything in memory.
    package init(
        registry: TypeRegistry, developmentMode: Bool, open: Bool = false, databasePath: String?, logger: Logger,
        maxPendingRequestsPerApp: Int = ConsentQueue.defaultMaxPendingPerApp
    ) throws {
        self.registry = registry
        self.developmentMode = developmentMode
        let types = AccessRules.table(registry)
        policy = AccessPolicy(open: open, types: types)
        apps = try AppRegistry(types: types, databasePath: databasePath, logger: logger)
        consent = ConsentQueue(apps: apps, logger: logger, maxPendingPerApp: maxPendingRequestsPerApp)
    }

    /// Waits until every change so far is on disk.
    package func flush() { apps.flush() }

    // MARK: Checks on store calls

    /// The record every check of `caller` reads: the app's, or, for a caller known only by a
    /// weak identity (a systemd scope) of an app whose owner has not accepted one, the app with
    /// nothing decided. Why: any program of the owner can make a scope of any name, so the
    /// grants given to a Flatpak or a launch of the same id must not reach it unasked.
    package func grants(_ caller: Caller) -> AppRecord? {
        guard let record = apps.record(caller.appID) else { return nil }
        return caller.isWeak && !record.acceptsWeakIdentity ? record.undecided : record
    }

    /// What `caller` may read of `type` now.
    package func readAccess(_ caller: Caller, type: String) -> ReadAccess {
        policy.readAccess(caller, type: type, grants: grants(caller))
    }

    /// Refuses, naming the type, unless `caller` may write every one of `types`.
    package func checkShare(_ caller: Caller, types: some Sequence<String>) throws(AccessError) {
        try policy.checkShare(caller, types: types, grants: grants(caller))
    }

    /// The types the app has a share decision for (granted or denied).
    func typesWithShareDecisions(_ caller: Caller) -> [String] {
        grants(caller).map { Array($0.share.keys) } ?? []
    }

    /// HealthKit's authorizationStatus(for:): sharing only.
    package func sharingStatus(_ caller: Caller, type: String) -> SharingStatus {
        policy.sharingStatus(type: type, grants: grants(caller))
    }

    /// A live anchored batch without what the caller may no longer see.
    func filter(_ result: AnchoredQueryResult, for caller: Caller) -> (AnchoredQueryResult, filtered: Bool) {
        policy.filter(result, for: caller, grants: grants(caller))
    }

    /// `samples` with each correlation narrowed to the members `caller` may read now (see
    /// `AccessPolicy.narrowingCorrelations`).
    func narrowingCorrelations(_ samples: [Sample], for caller: Caller) -> [Sample] {
        policy.narrowingCorrelations(samples, for: caller, grants: grants(caller))
    }

    /// The watched types an observer is told about for a commit event.
    func observedChanges(_ event: CommitEvent, watched: Set<TypeIdentifier>, caller: Caller) -> Set<TypeIdentifier> {
        policy.observedChanges(event, watched: watched, caller: caller, grants: grants(caller))
    }

    // MARK: Requests

    /// HealthKit's getRequestStatusForAuthorization.
    package func requestStatus(_ caller: Caller, share: [String], read: [String]) throws(AccessError) -> RequestStatus {
        try policy.requestStatus(caller, share: share, read: read, grants: grants(caller))
    }

    /// HealthKit's requestAuthorization(toShare:read:): returns once the request is handled.
    package func requestAuthorization(_ caller: Caller, share: [String], read: [String]) async throws(AccessError) {
        if open { return }
        let fresh = try policy.newTypes(caller, share: share, read: read, grants: grants(caller))
        if fresh.share.isEmpty && fresh.read.isEmpty { return }
        try await consent.submit(caller, share: fresh.share, read: fresh.read, objectType: nil, objects: [])
    }

    /// Checks a per-object request before its objects are listed.
    func checkPerObjectRequest(_ caller: Caller, type: String) throws(AccessError) {
        try policy.checkPerObjectRequest(caller, type: type, grants: grants(caller))
    }

    /// HealthKit's requestPerObjectReadAuthorization: always asks, listing `objects`.
    package func requestPerObjectReadAuthorization(_ caller: Caller, type: String, objects: [RequestedObject]) async throws(AccessError) {
        try checkPerObjectRequest(caller, type: type)
        try await consent.submit(caller, share: [], read: [], objectType: type, objects: objects)
    }

    // MARK: The owner's side, where it takes two parts

    /// Back to "not determined" for every type and object; pending requests are dropped.
    package func reset(_ id: String) async throws(AppRegistryError) -> AppRecord {
        // The requests go even when saving fails: the reset is in effect.
        defer { consent.cancelPending(of: id) }
        return try await apps.reset(id)
    }

    /// Forgets an app and drops its pending requests; its samples stay, attributed to it.
    package func remove(_ id: String) async throws(AppRegistryError) {
        defer { consent.cancelPending(of: id) }
        try await apps.remove(id)
    }
}
