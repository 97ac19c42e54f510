import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusStatistics
import SalusStore

/// salus.v1.Statistics: statistics and statistics collections on the app and admin sockets,
/// and the owner's source priorities on the admin socket.
///
/// **Visibility.** Every computation passes `visibility(for:type:)` to the engine, which ANDs it
/// with the request's predicate: the one place where statistics are limited to the samples the
/// caller may read. It is the authorization engine's read access for the caller and type: an app
/// without read access gets statistics of its own samples only (and cannot tell), an app with
/// neither read nor share access an empty result, the owner everything.
package struct StatisticsService: Sendable {
    /// The file of source priorities in the data directory.
    package static let priorityFileName = "source-priority.json"
    /// The file of preferred units in the data directory.
    package static let preferredUnitFileName = "preferred-units.json"

    let store: SampleStore
    let authorization: AuthorizationEngine?
    let priorities: Result<SourcePriorityStore, StoreError>
    let preferredUnits: Result<PreferredUnitStore, StoreError>
    /// Where apps' statistics reads are counted (``StoreService/logAccess(_:types:kind:)``'s
    /// rule: only a type the app may read something of); nil: nowhere.
    var accessLog: AccessLog?

    /// Creates the service over `store`, with priorities read from `priorityPath` and preferred
    /// units from `preferredUnitPath` (nil: memory); without `authorization` every caller sees
    /// every sample.
    package init(
        store: SampleStore, authorization: AuthorizationEngine?, priorityPath: String?, preferredUnitPath: String?
    ) {
        self.store = store
        self.authorization = authorization
        priorities = Result { () throws(StoreError) in try SourcePriorityStore(path: priorityPath) }
        preferredUnits = Result { () throws(StoreError) in try PreferredUnitStore(path: preferredUnitPath) }
    }

    /// Adds the methods to `router`; `owner` for the admin socket (which adds the priorities).
    package func register(into router: inout RPCRouter, owner: Bool) {
        router.registerUnary(SalusMethods.Statistics.query, onEventLoop: false) { (request: Salus_V1_StatisticsRequest, context) in
            let caller = try Caller.resolve(context)
            let response = try await self.query(request, visibility: self.visibility(for: caller, type: request.type))
            self.logStatistics(caller, type: request.type)
            return response
        }
        router.registerServerStreaming(SalusMethods.Statistics.queryCollection, onEventLoop: false) {
            (request: Salus_V1_StatisticsCollectionRequest, writer: RPCWriter<Salus_V1_StatisticsCollectionBatch>, context) in
            let caller = try Caller.resolve(context)
            if self.authorization?.registry.type(request.type) != nil { self.logStatistics(caller, type: request.type) }
            try await self.queryCollection(request, visibility: self.visibility(for: caller, type: request.type), writer: writer)
        }
        router.registerUnary(SalusMethods.Statistics.getPreferredUnits, onEventLoop: false) { (request: Salus_V1_PreferredUnitsRequest, _) in
            try self.getPreferredUnits(request)
        }
        if owner {
            router.registerUnary(SalusMethods.Statistics.setPreferredUnit, onEventLoop: false) { (request: Salus_V1_PreferredUnit, _) in
                try self.setPreferredUnit(request)
            }
            router.registerUnary(SalusMethods.Statistics.getSourcePriority, onEventLoop: false) { (request: Salus_V1_SourcePriorityRequest, _) in
                try self.getPriority(request)
            }
            router.registerUnary(SalusMethods.Statistics.setSourcePriority, onEventLoop: false) { (request: Salus_V1_SourcePriority, _) in
                try self.setPriority(request)
            }
        }
    }

    /// Counts a statistics read of `type` by an app that may read something of it.
    func logStatistics(_ caller: Caller, type: String) {
        guard let accessLog, accessLog.isRecording, let authorization, caller.appIDSource != .owner,
            authorization.readAccess(caller, type: type) != .nothing
        else { return }
        accessLog.record(caller.appID, type: type, kind: .statistics)
    }

    /// The samples `caller` may use in statistics of `type`, ANDed with every request's
    /// predicate; nil means all. Decided when the call starts (a live collection keeps it).
    func visibility(for caller: Caller, type: String) -> SamplePredicate? {
        authorization?.readAccess(caller, type: type).predicate
    }

    /// `predicate`, checked as the caller wrote it before `visibility` is ANDed with it, so a
    /// predicate the store refuses gets the same error whatever the caller may read
    /// (docs/authorization.md, "Non-interference").
    func checked(_ predicate: SamplePredicate?, of type: TypeIdentifier) throws(RPCError) -> SamplePredicate? {
        do {
            try store.checkPredicate(predicate, of: type)
        } catch {
            throw RPCError.from(error)
        }
        return predicate
    }

    /// The priorities, or the error that kept their file from being read.
    func priorityStore() throws(RPCError) -> SourcePriorityStore {
        switch priorities {
        case .success(let priorities): return priorities
        case .failure(let error): throw RPCError(code: .internal, message: error.message, reason: .databaseInaccessible)
        }
    }

    /// The preferred units, or the error that kept their file from being read.
    func preferredUnitStore() throws(RPCError) -> PreferredUnitStore {
        switch preferredUnits {
        case .success(let units): return units
        case .failure(let error): throw RPCError(code: .internal, message: error.message, reason: .databaseInaccessible)
        }
    }

    /// The unit results are given in: the request's, else the owner's preferred unit, else nil
    /// (the canonical unit).
    func resultUnit(_ text: String, type: TypeIdentifier) throws(RPCError) -> SalusUnit? {
        if let unit = try StatisticsWire.unit(text) { return unit }
        return try preferredUnitStore().unit(for: type)
    }

    func engine() throws(RPCError) -> StatisticsEngine {
        StatisticsEngine(store: store, priorities: try priorityStore())
    }

    // MARK: Statistics

    func query(_ request: Salus_V1_StatisticsRequest, visibility: SamplePredicate?) async throws -> Salus_V1_StatisticsResponse {
        let type = try StatisticsWire.type(request.type)
        let options = try StatisticsWire.options(request.options)
        let unit = try resultUnit(request.unit, type: type)
        var window: DateInterval?
        switch (request.optionalWindowStart, request.optionalWindowEnd) {
        case (nil, nil): window = nil
        case (.windowStart(let start)?, .windowEnd(let end)?):
            guard end >= start else {
                throw RPCError.invalidArgument(field: "windowEnd", value: "\(end)", expected: "a time at or after window_start (\(start))")
            }
            window = DateInterval(
                start: try StatisticsWire.date(start, field: "windowStart"), end: try StatisticsWire.date(end, field: "windowEnd"))
        default:
            throw RPCError.invalidArgument(field: "windowStart", value: "one bound", expected: "both window_start and window_end, or neither")
        }
        let predicate = try checked(request.hasPredicate ? try modelPredicate(request.predicate) : nil, of: type)
        let engine = try engine()
        let statistics = try await storeCall {
            try await engine.statistics(
                StatisticsQuery(type: type, predicate: predicate, window: window, options: options, unit: unit),
                visibility: visibility)
        }
        var response = Salus_V1_StatisticsResponse()
        response.statistics = StatisticsWire.result(statistics, unit: try StatisticsWire.unitText(unit, type: type, store: store))
        return response
    }

    func queryCollection(
        _ request: Salus_V1_StatisticsCollectionRequest, visibility: SamplePredicate?,
        writer: RPCWriter<Salus_V1_StatisticsCollectionBatch>
    ) async throws {
        let type = try StatisticsWire.type(request.type)
        let options = try StatisticsWire.options(request.options)
        let unit = try resultUnit(request.unit, type: type)
        let grid = try StatisticsWire.grid(request)
        guard request.to >= request.from else {
            throw RPCError.invalidArgument(field: "to", value: "\(request.to)", expected: "a time at or after from (\(request.from))")
        }
        let predicate = try checked(request.hasPredicate ? try modelPredicate(request.predicate) : nil, of: type)
        let query = StatisticsCollectionQuery(
            type: type, predicate: predicate, options: options, unit: unit, grid: grid,
            from: try StatisticsWire.date(request.from, field: "from"), to: try StatisticsWire.date(request.to, field: "to"))
        let engine = try engine()
        let unitText = try StatisticsWire.unitText(unit, type: type, store: store)
        let zone = grid.calendar.timeZone.identifier
        if !request.live {
            let collection = try await storeCall { try await engine.collection(query, visibility: visibility) }
            // Batches of at most 1000 intervals.
            let results = collection.statistics.map { StatisticsWire.result($0, unit: unitText) }
            var start = 0
            repeat {
                var batch = Salus_V1_StatisticsCollectionBatch()
                batch.statistics = Array(results[start..<min(start + 1000, results.count)])
                batch.timeZone = zone
                start += 1000
                batch.initialResultsComplete = start >= results.count
                try await writer.write(batch)
            } while start < results.count
            return
        }
        try await storeCall {
            try await engine.liveCollection(query, visibility: visibility) { update in
                var batch = Salus_V1_StatisticsCollectionBatch()
                batch.statistics = update.statistics.map { StatisticsWire.result($0, unit: unitText) }
                batch.initialResultsComplete = update.isInitial
                batch.timeZone = zone
                try await writer.write(batch)
            }
        }
    }

    // MARK: Priorities

    func getPriority(_ request: Salus_V1_SourcePriorityRequest) throws -> Salus_V1_SourcePriority {
        let type = try StatisticsWire.type(request.type)
        let priorities = try priorityStore()
        var response = Salus_V1_SourcePriority()
        response.type = type.rawValue
        response.sources = priorities.priority(for: type).appIDs
        return response
    }

    func setPriority(_ request: Salus_V1_SourcePriority) throws -> Salus_V1_SourcePriority {
        let type = try StatisticsWire.type(request.type)
        guard let info = store.catalog.rules(for: type), info.kind == .quantity else {
            throw RPCError.invalidArgument(field: "type", value: type.rawValue, expected: "a registered quantity type")
        }
        let priorities = try priorityStore()
        do {
            try priorities.setPriority(request.sources, for: type)
        } catch {
            throw RPCError.from(error)
        }
        return try getPriority(Salus_V1_SourcePriorityRequest.with { $0.type = type.rawValue })
    }

    // MARK: Preferred units

    /// The canonical unit of a registered quantity type, or `invalidArgument` naming `field`.
    func canonicalUnit(of type: TypeIdentifier, field: String) throws(RPCError) -> SalusUnit {
        guard let info = store.catalog.rules(for: type), info.kind == .quantity, let unit = info.canonicalUnit else {
            throw RPCError.invalidArgument(field: field, value: type.rawValue, expected: "a registered quantity type")
        }
        return unit
    }

    func getPreferredUnits(_ request: Salus_V1_PreferredUnitsRequest) throws -> Salus_V1_PreferredUnits {
        let units = try preferredUnitStore()
        var response = Salus_V1_PreferredUnits()
        if request.types.isEmpty {
            response.units = units.all().sorted { $0.key.rawValue < $1.key.rawValue }.map { type, unit in
                Salus_V1_PreferredUnit.with {
                    $0.type = type.rawValue
                    $0.unit = unit.description
                    $0.ownerSet = true
                }
            }
            return response
        }
        for (index, text) in request.types.enumerated() {
            let type = TypeIdentifier(text)
            let canonical = try canonicalUnit(of: type, field: "types[\(index)]")
            let preferred = units.unit(for: type)
            response.units.append(
                Salus_V1_PreferredUnit.with {
                    $0.type = type.rawValue
                    $0.unit = (preferred ?? canonical).description
                    $0.ownerSet = preferred != nil
                })
        }
        return response
    }

    func setPreferredUnit(_ request: Salus_V1_PreferredUnit) throws -> Salus_V1_PreferredUnits {
        let type = try StatisticsWire.type(request.type)
        let canonical = try canonicalUnit(of: type, field: "type")
        let unit = try StatisticsWire.unit(request.unit)
        do {
            try preferredUnitStore().setUnit(unit, for: type, canonical: canonical)
        } catch let error as StoreError {
            throw RPCError.from(error)
        }
        return try getPreferredUnits(Salus_V1_PreferredUnitsRequest.with { $0.types = [type.rawValue] })
    }
}
