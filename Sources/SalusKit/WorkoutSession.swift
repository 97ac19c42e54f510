import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire
import SwiftProtobuf

/// A workout session, as HealthKit's `HKWorkoutSession`: notStarted → prepared → running ⇄
/// paused → stopped → ended. One session is active (running, paused or stopped) at a time for
/// the person; a second start is refused naming the one that is active.
///
/// ```swift
/// let session = try await WorkoutSession.create(healthStore: store, activityType: WorkoutActivityType.running)
/// try await session.startActivity(at: start)
/// let builder = try await session.builder()      // samples, events and activities go here
/// try await session.pause(at: later)             // adds a pause event to the builder
/// ```
///
/// Starting begins the session's ``WorkoutBuilder``; pausing and resuming add pause and resume
/// events to it; ending ends its collection — the app then finishes or discards the builder.
/// ``stateChanges()`` streams every change and the builder's live statistics; another device of
/// the app, or an app that may read every app's workouts, mirrors the session with
/// ``init(healthStore:id:)`` or ``active(healthStore:)``.
public struct WorkoutSession: Sendable {
    /// The session's id.
    public let id: UUID
    let healthStore: HealthStore

    /// The session with this id (no call is made): to mirror a session another device started.
    public init(healthStore: HealthStore, id: UUID) {
        self.id = id
        self.healthStore = healthStore
    }

    /// A session as it is.
    public struct Info: Sendable, Hashable {
        /// The app that created it.
        public var appID: String
        /// Its state.
        public var state: WorkoutSessionState
        /// The workout's activity type.
        public var activityType: UInt
        /// Its builder, once started.
        public var builderID: UUID?
        /// When it started.
        public var startDate: Date?
        /// When it ended.
        public var endDate: Date?
    }

    /// One update of a session: a change of state (with the state before), or new live
    /// statistics of its builder.
    public struct Update: Sendable {
        /// The session after the update.
        public var info: Info
        /// The state before, when the update is a change of state.
        public var from: WorkoutSessionState?
        /// When the change happened.
        public var date: Date?
        /// The builder with its live statistics, once the session has started and while the
        /// builder is neither finished nor discarded.
        public var builder: WorkoutBuilder.Snapshot?
    }

    /// A new session, notStarted. Needs share permission for workouts.
    public static func create(
        healthStore: HealthStore, activityType: UInt, configuration: WorkoutConfiguration = WorkoutConfiguration()
    ) async throws(SalusError) -> WorkoutSession {
        var request = Salus_V1_CreateWorkoutSessionRequest()
        request.activityType = UInt32(clamping: activityType)
        request.configuration = configuration.wire
        let info: Salus_V1_WorkoutSessionInfo = try await mappingErrors {
            try await healthStore.client.unary(SalusMethods.WorkoutSession.create, request: request)
        }
        guard let id = WireUUID.uuid(info.sessionID) else {
            throw SalusError.malformed(field: "sessionID", value: "\(info.sessionID.count) bytes", expected: "16 bytes")
        }
        return WorkoutSession(healthStore: healthStore, id: id)
    }

    /// The active session (running, paused or stopped) this app may see, or nil: what a second
    /// device mirrors.
    public static func active(healthStore: HealthStore) async throws(SalusError) -> WorkoutSession? {
        do {
            let info: Salus_V1_WorkoutSessionInfo = try await mappingErrors {
                try await healthStore.client.unary(SalusMethods.WorkoutSession.get, request: Salus_V1_WorkoutSessionRef())
            }
            return WireUUID.uuid(info.sessionID).map { WorkoutSession(healthStore: healthStore, id: $0) }
        } catch where error.code == .notFound {
            return nil
        }
    }

    /// The session as it is now.
    public func info() async throws(SalusError) -> Info {
        var request = Salus_V1_WorkoutSessionRef()
        request.sessionID = WireUUID.bytes(id)
        let info: Salus_V1_WorkoutSessionInfo = try await mappingErrors {
            try await healthStore.client.unary(SalusMethods.WorkoutSession.get, request: request)
        }
        return try Self.info(info)
    }

