import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire
import SwiftProtobuf

/// A workout recorded while it happens, as HealthKit's `HKWorkoutBuilder`: begin collection, add
/// samples, events, metadata and activities, end collection, then finish (the workout and every
/// sample added are saved in one transaction) or discard (nothing is saved).
///
/// ```swift
/// let builder = try await WorkoutBuilder.begin(
///     healthStore: store, activityType: WorkoutActivityType.swimBikeRun, start: start)
/// try await builder.beginActivity(WorkoutActivityType.swimming, at: start)
/// try await builder.add(heartRateSamples)
/// try await builder.endCollection(at: end)
/// let workout = try await builder.finishWorkout()
/// ```
///
/// The daemon keeps the builder in its database: after a restart of the daemon (or of the app),
/// ``inProgress(healthStore:)`` or ``init(healthStore:id:)`` picks it up where it was. A builder
/// is its app's alone. Every change is checked as it is made, against the workout rules
/// (docs/workouts.md) and the share permission of each sample's type: a refusal names the field
/// and the value, and changes nothing.
public struct WorkoutBuilder: Sendable {
    /// The builder's id: keep it to recover the builder (``init(healthStore:id:)``).
    public let id: UUID
    let client: RPCClient

    /// The builder with this id, as `Begin` returned it earlier (no call is made).
    public init(healthStore: HealthStore, id: UUID) {
        self.id = id
        self.client = healthStore.client
    }

    /// What a builder holds now.
    public struct Snapshot: Sendable {
        /// The recording: phase, start, end, metadata, events, activities (the open one without
        /// an end date).
        public var recording: WorkoutRecording
        /// The workout so far with the statistics of the samples added (`allStatistics` of the
        /// workout and of each activity).
        public var workout: Workout
        /// How many samples were added.
        public var sampleCount: Int
    }

    /// Begins collection (`beginCollection(withStart:)`) of a new builder for a workout of
    /// `activityType` (HealthKit's raw value). Needs share permission for workouts.
    public static func begin(
        healthStore: HealthStore, activityType: UInt, configuration: WorkoutConfiguration = WorkoutConfiguration(),
        start: Date, device: Device? = nil
    ) async throws(SalusError) -> WorkoutBuilder {
        var request = Salus_V1_BeginWorkoutRequest()
        request.activityType = UInt32(clamping: activityType)
        request.configuration = configuration.wire
        request.startDate = WireDate.microseconds(start)
        if let device { request.device = device.wire }
        let state: Salus_V1_WorkoutBuilderState = try await mappingErrors {
            try await healthStore.client.unary(SalusMethods.WorkoutBuilder.begin, request: request)
        }
        guard let id = WireUUID.uuid(state.builderID) else {
            throw SalusError.malformed(field: "builderID", value: "\(state.builderID.count) bytes", expected: "16 bytes")
        }
        return WorkoutBuilder(healthStore: healthStore, id: id)
    }

    /// The app's builders neither finished nor discarded: what to pick up after a restart.
    public static func inProgress(healthStore: HealthStore) async throws(SalusError) -> [WorkoutBuilder] {
        let response: Salus_V1_ListWorkoutBuildersResponse = try await mappingErrors {
            try await healthStore.client.unary(SalusMethods.WorkoutBuilder.list, request: Salus_V1_ListWorkoutBuildersRequest())
        }
        return response.builders.compactMap { state in
            WireUUID.uuid(state.builderID).map { WorkoutBuilder(healthStore: healthStore, id: $0) }
        }
    }

    /// The builder as it is now, with the live statistics of what was added.
    public func snapshot() async throws(SalusError) -> Snapshot {
        var request = Salus_V1_WorkoutBuilderRef()
        request.builderID = WireUUID.bytes(id)
        return try Self.snapshot(try await call(SalusMethods.WorkoutBuilder.get, request))
    }

    /// Adds samples, saved with the workout when it is finished (`add(_:)`); each needs share
    /// permission for its type. Workouts cannot be added.
    @discardableResult
    public func add(_ samples: [Sample]) async throws(SalusError) -> Snapshot {
        var request = Salus_V1_AddWorkoutSamplesRequest()
        request.builderID = WireUUID.bytes(id)
        request.samples = samples.map(\.wireForSaving)
        return try Self.snapshot(try await call(SalusMethods.WorkoutBuilder.addSamples, request))
    }

    /// Adds events: laps, markers, segments, pauses and resumes (`addWorkoutEvents(_:)`).
    @discardableResult
    public func addWorkoutEvents(_ events: [WorkoutEvent]) async throws(SalusError) -> Snapshot {
        var request = Salus_V1_AddWorkoutEventsRequest()
        request.builderID = WireUUID.bytes(id)
        request.events = Workout(activityType: 0, events: events).wire().events
        return try Self.snapshot(try await call(SalusMethods.WorkoutBuilder.addEvents, request))
    }

