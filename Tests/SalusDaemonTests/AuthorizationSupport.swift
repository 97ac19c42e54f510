import Foundation
import SalusProto
import SalusRPC
import Testing

/// Clients of a real daemon: the owner on the admin socket and apps on an app socket.
enum Authz {
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let heartRate = "HKQuantityTypeIdentifierHeartRate"

    static let save = SalusMethods.Store.save
    static let querySamples = SalusMethods.Store.querySamples

    static func owner(_ daemon: DaemonHarness) async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        configuration.clientName = "owner"
        return try await RPCClient.connect(unixSocketPath: daemon.adminSocketPath, configuration: configuration)
    }

    static func app(_ daemon: DaemonHarness, _ appID: String, socket: String? = nil) async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        configuration.declaredAppID = appID
        configuration.clientName = appID
        return try await RPCClient.connect(unixSocketPath: socket ?? daemon.socketPath, configuration: configuration)
    }

    @discardableResult
    static func register(_ owner: RPCClient, _ appID: String, read: String = "to show trends", write: String = "to record what you log") async throws -> Salus_V1_AppInfo {
        var request = Salus_V1_AddAppRequest()
        request.appID = appID
        request.name = "App \(appID)"
        request.readUsage = read
        request.writeUsage = write
        return try await owner.unary(SalusMethods.Consent.addApp, request: request)
    }

    /// Sets decisions directly; nil leaves a permission not determined.
    static func grant(_ owner: RPCClient, _ appID: String, _ type: String, read: Salus_V1_Decision?, share: Salus_V1_Decision?) async throws {
        guard read != nil || share != nil else { return }
        var grant = Salus_V1_TypeGrant()
        grant.type = type
        grant.read = read ?? .notDetermined
        grant.share = share ?? .notDetermined
        var request = Salus_V1_SetGrantsRequest()
        request.appID = appID
        request.grants = [grant]
        let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.setGrants, request: request)
    }

    static func sample(_ type: String = steps, value: Double, start: Int64) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = type
        sample.startDate = start
        sample.endDate = start + 60_000_000
        sample.quantity.value = value
        sample.quantity.unit = type == heartRate ? "count/min" : "count"
        return sample
    }

    static func save(_ app: RPCClient, _ samples: [Salus_V1_Sample]) async throws -> Salus_V1_SaveResponse {
        var request = Salus_V1_SaveRequest()
        request.samples = samples
        return try await app.unary(save, request: request)
    }

    static func batches(_ client: RPCClient, type: String = steps) async throws -> [Salus_V1_SampleBatch] {
        var request = Salus_V1_SampleQueryRequest()
        request.type = type
        var batches: [Salus_V1_SampleBatch] = []
        for try await batch in try client.serverStreaming(querySamples, request: request, responseType: Salus_V1_SampleBatch.self) {
            batches.append(batch)
        }
        return batches
    }

    /// The error a call throws, or nil.
    static func error(_ body: () async throws -> Void) async -> RPCError? {
        do {
            try await body()
            return nil
        } catch let error as RPCError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }
}
