import Foundation
import Logging
import SalusModel
import SalusPluginHost
import SalusProto
import SalusRPC
import Synchronization

/// The authorization engine: registered apps, the owner's decisions, pending consent requests
/// and the rules every store call is checked against.
///
/// The state lives in memory behind a mutex (every check is a dictionary lookup, so no event
/// loop or pool thread ever waits on it) and is written through to `authorization.sqlite` on a
/// serial queue.
public final class AuthorizationEngine: Sendable {
    struct State {
        var apps: [String: AppRecord] = [:]
        var pending: [String: PendingRequest] = [:]
        var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
        var watchers: [Int: AsyncStream<PendingRequest>.Continuation] = [:]
        var endpoints: [String: String] = [:]
        var ownCommits: [String: [UInt64]] = [:]
        var nextRequest = 1
        var nextWatcher = 1
    }

    /// The type registry, for kinds, read-only types and per-object types.
    let registry: TypeRegistry
    /// Declared app ids are accepted (marked unverified).
    public let developmentMode: Bool
    /// Nothing is enforced: every app may read and write every type (development only).
    public let open: Bool
    private let persistence: AuthorizationPersistence?
    private let state = Mutex(State())
    private let logger: Logger

    /// An engine; `databasePath` nil keeps everything in memory.
    public init(registry: TypeRegistry, developmentMode: Bool, open: Bool = false, databasePath: String?, logger: Logger) throws {
        self.registry = registry
        self.developmentMode = developmentMode
        self.open = open
        self.logger = logger
        if let databasePath {
            let persistence = try AuthorizationPersistence(path: databasePath)
            let records = try persistence.load()
            state.withLock { state in
                for record in records { state.apps[record.id] = record }
            }
            self.persistence = persistence
        } else {
            self.persistence = nil
        }
    }

    /// Waits until every change so far is on disk.
    public func flush() { persistence?.flush() }

    // MARK: Who is calling

    /// The caller of a call on an app or admin socket.
    func caller(_ context: ServerContext) throws(RPCError) -> Caller {
        try Caller.resolve(context)
    }

    // MARK: Checks on store calls

    /// What `caller` may read of `type` now.
    public func readAccess(_ caller: Caller, type: String) -> ReadAccess {
        if caller.appIDSource == .owner || open { return .all }
        let perObject = registry.type(type)?.perObjectReadAuthorization ?? false
        return state.withLock { state -> ReadAccess in
            guard let app = state.apps[caller.appID] else { return .nothing }
            if perObject {
                return .own(appID: caller.appID, objects: app.objects[type] ?? [])
            }
            if app.read[type] == .granted { return .all }
            if app.share[type] == .granted { return .own(appID: caller.appID, objects: []) }
            return .nothing
        }
    }

    /// Throws AUTHORIZATION_NOT_DETERMINED or AUTHORIZATION_DENIED, naming the type, unless
    /// `caller` may write every one of `types`.
    public func checkShare(_ caller: Caller, types: some Sequence<String>) throws(RPCError) {
        if open { return }
        let decisions = state.withLock { state in
            types.map { ($0, state.apps[caller.appID]?.share[$0]) }
        }
        for (type, decision) in decisions.sorted(by: { $0.0 < $1.0 }) {
            switch decision {
            case .granted:
                continue
            case .denied:
                throw RPCError(
                    code: .permissionDenied,
                    message: "\(caller.label) may not write \(type): the owner denied sharing it",
                    reason: .authorizationDenied, field: "type", value: type, expected: "a type the owner allowed this app to write")
            case nil:
                throw RPCError(
                    code: .permissionDenied,
                    message: "\(caller.label) may not write \(type) yet: request authorization to share it first (salus.v1.Authorization/RequestAuthorization)",
                    reason: .authorizationNotDetermined, field: "type", value: type, expected: "a type this app has requested and been allowed to write")
            }
        }
    }

    /// The types the app has a share decision for (granted or denied).
    func typesWithShareDecisions(_ caller: Caller) -> [String] {
        state.withLock { state in state.apps[caller.appID].map { Array($0.share.keys) } ?? [] }
    }

    /// HealthKit's authorizationStatus(for:): sharing only.
    public func sharingStatus(_ caller: Caller, type: String) -> Salus_V1_SharingStatus {
        if open { return .sharingAuthorized }
        switch state.withLock({ $0.apps[caller.appID]?.share[type] }) {
        case .granted: return .sharingAuthorized
        case .denied: return .sharingDenied
        case nil: return .notDetermined
        }
    }

