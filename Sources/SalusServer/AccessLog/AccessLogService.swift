import Foundation
import SalusModel
import SalusPluginHost
import SalusProto
import SalusRPC
import SalusStore

/// salus.v1.AccessLog and salus.v1.AppData, on the admin socket only: what each app did with
/// the person's data, what it wrote, and deleting that (docs/authorization.md, "The access log"
/// and "An app's data").
package struct AccessLogService: Sendable {
    let log: AccessLog
    let store: SampleStore
    let registry: TypeRegistry
    let authorization: AuthorizationEngine
    /// Called after each type's deletion is committed (tests stop a deletion between types).
    var afterTypeDeleted: (@Sendable (TypeIdentifier) throws -> Void)?

    /// The service over `log`, deleting from `store`.
    package init(log: AccessLog, store: SampleStore, registry: TypeRegistry, authorization: AuthorizationEngine) {
        self.log = log
        self.store = store
        self.registry = registry
        self.authorization = authorization
    }

    /// Adds the methods to the admin socket's router.
    package func register(into router: inout RPCRouter) {
        router.registerUnary(SalusMethods.AccessLog.list, onEventLoop: false) { (request: Salus_V1_AccessLogRequest, _) in
            try await list(request)
        }
        router.registerUnary(SalusMethods.AccessLog.getSettings, onEventLoop: false) { (_: Salus_V1_AccessLogSettingsRequest, _) in
            var settings = Salus_V1_AccessLogSettings()
            settings.retentionSeconds = log.retentionSeconds
            return settings
        }
        router.registerUnary(SalusMethods.AccessLog.setSettings, onEventLoop: false) { (request: Salus_V1_AccessLogSettings, _) in
            try await logCall { try await log.setRetention(seconds: request.retentionSeconds) }
            var settings = Salus_V1_AccessLogSettings()
            settings.retentionSeconds = log.retentionSeconds
            return settings
        }
        router.registerUnary(SalusMethods.AppData.summary, onEventLoop: false) { (request: Salus_V1_AppDataRequest, _) in
            try await summary(request)
        }
        router.registerUnary(SalusMethods.AppData.delete, onEventLoop: false) { (request: Salus_V1_AppDataRequest, _) in
            try await delete(request)
        }
    }

    // MARK: The log

    func list(_ request: Salus_V1_AccessLogRequest) async throws -> Salus_V1_AccessLogResponse {
        let appID = request.appID.isEmpty ? nil : request.appID
        let entries = try await logCall {
            try await log.entries(appID: appID, since: request.since == 0 ? nil : request.since)
        }
        if let appID, entries.isEmpty, authorization.apps.record(appID) == nil,
            try await logCall({ try await log.entries(appID: appID) }).isEmpty
        {
            throw RPCError(
                code: .notFound, message: "no app \(appID) is registered, and the access log holds nothing of it",
                reason: .notFound, field: "app_id", value: appID, expected: "a registered app or one the log holds (salusctl apps)")
        }
        var response = Salus_V1_AccessLogResponse()
        response.retentionSeconds = log.retentionSeconds
        response.entries = entries.map { entry in
            var wire = Salus_V1_AccessLogEntry()
            wire.appID = entry.appID
            wire.type = entry.type
            wire.kind = Salus_V1_AccessKind(rawValue: entry.kind.rawValue) ?? .unspecified
            wire.hour = entry.hour
            wire.first = entry.first
            wire.last = entry.last
            wire.count = UInt64(max(0, entry.count))
            return wire
        }
        return response
    }

    func logCall<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch AccessLogError.retention(let seconds) {
            throw RPCError.invalidArgument(
                field: "retention_seconds", value: "\(seconds)",
                expected: "\(AccessLog.retentionRange.lowerBound) to \(AccessLog.retentionRange.upperBound) seconds (an hour to ten years), or 0 to turn the log off")
        } catch AccessLogError.closed {
            throw RPCError(code: .unavailable, message: "the access log is closed: the daemon is stopping", reason: .unavailable)
        } catch let error as DatabaseError {
            throw RPCError(
                code: .internal, message: "the access log at \(log.path) cannot be read or written: \(error)",
                reason: .databaseInaccessible)
        }
    }

    // MARK: An app's data

    /// What a request selects, checked: the app known, each type one it wrote, the range in
    /// order. `selected` is what the store holds in the selection (possibly nothing).
    struct Selection {
        var appID: String
        var registered: Bool
        var types: [TypeIdentifier]
        var since: Date?
        var until: Date?
        var selected: [AppTypeWrites]
    }

    func select(_ request: Salus_V1_AppDataRequest) async throws -> Selection {
        let appID = request.appID
        guard !appID.isEmpty else {
            throw RPCError.invalidArgument(field: "app_id", value: "", expected: "an app id (salusctl apps)")
        }
        let registered = authorization.apps.record(appID) != nil
        let everything = try await storeCall { try await store.writes(of: appID) }
        if everything.isEmpty && !registered {
            throw RPCError(
                code: .notFound, message: "no app \(appID) is registered, and the store holds nothing it wrote",
                reason: .notFound, field: "app_id", value: appID, expected: "a registered app or one whose samples the store holds")
        }
        let written = Set(everything.map(\.type))
        var types: [TypeIdentifier] = []
        for (index, identifier) in request.types.enumerated() {
            let type = TypeIdentifier(identifier)
            guard registry.type(identifier) != nil else {
                throw RPCError.invalidArgument(
                    field: "types[\(index)]", value: identifier, expected: "a type identifier a loaded plugin declares (salusctl types)")
            }
            guard written.contains(type) else {
                let wrote = everything.isEmpty ? "nothing the store holds" : everything.map(\.type.rawValue).joined(separator: ", ")
                throw RPCError(
                    code: .notFound, message: "\(appID) never wrote \(identifier) (it wrote \(wrote))", reason: .notFound,
                    field: "types[\(index)]", value: identifier, expected: "a type \(appID) wrote")
            }
            types.append(type)
        }
        let since = request.optionalSince.map { _ in Date(timeIntervalSince1970: Double(request.since) / 1_000_000) }
        let until = request.optionalUntil.map { _ in Date(timeIntervalSince1970: Double(request.until) / 1_000_000) }
        if let since, let until, since >= until {
            throw RPCError.invalidArgument(
                field: "until", value: "\(request.until)", expected: "a date after since (\(request.since)): the range is empty")
        }
        let selected: [AppTypeWrites]
        if types.isEmpty && since == nil && until == nil {
            selected = everything
        } else {
            selected = try await storeCall { try await store.writes(of: appID, types: types, start: since, end: until) }
        }
        return Selection(appID: appID, registered: registered, types: types, since: since, until: until, selected: selected)
    }

    func summary(_ request: Salus_V1_AppDataRequest) async throws -> Salus_V1_AppDataSummary {
        let selection = try await select(request)
        return Self.wire(selection, selection.selected)
    }

    /// Deletes the selection type by type, each in one transaction (correlations first, so
    /// their members go with them), as the app itself would delete its samples: tombstones at
    /// new change positions, so every anchored feed and salus-sync see the deletions.
    func delete(_ request: Salus_V1_AppDataRequest) async throws -> Salus_V1_AppDataSummary {
        let selection = try await select(request)
        guard !selection.selected.isEmpty else {
            var range: [String] = []
            if let since = selection.since { range.append("from \(since)") }
            if let until = selection.until { range.append("before \(until)") }
            let what = selection.types.isEmpty ? "samples" : selection.types.map(\.rawValue).joined(separator: ", ")
            let field = request.optionalSince != nil ? "since" : request.optionalUntil != nil ? "until" : "app_id"
            throw RPCError(
                code: .notFound,
                message: "\(selection.appID) wrote no \(what)\(range.isEmpty ? "" : " " + range.joined(separator: " ")) that the store holds: nothing to delete",
                reason: .notFound, field: field, value: selection.appID, expected: "a selection holding samples the app wrote")
        }
        if request.dryRun {
            return Self.wire(selection, selection.selected)
        }
        let predicate: SamplePredicate? =
            selection.since == nil && selection.until == nil
            ? nil : .dateWindow(DateWindow(start: selection.since, end: selection.until, strictStartDate: true))
        let ordered = selection.selected.sorted { lhs, rhs in
            let left = registry.type(lhs.type.rawValue)?.kind == .correlation
            let right = registry.type(rhs.type.rawValue)?.kind == .correlation
            return left != right ? left : lhs.type.rawValue < rhs.type.rawValue
        }
        var deleted: [AppTypeWrites] = []
        for row in ordered {
            let response = try await storeCall {
                try await store.delete(type: row.type, matching: predicate, requester: .app(selection.appID))
            }
            try afterTypeDeleted?(row.type)
            var done = row
            done.count = response.deleted
            deleted.append(done)
        }
        return Self.wire(selection, deleted.sorted { $0.type.rawValue < $1.type.rawValue })
    }

    static func wire(_ selection: Selection, _ rows: [AppTypeWrites]) -> Salus_V1_AppDataSummary {
        var summary = Salus_V1_AppDataSummary()
        summary.appID = selection.appID
        summary.registered = selection.registered
        summary.types = rows.map { row in
            var wire = Salus_V1_AppTypeData()
            wire.type = row.type.rawValue
            wire.count = UInt64(row.count)
            wire.first = Int64((row.first.timeIntervalSince1970 * 1_000_000).rounded())
            wire.last = Int64((row.last.timeIntervalSince1970 * 1_000_000).rounded())
            return wire
        }
        return summary
    }
}
