import Foundation
import Logging
import Synchronization

/// The codes of `AppRegistryError`.
package enum AppRegistryErrorCode: Hashable, Sendable {
    /// An app id, name, type or policy the owner gave is not valid.
    case invalidArgument
    /// No app with that id is registered.
    case notFound
    /// The change is in effect but could not be written to `authorization.sqlite`.
    case notSaved
}

/// A refusal of the app registry.
package typealias AppRegistryError = AuthorizationError<AppRegistryErrorCode>

/// The apps the owner registered, with the owner's decisions and policies, and the per-app
/// sockets made for them.
///
/// The records live in memory behind a mutex (every check is a dictionary lookup, so no event
/// loop or pool thread ever waits on the disk) and are written through to
/// `authorization.sqlite`.
///
/// **Rule: a change the owner makes is saved before the owner's call returns, or the call
/// fails.** The change applies in memory first (at once, for every check), then the app's record
/// *as it is when the write runs* is written, in order with every other write. A failed write is
/// logged, the app is remembered as unsaved, and the call fails with `notSaved`, saying the change
/// is in effect but would be lost on restart; every later write retries the unsaved apps, so a
/// passing failure (a full disk) heals with the next change. Why: a write that failed silently
/// would come back as the old decisions after a restart, and the owner would never know.
package final class AppRegistry: Sendable {
    private struct State {
        var apps: [String: AppRecord] = [:]
        var endpoints: [String: String] = [:]
        var unsaved: Set<String> = []
    }

    /// The rules of each registered type, for the owner's grants and policies.
    let types: [String: AccessRules]
    private let persistence: AuthorizationPersistence?
    private let state = Mutex(State())
    private let logger: Logger

    /// A registry loaded from `databasePath` (created when missing); nil keeps it in memory.
    package init(types: [String: AccessRules], databasePath: String?, logger: Logger) throws {
        self.types = types
        self.logger = logger
        if let databasePath {
            let persistence = try AuthorizationPersistence(path: databasePath)
            let records = try persistence.load()
            state.withLock { state in
                for record in records { state.apps[record.id] = record }
            }
            self.persistence = persistence
        } else {
            self.persistence = nil
        }
    }

    /// Waits until every write queued so far is done.
    package func flush() { persistence?.flush() }

    // MARK: Reading

    /// The record of `id`, or nil when it is not registered.
    package func record(_ id: String) -> AppRecord? {
        state.withLock { $0.apps[id] }
    }

    /// A registered app, or `notFound` naming it.
    package func app(_ id: String) throws(AppRegistryError) -> AppRecord {
        guard let record = record(id) else { throw Self.unknownApp(id) }
        return record
    }

    /// Every registered app, by id.
    package func apps() -> [AppRecord] {
        state.withLock { $0.apps.values.sorted { $0.id < $1.id } }
    }

    /// The apps changed in memory whose last write failed.
    package func unsaved() -> Set<String> {
        state.withLock { $0.unsaved }
    }

    static func unknownApp(_ id: String) -> AppRegistryError {
        AppRegistryError(.notFound, field: "appId", value: id, expected: "a registered app id", message: "no app \(id) is registered (salusctl apps list)")
    }

    /// Whether `id` may name an app (and a socket file).
    package static func isValidAppID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 200 && !id.hasPrefix(".") && id != "owner"
            && id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" || $0 == "_" }
    }

    // MARK: Changes

    /// Registers an app, or updates the name and usage texts of a registered one.
    package func addApp(id: String, name: String, readUsage: String, writeUsage: String) async throws(AppRegistryError) -> AppRecord {
        guard Self.isValidAppID(id) else {
            throw AppRegistryError(.invalidArgument, field: "appId", value: id, expected: "a reverse-DNS app id such as org.example.sleepdiary (letters, digits, '.', '-', '_')")
        }
        guard !name.isEmpty else {
            throw AppRegistryError(.invalidArgument, field: "name", value: "", expected: "the app's name as the owner should see it")
        }
        let record = state.withLock { state -> AppRecord in
            var record = state.apps[id] ?? AppRecord(id: id, name: name, readUsage: readUsage, writeUsage: writeUsage)
            record.name = name
            record.readUsage = readUsage
            record.writeUsage = writeUsage
            state.apps[id] = record
            return record
        }
        logger.info("app registered", metadata: ["app": "\(id)", "name": "\(name)"])
        try await save(id)
        return record
    }

    /// Changes a registered app's record in memory (effective at once); `notFound` when it is
    /// not registered. The caller saves it with `save(_:)`.
    package func change(_ id: String, _ body: (inout AppRecord) -> Void) throws(AppRegistryError) -> AppRecord {
        try state.withLock { state throws(AppRegistryError) -> AppRecord in
            guard var record = state.apps[id] else { throw Self.unknownApp(id) }
            body(&record)
            state.apps[id] = record
            return record
        }
    }

    /// Changes a registered app's record and saves it.
    private func update(_ id: String, _ body: (inout AppRecord) -> Void) async throws(AppRegistryError) -> AppRecord {
        let record = try change(id, body)
        try await save(id)
        return record
    }

    /// Every decision back to "not determined" (pending requests are the consent queue's).
    package func reset(_ id: String) async throws(AppRegistryError) -> AppRecord {
        let record = try await update(id) { record in
            record.read = [:]
            record.share = [:]
            record.objects = [:]
        }
        logger.info("app reset to not determined", metadata: ["app": "\(id)"])
        return record
    }

    /// Forgets an app; its samples stay, attributed to it.
    package func remove(_ id: String) async throws(AppRegistryError) {
        let removed = state.withLock { $0.apps.removeValue(forKey: id) != nil }
        guard removed else { throw Self.unknownApp(id) }
        logger.info("app removed", metadata: ["app": "\(id)"])
        try await save(id)
    }

    /// Sets how new requests of the app are answered.
    package func setPolicy(_ id: String, _ policy: ConsentPolicy) async throws(AppRegistryError) -> AppRecord {
        for (index, type) in (policy.read + policy.share).enumerated() where types[type] == nil {
            throw AppRegistryError(.invalidArgument, field: "policy.types[\(index)]", value: type, expected: "a registered type identifier (salusctl types)")
        }
        guard policy.afterMilliseconds >= 0 else {
            throw AppRegistryError(.invalidArgument, field: "policy.afterMs", value: "\(policy.afterMilliseconds)", expected: "0 or more milliseconds")
        }
        return try await update(id) { record in record.policy = policy }
    }

    /// Sets decisions directly (the owner granting or revoking); effective at once, open live
    /// queries included.
    package func setGrants(_ id: String, read: [String: Decision], share: [String: Decision]) async throws(AppRegistryError) -> AppRecord {
        for type in Array(read.keys) + Array(share.keys) where types[type] == nil {
            throw AppRegistryError(.invalidArgument, field: "grants.type", value: type, expected: "a registered type identifier (salusctl types)")
        }
        for (type, decision) in share where decision == .granted {
            if let rules = types[type], !rules.writableByApps {
                throw AppRegistryError(.invalidArgument, field: "grants.share", value: type, expected: "a type apps may write; \(type) is read-only for apps")
            }
        }
        // Applied before the log line and the write, as every check reads memory.
        let record = try change(id) { record in
            record.read.merge(read) { $1 }
            record.share.merge(share) { $1 }
        }
        logger.info("grants changed by the owner", metadata: ["app": "\(id)", "read": "\(read)", "share": "\(share)"])
        try await save(id)
        return record
    }

    /// Makes the app the store's sync agent, or no longer.
    package func setSyncAgent(_ id: String, _ agent: Bool) async throws(AppRegistryError) -> AppRecord {
        let record = try await update(id) { record in record.syncAgent = agent }
        logger.notice(agent ? "app made the sync agent" : "app no longer the sync agent", metadata: ["app": "\(id)"])
        return record
    }

    /// Whether a weak identity (a systemd scope) is enough for the app: with it, such a caller
    /// gets the app's decisions; without it, nothing (``AuthorizationEngine/grants(_:)``).
    package func setAcceptsWeakIdentity(_ id: String, _ accepted: Bool) async throws(AppRegistryError) -> AppRecord {
        let record = try await update(id) { record in record.weakIdentity = accepted }
        logger.notice(accepted ? "app accepts a weak identity" : "app no longer accepts a weak identity", metadata: ["app": "\(id)"])
        return record
    }

    /// Grants the app read access to these objects of `type` (a type authorized per object).
    package func grant(_ id: String, type: String, objects: Set<UUID>) async throws(AppRegistryError) -> AppRecord {
        try await update(id) { record in
            record.objects[type, default: []].formUnion(objects)
        }
    }

    /// Withdraws the app's access to these objects.
    package func withdraw(_ id: String, objects: Set<UUID>) async throws(AppRegistryError) -> AppRecord {
        try await update(id) { record in
            for type in Array(record.objects.keys) {
                record.objects[type]?.subtract(objects)
                if record.objects[type]?.isEmpty == true { record.objects[type] = nil }
            }
        }
    }

    // MARK: Saving

    /// Writes the record of `id` as it is now (its row removed when it is no longer registered),
    /// with every app whose last write failed; `notSaved` naming them when any write fails again.
    package func save(_ id: String) async throws(AppRegistryError) {
        guard let persistence else { return }
        let ids = state.withLock { state in state.unsaved.union([id]) }
        let failures = await persistence.write(ids.sorted()) { [self] id in self.record(id) }
        let failed = Set(failures.map(\.appID))
        state.withLock { state in
            state.unsaved.subtract(ids)
            state.unsaved.formUnion(failed)
        }
        guard !failures.isEmpty else { return }
        for failure in failures {
            logger.error("cannot save the authorization of an app", metadata: [
                "app": "\(failure.appID)", "file": "\(persistence.path)", "error": "\(failure.error)",
            ])
        }
        let names = failures.map(\.appID).joined(separator: ", ")
        let reason = failures.first.map { "\($0.error)" } ?? ""
        throw AppRegistryError(
            .notSaved, field: "appId", value: names, expected: "a change saved to \(persistence.path)",
            message: "the change is in effect but was not saved to \(persistence.path) (\(reason)): a restarted salusd would go back to the last saved authorization of \(names) unless a later change saves it")
    }

    // MARK: Endpoints

    /// Records the per-app socket of an app.
    package func setEndpoint(_ path: String, for id: String) {
        state.withLock { $0.endpoints[id] = path }
    }

    /// The per-app socket of an app, when one was made.
    package func endpoint(for id: String) -> String? {
        state.withLock { $0.endpoints[id] }
    }
}
