import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusStatistics
import SalusStore
import SalusWire

/// salus.v1.Person: the characteristics the owner sets and the activity summaries computed from
/// the person's day.
///
/// **Who may do what.**
/// - Characteristics: the owner sets them (admin socket); apps never write them, and on the app
///   socket `SetCharacteristics` is refused with PERMISSION_DENIED naming the type. An app reads
///   the value of a characteristic it has read access to; every other one comes back not set,
///   exactly as an unset one does.
/// - Activity summaries: apps need read access to `HKActivitySummaryTypeIdentifier` (never
///   share: the type is read-only); without it they receive no summaries. The owner sees all.
/// - Goals and time zone: everyone may read them; only the owner sets them.
package struct PersonService: Sendable {
    let store: SampleStore
    let authorization: AuthorizationEngine?
    let settings: PersonSettings
    let statistics: StatisticsService

    /// Creates the service.
    package init(store: SampleStore, authorization: AuthorizationEngine?, settings: PersonSettings, statistics: StatisticsService) {
        self.store = store
        self.authorization = authorization
        self.settings = settings
        self.statistics = statistics
    }

    /// Adds the methods to `router`; `owner` for the admin socket.
    package func register(into router: inout RPCRouter, owner: Bool) {
        router.registerUnary(SalusMethods.Person.getCharacteristics, onEventLoop: false) { (request: Salus_V1_CharacteristicsRequest, context) in
            try self.getCharacteristics(request, caller: try Caller.resolve(context))
        }
        router.registerUnary(SalusMethods.Person.setCharacteristics, onEventLoop: false) { (request: Salus_V1_SetCharacteristicsRequest, _) in
            try self.setCharacteristics(request, owner: owner)
        }
        router.registerServerStreaming(SalusMethods.Person.queryActivitySummaries, onEventLoop: false) {
            (request: Salus_V1_ActivitySummaryRequest, writer: RPCWriter<Salus_V1_ActivitySummaryBatch>, context) in
            try await self.queryActivitySummaries(request, caller: try Caller.resolve(context), writer: writer)
        }
        router.registerUnary(SalusMethods.Person.getActivitySettings, onEventLoop: false) { (_: Salus_V1_ActivitySettingsRequest, _) in
            self.activitySettings()
        }
        router.registerUnary(SalusMethods.Person.setActivitySettings, onEventLoop: false) { (request: Salus_V1_SetActivitySettingsRequest, _) in
            try self.setActivitySettings(request, owner: owner)
        }
    }

    /// Today in the person's time zone.
    var today: CalendarDate { CalendarDate(containing: Date(), in: settings.timeZone) }

    // MARK: Characteristics

    func getCharacteristics(_ request: Salus_V1_CharacteristicsRequest, caller: Caller) throws(RPCError) -> Salus_V1_CharacteristicsResponse {
        let types: [TypeIdentifier]
        if request.types.isEmpty {
            types = store.catalog.sortedTypes.filter { $0.kind == .characteristic }.map { TypeIdentifier($0.identifier) }
        } else {
            types = try request.types.enumerated().map { (index, name) throws(RPCError) in
                try characteristicType(name, field: "types[\(index)]")
            }
        }
        return characteristics(types, caller: caller)
    }

    /// The values of `types` as `caller` may see them (nil: the owner, who sees everything).
    func characteristics(_ types: [TypeIdentifier], caller: Caller?) -> Salus_V1_CharacteristicsResponse {
        var response = Salus_V1_CharacteristicsResponse()
        response.characteristics = types.map { type in
            let readable = caller.flatMap { authorization?.readAccess($0, type: type.rawValue) } ?? .all
            return Characteristic(type: type, value: readable == .all ? settings.characteristic(type) : nil).wire
        }
        return response
    }

    func setCharacteristics(_ request: Salus_V1_SetCharacteristicsRequest, owner: Bool) throws(RPCError) -> Salus_V1_CharacteristicsResponse {
        guard owner else {
            let named = request.set.first?.type ?? request.clear.first ?? "characteristics"
            throw RPCError(
                code: .permissionDenied,
                message: "\(named): characteristics are set by the person (salusctl me set); apps may only read them",
                reason: .permissionDenied, field: request.set.isEmpty ? "clear[0]" : "set[0].type", value: named,
                expected: "a read request; characteristics are read-only for apps")
        }
        let today = today
        var values: [Characteristic] = []
        for (index, wire) in request.set.enumerated() {
            let path = "set[\(index)]"
            let value: Characteristic
            do {
                value = try Characteristic(wire: wire, path: path)
            } catch {
                throw RPCError.from(error)
            }
            if let error = store.catalog.checkCharacteristic(value, field: path, today: today) { throw RPCError.from(error) }
            values.append(value)
        }
        let cleared = try request.clear.enumerated().map { (index, name) throws(RPCError) in
            try characteristicType(name, field: "clear[\(index)]")
        }
        do {
            try settings.setCharacteristics(values, clear: cleared)
        } catch {
            throw RPCError.from(error)
        }
        return characteristics(
            store.catalog.sortedTypes.filter { $0.kind == .characteristic }.map { TypeIdentifier($0.identifier) }, caller: nil)
    }

    /// The characteristic type `name` names, or INVALID_ARGUMENT naming `field`.
    func characteristicType(_ name: String, field: String) throws(RPCError) -> TypeIdentifier {
        guard let rules = store.catalog.rules(for: name), rules.kind == .characteristic else {
            throw RPCError.invalidArgument(
                field: field, value: name,
                expected: "a registered characteristic type such as HKCharacteristicTypeIdentifierBloodType")
        }
        return TypeIdentifier(rules.identifier)
    }

    // MARK: Activity

    func activitySettings() -> Salus_V1_ActivitySettings {
        Salus_V1_ActivitySettings.with {
            $0.goals = settings.goalHistory.map(\.wire)
            $0.defaultGoals = ActivityGoals.defaults.wire
            $0.timeZone = settings.timeZone.identifier
        }
    }

    func setActivitySettings(_ request: Salus_V1_SetActivitySettingsRequest, owner: Bool) throws(RPCError) -> Salus_V1_ActivitySettings {
        guard owner else {
            throw RPCError(
                code: .permissionDenied, message: "activity goals and the time zone are set by the person (salusctl summary goals)",
                reason: .permissionDenied, field: "goals", value: "a change", expected: "a read request")
        }
        var zone: TimeZone?
        if !request.timeZone.isEmpty {
            guard let found = TimeZone(identifier: request.timeZone) else {
                throw RPCError.invalidArgument(field: "timeZone", value: request.timeZone, expected: "an IANA time zone such as Europe/Paris")
            }
            zone = found
        }
        var goals: ActivityGoals?
        if request.hasGoals {
            do {
                goals = try ActivityGoals(wire: request.goals, path: "goals", today: CalendarDate(containing: Date(), in: zone ?? settings.timeZone))
            } catch {
                throw RPCError.from(error)
            }
        }
        do {
            if let zone { try settings.setTimeZone(zone) }
            if let goals { try settings.setGoals(goals) }
        } catch {
            throw RPCError.from(error)
        }
        return activitySettings()
    }

    func queryActivitySummaries(
        _ request: Salus_V1_ActivitySummaryRequest, caller: Caller, writer: RPCWriter<Salus_V1_ActivitySummaryBatch>
    ) async throws {
        let first: CalendarDate, last: CalendarDate
        do {
            first = try CalendarDate(wire: request.firstDay, path: "firstDay")
            last = try CalendarDate(wire: request.lastDay, path: "lastDay")
        } catch {
            throw RPCError.from(error)
        }
        guard first <= last else {
            throw RPCError.invalidArgument(field: "lastDay", value: "\(last)", expected: "a day at or after firstDay (\(first))")
        }
        guard first.days(to: last) < ActivitySummaryEngine.maximumDays else {
            throw RPCError.invalidArgument(
                field: "lastDay", value: "\(last)", expected: "at most \(ActivitySummaryEngine.maximumDays) days after firstDay (\(first))")
        }
        var zone = settings.timeZone
        if !request.timeZone.isEmpty {
            guard let found = TimeZone(identifier: request.timeZone) else {
                throw RPCError.invalidArgument(field: "timeZone", value: request.timeZone, expected: "an IANA time zone such as Europe/Paris")
            }
            zone = found
        }
        let access = authorization?.readAccess(caller, type: TypeIdentifier.activitySummary.rawValue) ?? .all
        guard access == .all else {
            // Not allowed looks like no data, as HealthKit's: no summaries.
            try await writer.write(Salus_V1_ActivitySummaryBatch.with { $0.initialResultsComplete = true })
            if request.live { for await _ in store.commits() {} }
            return
        }
        let engine = ActivitySummaryEngine(store: store, statistics: try statistics.engine(), settings: settings)
        let live = request.live
        try await storeCall {
            if !live {
                let summaries = try await engine.summaries(first: first, last: last, timeZone: zone)
                try await Self.send(summaries, initial: true, writer: writer)
                return
            }
            try await engine.live(first: first, last: last, timeZone: zone) { summaries, initial in
                try await Self.send(summaries, initial: initial, writer: writer)
            }
        }
    }

    /// Sends `summaries` in batches of at most 500 days; the last batch of the initial results
    /// says so.
    static func send(_ summaries: [ActivitySummary], initial: Bool, writer: RPCWriter<Salus_V1_ActivitySummaryBatch>) async throws {
        var start = 0
        repeat {
            var batch = Salus_V1_ActivitySummaryBatch()
            batch.summaries = summaries[start..<min(start + 500, summaries.count)].map(\.wire)
            start += 500
            batch.initialResultsComplete = initial && start >= summaries.count
            try await writer.write(batch)
        } while start < summaries.count
    }
}