    // MARK: Requests

    /// The registered app, or FAILED_PRECONDITION saying how to register it.
    func registeredApp(_ caller: Caller) throws(RPCError) -> AppRecord {
        guard let app = state.withLock({ $0.apps[caller.appID] }) else {
            throw RPCError(
                code: .failedPrecondition,
                message: "\(caller.label) is not registered; the owner registers it with `salusctl apps add \(caller.appID) --name NAME --read-usage TEXT --write-usage TEXT`",
                reason: .notFound, field: "appId", value: caller.appID, expected: "an app registered with salusctl apps add")
        }
        return app
    }

    /// Checks a request's types and usage texts; returns the types not answered yet.
    func newTypes(_ caller: Caller, share: [String], read: [String]) throws(RPCError) -> (share: [String], read: [String]) {
        if share.isEmpty && read.isEmpty {
            throw RPCError.invalidArgument(field: "share", value: "no types", expected: "at least one type to share or read")
        }
        for (index, type) in share.enumerated() {
            guard let registered = registry.type(type) else {
                throw RPCError.invalidArgument(field: "share[\(index)]", value: type, expected: "a registered type identifier (salusctl types)")
            }
            if registered.readOnlyForApps || registered.kind == .characteristic {
                throw RPCError.invalidArgument(
                    field: "share[\(index)]", value: type,
                    expected: "a type apps may write; \(type) is read-only for apps (\(registered.kind == .characteristic ? "a characteristic" : "computed by the system")) and may only be requested for reading")
            }
        }
        for (index, type) in read.enumerated() {
            guard let registered = registry.type(type) else {
                throw RPCError.invalidArgument(field: "read[\(index)]", value: type, expected: "a registered type identifier (salusctl types)")
            }
            if registered.perObjectReadAuthorization {
                throw RPCError.invalidArgument(
                    field: "read[\(index)]", value: type,
                    expected: "a type authorized per type; \(type) is authorized per object: use RequestPerObjectReadAuthorization")
            }
        }
        let app = try registeredApp(caller)
        if !read.isEmpty && app.readUsage.isEmpty {
            throw RPCError.invalidArgument(
                field: "readUsage", value: "",
                expected: "a read usage description for \(caller.appID) (why it reads), set with `salusctl apps add \(caller.appID) --read-usage TEXT`, before asking to read")
        }
        if !share.isEmpty && app.writeUsage.isEmpty {
            throw RPCError.invalidArgument(
                field: "writeUsage", value: "",
                expected: "a write usage description for \(caller.appID) (why it writes), set with `salusctl apps add \(caller.appID) --write-usage TEXT`, before asking to write")
        }
        var newShare: [String] = []
        var newRead: [String] = []
        for type in share where app.share[type] == nil && !newShare.contains(type) { newShare.append(type) }
        for type in read where app.read[type] == nil && !newRead.contains(type) { newRead.append(type) }
        return (newShare, newRead)
    }

    /// HealthKit's getRequestStatusForAuthorization.
    public func requestStatus(_ caller: Caller, share: [String], read: [String]) throws(RPCError) -> Salus_V1_RequestStatus {
        // Open mode (development only) allows everything: nothing is ever new.
        if open { return .unnecessary }
        let fresh = try newTypes(caller, share: share, read: read)
        return fresh.share.isEmpty && fresh.read.isEmpty ? .unnecessary : .shouldRequest
    }

    /// HealthKit's requestAuthorization(toShare:read:): returns once the request is handled.
    public func requestAuthorization(_ caller: Caller, share: [String], read: [String]) async throws(RPCError) {
        if open { return }
        let fresh = try newTypes(caller, share: share, read: read)
        if fresh.share.isEmpty && fresh.read.isEmpty { return }
        await submit(caller, share: fresh.share, read: fresh.read, objectType: nil, objects: [])
    }

