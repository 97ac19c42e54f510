import Foundation
import SalusKit
import SalusProto
import SalusRPC

/// Clients and samples for the end-to-end tests that put data into a real daemon (started
/// with `--dev`, so apps declare their id in Hello).
enum DaemonClients {
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let save = SalusMethods.Store.save

    /// An app on the app socket, declaring `appID`.
    static func app(_ daemon: DaemonHarness, _ appID: String) async throws -> RPCClient {
        var configuration = RPCClient.Configuration()
        configuration.declaredAppID = appID
        configuration.clientName = "Test \(appID)"
        configuration.clientVersion = "2.0"
        return try await RPCClient.connect(unixSocketPath: daemon.socketPath, configuration: configuration)
    }

    /// SalusKit's store for an app on the app socket, declaring `appID`.
    static func store(_ daemon: DaemonHarness, _ appID: String) async throws -> HealthStore {
        try await HealthStore.connect(socketPath: daemon.socketPath, appID: appID, appName: "Test \(appID)", appVersion: "3.1")
    }

    static func stepSample(_ count: Double, start: Int64, unit: String = "count") -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = steps
        sample.startDate = start
        sample.endDate = start + 60_000_000
        sample.quantity.value = count
        sample.quantity.unit = unit
        return sample
    }

    static func saveRequest(_ samples: [Salus_V1_Sample]) -> Salus_V1_SaveRequest {
        var request = Salus_V1_SaveRequest()
        request.samples = samples
        return request
    }
}
