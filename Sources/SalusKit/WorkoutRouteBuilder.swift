import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire

extension SampleType {
    /// Workout routes (`HKWorkoutRouteTypeIdentifier`).
    public static let workoutRoute = SampleType("HKWorkoutRouteTypeIdentifier")
}

/// Builds a workout's route as HealthKit's `HKWorkoutRouteBuilder`: insert locations as they
/// arrive, then finish the route with the workout it belongs to, which streams the locations to
/// the daemon in chunks and saves the route whole, or not at all.
///
/// ```swift
/// let builder = WorkoutRouteBuilder(healthStore: store)
/// builder.insertRouteData(locations)           // as often as fixes arrive
/// let route = try await builder.finishRoute(with: workout.uuid)
/// for try await chunk in store.routeLocations(of: route.uuid) { draw(chunk) }
/// ```
///
/// Locations are kept in this process until `finishRoute`; one a second for a marathon is
/// about 15,000 (under 1 MB). The daemon checks them when the route is finished: coordinates
/// in range, accuracies and speed not negative, a course in 0..<360 (leave it nil when not
/// known, not CoreLocation's -1), timestamps not decreasing and inside the workout give or
/// take a minute.
public final class WorkoutRouteBuilder: @unchecked Sendable {
    /// Locations per streamed chunk: 1,000 (about 60 KB on the wire).
    public static let chunkSize = 1_000

    let client: RPCClient
    private let lock = NSLock()
    private var locations: [RouteLocation] = []
    /// The device that recorded the route.
    public let device: Device?

    /// A builder saving through `healthStore`'s connection.
    public init(healthStore: HealthStore, device: Device? = nil) {
        client = healthStore.client
        self.device = device
    }

    /// Adds locations, in time order after those already added.
    public func insertRouteData(_ data: [RouteLocation]) {
        lock.withLock { locations += data }
    }

    /// Streams the locations to the daemon and saves them as a route of the workout
    /// `workoutUUID`; returns the saved route sample (its UUID, interval and location count).
    /// The builder is empty afterwards, whether the save worked or not.
    ///
    /// - Throws: ``SalusError`` — `invalidArgument` naming the location ("locations[812].latitude")
    ///   and its value, `notFound` for a workout this app may not read, `authorizationDenied`
    ///   without share permission for routes, `resourceExhausted` above 200,000 locations.
    @discardableResult
    public func finishRoute(with workoutUUID: UUID, metadata: [String: MetadataValue] = [:]) async throws(SalusError)
        -> Sample
    {
        let all = lock.withLock {
            defer { locations = [] }
            return locations
        }
        let start = all.first?.timestamp ?? Date()
        let header = Sample(
            type: SampleType.workoutRoute.identifier, startDate: start,
            endDate: max(start, all.last?.timestamp ?? start),
            value: .workoutRoute(WorkoutRouteValue(workoutUUID: workoutUUID, locationCount: all.count)),
            sourceRevision: Sample.unsavedSource, device: device, metadata: metadata)
        let response: Salus_V1_SaveRouteResponse = try await mappingErrors {
            try await client.clientStreaming(SalusMethods.Routes.saveRoute) {
                (writer: RPCClientWriter<Salus_V1_SaveRouteMessage>) in
                var first = Salus_V1_SaveRouteMessage()
                first.header.sample = header.wireForSaving
                try await writer.write(first)
                for offset in stride(from: 0, to: all.count, by: Self.chunkSize) {
                    var chunk = Salus_V1_SaveRouteMessage()
                    chunk.locations.locations = all[offset..<min(offset + Self.chunkSize, all.count)].map(\.wire)
                    try await writer.write(chunk)
                }
            }
        }
        let result = try SaveResult(wire: response.result, path: "result", anchor: QueryAnchor(rawValue: response.anchor))
        var saved = header
        saved.uuid = result.uuid
        saved.startDate = all.first?.timestamp ?? start
        return saved
    }

    /// Drops the locations added so far, as HealthKit's `discardRouteData`.
    public func discardRouteData() {
        lock.withLock { locations = [] }
    }
}

extension HealthStore {
    /// The locations of the route `routeUUID` in time order, as chunks streamed from the daemon
    /// under flow control; only those recorded in `start`...`end` when given (as HealthKit's
    /// `HKWorkoutRouteQuery(route:dateInterval:)`). Errors are ``SalusError``s: `notFound` for
    /// a route this app may not read.
    public func routeLocations(of routeUUID: UUID, from start: Date? = nil, to end: Date? = nil) -> RouteLocationReader {
        RouteLocationReader(client: client, uuid: routeUUID, start: start, end: end)
    }
}

/// A route's locations as an `AsyncSequence` of chunks (`[RouteLocation]`, in time order, at
/// most 1,024 each), streamed from the daemon under flow control.
public struct RouteLocationReader: AsyncSequence, Sendable {
    /// A chunk of locations.
    public typealias Element = [RouteLocation]

    let client: RPCClient
    let uuid: UUID
    let start: Date?
    let end: Date?

    /// Iterates the chunks; the call starts with the first `next()`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let reader: RouteLocationReader
        var stream: RPCResponseStream<Salus_V1_RouteLocationBatch>.AsyncIterator?

        /// The next chunk, or nil at the end; throws ``SalusError``.
        public mutating func next() async throws -> [RouteLocation]? {
            if stream == nil {
                var request = Salus_V1_ReadRouteRequest()
                request.uuid = WireUUID.bytes(reader.uuid)
                if let start = reader.start { request.start = WireDate.microseconds(start) }
                if let end = reader.end { request.end = WireDate.microseconds(end) }
                let (client, message) = (reader.client, request)
                let responses = try await mappingErrors {
                    try client.serverStreaming(
                        SalusMethods.Routes.readRoute, request: message)
                }
                stream = responses.makeAsyncIterator()
            }
            return try await mappingErrors { try await stream?.next() }?.locations.map(RouteLocation.init(wire:))
        }
    }

    /// An iterator over the chunks.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: self) }

    /// Every location, gathered into one array; for small routes (prefer iterating for large ones).
    public func collect() async throws(SalusError) -> [RouteLocation] {
        var all: [RouteLocation] = []
        do {
            for try await chunk in self { all += chunk }
        } catch let error as SalusError {
            throw error
        } catch {
            throw SalusError(code: .unknown, message: String(describing: error))
        }
        return all
    }
}