    /// Checks a per-object request before its objects are listed.
    func checkPerObjectRequest(_ caller: Caller, type: String) throws(RPCError) {
        guard let registered = registry.type(type) else {
            throw RPCError.invalidArgument(field: "type", value: type, expected: "a registered type identifier (salusctl types)")
        }
        guard registered.perObjectReadAuthorization else {
            throw RPCError.invalidArgument(field: "type", value: type, expected: "a type authorized per object, such as HKVisionPrescriptionTypeIdentifier")
        }
        let app = try registeredApp(caller)
        if app.readUsage.isEmpty {
            throw RPCError.invalidArgument(
                field: "readUsage", value: "",
                expected: "a read usage description for \(caller.appID) (why it reads), set with `salusctl apps add \(caller.appID) --read-usage TEXT`, before asking to read")
        }
    }

    /// HealthKit's requestPerObjectReadAuthorization: always asks, listing `objects`.
    public func requestPerObjectReadAuthorization(_ caller: Caller, type: String, objects: [RequestedObject]) async throws(RPCError) {
        try checkPerObjectRequest(caller, type: type)
        await submit(caller, share: [], read: [], objectType: type, objects: objects)
    }

    private func submit(_ caller: Caller, share: [String], read: [String], objectType: String?, objects: [RequestedObject]) async {
        let (request, policy) = state.withLock { state -> (PendingRequest, ConsentPolicy) in
            let request = PendingRequest(
                id: "r\(state.nextRequest)", appID: caller.appID, identity: caller.isVerified ? "launcher" : "unverified",
                share: share, read: read, objectType: objectType, objects: objects, created: Date())
            state.nextRequest += 1
            state.pending[request.id] = request
            for watcher in state.watchers.values { watcher.yield(request) }
            return (request, state.apps[caller.appID]?.policy ?? .ask)
        }
        logger.info("authorization requested", metadata: [
            "app": "\(caller.label)", "request": "\(request.id)", "share": "\(share)", "read": "\(read)",
            "objects": "\(objects.count)", "policy": "\(policy.kind.rawValue)",
        ])
        if policy.kind != .ask {
            let answer = Self.answer(request, by: policy)
            Task.detached { [self] in
                if policy.afterMilliseconds > 0 {
                    try? await Task.sleep(for: .milliseconds(policy.afterMilliseconds))
                }
                _ = try? self.answer(request.id, answer)
            }
        }
        // The request stays pending for the owner if the call is cancelled (the app went
        // away, or the daemon is shutting down); only the wait ends.
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.pending[request.id] != nil, !Task.isCancelled else { return true }
                    state.waiters[request.id, default: []].append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { $0.waiters.removeValue(forKey: request.id) ?? [] }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// The answer a policy gives to a request.
    static func answer(_ request: PendingRequest, by policy: ConsentPolicy) -> ConsentAnswer {
        switch policy.kind {
        case .ask, .denyAll:
            return ConsentAnswer()
        case .grantAll:
            return ConsentAnswer(grantRead: Set(request.read), grantShare: Set(request.share), objects: Set(request.objects.map(\.uuid)))
        case .grantListed:
            let objects = request.objectType.map { policy.read.contains($0) } == true ? Set(request.objects.map(\.uuid)) : []
            return ConsentAnswer(
                grantRead: Set(request.read).intersection(policy.read),
                grantShare: Set(request.share).intersection(policy.share),
                objects: objects)
        }
    }

    // MARK: The owner's side

    /// Registers an app, or updates the name and usage texts of a registered one.
    public func addApp(id: String, name: String, readUsage: String, writeUsage: String) throws(RPCError) -> AppRecord {
        guard Self.isValidAppID(id) else {
            throw RPCError.invalidArgument(field: "appId", value: id, expected: "a reverse-DNS app id such as org.example.sleepdiary (letters, digits, '.', '-', '_')")
        }
        guard !name.isEmpty else {
            throw RPCError.invalidArgument(field: "name", value: "", expected: "the app's name as the owner should see it")
        }
        let record = state.withLock { state -> AppRecord in
            var record = state.apps[id] ?? AppRecord(id: id, name: name, readUsage: readUsage, writeUsage: writeUsage)
            record.name = name
            record.readUsage = readUsage
            record.writeUsage = writeUsage
            state.apps[id] = record
            return record
        }
        persistence?.write(appID: id, record: record)
        logger.info("app registered", metadata: ["app": "\(id)", "name": "\(name)"])
        return record
    }

    /// Whether `id` may name an app (and a socket file).
    static func isValidAppID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 200 && !id.hasPrefix(".") && id != "owner"
            && id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" || $0 == "_" }
    }