    /// The session's builder, once started (nil before).
    public func builder() async throws(SalusError) -> WorkoutBuilder? {
        try await info().builderID.map { WorkoutBuilder(healthStore: healthStore, id: $0) }
    }

    /// notStarted → prepared (`prepare()`).
    @discardableResult
    public func prepare(at date: Date = Date()) async throws(SalusError) -> Info { try await move(to: .prepared, at: date) }
    /// → running: begins the builder's collection at `date` (`startActivity(with:)`).
    @discardableResult
    public func startActivity(at date: Date = Date()) async throws(SalusError) -> Info { try await move(to: .running, at: date) }
    /// running → paused: a pause event at `date` (`pause()`).
    @discardableResult
    public func pause(at date: Date = Date()) async throws(SalusError) -> Info { try await move(to: .paused, at: date) }
    /// paused → running: a resume event at `date` (`resume()`).
    @discardableResult
    public func resume(at date: Date = Date()) async throws(SalusError) -> Info { try await move(to: .running, at: date) }
    /// running or paused → stopped (`stopActivity(with:)`).
    @discardableResult
    public func stopActivity(at date: Date = Date()) async throws(SalusError) -> Info { try await move(to: .stopped, at: date) }
    /// → ended: the builder's collection ends at `date` (`end()`).
    @discardableResult
    public func end(at date: Date = Date()) async throws(SalusError) -> Info { try await move(to: .ended, at: date) }

    /// Moves the session to `state`; an illegal move is refused naming from and to
    /// (`failedPrecondition`, field `to`), a second start while another session is active names
    /// that session (`alreadyExists`, field `sessionID`).
    @discardableResult
    public func move(to state: WorkoutSessionState, at date: Date = Date()) async throws(SalusError) -> Info {
        var request = Salus_V1_ChangeWorkoutSessionStateRequest()
        request.sessionID = WireUUID.bytes(id)
        request.to = Salus_V1_WorkoutSessionState(rawValue: state.rawValue) ?? .unspecified
        request.date = WireDate.microseconds(date)
        let info: Salus_V1_WorkoutSessionInfo = try await mappingErrors {
            try await healthStore.client.unary(SalusMethods.WorkoutSession.change, request: request)
        }
        return try Self.info(info)
    }

    /// The session's current state first, then every update in order, until the session has
    /// ended (or the sequence is dropped).
    public func stateChanges() -> AsyncThrowingStream<Update, any Error> {
        let sessionID = WireUUID.bytes(id)
        let client = healthStore.client
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var request = Salus_V1_WorkoutSessionRef()
                    request.sessionID = sessionID
                    let stream = try client.serverStreaming(
                        SalusMethods.WorkoutSession.observe, request: request)
                    for try await wire in stream {
                        continuation.yield(try Self.update(wire))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: SalusError.from(error))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    static func info(_ wire: Salus_V1_WorkoutSessionInfo) throws(SalusError) -> Info {
        guard let state = WorkoutSessionState(rawValue: wire.state.rawValue) else {
            throw SalusError.malformed(field: "state", value: "\(wire.state.rawValue)", expected: "an HKWorkoutSessionState raw value")
        }
        return Info(
            appID: wire.appID, state: state, activityType: UInt(wire.activityType), builderID: WireUUID.uuid(wire.builderID),
            startDate: wire.startDate == 0 ? nil : WireDate.date(wire.startDate),
            endDate: wire.endDate == 0 ? nil : WireDate.date(wire.endDate))
    }

    static func update(_ wire: Salus_V1_WorkoutSessionUpdate) throws(SalusError) -> Update {
        Update(
            info: try info(wire.session),
            from: wire.from == .unspecified ? nil : WorkoutSessionState(rawValue: wire.from.rawValue),
            date: wire.date == 0 ? nil : WireDate.date(wire.date),
            builder: wire.hasBuilder ? try WorkoutBuilder.snapshot(wire.builder) : nil)
    }
}
