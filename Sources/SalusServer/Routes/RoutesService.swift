import Foundation
import SalusModel
import SalusPluginHost
import SalusProto
import SalusRPC
import SalusStore
import SalusWire

/// salus.v1.Routes: save a workout's route as a stream of location chunks, read it back as one,
/// whole or by time range (HealthKit's `HKWorkoutRouteBuilder` and `HKWorkoutRouteQuery`).
///
/// Rules, each with its reason:
/// 1. **A route is saved whole or not at all.** Chunks are gathered and the route is checked and
///    committed in one transaction when the client ends its stream; a stream that fails, is
///    cancelled or carries one refused location saves nothing, so no reader ever sees half a
///    route. Memory per call is bounded by `WorkoutRouteValue.maximumLocationCount` (about
///    15 MB at the limit); beyond it the call fails with RESOURCE_EXHAUSTED. The locations
///    gathered count against the app's buffered bytes (`maxBufferedBytesPerApp`), so one app's
///    routes saved at once hold at most that; a chunk beyond it fails the call with
///    RESOURCE_EXHAUSTED naming `bufferedBytesPerApp`, and what the call gathered is freed.
/// 2. **Saving needs share permission for HKWorkoutRouteTypeIdentifier and read access to the
///    workout, and its locations lie inside the workout give or take a minute** (its own workouts always; another app's with read permission for workouts): an
///    app attaches a route only to a workout it can see, and a workout it may not read and one
///    that does not exist give the same NOT_FOUND, so it learns nothing about workouts it cannot
///    see. Store/Save applies the same rule to routes saved inline.
/// 3. **The owner reads routes, apps save them,** as with samples (Store/Save on the admin socket
///    takes only what a clinic sent): a route is recorded by the app that recorded the workout.
/// 4. **Reading follows the route's read access,** as any sample's: read permission for the
///    route type, or the app's own route with share permission; a route it may not read is
///    NOT_FOUND. Chunks are read from SQLite only when the stream has credit.
package struct RoutesService: Sendable {
    /// Locations per saved chunk at most: 10,000 (about 600 KB on the wire).
    package static let maximumChunkLocations = 10_000

    let store: SampleStore
    let registry: TypeRegistry
    let authorization: AuthorizationEngine

    /// A service over `store`, checked by `authorization`.
    package init(store: SampleStore, registry: TypeRegistry, authorization: AuthorizationEngine) {
        self.store = store
        self.registry = registry
        self.authorization = authorization
    }

    /// Adds the service's methods to `router` (the same on the app and the admin socket).
    package func register(into router: inout RPCRouter) {
        router.registerClientStreaming(SalusMethods.Routes.saveRoute, onEventLoop: false) {
            (messages: RPCRequestStream<Salus_V1_SaveRouteMessage>, context) -> Salus_V1_SaveRouteResponse in
            try await self.saveRoute(messages, caller: try Caller.resolve(context), context: context)
        }
        router.registerServerStreaming(SalusMethods.Routes.readRoute, onEventLoop: false) {
            (request: Salus_V1_ReadRouteRequest, writer: RPCWriter<Salus_V1_RouteLocationBatch>, context) in
            try await self.readRoute(request, writer: writer, caller: try Caller.resolve(context))
        }
    }

    // MARK: Checks

    /// NOT_FOUND naming `field` unless the workout of every route among `samples` is a sample
    /// the caller may read (rule 2); INVALID_ARGUMENT naming the location when one lies outside
    /// its workout's interval, give or take `WorkoutRouteValue.workoutSlack`. `field(i)` names
    /// the workout field of `samples[i]`, `location(i)` the path of its route
    /// ("samples[3].workoutRoute"). A workout is never changed once saved, so reading it here,
    /// before the save, is as good as in the save's transaction; the store still checks that it
    /// exists and is a workout there.
    static func checkWorkouts(
        _ samples: [Sample], store: SampleStore, authorization: AuthorizationEngine, caller: Caller,
        field: (Int) -> String, route routePath: (Int) -> String, renamed: (String) -> String = { $0 }
    ) async throws {
        for (index, sample) in samples.enumerated() {
            guard case .workoutRoute(let route) = sample.value else { continue }
            let workout = try await authorization.readable(route.workoutUUID, in: store, caller: caller)
            guard workout != nil else {
                throw RPCError(
                    code: .notFound, message: "\(field(index)): \(route.workoutUUID.uuidString) is not a workout this app may read",
                    reason: .notFound, field: field(index), value: route.workoutUUID.uuidString,
                    expected: "the UUID of a workout this app may read")
            }
            guard let workout, case .workout = workout.value else { continue }
            if var error = route.errors(insideWorkoutFrom: workout.startDate, to: workout.endDate, at: routePath(index)).first {
                error.field = renamed(error.field)
                throw RPCError.from(error)
            }
        }
    }

    // MARK: Methods

    func saveRoute(_ messages: RPCRequestStream<Salus_V1_SaveRouteMessage>, caller: Caller, context: ServerContext) async throws
        -> Salus_V1_SaveRouteResponse
    {
        var iterator = messages.makeAsyncIterator()
        guard let first = try await iterator.next(), case .header(let header) = first.part else {
            throw RPCError.invalidArgument(
                field: "header", value: "none", expected: "a first message carrying the header (the route sample)")
        }
        let source = caller.sourceRevision
        var sample: Sample
        var route: WorkoutRouteValue
        do throws(ValidationError) {
            sample = try Sample(wire: header.sample, path: "header.sample", source: source, creationDate: Date())
        } catch {
            throw RPCError.from(error)
        }
        guard case .workoutRoute(let value) = sample.value else {
            throw RPCError.invalidArgument(
                field: "header.sample.value", value: "a \(sample.kind.rawValue) value",
                expected: "workout_route: a route sample of HKWorkoutRouteTypeIdentifier")
        }
        route = value
        // As Store/Save: the owner saves what a clinic sent; routes are an app's to write.
        guard caller.appIDSource != .owner else {
            throw RPCError.invalidArgument(
                field: "header.sample.type", value: sample.type.rawValue,
                expected: "a route saved by an app: the owner reads routes (salusctl workouts route) but does not save them")
        }
        try await authorizationCall { try authorization.checkShare(caller, types: [sample.type.rawValue]) }
        var index = 1
        while let message = try await iterator.next() {
            guard case .locations(let batch) = message.part else {
                throw RPCError.invalidArgument(
                    field: "messages[\(index)]", value: "a header", expected: "a chunk of locations: only the first message is a header")
            }
            guard batch.locations.count <= Self.maximumChunkLocations else {
                throw RPCError.invalidArgument(
                    field: "messages[\(index)].locations", value: "\(batch.locations.count) locations",
                    expected: "at most \(Self.maximumChunkLocations) locations per chunk")
            }
            guard route.locations.count + batch.locations.count <= WorkoutRouteValue.maximumLocationCount else {
                let limit = WorkoutRouteValue.maximumLocationCount
                throw RPCError(
                    code: .resourceExhausted, message: "locations: more than a route's limit of \(limit) locations",
                    reason: .resourceExhausted, field: "locations", value: "more than \(limit) locations",
                    expected: "at most \(limit) locations in a route")
            }
            // Counted against the app's buffered bytes until the call ends (rule 1).
            try context.reserveBuffer(batch.locations.count * MemoryLayout<RouteLocation>.stride, for: "the locations of routes being saved")
            route.locations += batch.locations.map(RouteLocation.init(wire:))
            index += 1
        }
        try Task.checkCancellation()
        route.locationCount = route.locations.count
        sample.value = .workoutRoute(route)
        let prepared = registry.catalog.prepareForSaving(sample, at: "header.sample")
        sample = prepared.sample
        if var error = prepared.errors.first {
            error.field = Self.renamed(error.field)
            throw RPCError.from(error)
        }
        try await Self.checkWorkouts(
            [sample], store: store, authorization: authorization, caller: caller,
            field: { _ in "header.sample.workoutRoute.workoutUuid" }, route: { _ in "header.sample.workoutRoute" },
            renamed: Self.renamed)
        let response: SaveResponse
        do {
            response = try await store.save([sample], source: source, options: SaveOptions(uuidPolicy: .assign))
        } catch let error as StoreError {
            guard let field = error.field else { throw RPCError.from(error) }
            throw RPCError.from(
                StoreError(
                    code: error.code, field: Self.renamed(field), value: error.value, expected: error.expected,
                    sampleIndex: error.sampleIndex, reason: error.reason))
        }
        var reply = Salus_V1_SaveRouteResponse()
        reply.anchor = response.anchor.rawValue
        if let result = response.results.first { reply.result = StoreService.wire(result) }
        return reply
    }

    /// A field path of the checked sample ("header.sample…", or the store's "samples[0]…")
    /// relative to this call: "locations[3].latitude" for a location, whose index counts every
    /// location streamed; "header.sample.…" for the rest of the sample.
    static func renamed(_ field: String) -> String {
        for prefix in ["header.sample.workoutRoute.locations", "samples[0].workoutRoute.locations"] where field.hasPrefix(prefix) {
            return "locations" + field.dropFirst(prefix.count)
        }
        if field.hasPrefix("samples[0]") { return "header.sample" + field.dropFirst("samples[0]".count) }
        return field
    }

    func readRoute(_ request: Salus_V1_ReadRouteRequest, writer: RPCWriter<Salus_V1_RouteLocationBatch>, caller: Caller)
        async throws
    {
        guard let uuid = WireUUID.uuid(request.uuid) else {
            throw RPCError.invalidArgument(
                field: "uuid", value: "\(request.uuid.count) bytes", expected: "16 bytes: a workout route's UUID")
        }
        let start = request.optionalStart != nil ? WireDate.date(request.start) : nil
        let end = request.optionalEnd != nil ? WireDate.date(request.end) : nil
        if let start, let end, end < start {
            throw RPCError.invalidArgument(
                field: "end", value: "\(request.end)", expected: "a time not before start (\(request.start))")
        }
        _ = try await authorization.readableSample(uuid, of: .workoutRoute, named: "a workout route", in: store, caller: caller)
        try await storeCall {
            for try await chunk in try store.routeLocations(of: uuid, from: start, to: end) {
                var batch = Salus_V1_RouteLocationBatch()
                batch.firstIndex = UInt64(chunk.firstIndex)
                batch.locations = chunk.locations.map(\.wire)
                try await writer.write(batch)
            }
        }
    }
}