    /// A registered app, or NOT_FOUND naming it.
    public func app(_ id: String) throws(RPCError) -> AppRecord {
        guard let record = state.withLock({ $0.apps[id] }) else { throw Self.unknownApp(id) }
        return record
    }

    static func unknownApp(_ id: String) -> RPCError {
        RPCError(code: .notFound, message: "no app \(id) is registered (salusctl apps list)", reason: .notFound,
                 field: "appId", value: id, expected: "a registered app id")
    }

    /// Every registered app, by id.
    public func apps() -> [AppRecord] {
        state.withLock { $0.apps.values.sorted { $0.id < $1.id } }
    }

    /// Changes an app's record; NOT_FOUND when it is not registered.
    private func update(_ id: String, _ change: (inout AppRecord) throws(RPCError) -> Void) throws(RPCError) -> AppRecord {
        let record = try state.withLock { state throws(RPCError) -> AppRecord in
            guard var record = state.apps[id] else { throw Self.unknownApp(id) }
            try change(&record)
            state.apps[id] = record
            return record
        }
        persistence?.write(appID: id, record: record)
        return record
    }

    /// Back to "not determined" for every type and object; pending requests are dropped.
    public func reset(_ id: String) throws(RPCError) -> AppRecord {
        let record = try update(id) { record in
            record.read = [:]
            record.share = [:]
            record.objects = [:]
        }
        cancelPending(of: id)
        logger.info("app reset to not determined", metadata: ["app": "\(id)"])
        return record
    }

    /// Forgets an app; its samples stay, attributed to it.
    public func remove(_ id: String) throws(RPCError) {
        let removed = state.withLock { $0.apps.removeValue(forKey: id) != nil }
        guard removed else { throw Self.unknownApp(id) }
        persistence?.write(appID: id, record: nil)
        cancelPending(of: id)
        logger.info("app removed", metadata: ["app": "\(id)"])
    }

    private func cancelPending(of id: String) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            let ids = state.pending.values.filter { $0.appID == id }.map(\.id)
            var waiters: [CheckedContinuation<Void, Never>] = []
            for request in ids {
                state.pending[request] = nil
                waiters += state.waiters.removeValue(forKey: request) ?? []
            }
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Sets how new requests of the app are answered.
    public func setPolicy(_ id: String, _ policy: ConsentPolicy) throws(RPCError) -> AppRecord {
        for (index, type) in (policy.read + policy.share).enumerated() where registry.type(type) == nil {
            throw RPCError.invalidArgument(field: "policy.types[\(index)]", value: type, expected: "a registered type identifier (salusctl types)")
        }
        guard policy.afterMilliseconds >= 0 else {
            throw RPCError.invalidArgument(field: "policy.afterMs", value: "\(policy.afterMilliseconds)", expected: "0 or more milliseconds")
        }
        return try update(id) { record in record.policy = policy }
    }

    /// Sets decisions directly (the owner granting or revoking); effective at once, open live
    /// queries included.
    public func setGrants(_ id: String, read: [String: Decision], share: [String: Decision]) throws(RPCError) -> AppRecord {
        for type in Array(read.keys) + Array(share.keys) where registry.type(type) == nil {
            throw RPCError.invalidArgument(field: "grants.type", value: type, expected: "a registered type identifier (salusctl types)")
        }
        for (type, decision) in share where decision == .granted {
            if let registered = registry.type(type), registered.readOnlyForApps || registered.kind == .characteristic {
                throw RPCError.invalidArgument(field: "grants.share", value: type, expected: "a type apps may write; \(type) is read-only for apps")
            }
        }
        let record = try update(id) { record in
            record.read.merge(read) { $1 }
            record.share.merge(share) { $1 }
        }
        logger.info("grants changed by the owner", metadata: ["app": "\(id)", "read": "\(read)", "share": "\(share)"])
        return record
    }

    /// Withdraws the app's access to these objects.
    public func withdraw(_ id: String, objects: Set<UUID>) throws(RPCError) -> AppRecord {
        try update(id) { record in
            for type in Array(record.objects.keys) {
                record.objects[type]?.subtract(objects)
                if record.objects[type]?.isEmpty == true { record.objects[type] = nil }
            }
        }
    }

