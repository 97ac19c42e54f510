import Foundation
import SalusKit
import SalusModel

/// Every app's samples, as the owner reads and writes them over the admin socket.
extension AdminClient {
    /// The store as the owner sees it: SalusKit's ``HealthStore`` over the admin socket, where
    /// every query reads every app's samples and nothing needs a grant. SalusKit's descriptors
    /// run on it (`SampleQueryDescriptor.samples(for:)`, `AttachmentStore(healthStore:)`,
    /// `routeLocations(of:)`); a sample the owner saves is the owner's (`salusctl documents add`).
    /// It shares this client's connection: ``close()`` closes both.
    public var store: HealthStore { HealthStore(client: rpc) }

    /// Every sample `query` finds, every app's, in its order.
    public func samples(_ query: SampleQueryDescriptor) async throws -> [Sample] {
        try await query.result(for: store)
    }

    /// The routes of the workout `workout`, oldest first, each with all its locations.
    public func routes(of workout: UUID) async throws -> [(route: Sample, locations: [RouteLocation])] {
        let store = self.store
        var result: [(route: Sample, locations: [RouteLocation])] = []
        for route in try await samples(SampleQueryDescriptor(type: .workoutRoute)) {
            guard case .workoutRoute(let value) = route.value, value.workoutUUID == workout else { continue }
            result.append((route, try await store.routeLocations(of: route.uuid).collect()))
        }
        return result
    }

    /// Where the samples of `types` lie: the earliest start and the latest end (or start) of
    /// their first and last samples by start date; nil when none of them holds a sample.
    public func sampleRange(of types: [String]) async throws -> DateInterval? {
        var range: DateInterval?
        for type in types {
            let earliest = SampleQueryDescriptor(type: SampleType(type), predicate: nil, sortDescriptors: [.startDate(ascending: true)], limit: 1)
            let latest = SampleQueryDescriptor(type: SampleType(type), predicate: nil, sortDescriptors: [.startDate(ascending: false)], limit: 1)
            guard let first = try await samples(earliest).first, let last = try await samples(latest).first else { continue }
            let found = DateInterval(start: first.startDate, end: max(last.endDate, last.startDate, first.startDate))
            range = range.map { DateInterval(start: min($0.start, found.start), end: max($0.end, found.end)) } ?? found
        }
        return range
    }
}
