import SalusModel
import SalusProto
import SalusRPC

/// An app that saved samples, with the devices its samples came from, as HealthKit's `HKSource`.
public struct Source: Hashable, Sendable {
    /// The app id ("org.example.sleepdiary").
    public var appID: String
    /// The app's name for people.
    public var name: String
    /// The devices of its matching samples.
    public var devices: [Device]

    /// Creates a source.
    public init(appID: String, name: String, devices: [Device] = []) {
        self.appID = appID
        self.name = name
        self.devices = devices
    }
}

/// A source query, as HealthKit's `HKSourceQueryDescriptor`: which apps (and devices) saved
/// samples of a type that match a predicate.
public struct SourceQueryDescriptor: Hashable, Sendable {
    /// The type.
    public var type: SampleType
    /// Which samples; nil means all of the type.
    public var predicate: SamplePredicate?

    /// A query for the sources of samples of `type` matching `predicate`.
    public init(type: SampleType, predicate: SamplePredicate? = nil) {
        self.type = type
        self.predicate = predicate
    }

    /// The request sent (`salus.v1.SourceQueryRequest`).
    package var request: Salus_V1_SourceQueryRequest {
        var request = Salus_V1_SourceQueryRequest()
        request.type = type.identifier.rawValue
        if let predicate { request.predicate = predicate.wire }
        return request
    }

    /// Runs the query.
    public func result(for store: HealthStore) async throws(SalusError) -> [Source] {
        let response: Salus_V1_SourceQueryResponse = try await mappingErrors {
            try await store.client.unary(SalusMethods.Store.querySources, request: request)
        }
        return response.sources.map { source in
            Source(appID: source.appID, name: source.name, devices: source.devices.map(Device.init(wire:)))
        }
    }
}