    /// Merges `metadata` into the workout's (`addMetadata(_:)`).
    @discardableResult
    public func addMetadata(_ metadata: [String: MetadataValue]) async throws(SalusError) -> Snapshot {
        var request = Salus_V1_AddWorkoutMetadataRequest()
        request.builderID = WireUUID.bytes(id)
        request.metadata = metadata.mapValues(\.wire)
        return try Self.snapshot(try await call(SalusMethods.WorkoutBuilder.addMetadata, request))
    }

    /// Begins an activity at `date`; the open activity ends there, as
    /// `HKWorkoutSession.beginNewActivity(configuration:date:metadata:)` does. Its type must suit
    /// the workout: a swimBikeRun's legs are swimming, cycling, running or transition; any other
    /// workout's activities have its own type.
    @discardableResult
    public func beginActivity(
        _ activityType: UInt, configuration: WorkoutConfiguration = WorkoutConfiguration(), at date: Date,
        metadata: [String: MetadataValue] = [:]
    ) async throws(SalusError) -> Snapshot {
        var request = Salus_V1_BeginWorkoutActivityRequest()
        request.builderID = WireUUID.bytes(id)
        request.activityType = UInt32(clamping: activityType)
        request.configuration = configuration.wire
        request.startDate = WireDate.microseconds(date)
        request.metadata = metadata.mapValues(\.wire)
        return try Self.snapshot(try await call(SalusMethods.WorkoutBuilder.beginActivity, request))
    }

    /// Ends the open activity at `date` (`endCurrentActivity(on:)`).
    @discardableResult
    public func endActivity(at date: Date) async throws(SalusError) -> Snapshot {
        var request = Salus_V1_EndWorkoutActivityRequest()
        request.builderID = WireUUID.bytes(id)
        request.endDate = WireDate.microseconds(date)
        return try Self.snapshot(try await call(SalusMethods.WorkoutBuilder.endActivity, request))
    }

    /// Ends collection at `date` (`endCollection(withEnd:)`): nothing more can be added.
    @discardableResult
    public func endCollection(at date: Date) async throws(SalusError) -> Snapshot {
        var request = Salus_V1_EndWorkoutCollectionRequest()
        request.builderID = WireUUID.bytes(id)
        request.endDate = WireDate.microseconds(date)
        return try Self.snapshot(try await call(SalusMethods.WorkoutBuilder.endCollection, request))
    }

    /// Saves the workout with its activities and events and every sample added, in one
    /// transaction (`finishWorkout()`), and returns the saved workout with its statistics. The
    /// builder is gone afterwards. Refused (`failedPrecondition`, field `phase`) before
    /// ``endCollection(at:)``.
    public func finishWorkout() async throws(SalusError) -> Sample {
        var request = Salus_V1_WorkoutBuilderRef()
        request.builderID = WireUUID.bytes(id)
        let response: Salus_V1_FinishWorkoutResponse = try await call(SalusMethods.WorkoutBuilder.finish, request)
        return try Sample(received: response.workout, path: "workout")
    }

    /// Drops the builder and everything added to it; nothing is saved (`discardWorkout()`).
    /// Returns how many added samples were dropped.
    @discardableResult
    public func discardWorkout() async throws(SalusError) -> Int {
        var request = Salus_V1_WorkoutBuilderRef()
        request.builderID = WireUUID.bytes(id)
        let response: Salus_V1_DiscardWorkoutResponse = try await call(SalusMethods.WorkoutBuilder.discard, request)
        return Int(clamping: response.droppedSamples)
    }

    /// Seconds from the start to `date` (at most the end) that the workout was not paused
    /// (`elapsedTime(at:)`).
    public func elapsedTime(at date: Date) async throws(SalusError) -> TimeInterval {
        var request = Salus_V1_ElapsedTimeRequest()
        request.builderID = WireUUID.bytes(id)
        request.date = WireDate.microseconds(date)
        let response: Salus_V1_ElapsedTimeResponse = try await call(SalusMethods.WorkoutBuilder.elapsedTime, request)
        return response.seconds
    }

    private func call<Request, Response>(
        _ method: UnaryMethod<Request, Response>, _ request: Request
    ) async throws(SalusError) -> Response {
        try await mappingErrors { try await client.unary(method, request: request) }
    }

    /// The snapshot a state holds.
    static func snapshot(_ state: Salus_V1_WorkoutBuilderState) throws(SalusError) -> Snapshot {
        let recording: WorkoutRecording
        do {
            recording = try WorkoutRecording(wire: state)
        } catch {
            throw SalusError.malformed(field: error.field, value: error.value, expected: error.expected)
        }
        let sample = try Sample(received: state.workout, path: "builder.workout")
        guard case .workout(let workout) = sample.value else {
            throw SalusError.malformed(field: "builder.workout.value", value: "\(sample.kind)", expected: "a workout")
        }
        return Snapshot(recording: recording, workout: workout, sampleCount: Int(clamping: state.sampleCount))
    }
}
