import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusStore
import SalusWire
import Synchronization

/// salus.v1.WorkoutSession: the person's workout sessions, as HealthKit's `HKWorkoutSession`
/// (docs/workouts.md, "The session").
///
/// **Rules.**
/// 1. States move only as `WorkoutSessionState.next` allows; any other move is refused naming
///    from and to, and changes nothing.
/// 2. One session is active (running, paused or stopped) at a time, for the whole person: a
///    second start is refused naming the session that is active, its id and its app. Why: one
///    body does one workout at a time; two sessions would record the same heart beats twice.
/// 3. Starting begins the session's builder (a WorkoutBuilder of the session's app, collecting
///    from the start); pausing and resuming add pause and resume events to it; ending ends its
///    collection. The app finishes or discards the builder itself, as with HealthKit.
/// 4. Every update — each move, each change of the builder's live statistics — goes to every
///    observer in the order made (moves are made one at a time). Observers are the session's
///    app (a second device of the app) and apps that may read every app's workouts (mirroring);
///    to any other app the session does not exist.
/// 5. Sessions are kept in the database (migration 12), so a restarted daemon knows which one
///    is active.
package final class WorkoutSessionService: Sendable {
    /// The builders sessions record through, and the store, registry and authorization.
    let builders: WorkoutBuilderService
    /// Makes moves one at a time, so they are published in the order made.
    let lock = AsyncLock()
    /// The sessions by id, read from the store on first use.
    private let sessions = Mutex<[UUID: Salus_V1_WorkoutSessionInfo]?>(nil)

    /// A service whose sessions record through `builders`.
    package init(builders: WorkoutBuilderService) {
        self.builders = builders
    }

    /// Adds the service's methods to `router` (the app socket's).
    package func register(into router: inout RPCRouter) {
        typealias Methods = SalusMethods.WorkoutSession
        router.registerUnary(Methods.create, onEventLoop: false) { (request: Salus_V1_CreateWorkoutSessionRequest, context) in
            try await self.create(request, caller: try Caller.resolve(context))
        }
        router.registerUnary(Methods.change, onEventLoop: false) { (request: Salus_V1_ChangeWorkoutSessionStateRequest, context) in
            try await self.change(request, caller: try Caller.resolve(context))
        }
        router.registerUnary(Methods.get, onEventLoop: false) { (request: Salus_V1_WorkoutSessionRef, context) in
            try await self.session(request.sessionID, caller: try Caller.resolve(context))
        }
        router.registerServerStreaming(Methods.observe, onEventLoop: false) {
            (request: Salus_V1_WorkoutSessionRef, writer: RPCWriter<Salus_V1_WorkoutSessionUpdate>, context) in
            try await self.observe(request.sessionID, writer: writer, caller: try Caller.resolve(context))
        }
    }

    // MARK: Calls

    /// `Create`: a new session of the caller's app, notStarted.
    func create(_ request: Salus_V1_CreateWorkoutSessionRequest, caller: Caller) async throws -> Salus_V1_WorkoutSessionInfo {
        try await authorizationCall {
            try builders.authorization.checkShare(caller, types: [WorkoutRecording.workoutType.rawValue])
        }
        _ = try wireCall { () throws(ValidationError) in
            try WorkoutConfiguration(wire: request.configuration, path: "configuration")
        }
        guard builders.registry.catalog.workoutActivityTypes[request.activityType] != nil else {
            throw RPCError.invalidArgument(
                field: "activityType", value: "\(request.activityType)",
                expected: "a registered workout activity type raw value such as 37 (running)")
        }
        var info = Salus_V1_WorkoutSessionInfo()
        info.sessionID = WireUUID.bytes(UUIDv7.make())
        info.appID = caller.appID
        info.state = .notStarted
        info.activityType = request.activityType
        info.configuration = request.configuration
        return try await lock.run {
            try await keep(info, from: nil, at: Date())
            return info
        }
    }

    /// `Change`: the session moved to `request.to`, with what the move does to its builder.
    func change(_ request: Salus_V1_ChangeWorkoutSessionStateRequest, caller: Caller) async throws -> Salus_V1_WorkoutSessionInfo {
        guard let to = WorkoutSessionState(rawValue: request.to.rawValue) else {
            throw RPCError.invalidArgument(
                field: "to", value: "\(request.to.rawValue)",
                expected: "an HKWorkoutSessionState raw value: "
                    + WorkoutSessionState.allCases.map(\.label).joined(separator: ", "))
        }
        let date = request.date == 0 ? Date() : WireDate.date(request.date)
        return try await lock.run {
            var info = try await owned(request.sessionID, caller: caller)
            let from = WorkoutSessionState(rawValue: info.state.rawValue) ?? .notStarted
            guard from.canMove(to: to) else {
                throw RPCError(
                    code: .failedPrecondition,
                    message: "to: a session cannot move from \(from.label) to \(to.label)",
                    reason: .invalidArgument, field: "to", value: "\(from.label) → \(to.label)",
                    expected: from.next.isEmpty
                        ? "nothing: an ended session is final"
                        : "a state \(from.label) may move to: " + from.next.map(\.label).joined(separator: ", "))
            }
            let id = WireUUID.uuid(info.sessionID)
            if to == .running && !from.isActive {
                if let active = try await all().values.first(where: {
                    WireUUID.uuid($0.sessionID) != id && (WorkoutSessionState(rawValue: $0.state.rawValue)?.isActive ?? false)
                }) {
                    let activeID = WireUUID.uuid(active.sessionID)?.uuidString ?? ""
                    throw RPCError(
                        code: .alreadyExists,
                        message: "another workout session is active: \(activeID) of \(active.appID)",
                        reason: .alreadyExists, field: "sessionID", value: activeID,
                        expected: "no other active session: session \(activeID) of app \(active.appID) is "
                            + "\((WorkoutSessionState(rawValue: active.state.rawValue) ?? .running).label); end it first")
                }
                let recording = try await builders.begin(
                    activityType: UInt(info.activityType),
                    configuration: try wireCall { () throws(ValidationError) in
                        try WorkoutConfiguration(wire: info.configuration, path: "configuration")
                    },
                    at: date, caller: caller)
                info.builderID = WireUUID.bytes(recording.id)
                info.startDate = WireDate.microseconds(date)
            } else if let builder = WireUUID.uuid(info.builderID) {
                try await moveBuilder(builder, from: from, to: to, at: date, caller: caller)
            }
            if to == .ended { info.endDate = WireDate.microseconds(date) }
            info.state = Salus_V1_WorkoutSessionState(rawValue: to.rawValue) ?? .unspecified
            try await keep(info, from: from, at: date)
            return info
        }
    }

    /// What a move does to the session's builder: pause and resume events, the end of
    /// collection. A builder the app already finished or discarded is left alone.
    func moveBuilder(_ builder: UUID, from: WorkoutSessionState, to: WorkoutSessionState, at date: Date, caller: Caller) async throws {
        guard try await builders.store.workoutBuilder(id: builder, includingSamples: false) != nil else { return }
        switch (from, to) {
        case (.running, .paused):
            try await builders.change(builder, caller: caller) { (recording) throws(ValidationError) in
                try recording.addingEvents([WorkoutEvent(.pause, startDate: date)])
            }
        case (.paused, .running):
            try await builders.change(builder, caller: caller) { (recording) throws(ValidationError) in
                try recording.addingEvents([WorkoutEvent(.resume, startDate: date)])
            }
        case (_, .ended):
            try await builders.change(builder, caller: caller) { (recording) throws(ValidationError) in
                recording.phase == .collecting ? try recording.endingCollection(at: date) : recording
            }
        default:
            break
        }
    }

    /// `Get`: the session `id` names (empty: the active one), if the caller may see it.
    func session(_ id: Data, caller: Caller) async throws -> Salus_V1_WorkoutSessionInfo {
        try await lock.run { try await visible(id, caller: caller) }
    }

    /// `Observe`: the session as it is, then every update, until it has ended.
    func observe(_ id: Data, writer: RPCWriter<Salus_V1_WorkoutSessionUpdate>, caller: Caller) async throws {
        // Subscribe before reading the state, so no update falls between the two.
        let changes = builders.changes.subscribe()
        let info = try await lock.run { try await visible(id, caller: caller) }
        var first = Salus_V1_WorkoutSessionUpdate()
        first.session = info
        if let builder = WireUUID.uuid(info.builderID),
            let state = try await builders.state(ofBuilder: builder, appID: info.appID)
        {
            first.builder = state
        }
        try await writer.write(first)
        if info.state == .ended { return }
        var builderID = WireUUID.uuid(info.builderID)
        for await change in changes {
            switch change {
            case .session(var update) where update.session.sessionID == info.sessionID:
                builderID = WireUUID.uuid(update.session.builderID)
                if let builderID, let state = try await builders.state(ofBuilder: builderID, appID: info.appID) {
                    update.builder = state
                }
                try await writer.write(update)
                if update.session.state == .ended { return }
            case .builder(let changed) where changed == builderID:
                guard let state = try await builders.state(ofBuilder: changed, appID: info.appID) else { continue }
                let current = try await lock.run { try await all()[WireUUID.uuid(info.sessionID) ?? UUID()] }
                var update = Salus_V1_WorkoutSessionUpdate()
                update.session = current ?? info
                update.builder = state
                try await writer.write(update)
            default:
                continue
            }
        }
    }

    // MARK: Parts

    /// Every session, read from the store the first time. Call under `lock`.
    func all() async throws -> [UUID: Salus_V1_WorkoutSessionInfo] {
        if let known = sessions.withLock({ $0 }) { return known }
        var found: [UUID: Salus_V1_WorkoutSessionInfo] = [:]
        for stored in try await storeCall({ try await builders.store.workoutSessions() }) {
            found[stored.id] = try Salus_V1_WorkoutSessionInfo(serializedBytes: stored.state)
        }
        sessions.withLock { $0 = found }
        return found
    }

    /// Keeps `info` in the store and in memory, and announces the update. Call under `lock`.
    func keep(_ info: Salus_V1_WorkoutSessionInfo, from: WorkoutSessionState?, at date: Date) async throws {
        guard let id = WireUUID.uuid(info.sessionID) else { return }
        let bytes: [UInt8] = try info.serializedBytes()
        _ = try await all()
        try await storeCall {
            try await builders.store.saveWorkoutSession(StoredWorkoutSession(id: id, appID: info.appID, state: bytes))
        }
        sessions.withLock { $0?[id] = info }
        var update = Salus_V1_WorkoutSessionUpdate()
        update.session = info
        if let from { update.from = Salus_V1_WorkoutSessionState(rawValue: from.rawValue) ?? .unspecified }
        update.date = WireDate.microseconds(date)
        builders.changes.publish(.session(update))
    }

    /// The session `id` names (empty: the active one), when `caller` may see it: its app, or an
    /// app that may read every app's workouts. Any other is not found. Call under `lock`.
    func visible(_ id: Data, caller: Caller) async throws -> Salus_V1_WorkoutSessionInfo {
        let sessions = try await all()
        let info: Salus_V1_WorkoutSessionInfo?
        if id.isEmpty {
            info = sessions.values.first { WorkoutSessionState(rawValue: $0.state.rawValue)?.isActive ?? false }
        } else {
            guard let uuid = WireUUID.uuid(id) else {
                throw RPCError.invalidArgument(field: "sessionID", value: "\(id.count) bytes", expected: "16 bytes, or empty for the active session")
            }
            info = sessions[uuid]
        }
        let mirrors: Bool
        switch builders.authorization.readAccess(caller, type: WorkoutRecording.workoutType.rawValue) {
        case .all: mirrors = true
        default: mirrors = false
        }
        guard let info, info.appID == caller.appID || mirrors else {
            let value = id.isEmpty ? "" : (WireUUID.uuid(id)?.uuidString ?? "")
            throw RPCError(
                code: .notFound, message: id.isEmpty ? "sessionID: no workout session is active" : "sessionID: \(value) is not a workout session this app may see",
                reason: .notFound, field: "sessionID", value: value,
                expected: "a session of this app, or any session for an app that may read every app's workouts")
        }
        return info
    }

    /// The session `id` names, when it is `caller`'s own: only its app moves a session.
    func owned(_ id: Data, caller: Caller) async throws -> Salus_V1_WorkoutSessionInfo {
        guard let uuid = WireUUID.uuid(id) else {
            throw RPCError.invalidArgument(field: "sessionID", value: "\(id.count) bytes", expected: "16 bytes: the id Create returned")
        }
        guard let info = try await all()[uuid] else {
            throw RPCError(
                code: .notFound, message: "sessionID: \(uuid.uuidString) is not a workout session",
                reason: .notFound, field: "sessionID", value: uuid.uuidString, expected: "the id Create returned")
        }
        guard info.appID == caller.appID else {
            throw RPCError(
                code: .permissionDenied, message: "sessionID: \(uuid.uuidString) is another app's session",
                reason: .permissionDenied, field: "sessionID", value: uuid.uuidString,
                expected: "a session \(caller.appID) created: only its app moves a session; others observe it")
        }
        return info
    }
}
