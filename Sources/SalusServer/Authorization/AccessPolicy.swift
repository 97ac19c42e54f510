import Foundation
import SalusModel
import SalusPluginHost
import SalusStore

/// The codes of `AccessError`.
package enum AccessErrorCode: Hashable, Sendable {
    /// A request names an unknown type, a type that cannot be asked that way, or lacks a usage text.
    case invalidArgument
    /// The calling app is not registered.
    case notRegistered
    /// The app has not been allowed to write the type yet (nothing decided).
    case notDetermined
    /// The owner refused the app writing the type.
    case denied
    /// The app already has as many requests waiting for the owner's answer as it may.
    case tooManyRequests
}

/// A refusal of the access policy.
package typealias AccessError = AuthorizationError<AccessErrorCode>

/// What the access policy needs to know of a type (drawn from its `TypeRules`).
package struct AccessRules: Hashable, Sendable {
    /// A characteristic (one value per person, never written by apps).
    package var isCharacteristic: Bool
    /// Computed by the system: apps may read it, never write it.
    package var readOnlyForApps: Bool
    /// Read authorization is given object by object.
    package var perObjectRead: Bool

    /// The rules of a type.
    package init(isCharacteristic: Bool = false, readOnlyForApps: Bool = false, perObjectRead: Bool = false) {
        self.isCharacteristic = isCharacteristic
        self.readOnlyForApps = readOnlyForApps
        self.perObjectRead = perObjectRead
    }

    /// Whether apps may ask to write the type.
    package var writableByApps: Bool { !isCharacteristic && !readOnlyForApps }

    /// The rules of every type in `registry`, by identifier.
    package static func table(_ registry: TypeRegistry) -> [String: AccessRules] {
        registry.types.mapValues { type in
            AccessRules(
                isCharacteristic: type.kind == .characteristic, readOnlyForApps: type.readOnlyForApps,
                perObjectRead: type.perObjectReadAuthorization)
        }
    }
}

/// HealthKit's sharing status of a type for an app.
package enum SharingStatus: Hashable, Sendable {
    /// Nothing decided yet.
    case notDetermined
    /// The owner refused.
    case denied
    /// The owner allowed it.
    case authorized
}

/// Whether asking for authorization would show the owner anything new.
package enum RequestStatus: Hashable, Sendable {
    /// Every type asked has an answer already.
    case unnecessary
    /// Some type asked has no answer yet.
    case shouldRequest
}

