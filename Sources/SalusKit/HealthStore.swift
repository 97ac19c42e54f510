import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire

/// An app's connection to the daemon's store, as HealthKit's `HKHealthStore`: save and delete
/// samples here; query them with descriptors (``SampleQueryDescriptor``,
/// ``AnchoredObjectQueryDescriptor``, ``ObserverQueryDescriptor``, ``SourceQueryDescriptor``)
/// whose `result(for:)` takes a store.
///
/// ```swift
/// let store = try await HealthStore.connect(appID: "org.example.sleepdiary")
/// let saved = try await store.save(.sleepAnalysis(.asleepREM, start: start, end: end))
/// ```
///
/// One store may be used from many tasks at once; every call is multiplexed on one connection.
/// Every method throws ``SalusError``.
public final class HealthStore: Sendable {
    /// The RPC client underneath: within the package (salusctl, tests), for calls that have no
    /// typed wrapper. Apps see only the typed API.
    package let client: RPCClient

    /// Uses a connected client: one to the app socket, or the owner's admin socket, where the
    /// store's query methods see every app's samples.
    package init(client: RPCClient) {
        self.client = client
    }

    /// Connects to the daemon and says Hello.
    ///
    /// - Parameters:
    ///   - socketPath: the app socket; nil means `SALUS_SOCKET`, else the default path
    ///     (``SalusEndpoint/appSocketPath``).
    ///   - appID: the app id to declare ("org.example.sleepdiary"). A daemon in development
    ///     mode (`salusd --dev`) takes it as the app's id; a connection through an app's own
    ///     socket (`salusctl launch --app ID`) is known by that socket, whatever it declares.
    ///   - appName: the app's name for people; defaults to `appID`.
    ///   - appVersion: the app's version, recorded in the source revision of what it saves.
    public static func connect(
        socketPath: String? = nil,
        appID: String,
        appName: String? = nil,
        appVersion: String = ""
    ) async throws(SalusError) -> HealthStore {
        var configuration = RPCClient.Configuration()
        configuration.declaredAppID = appID
        configuration.clientName = appName ?? appID
        configuration.clientVersion = appVersion
        let path = socketPath ?? SalusEndpoint.appSocketPath
        let client = try await mappingErrors {
            try await RPCClient.connect(unixSocketPath: path, configuration: configuration)
        }
        return HealthStore(client: client)
    }

    /// Closes the connection; calls still running fail with ``SalusError/Code/unavailable``.
    public func close() async {
        await client.close()
    }

    // MARK: Saving

    /// Saves one sample and returns what became of it (its UUID as assigned by the daemon).
    ///
    /// The sample's `uuid`, `sourceRevision` and `creationDate` are not sent: the daemon assigns
    /// them. Use the returned ``SaveResult/uuid`` to refer to the saved sample.
    @discardableResult
    public func save(_ sample: Sample) async throws(SalusError) -> SaveResult {
        let results = try await save([sample])
        guard let result = results.first else {
            throw SalusError(code: .malformedMessage, message: "the daemon answered Save with no result for one sample")
        }
        return result
    }

    /// Saves samples in one transaction, all or nothing, and returns one result per sample, in
    /// order. A failure names the sample's index in the field ("samples[3].quantity.unit").
    @discardableResult
    public func save(_ samples: [Sample]) async throws(SalusError) -> [SaveResult] {
        var request = Salus_V1_SaveRequest()
        request.samples = samples.map(\.wireForSaving)
        let response: Salus_V1_SaveResponse = try await mappingErrors {
            try await client.unary(SalusMethods.Store.save, request: request)
        }
        guard response.results.count == samples.count else {
            throw SalusError(
                code: .malformedMessage,
                message: "the daemon answered Save with \(response.results.count) results for \(samples.count) samples",
                field: "results", value: "\(response.results.count)", expected: "\(samples.count)"
            )
        }
        return try response.results.enumerated().map { (index, result) throws(SalusError) in
            try SaveResult(wire: result, path: "results[\(index)]", anchor: QueryAnchor(rawValue: response.anchor))
        }
    }

    // MARK: Deleting

    /// Deletes a sample this app saved; returns how many were deleted (0 or 1).
    @discardableResult
    public func delete(_ sample: Sample) async throws(SalusError) -> Int {
        try await delete(uuids: [sample.uuid])
    }

    /// Deletes samples this app saved, all or nothing; returns how many were deleted.
    @discardableResult
    public func delete(_ samples: [Sample]) async throws(SalusError) -> Int {
        try await delete(uuids: samples.map(\.uuid))
    }

    /// Deletes the samples with these UUIDs, all or nothing; an app deletes only what it wrote
    /// (another app's sample fails with ``SalusError/Code/permissionDenied``). Returns how many
    /// were deleted.
    @discardableResult
    public func delete(uuids: [UUID]) async throws(SalusError) -> Int {
        var list = Salus_V1_UUIDList()
        list.uuids = uuids.map(WireUUID.bytes)
        var request = Salus_V1_DeleteRequest()
        request.uuids = list
        return try await delete(request)
    }

    /// Deletes every sample of `type` that matches `predicate` (nil: all of them) and that this
    /// app saved, as HealthKit's `deleteObjects(of:predicate:)`; returns how many were deleted.
    @discardableResult
    public func deleteObjects(of type: SampleType, predicate: SamplePredicate? = nil) async throws(SalusError) -> Int {
        var request = Salus_V1_DeleteRequest()
        request.matching = SampleTypePredicate(type, predicate: predicate).wire
        return try await delete(request)
    }

    private func delete(_ request: Salus_V1_DeleteRequest) async throws(SalusError) -> Int {
        let response: Salus_V1_DeleteResponse = try await mappingErrors {
            try await client.unary(SalusMethods.Store.delete, request: request)
        }
        return Int(clamping: response.deleted)
    }
}
