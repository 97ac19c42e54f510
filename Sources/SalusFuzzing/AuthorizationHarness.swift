import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusServer
import SalusWire
import SwiftProtobuf

/// Reads by an app denied some types, with random predicates: each input runs in two stores
/// forked from one data folder, one where the denied types hold another app's data and one where
/// that app saved as many samples of a type nobody asks about instead (so both change sequences
/// end at the same anchor), and the answers must be the same bytes. A difference is a trap: the
/// denied data changed what the app was told (docs/authorization.md, "Denied read looks like no
/// data"; `NonInterferenceTests` checks the same property over a fixed table).
///
/// The input: one byte choosing the call (sample, anchored, sources, statistics, statistics
/// collection, correlation by member query), one the queried type, one the reader (no permission,
/// or share without read), then a `salus.v1.Predicate`. A UUID in the predicate that is 15 zero
/// bytes and an index names the index-th UUID of the stored samples, so that the fuzzer can aim at
/// them without knowing them.
enum AuthorizationHarness {
    static let writer = "org.example.writer"
    static let readers = ["org.example.denied", "org.example.own"]
    static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    static let activeEnergy = "HKQuantityTypeIdentifierActiveEnergyBurned"
    static let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    static let bloodPressure = "HKCorrelationTypeIdentifierBloodPressure"
    static let systolic = "HKQuantityTypeIdentifierBloodPressureSystolic"
    static let diastolic = "HKQuantityTypeIdentifierBloodPressureDiastolic"
    static let workout = "HKWorkoutTypeIdentifier"
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let decoy = "HKQuantityTypeIdentifierBodyTemperature"
    /// Denied to both readers (the second may share them, and has samples of its own).
    static let denied = [heartRate, activeEnergy, sleep, bloodPressure, systolic, diastolic]
    /// What the inputs ask about: the denied types, and two the readers read.
    static let types = denied + [workout, steps]
    /// 1_795_250_000 s: a morning in November 2026, in microseconds.
    static let t0: Int64 = 1_795_250_000_000_000
    static let minute: Int64 = 60_000_000

    /// One store's services and its readers' connections.
    struct World: Sendable {
        let services: SalusServices
        let readers: [RPCClient]
    }

    /// The two worlds and the UUIDs the inputs can name (the writer's workout, its heart rates,
    /// sleep and blood pressure with its members, of world *with*; the own reader's samples).
    static let worlds: (with: World, without: World, uuids: [Data]) = blocking {
        do {
            return try await makeWorlds()
        } catch {
            fatalError("cannot prepare the authorization harness's stores: \(error)")
        }
    }

    static func configuration(_ name: String) -> DaemonConfiguration {
        let folder = FuzzEnvironment.folder.appendingPathComponent(name, isDirectory: true)
        return DaemonConfiguration(
            dataDirectory: folder.appendingPathComponent("data", isDirectory: true).path,
            socketPath: folder.appendingPathComponent("app.sock").path,
            adminSocketPath: folder.appendingPathComponent("admin.sock").path,
            pluginDirectories: [FuzzEnvironment.pluginFolder],
            developmentMode: true,
            drainTimeout: .seconds(1)
        )
    }

    static func client(_ services: SalusServices, app: String?) async throws -> RPCClient {
        guard let app else {
            return try await services.server.connectInProcess(
                router: services.adminRouter, listener: SalusServices.adminListener, admission: services.adminAdmission)
        }
        var configuration = RPCClient.Configuration()
        configuration.declaredAppID = app
        configuration.clientName = app
        return try await services.server.connectInProcess(
            router: services.appRouter, listener: services.appListener, configuration: configuration)
    }

