import Foundation
import SalusProto
import SalusRPC
import Testing

/// Calls the authorization tests make as the owner and as apps, shared by the in-process and
/// the end-to-end tests; each target adds how it connects (`owner`, `app`).
package enum Authz {
    package static let steps = "HKQuantityTypeIdentifierStepCount"
    package static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    package static let sleep = "HKCategoryTypeIdentifierSleepAnalysis"
    package static let vision = "HKVisionPrescriptionTypeIdentifier"


    /// Waits for the owner's first pending consent request (WatchRequests reports it), then
    /// returns the pending list.
    package static func pendingRequests(_ owner: RPCClient) async throws -> [Salus_V1_ConsentRequest] {
        let watch = try owner.serverStreaming(SalusMethods.Consent.watchRequests, request: Salus_V1_ListRequestsRequest())
        var iterator = watch.makeAsyncIterator()
        _ = try await iterator.next()
        watch.cancel()
        let list: Salus_V1_ListRequestsResponse = try await owner.unary(SalusMethods.Consent.listRequests, request: Salus_V1_ListRequestsRequest())
        return list.requests
    }

    @discardableResult
    package static func register(_ owner: RPCClient, _ appID: String, read: String = "to show trends", write: String = "to record what you log") async throws -> Salus_V1_AppInfo {
        var request = Salus_V1_AddAppRequest()
        request.appID = appID
        request.name = "App \(appID)"
        request.readUsage = read
        request.writeUsage = write
        return try await owner.unary(SalusMethods.Consent.addApp, request: request)
    }

    /// Registers `appID` and sets its decisions for `type` (nil: not determined).
    package static func register(_ owner: RPCClient, _ appID: String, type: String = steps, read: Salus_V1_Decision?, share: Salus_V1_Decision?) async throws {
        try await register(owner, appID)
        try await grant(owner, appID, type, read: read, share: share)
    }

    /// A descriptor of every sample of `type`, for anchored queries and observers.
    package static func descriptor(_ type: String = steps) -> Salus_V1_TypedPredicate {
        var descriptor = Salus_V1_TypedPredicate()
        descriptor.type = type
        return descriptor
    }

    /// Sets decisions directly; nil leaves a permission not determined.
    package static func grant(_ owner: RPCClient, _ appID: String, _ type: String, read: Salus_V1_Decision?, share: Salus_V1_Decision?) async throws {
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

    package static func policy(_ owner: RPCClient, _ appID: String, _ kind: Salus_V1_PolicyKind, read: [String] = [], share: [String] = [], afterMs: Int64 = 0) async throws {
        var request = Salus_V1_SetPolicyRequest()
        request.appID = appID
        request.policy.kind = kind
        request.policy.read = read
        request.policy.share = share
        request.policy.afterMs = afterMs
        let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.setPolicy, request: request)
    }

    package static func requestAuthorization(_ app: RPCClient, share: [String] = [], read: [String] = []) async throws {
        var request = Salus_V1_AuthorizationRequest()
        request.share = share
        request.read = read
        let _: Salus_V1_AuthorizationResponse = try await app.unary(SalusMethods.Authorization.requestAuthorization, request: request)
    }

    package static func sharingStatus(_ app: RPCClient, _ type: String) async throws -> Salus_V1_SharingStatus {
        var request = Salus_V1_AuthorizationStatusRequest()
        request.type = type
        let response: Salus_V1_AuthorizationStatusResponse = try await app.unary(SalusMethods.Authorization.authorizationStatus, request: request)
        return response.status
    }

    package static func sample(_ type: String = steps, value: Double, start: Int64) -> Salus_V1_Sample {
        var sample = Salus_V1_Sample()
        sample.type = type
        sample.startDate = start
        sample.endDate = start + 60_000_000
        sample.quantity.value = value
        sample.quantity.unit = type == heartRate ? "count/min" : "count"
        return sample
    }

    package static func save(_ app: RPCClient, _ samples: [Salus_V1_Sample]) async throws -> Salus_V1_SaveResponse {
        var request = Salus_V1_SaveRequest()
        request.samples = samples
        return try await app.unary(SalusMethods.Store.save, request: request)
    }

    package static func batches(_ client: RPCClient, type: String = steps) async throws -> [Salus_V1_SampleBatch] {
        var request = Salus_V1_SampleQueryRequest()
        request.type = type
        var batches: [Salus_V1_SampleBatch] = []
        for try await batch in try client.serverStreaming(SalusMethods.Store.querySamples, request: request) {
            batches.append(batch)
        }
        return batches
    }

    package static func anchored(_ client: RPCClient, type: String = steps) async throws -> [Salus_V1_AnchoredBatch] {
        var request = Salus_V1_AnchoredQueryRequest()
        request.descriptors = [descriptor(type)]
        var batches: [Salus_V1_AnchoredBatch] = []
        for try await batch in try client.serverStreaming(SalusMethods.Store.queryAnchored, request: request) {
            batches.append(batch)
        }
        return batches
    }

    package static func sources(_ client: RPCClient, type: String = steps) async throws -> Salus_V1_SourceQueryResponse {
        var request = Salus_V1_SourceQueryRequest()
        request.type = type
        return try await client.unary(SalusMethods.Store.querySources, request: request)
    }

    package static func delete(_ client: RPCClient, _ uuid: Data) async throws -> Salus_V1_DeleteResponse {
        var request = Salus_V1_DeleteRequest()
        request.uuids.uuids = [uuid]
        return try await client.unary(SalusMethods.Store.delete, request: request)
    }

    /// The error a call throws, or nil.
    package static func error(_ body: () async throws -> Void) async -> RPCError? {
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