    /// The requests waiting for an answer, oldest first.
    public func pending() -> [PendingRequest] {
        state.withLock { $0.pending.values.sorted { ($0.created, $0.id) < ($1.created, $1.id) } }
    }

    /// The pending requests of one app.
    public func pending(of id: String) -> [PendingRequest] {
        pending().filter { $0.appID == id }
    }

    /// Answers a pending request: the listed types and objects are granted, the request's others
    /// denied; the app's RequestAuthorization call then completes.
    @discardableResult
    public func answer(_ requestID: String, _ answer: ConsentAnswer) throws(RPCError) -> PendingRequest {
        let (request, waiters, record) = try state.withLock { state throws(RPCError) -> (PendingRequest, [CheckedContinuation<Void, Never>], AppRecord?) in
            guard let request = state.pending[requestID] else {
                throw RPCError(code: .notFound, message: "no pending request \(requestID) (salusctl consent lists them)",
                               reason: .notFound, field: "requestId", value: requestID, expected: "the id of a pending request")
            }
            for type in answer.grantRead where !request.read.contains(type) {
                throw RPCError.invalidArgument(field: "grantRead", value: type, expected: "one of the types request \(requestID) asks to read: \(request.read.joined(separator: ", "))")
            }
            for type in answer.grantShare where !request.share.contains(type) {
                throw RPCError.invalidArgument(field: "grantShare", value: type, expected: "one of the types request \(requestID) asks to share: \(request.share.joined(separator: ", "))")
            }
            let listed = Set(request.objects.map(\.uuid))
            for object in answer.objects where !listed.contains(object) {
                throw RPCError.invalidArgument(field: "objects", value: object.uuidString, expected: "one of the \(listed.count) objects listed in request \(requestID)")
            }
            state.pending[requestID] = nil
            var record = state.apps[request.appID]
            if record != nil {
                for type in request.read { record!.read[type] = answer.grantRead.contains(type) ? .granted : .denied }
                for type in request.share { record!.share[type] = answer.grantShare.contains(type) ? .granted : .denied }
                if let type = request.objectType, !answer.objects.isEmpty {
                    record!.objects[type, default: []].formUnion(answer.objects)
                }
                state.apps[request.appID] = record
            }
            return (request, state.waiters.removeValue(forKey: requestID) ?? [], record)
        }
        if let record { persistence?.write(appID: record.id, record: record) }
        logger.info("request answered", metadata: [
            "request": "\(requestID)", "app": "\(request.appID)\(request.identity == "unverified" ? " (unverified)" : "")",
            "granted read": "\(answer.grantRead.sorted())", "granted share": "\(answer.grantShare.sorted())", "objects": "\(answer.objects.count)",
        ])
        for waiter in waiters { waiter.resume() }
        return request
    }

    /// The pending requests now, then each new one as it arrives.
    public func watch() -> AsyncStream<PendingRequest> {
        let (stream, continuation) = AsyncStream.makeStream(of: PendingRequest.self)
        let id = state.withLock { state -> Int in
            let id = state.nextWatcher
            state.nextWatcher += 1
            for request in state.pending.values.sorted(by: { ($0.created, $0.id) < ($1.created, $1.id) }) { continuation.yield(request) }
            state.watchers[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Own commits (for observers of types the app may not fully read)

    /// Remembers that the app's own save or delete committed at `anchor`.
    func recordCommit(of caller: Caller, anchor: UInt64) {
        if open || caller.appIDSource == .owner { return }
        state.withLock { state in
            var anchors = state.ownCommits[caller.appID] ?? []
            anchors.append(anchor)
            if anchors.count > 1024 { anchors.removeFirst(anchors.count - 1024) }
            state.ownCommits[caller.appID] = anchors
        }
    }

    /// Whether the app committed anything in `(after, through]`.
    func hasOwnCommit(of caller: Caller, after: UInt64, through: UInt64) -> Bool {
        state.withLock { state in
            state.ownCommits[caller.appID]?.contains { $0 > after && $0 <= through } ?? false
        }
    }

    // MARK: Endpoints

    /// Records the per-app socket of an app.
    func setEndpoint(_ path: String, for id: String) {
        state.withLock { $0.endpoints[id] = path }
    }

    /// The per-app socket of an app, when one was made.
    public func endpoint(for id: String) -> String? {
        state.withLock { $0.endpoints[id] }
    }
}