    static func quantity(_ type: String, _ value: Double, _ unit: String, start: Int64, end: Int64? = nil) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = type
        sample.startDate = start
        sample.endDate = end ?? start
        sample.quantity.value = value
        sample.quantity.unit = unit
        sample.device.name = "Strap"
        sample.metadata["org.example.level"] = Salus_V1_MetadataValue.with { $0.numberValue = 3 }
        return sample
    }

    static func save(_ client: RPCClient, _ samples: [Salus_V1_Sample]) async throws -> [Data] {
        let response: Salus_V1_SaveResponse = try await client.unary(
            SalusMethods.Store.save, request: Salus_V1_SaveRequest.with { $0.samples = samples })
        return response.results.flatMap { [$0.uuid] + $0.objects.map(\.uuid) }
    }

    static func grant(_ owner: RPCClient, _ app: String, _ type: String, read: Salus_V1_Decision, share: Salus_V1_Decision) async throws {
        var request = Salus_V1_SetGrantsRequest()
        request.appID = app
        request.grants = [Salus_V1_TypeGrant.with { $0.type = type; $0.read = read; $0.share = share }]
        let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.setGrants, request: request)
    }

    static func makeWorlds() async throws -> (with: World, without: World, uuids: [Data]) {
        let base = configuration("authorization-with")
        var services = try await SalusServices.open(base, logger: FuzzEnvironment.logger)
        var owner = try await client(services, app: nil)
        for app in [writer] + readers {
            let _: Salus_V1_AppInfo = try await owner.unary(
                SalusMethods.Consent.addApp,
                request: Salus_V1_AddAppRequest.with {
                    $0.appID = app
                    $0.name = app
                    $0.readUsage = "to show trends"
                    $0.writeUsage = "to record"
                })
        }
        for type in denied + [workout, steps, decoy] {
            try await grant(owner, writer, type, read: .notDetermined, share: .granted)
        }
        for type in denied {
            try await grant(owner, readers[0], type, read: .denied, share: .denied)
            try await grant(owner, readers[1], type, read: .denied, share: .granted)
        }
        for reader in readers {
            try await grant(owner, reader, workout, read: .granted, share: .granted)
            try await grant(owner, reader, steps, read: .granted, share: .granted)
        }
        // Before the fork: the writer's workout, and the own reader's samples.
        var writerClient = try await client(services, app: writer)
        var running = Salus_V1_Sample()
        running.type = workout
        running.startDate = t0
        running.endDate = t0 + 30 * minute
        running.workout.activityType = 37
        var uuids = try await save(writerClient, [running, quantity(steps, 500, "count", start: t0 - 60 * minute)])
        let ownClient = try await client(services, app: readers[1])
        uuids += try await save(ownClient, [quantity(heartRate, 150, "count/min", start: t0 + 5 * minute)])
        var ownWorkout = running
        ownWorkout.startDate = t0 + 60 * minute
        ownWorkout.endDate = t0 + 90 * minute
        uuids += try await save(ownClient, [ownWorkout, quantity(heartRate, 120, "count/min", start: t0 + 70 * minute)])
        for client in [owner, writerClient, ownClient] { await client.close() }
        await services.server.shutdown(gracePeriod: .seconds(1))
        await services.close()

        // The fork.
        let copy = configuration("authorization-without")
        try? FileManager.default.removeItem(atPath: copy.dataDirectory)
        try FileManager.default.createDirectory(
            atPath: (copy.dataDirectory as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: base.dataDirectory, toPath: copy.dataDirectory)

        // World *with*: the writer's heart rate during its workout, energy, sleep, a blood
        // pressure, and a heart rate saved and deleted.
        services = try await SalusServices.open(base, logger: FuzzEnvironment.logger)
        writerClient = try await client(services, app: writer)
        uuids += try await save(writerClient, (1...3).map { quantity(heartRate, 172, "count/min", start: t0 + Int64($0) * 5 * minute) })
        uuids += try await save(writerClient, [quantity(activeEnergy, 250, "kcal", start: t0, end: t0 + 30 * minute)])
        var asleep = Salus_V1_Sample()
        asleep.type = sleep
        asleep.startDate = t0 - 500 * minute
        asleep.endDate = t0 - 60 * minute
        asleep.category.value = 4
        uuids += try await save(writerClient, [asleep])
        var pressure = Salus_V1_Sample()
        pressure.type = bloodPressure
        pressure.startDate = t0 + 20 * minute
        pressure.endDate = t0 + 20 * minute
        pressure.correlation.objects = [
            quantity(systolic, 128, "mmHg", start: t0 + 20 * minute), quantity(diastolic, 84, "mmHg", start: t0 + 20 * minute),
        ]
        uuids += try await save(writerClient, [pressure])
        let gone = try await save(writerClient, [quantity(heartRate, 99, "count/min", start: t0 + 25 * minute)])
        let _: Salus_V1_DeleteResponse = try await writerClient.unary(
            SalusMethods.Store.delete, request: Salus_V1_DeleteRequest.with { $0.uuids.uuids = gone })
        uuids += gone
        await writerClient.close()
        let with = World(services: services, readers: try await readerClients(services))

        // World *without*: as many decoy samples, in as many commits, with the same deletion.
        let other = try await SalusServices.open(copy, logger: FuzzEnvironment.logger)
        let decoyClient = try await client(other, app: writer)
        for count in [3, 1, 1, 3] {
            _ = try await save(decoyClient, (0..<count).map { quantity(decoy, 37, "degC", start: t0 - 3000 * minute + Int64($0) * minute) })
        }
        let decoyGone = try await save(decoyClient, [quantity(decoy, 37.5, "degC", start: t0 - 2000 * minute)])
        let _: Salus_V1_DeleteResponse = try await decoyClient.unary(
            SalusMethods.Store.delete, request: Salus_V1_DeleteRequest.with { $0.uuids.uuids = decoyGone })
        await decoyClient.close()
        let without = World(services: other, readers: try await readerClients(other))
        return (with, without, uuids)
    }

    static func readerClients(_ services: SalusServices) async throws -> [RPCClient] {
        var clients: [RPCClient] = []
        for reader in readers { clients.append(try await client(services, app: reader)) }
        return clients
    }

    /// `predicate` with each UUID of 15 zero bytes and an index replaced by the index-th of `uuids`.
    static func aimed(_ predicate: Salus_V1_Predicate, at uuids: [Data], depth: Int = 0) -> Salus_V1_Predicate {
        guard depth < 64, !uuids.isEmpty else { return predicate }
        var result = predicate
        switch predicate.node {
        case .uuids(let list)?:
            result.uuids.uuids = list.uuids.map { bytes in
                guard bytes.count == 16, bytes.prefix(15).allSatisfy({ $0 == 0 }) else { return bytes }
                return uuids[Int(bytes[bytes.startIndex + 15]) % uuids.count]
            }
        case .and(let list)?:
            result.and.predicates = list.predicates.map { aimed($0, at: uuids, depth: depth + 1) }
        case .or(let list)?:
            result.or.predicates = list.predicates.map { aimed($0, at: uuids, depth: depth + 1) }
        case .not(let child)?:
            result.not = aimed(child, at: uuids, depth: depth + 1)
        default:
            break
        }
        return result
    }

    /// The bytes compared: each response serialized with maps in key order, or the call's status.
    static func answer(_ body: () async throws -> [any SwiftProtobuf.Message]) async -> [Data] {
        var options = BinaryEncodingOptions()
        options.useDeterministicOrdering = true
        do {
            return try await body().map { try $0.serializedData(options: options) }
        } catch let error as RPCError {
            return [Data("error:".utf8) + ((try? error.status.serializedData(options: options)) ?? Data())]
        } catch {
            return [Data("error:\(error)".utf8)]
        }
    }

    static func collect<Request, Response>(
        _ client: RPCClient, _ method: ServerStreamingMethod<Request, Response>, _ request: Request
    ) async throws -> [any SwiftProtobuf.Message] {
        var responses: [any SwiftProtobuf.Message] = []
        for try await response in try client.serverStreaming(method, request: request) {
            responses.append(response)
        }
        return responses
    }

    /// The call `kind` asks of `type` with `predicate`, as `client`.
    static func ask(_ client: RPCClient, kind: UInt8, type: String, predicate: Salus_V1_Predicate?) async -> [Data] {
        await answer {
            switch kind % 6 {
            case 0:
                var request = Salus_V1_SampleQueryRequest()
                request.type = type
                if let predicate { request.predicate = predicate }
                return try await collect(client, SalusMethods.Store.querySamples, request)
            case 1:
                var request = Salus_V1_AnchoredQueryRequest()
                var descriptor = Salus_V1_TypedPredicate()
                descriptor.type = type
                if let predicate { descriptor.predicate = predicate }
                request.descriptors = [descriptor, Salus_V1_TypedPredicate.with { $0.type = steps }]
                return try await collect(client, SalusMethods.Store.queryAnchored, request)
            case 2:
                var request = Salus_V1_SourceQueryRequest()
                request.type = type
                if let predicate { request.predicate = predicate }
                let response: Salus_V1_SourceQueryResponse = try await client.unary(SalusMethods.Store.querySources, request: request)
                return [response]
            case 3:
                var request = Salus_V1_StatisticsRequest()
                request.type = type
                request.options = type == activeEnergy || type == steps ? [.cumulativeSum, .mostRecent] : [.discreteAverage, .discreteMax]
                if let predicate { request.predicate = predicate }
                let response: Salus_V1_StatisticsResponse = try await client.unary(SalusMethods.Statistics.query, request: request)
                return [response]
            case 4:
                var request = Salus_V1_StatisticsCollectionRequest()
                request.type = type
                request.options = type == activeEnergy || type == steps ? [.cumulativeSum] : [.discreteAverage]
                request.anchorDate = t0
                request.intervalCount = 1
                request.intervalUnit = .hour
                request.timeZone = "UTC"
                request.from = t0 - 24 * 60 * minute
                request.to = t0 + 24 * 60 * minute
                if let predicate { request.predicate = predicate }
                return try await collect(client, SalusMethods.Statistics.queryCollection, request)
            default:
                var request = Salus_V1_SampleQueryRequest()
                request.type = bloodPressure
                var member = Salus_V1_TypedPredicate()
                member.type = type
                if let predicate { member.predicate = predicate }
                request.samplePredicates = [member]
                return try await collect(client, SalusMethods.Store.querySamples, request)
            }
        }
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 3 else { return }
        let kind = bytes[0]
        let type = types[Int(bytes[1]) % types.count]
        let reader = Int(bytes[2]) % readers.count
        let rest = UnsafeRawBufferPointer(rebasing: bytes[3...])
        var decoded: Salus_V1_Predicate?
        if !rest.isEmpty {
            guard let wire = try? Salus_V1_Predicate(serializedBytes: Array(rest)) else { return }
            decoded = wire
        }
        let worlds = Self.worlds
        let predicate = decoded.map { aimed($0, at: worlds.uuids) }
        let (with, without) = blocking {
            (
                await ask(worlds.with.readers[reader], kind: kind, type: type, predicate: predicate),
                await ask(worlds.without.readers[reader], kind: kind, type: type, predicate: predicate)
            )
        }
        guard with == without else {
            let shown = { (answers: [Data]) in answers.map { $0.base64EncodedString() }.joined(separator: " ") }
            fatalError(
                "authorization: \(readers[reader]) asked \(kind % 6) of \(type) and was told something else where the denied types "
                    + "hold data: with \(shown(with)); without \(shown(without)); predicate \((try? predicate?.jsonString()) ?? "none")")
        }
    }
}
