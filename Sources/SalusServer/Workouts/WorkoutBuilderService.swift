import Foundation
import Logging
import NIOCore
import SalusModel
import SalusPluginHost
import SalusProto
import SalusRPC
import SalusStatistics
import SalusStore
import SalusWire
import Synchronization

/// salus.v1.WorkoutBuilder: workouts recorded while they happen, as HealthKit's
/// `HKWorkoutBuilder` (docs/workouts.md, "The builder").
///
/// **Rules.**
/// 1. A builder is its app's: another app naming its id is refused (`builderID`), and a builder
///    that never existed, was finished or discarded is not found. Why: a builder holds samples
///    not yet saved, which no other app may read or change.
/// 2. Every change is checked when it is made — samples by `TypeCatalog.check` and their types'
///    share permission, events, metadata and activities by the workout rules on the workout as
///    recorded so far (`WorkoutRecording.checked(with:)`) — and a refused change changes nothing.
///    Why: the app learns of a mistake while the workout happens, not three hours later.
/// 3. The state lives in the database (`SampleStore.saveWorkoutBuilder`), written before the
///    call returns: a restarted daemon serves the builder as it was (Get, List).
/// 4. Finish saves the workout and every added sample in one transaction that also deletes the
///    builder; Discard deletes it and saves nothing.
/// 5. Changes to one builder are serialized (one at a time per service), so two calls never
///    lose each other's change.
package final class WorkoutBuilderService: Sendable {
    /// Where builders and finished workouts are kept.
    let store: SampleStore
    /// The types and the rules samples and workouts are checked against.
    let registry: TypeRegistry
    /// Who may write which types.
    let authorization: AuthorizationEngine
    /// Makes changes to builders one at a time (rule 5).
    let lock = AsyncLock()
    /// What live statistics need of the samples added to each builder used since the daemon
    /// started: statistics are computed after every change and for every observer, and
    /// decoding and converting a three-hour workout's samples each time would cost more than the
    /// change. Set only under `lock` (or when absent), dropped on finish and discard; the
    /// database stays the truth.
    let added = Mutex<[UUID: AddedSamples]>([:])
    /// Announces each change of a builder and each session update, in the order made: what
    /// the session service streams to its observers.
    let changes = Broadcast<WorkoutChange>()

    /// A service over `store`, checked by `authorization`.
    package init(store: SampleStore, registry: TypeRegistry, authorization: AuthorizationEngine) {
        self.store = store
        self.registry = registry
        self.authorization = authorization
    }

    /// Adds the service's methods to `router` (the app socket's).
    package func register(into router: inout RPCRouter) {
        typealias Methods = SalusMethods.WorkoutBuilder
        router.registerUnary(Methods.begin, onEventLoop: false) { (request: Salus_V1_BeginWorkoutRequest, context) in
            try await self.begin(request, caller: try Caller.resolve(context))
        }
        router.registerUnary(Methods.get, onEventLoop: false) { (request: Salus_V1_WorkoutBuilderRef, context) in
            try await self.state(request.builderID, caller: try Caller.resolve(context))
        }
        router.registerUnary(Methods.list, onEventLoop: false) { (_: Salus_V1_ListWorkoutBuildersRequest, context) in
            try await self.list(caller: try Caller.resolve(context))
        }
        router.registerUnary(Methods.addSamples, onEventLoop: false) { (payload: ByteBuffer, context) in
            try await self.addSamples(payload: payload, caller: try Caller.resolve(context))
        }
        router.registerUnary(Methods.addEvents, onEventLoop: false) { (request: Salus_V1_AddWorkoutEventsRequest, context) in
            let caller = try Caller.resolve(context)
            let events = try Self.events(request.events)
            return try await self.change(request.builderID, caller: caller) { (recording) throws(ValidationError) in try recording.addingEvents(events) }
        }
        router.registerUnary(Methods.addMetadata, onEventLoop: false) { (request: Salus_V1_AddWorkoutMetadataRequest, context) in
            let caller = try Caller.resolve(context)
            let metadata = try wireCall { () throws(ValidationError) in
                try MetadataValue.dictionary(wire: request.metadata, path: "metadata")
            }
            return try await self.change(request.builderID, caller: caller) { (recording) throws(ValidationError) in try recording.addingMetadata(metadata) }
        }
        router.registerUnary(Methods.beginActivity, onEventLoop: false) { (request: Salus_V1_BeginWorkoutActivityRequest, context) in
            let caller = try Caller.resolve(context)
            let activity = try wireCall { () throws(ValidationError) in
                WorkoutActivity(
                    activityType: UInt(request.activityType),
                    configuration: try WorkoutConfiguration(wire: request.configuration, path: "configuration"),
                    startDate: WireDate.date(request.startDate),
                    metadata: try MetadataValue.dictionary(wire: request.metadata, path: "metadata"))
            }
            return try await self.change(request.builderID, caller: caller) { (recording) throws(ValidationError) in try recording.beginningActivity(activity) }
        }
        router.registerUnary(Methods.endActivity, onEventLoop: false) { (request: Salus_V1_EndWorkoutActivityRequest, context) in
            let caller = try Caller.resolve(context)
            return try await self.change(request.builderID, caller: caller) { (recording) throws(ValidationError) in
                try recording.endingActivity(at: WireDate.date(request.endDate))
            }
        }
        router.registerUnary(Methods.endCollection, onEventLoop: false) { (request: Salus_V1_EndWorkoutCollectionRequest, context) in
            let caller = try Caller.resolve(context)
            return try await self.change(request.builderID, caller: caller) { (recording) throws(ValidationError) in
                try recording.endingCollection(at: WireDate.date(request.endDate))
            }
        }
        router.registerUnary(Methods.finish, onEventLoop: false) { (request: Salus_V1_WorkoutBuilderRef, context) in
            try await self.finish(request.builderID, caller: try Caller.resolve(context))
        }
        router.registerUnary(Methods.discard, onEventLoop: false) { (request: Salus_V1_WorkoutBuilderRef, context) in
            try await self.discard(request.builderID, caller: try Caller.resolve(context))
        }
        router.registerUnary(Methods.elapsedTime, onEventLoop: false) { (request: Salus_V1_ElapsedTimeRequest, context) in
            let caller = try Caller.resolve(context)
            let (_, recording) = try await self.load(request.builderID, caller: caller, includingSamples: false)
            var response = Salus_V1_ElapsedTimeResponse()
            response.seconds = recording.elapsedTime(at: WireDate.date(request.date))
            return response
        }
    }

    /// The environment variable that, set to 1, makes the daemon stop inside the transaction
    /// that finishes a workout builder, after a line on standard error, until it is killed: the
    /// crash-safety test kills it there and checks that nothing of the workout was saved.
    package static let holdFinishVariable = "SALUSD_HOLD_WORKOUT_FINISH"

    /// The store's finish hook `environment` asks for (`holdFinishVariable`); nil in use.
    package static func finishHold(
        logger: Logger, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> (@Sendable () -> Void)? {
        guard environment[holdFinishVariable] == "1" else { return nil }
        logger.warning("\(holdFinishVariable)=1: a workout finish will stop before its commit until the daemon is killed")
        return {
            FileHandle.standardError.write(Data("salusd: holding a workout finish before its commit\n".utf8))
            while true { sleep(3600) }
        }
    }

    // MARK: Calls

    /// `Begin`: a new builder collecting from the request's start, for the caller's app.
    func begin(_ request: Salus_V1_BeginWorkoutRequest, caller: Caller) async throws -> Salus_V1_WorkoutBuilderState {
        try await authorizationCall { try authorization.checkShare(caller, types: [WorkoutRecording.workoutType.rawValue]) }
        let recording = try wireCall { () throws(ValidationError) in
            try WorkoutRecording(
                activityType: UInt(request.activityType),
                configuration: try WorkoutConfiguration(wire: request.configuration, path: "configuration"),
                startDate: WireDate.date(request.startDate),
                device: request.hasDevice ? Device(wire: request.device) : nil
            ).checked(with: registry.catalog)
        }
        return try await lock.run {
            try await save(recording, caller: caller)
            return try await state(of: recording, samples: AddedSamples(), source: caller.sourceRevision)
        }
    }

    /// Begins a builder for a session's app (the session service's start); see `begin`.
    func begin(activityType: UInt, configuration: WorkoutConfiguration, at start: Date, caller: Caller) async throws -> WorkoutRecording {
        try await authorizationCall { try authorization.checkShare(caller, types: [WorkoutRecording.workoutType.rawValue]) }
        let recording = try wireCall { () throws(ValidationError) in
            try WorkoutRecording(activityType: activityType, configuration: configuration, startDate: start)
                .checked(with: registry.catalog)
        }
        try await lock.run { try await save(recording, caller: caller) }
        return recording
    }

    /// `AddSamples`: the samples checked, their types' share permission checked, then kept with
    /// the builder (rule 2). Its samples are decoded and converted one at a time, as a save's are (`StoreService.samples(of:source:now:)`): decoded whole, two million empty
    /// samples took salusd's memory up by 969 MiB before the first was refused.
    func addSamples(payload: ByteBuffer, caller: Caller) async throws -> Salus_V1_WorkoutBuilderState {
        let source = caller.sourceRevision
        let (builderID, read) = try Self.samples(of: payload, source: source)
        var samples = read
        try wireCall { () throws(ValidationError) in
            samples = try registry.catalog.prepareForSaving(samples)
        }
        try await authorizationCall { try authorization.checkShare(caller, types: StoreService.typesWritten(by: samples)) }
        let encoded = try samples.map { sample -> [UInt8] in try sample.wire.serializedBytes() }
        return try await lock.run {
            let (_, recording) = try await load(builderID, caller: caller, includingSamples: false)
            let earlier = try await addedSamples(recording.id, source: source)
            try wireCall { () throws(ValidationError) in try recording.requireCollecting("samples") }
            try await storeCall {
                try await store.saveWorkoutBuilder(
                    id: recording.id, appID: caller.appID, state: try recording.wire(source: source).serializedBytes(),
                    appending: encoded)
            }
            changes.publish(.builder(recording.id))
            let all = earlier.adding(samples, catalog: registry.catalog)
            added.withLock { $0[recording.id] = all }
            return try await state(of: recording, samples: all, source: source)
        }
    }

    /// The builder id and the samples of an encoded `AddWorkoutSamplesRequest`, read as a
    /// save's (`StoreService.samples(of:source:now:)`): each sample decoded and converted in
    /// turn, with the errors, and their order, of decoding the whole request.
    static func samples(of payload: ByteBuffer, source: SourceRevision) throws(RPCError) -> (builderID: Data, samples: [Sample]) {
        try payload.withUnsafeReadableBytes { bytes throws(RPCError) -> (builderID: Data, samples: [Sample]) in
            var builderID = Data()
            var reading = StoreService.SampleReading()
            try StoreService.readFields(Salus_V1_AddWorkoutSamplesRequest.self, bytes) { number, range throws(RPCError) in
                switch number {
                case 1: builderID = Data(UnsafeRawBufferPointer(rebasing: bytes[range]))
                case 2:
                    try reading.add(bytes, range, of: Salus_V1_AddWorkoutSamplesRequest.self) { wire, index throws(ValidationError) in
                        let sample = try Sample(wire: wire, path: "samples[\(index)]", source: source)
                        if sample.kind == .workout {
                            throw ValidationError(
                                reason: .wrongKind, field: "samples[\(index)].type", value: sample.type.rawValue,
                                expected: "a sample recorded during the workout; the builder makes the workout itself")
                        }
                        return sample
                    }
                default: break
                }
            }
            return (builderID, try reading.result())
        }
    }

    /// Applies `body` to the builder's recording, checks the result against the workout rules,
    /// keeps it, and returns the new state.
    func change(
        _ id: Data, caller: Caller, _ body: @Sendable (WorkoutRecording) throws(ValidationError) -> WorkoutRecording
    ) async throws -> Salus_V1_WorkoutBuilderState {
        try await lock.run {
            let (_, recording) = try await load(id, caller: caller, includingSamples: false)
            let next = try wireCall { () throws(ValidationError) in try body(recording).checked(with: registry.catalog) }
            try await save(next, caller: caller)
            changes.publish(.builder(next.id))
            let samples = try await addedSamples(next.id, source: caller.sourceRevision)
            return try await state(of: next, samples: samples, source: caller.sourceRevision)
        }
    }

    /// Changes the recording of builder `id` for the session service; nil when it is gone.
    func change(
        _ id: UUID, caller: Caller, _ body: @Sendable (WorkoutRecording) throws(ValidationError) -> WorkoutRecording
    ) async throws {
        _ = try await change(WireUUID.bytes(id), caller: caller, body)
    }

    /// `Finish`: the workout and every sample added saved in one transaction that deletes the
    /// builder (rule 4), returned as a sample query returns it.
    func finish(_ id: Data, caller: Caller) async throws -> Salus_V1_FinishWorkoutResponse {
        try await lock.run {
            let (stored, recording) = try await load(id, caller: caller, includingSamples: true)
            try wireCall { () throws(ValidationError) in try recording.requireEnded() }
            let source = caller.sourceRevision
            let samples = try decode(stored.samples, source: caller.sourceRevision)
            let workout = recording.sample(source: source, closingOpenActivity: true)
            let all = try wireCall { () throws(ValidationError) in try registry.catalog.prepareForSaving(samples + [workout]) }
            try await authorizationCall { try authorization.checkShare(caller, types: StoreService.typesWritten(by: all)) }
            let saved = try await storeCall {
                try await store.save(
                    all, source: source, options: SaveOptions(uuidPolicy: .assign, finishingWorkoutBuilder: recording.id))
            }
            added.withLock { _ = $0.removeValue(forKey: recording.id) }
            changes.publish(.builder(recording.id))
            var response = Salus_V1_FinishWorkoutResponse()
            response.anchor = saved.anchor.rawValue
            response.sampleUuids = saved.results.dropLast().map { WireUUID.bytes($0.uuid) }
            if let uuid = saved.results.last?.uuid, let sample = try await storeCall({ try await store.sample(uuid: uuid) }) {
                let reader = StoreService(store: store, registry: registry, authorization: authorization)
                response.workout = try await reader.completingWorkouts([sample], for: caller)[0].wire
            }
            return response
        }
    }

    /// `Discard`: the builder and its samples deleted; nothing saved.
    func discard(_ id: Data, caller: Caller) async throws -> Salus_V1_DiscardWorkoutResponse {
        try await lock.run {
            let (_, recording) = try await load(id, caller: caller, includingSamples: false)
            let dropped = try await storeCall { try await store.discardWorkoutBuilder(id: recording.id) }
            added.withLock { _ = $0.removeValue(forKey: recording.id) }
            changes.publish(.builder(recording.id))
            var response = Salus_V1_DiscardWorkoutResponse()
            response.droppedSamples = UInt64(dropped ?? 0)
            return response
        }
    }

    /// `List`: the caller's builders in progress, oldest first.
    func list(caller: Caller) async throws -> Salus_V1_ListWorkoutBuildersResponse {
        let ids = try await storeCall { try await store.workoutBuilderIDs(appID: caller.appID) }
        var response = Salus_V1_ListWorkoutBuildersResponse()
        for id in ids {
            // A builder finished or discarded since the list was read is left out.
            if let state = try? await state(WireUUID.bytes(id), caller: caller) { response.builders.append(state) }
        }
        return response
    }

    /// The state of builder `id` as its app `appID` sees it, with live statistics, whoever
    /// asks (a session's observers); nil when it is gone.
    func state(ofBuilder id: UUID, appID: String) async throws -> Salus_V1_WorkoutBuilderState? {
        guard let stored = try await store.workoutBuilder(id: id, includingSamples: false) else { return nil }
        let source = SourceRevision(appID: stored.appID, name: stored.appID)
        let wire = try Salus_V1_WorkoutBuilderState(serializedBytes: stored.state)
        let recording = try wireCall { () throws(ValidationError) in try WorkoutRecording(wire: wire) }
        return try await state(of: recording, samples: try await addedSamples(id, source: source), source: source)
    }

    /// The builder's state with the live statistics of its samples.
    func state(_ id: Data, caller: Caller) async throws -> Salus_V1_WorkoutBuilderState {
        let (_, recording) = try await load(id, caller: caller, includingSamples: false)
        let samples = try await addedSamples(recording.id, source: caller.sourceRevision)
        return try await state(of: recording, samples: samples, source: caller.sourceRevision)
    }

    // MARK: Parts

    /// The builder `id` names, refused naming `builderID` when the id is malformed, unknown
    /// (never begun, finished or discarded) or another app's.
    func load(_ id: Data, caller: Caller, includingSamples: Bool) async throws -> (StoredWorkoutBuilder, WorkoutRecording) {
        guard let uuid = WireUUID.uuid(id) else {
            throw RPCError.invalidArgument(
                field: "builderID", value: "\(id.count) bytes", expected: "16 bytes: the id Begin returned")
        }
        let stored = try await storeCall { try await store.workoutBuilder(id: uuid, includingSamples: includingSamples) }
        guard let stored else {
            throw RPCError(
                code: .notFound, message: "builderID: \(uuid.uuidString) is not a workout builder in progress",
                reason: .notFound, field: "builderID", value: uuid.uuidString,
                expected: "the id of a builder this app began and has neither finished nor discarded")
        }
        guard stored.appID == caller.appID else {
            throw RPCError(
                code: .permissionDenied, message: "builderID: \(uuid.uuidString) is another app's workout builder",
                reason: .permissionDenied, field: "builderID", value: uuid.uuidString,
                expected: "a builder \(caller.appID) began: a builder is its app's alone")
        }
        let wire = try Salus_V1_WorkoutBuilderState(serializedBytes: stored.state)
        let recording = try wireCall { () throws(ValidationError) in try WorkoutRecording(wire: wire) }
        return (stored, recording)
    }

    /// The samples added to builder `id` (see `added`), read from the store the first time.
    func addedSamples(_ id: UUID, source: SourceRevision) async throws -> AddedSamples {
        if let known = added.withLock({ $0[id] }) { return known }
        let stored = try await storeCall { try await store.workoutBuilder(id: id, includingSamples: true) }
        let samples = AddedSamples().adding(try decode(stored?.samples ?? [], source: source), catalog: registry.catalog)
        // A change made meanwhile under the lock has set the newer list: keep it.
        return added.withLock { cache in
            if let newer = cache[id] { return newer }
            if stored != nil { cache[id] = samples }
            return samples
        }
    }

    /// Keeps `recording` as the builder's state, for the caller's app.
    func save(_ recording: WorkoutRecording, caller: Caller) async throws {
        let bytes: [UInt8] = try recording.wire(source: caller.sourceRevision).serializedBytes()
        try await storeCall { try await store.saveWorkoutBuilder(id: recording.id, appID: caller.appID, state: bytes) }
    }

    /// The samples kept with a builder, as `source` saves them.
    func decode(_ stored: [[UInt8]], source: SourceRevision) throws -> [Sample] {
        return try stored.enumerated().map { index, bytes in
            let wire = try Salus_V1_Sample(serializedBytes: bytes)
            return try wireCall { () throws(ValidationError) in
                try Sample(wire: wire, path: "samples[\(index)]", source: source)
            }
        }
    }

    /// `recording`'s wire state with the statistics of `samples` over the workout and each
    /// activity (the app's own samples, which it may always read back).
    func state(of recording: WorkoutRecording, samples: AddedSamples, source: SourceRevision) async throws -> Salus_V1_WorkoutBuilderState {
        // While collecting, the workout so far reaches the latest sample added too.
        let end = recording.endDate ?? max(recording.latestDate, samples.latestEnd ?? recording.startDate)
        let figures = WorkoutFigures(styles: samples.styles).completing(
            recording.workout, from: recording.startDate, to: end, entries: samples.entries)
        return recording.wire(source: source, statistics: figures, sampleCount: samples.count)
    }

    /// The events of a request, their fields named under `events[i]`.
    static func events(_ wire: [Salus_V1_WorkoutEvent]) throws(RPCError) -> [WorkoutEvent] {
        try wireCall { () throws(ValidationError) in
            try wire.enumerated().map { index, event throws(ValidationError) in
                WorkoutEvent(
                    type: Int(event.type), startDate: WireDate.date(event.startDate),
                    endDate: WireDate.date(event.endDate == 0 ? event.startDate : event.endDate),
                    metadata: try MetadataValue.dictionary(wire: event.metadata, path: "events[\(index)].metadata"))
            }
        }
    }
}

/// Runs model work, turning its refusals into wire errors: a change to a builder whose
/// collection has ended, or a finish before it has, is FAILED_PRECONDITION; every other
/// refusal INVALID_ARGUMENT; both name field, value and what was expected.
func wireCall<T>(_ body: () throws(ValidationError) -> T) throws(RPCError) -> T {
    do {
        return try body()
    } catch {
        var mapped = RPCError.from(error)
        if error.reason == .collectionEnded || error.reason == .collectionNotEnded {
            mapped.code = .failedPrecondition
        }
        throw mapped
    }
}

/// A change the workout services announce: a builder changed (its live statistics), or a
/// session moved.
enum WorkoutChange: Sendable {
    /// The builder with this id changed.
    case builder(UUID)
    /// A session moved; the update observers get.
    case session(Salus_V1_WorkoutSessionUpdate)
}

/// What live statistics need of the samples added to a builder: each quantity sample as an entry
/// in its type's canonical unit, how each type aggregates, how many samples, the latest end.
struct AddedSamples: Sendable {
    /// The quantity samples, in canonical units.
    var entries: [WorkoutFigures.Entry] = []
    /// Each entry type's aggregation style and canonical unit.
    var styles: [TypeIdentifier: (style: AggregationStyle, unit: SalusUnit)] = [:]
    /// How many samples were added, of every kind.
    var count = 0
    /// The latest end of a sample added.
    var latestEnd: Date?

    /// These samples and `samples`, their types' rules read from `catalog`.
    func adding(_ samples: [Sample], catalog: TypeCatalog) -> AddedSamples {
        var next = self
        next.count += samples.count
        for sample in samples {
            next.latestEnd = max(next.latestEnd ?? sample.endDate, sample.endDate)
            guard case .quantity(let quantity) = sample.value, let rules = catalog.rules(for: sample.type),
                let unit = rules.canonicalUnit, let value = try? quantity.doubleValue(for: unit)
            else { continue }
            next.styles[sample.type] = (rules.aggregationStyle ?? .discreteArithmetic, unit)
            next.entries.append(WorkoutFigures.Entry(type: sample.type, start: sample.startDate, end: sample.endDate, value: value))
        }
        return next
    }
}