/// The rules every call is checked against: a pure function of the app's grants (its
/// `AppRecord`, nil when not registered), the caller and the type rules. No I/O, no locks, no
/// clock: the same inputs give the same answer, so a check can be made anywhere, and tested as a
/// table.
///
/// **Rule: decide with the grants of the moment.** Callers look the record up for each check
/// (each call, each live delivery), so a revocation applies at once. What breaks otherwise: a
/// stream that kept the grants it started with would keep delivering a revoked type.
package struct AccessPolicy: Sendable {
    /// Nothing is enforced: every app may read and write every type (development only).
    package let open: Bool
    /// The rules of each registered type, by identifier.
    package let types: [String: AccessRules]

    /// A policy over these type rules.
    package init(open: Bool, types: [String: AccessRules]) {
        self.open = open
        self.types = types
    }

    // MARK: Reading

    /// What `caller` may read of `type`: the owner everything; an app everything with read
    /// granted, its own samples (and the objects granted, for a per-object type) with share
    /// granted, nothing otherwise.
    package func readAccess(_ caller: Caller, type: String, grants: AppRecord?) -> ReadAccess {
        if caller.appIDSource == .owner || open { return .all }
        guard let grants else { return .nothing }
        if types[type]?.perObjectRead ?? false {
            return .own(appID: caller.appID, objects: grants.objects[type] ?? [])
        }
        if grants.read[type] == .granted { return .all }
        if grants.share[type] == .granted { return .own(appID: caller.appID, objects: []) }
        return .nothing
    }

    /// A live anchored batch without what the caller may no longer see; `filtered` tells
    /// whether anything was dropped.
    package func filter(_ result: AnchoredQueryResult, for caller: Caller, grants: AppRecord?) -> (AnchoredQueryResult, filtered: Bool) {
        if caller.appIDSource == .owner || open { return (result, false) }
        var access: [TypeIdentifier: ReadAccess] = [:]
        func lookup(_ type: TypeIdentifier) -> ReadAccess {
            if let known = access[type] { return known }
            let found = readAccess(caller, type: type.rawValue, grants: grants)
            access[type] = found
            return found
        }
        var filtered = result
        filtered.added = narrowingCorrelations(result.added.filter { lookup($0.type).admits($0) }, for: caller, grants: grants)
        filtered.deleted = result.deleted.filter { lookup($0.type).seesAnything }
        return (filtered, filtered.added.count != result.added.count || filtered.deleted.count != result.deleted.count)
    }

    /// `samples` as `caller` may see them: a correlation keeps only the members it may read, each
    /// judged by its own type's read access as any sample, and a correlation left with none is
    /// dropped (HealthKit returns only the correlations that hold something the app may read, and
    /// hides the rest of their members). Other samples pass unchanged; the owner (and open mode)
    /// sees everything. Whether the correlation itself may be read is its own type's access,
    /// applied before this.
    package func narrowingCorrelations(_ samples: [Sample], for caller: Caller, grants: AppRecord?) -> [Sample] {
        if caller.appIDSource == .owner || open { return samples }
        guard samples.contains(where: { $0.kind == .correlation }) else { return samples }
        var access: [TypeIdentifier: ReadAccess] = [:]
        return samples.compactMap { sample in
            guard case .correlation(let correlation) = sample.value else { return sample }
            let visible = correlation.objects.filter { member in
                let found = access[member.type] ?? readAccess(caller, type: member.type.rawValue, grants: grants)
                access[member.type] = found
                return found.admits(member)
            }
            guard !visible.isEmpty else { return nil }
            var narrowed = sample
            narrowed.value = .correlation(Correlation(objects: visible))
            return narrowed
        }
    }

    /// The types of `watched` an observer is told about for `event`: those it may read in full,
    /// and those it may read only its own samples of when its own save or deletion is among the
    /// event's writers of that type.
    package func observedChanges(_ event: CommitEvent, watched: Set<TypeIdentifier>, caller: Caller, grants: AppRecord?) -> Set<TypeIdentifier> {
        event.changedTypes.intersection(watched).filter { type in
            switch readAccess(caller, type: type.rawValue, grants: grants) {
            case .all: return true
            case .nothing: return false
            case .own: return event.wrote(caller.appID, type)
            }
        }
    }

    // MARK: Writing

    /// HealthKit's authorizationStatus(for:): sharing only.
    package func sharingStatus(type: String, grants: AppRecord?) -> SharingStatus {
        if open { return .authorized }
        switch grants?.share[type] {
        case .granted: return .authorized
        case .denied: return .denied
        case nil: return .notDetermined
        }
    }

    /// Refuses, naming the first type in order, unless `caller` may write every one of `types`.
    package func checkShare(_ caller: Caller, types: some Sequence<String>, grants: AppRecord?) throws(AccessError) {
        if open { return }
        for type in Set(types).sorted() {
            switch grants?.share[type] {
            case .granted:
                continue
            case .denied:
                throw AccessError(
                    .denied, field: "type", value: type, expected: "a type the owner allowed this app to write",
                    message: "\(caller.label) may not write \(type): the owner denied sharing it")
            case nil:
                throw AccessError(
                    .notDetermined, field: "type", value: type, expected: "a type this app has requested and been allowed to write",
                    message: "\(caller.label) may not write \(type) yet: request authorization to share it first (salus.v1.Authorization/RequestAuthorization)")
            }
        }
    }

    // MARK: Requests

    /// Checks a request's types and the app's usage texts; returns the types not answered yet,
    /// each once, in the order asked.
    package func newTypes(_ caller: Caller, share: [String], read: [String], grants: AppRecord?) throws(AccessError) -> (share: [String], read: [String]) {
        if share.isEmpty && read.isEmpty {
            throw AccessError(.invalidArgument, field: "share", value: "no types", expected: "at least one type to share or read")
        }
        for (index, type) in share.enumerated() {
            guard let rules = types[type] else {
                throw AccessError(.invalidArgument, field: "share[\(index)]", value: type, expected: "a registered type identifier (salusctl types)")
            }
            if !rules.writableByApps {
                throw AccessError(
                    .invalidArgument, field: "share[\(index)]", value: type,
                    expected: "a type apps may write; \(type) is read-only for apps (\(rules.isCharacteristic ? "a characteristic" : "computed by the system")) and may only be requested for reading")
            }
        }
        for (index, type) in read.enumerated() {
            guard let rules = types[type] else {
                throw AccessError(.invalidArgument, field: "read[\(index)]", value: type, expected: "a registered type identifier (salusctl types)")
            }
            if rules.perObjectRead {
                throw AccessError(
                    .invalidArgument, field: "read[\(index)]", value: type,
                    expected: "a type authorized per type; \(type) is authorized per object: use RequestPerObjectReadAuthorization")
            }
        }
        let app = try Self.registered(caller, grants)
        if !read.isEmpty && app.readUsage.isEmpty { throw Self.missingReadUsage(caller) }
        if !share.isEmpty && app.writeUsage.isEmpty {
            throw AccessError(
                .invalidArgument, field: "writeUsage", value: "",
                expected: "a write usage description for \(caller.appID) (why it writes), set with `salusctl apps add \(caller.appID) --write-usage TEXT`, before asking to write")
        }
        var newShare: [String] = []
        var newRead: [String] = []
        for type in share where app.share[type] == nil && !newShare.contains(type) { newShare.append(type) }
        for type in read where app.read[type] == nil && !newRead.contains(type) { newRead.append(type) }
        return (newShare, newRead)
    }

    /// HealthKit's getRequestStatusForAuthorization; open mode never has anything new.
    package func requestStatus(_ caller: Caller, share: [String], read: [String], grants: AppRecord?) throws(AccessError) -> RequestStatus {
        if open { return .unnecessary }
        let fresh = try newTypes(caller, share: share, read: read, grants: grants)
        return fresh.share.isEmpty && fresh.read.isEmpty ? .unnecessary : .shouldRequest
    }

    /// Checks a per-object request before its objects are listed.
    package func checkPerObjectRequest(_ caller: Caller, type: String, grants: AppRecord?) throws(AccessError) {
        guard let rules = types[type] else {
            throw AccessError(.invalidArgument, field: "type", value: type, expected: "a registered type identifier (salusctl types)")
        }
        guard rules.perObjectRead else {
            throw AccessError(.invalidArgument, field: "type", value: type, expected: "a type authorized per object, such as HKVisionPrescriptionTypeIdentifier")
        }
        if try Self.registered(caller, grants).readUsage.isEmpty { throw Self.missingReadUsage(caller) }
    }

    /// The app's record, or a refusal saying how to register it.
    static func registered(_ caller: Caller, _ grants: AppRecord?) throws(AccessError) -> AppRecord {
        guard let grants else {
            throw AccessError(
                .notRegistered, field: "appId", value: caller.appID, expected: "an app registered with salusctl apps add",
                message: "\(caller.label) is not registered; the owner registers it with `salusctl apps add \(caller.appID) --name NAME --read-usage TEXT --write-usage TEXT`"
                    + (caller.appIDSource == .scope
                        ? " (it is known only by the systemd scope the desktop started it in: a program run from a "
                            + "terminal the desktop started is known as that terminal; start such a program with "
                            + "`salusctl launch --app ID -- COMMAND`)"
                        : ""))
        }
        return grants
    }

    static func missingReadUsage(_ caller: Caller) -> AccessError {
        AccessError(
            .invalidArgument, field: "readUsage", value: "",
            expected: "a read usage description for \(caller.appID) (why it reads), set with `salusctl apps add \(caller.appID) --read-usage TEXT`, before asking to read")
    }
}
