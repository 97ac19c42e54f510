import Foundation
import Logging
import PostgresNIO
import SalusKit
import SalusModel
import Synchronization

/// What `salus-sync` follows and how.
package struct SyncOptions: Sendable {
    /// The person whose store this is: the rows' `person_id` (also the distribution column).
    package var person: String
    /// The store's name among the person's machines (the feed's `origin`).
    package var origin: String
    /// The types followed; also the types inbox rows may have.
    package var types: [SampleType]
    /// Changes per PostgreSQL transaction while catching up.
    package var batchSize: Int = 2_000
    /// Save the inbox's rows into the store.
    package var inbox: Bool = true
    /// Bring the other stores' samples and deletions (the person's other machines) into this
    /// store; needs the owner to have made the app the store's sync agent.
    package var pull: Bool = true
    /// How often the inbox and the app's access are looked at.
    package var pollInterval: Duration = .seconds(1)
    /// The first wait after a failure; doubled at each failure in a row up to ``maximumBackoff``.
    package var initialBackoff: Duration = .milliseconds(200)
    /// The longest wait between attempts.
    package var maximumBackoff: Duration = .seconds(30)
    /// Ask the owner for access to ``types`` at start (returns at once when already answered).
    package var requestAuthorization: Bool = true
    /// Where the status file is written; nil writes none.
    package var statusFile: String?
    /// How long a commit may wait for the server before the connection counts as lost.
    package var answerTimeout: Duration = .seconds(30)
    /// How often the live feed is checked against the store: a feed that has delivered nothing
    /// over two checks in a row while the store had changes after the committed anchor ends the
    /// session, and the next one reads those changes again (``SyncEngine``, "a stalled feed").
    package var feedCheckInterval: Duration = .seconds(30)
    /// Tests only: the live feed's updates are read and dropped, as if they never came.
    package var droppingLiveUpdates = false

    /// Options for `person`'s store `origin`, following `types`.
    package init(person: String, origin: String, types: [SampleType]) {
        self.person = person
        self.origin = origin
        self.types = types
    }
}

/// Follows the anchored change feed of the store into PostgreSQL, and the server's inbox back.
///
/// **Rule: the server's anchor is the only feed position.** Every start (and every reconnection)
/// reads it from `salus.feeds` and asks the store for the changes after it: first in pages of
/// ``SyncOptions/batchSize`` (each page one transaction), then live. Why: changes received but
/// not committed are simply read again, so a server that is down, a daemon that restarts or a
/// `kill -9` lose nothing and repeat nothing.
///
/// **Rule: an expired anchor starts a full resync, not a gap.** The store keeps tombstones for a
/// retention; an older anchor fails with `anchorExpired`. The feed then bumps its generation,
/// reads everything again from anchor 0 (rows are upserted with the new generation), and at the
/// end removes, in one transaction, every row of this store that the resync did not see: the
/// deletions it could no longer be told of. A crash during a resync resumes it from its page.
///
/// **Rule: failures wait, then start again.** Any failure of the server or the store ends the
/// session; the engine waits (``SyncOptions/initialBackoff``, doubling to
/// ``SyncOptions/maximumBackoff``, back to the start after a session that committed) and
/// connects again. Only bad configuration stops it.
package final class SyncEngine: Sendable {
    let options: SyncOptions
    let database: DatabaseSettings
    let storeSocket: String?
    let appID: String
    let logger: Logger
    private let status: Mutex<SyncStatus>
    /// What the access watch has seen, over every session of this process (``watch(store:)``).
    private let access = Mutex(AccessMemory())

    /// What the access watch remembers between sessions, and which types the feed follows.
    struct AccessMemory {
        /// The types the app has been seen allowed to write, each with the anchor committed when
        /// it last was: changes up to there reached the server while the type was allowed.
        var grantedAt: [SampleType: UInt64] = [:]
        /// Types reported withdrawn, each with the anchor after which its changes may not have
        /// reached the server (the live feed drops what the app may no longer read).
        var withdrawnAfter: [SampleType: UInt64] = [:]
        /// Types whose changes after the anchor are still to be sent (0: every sample of the
        /// type): granted again, or added to `--types`. The next session sends them before it
        /// follows the feed.
        var backfill: [SampleType: UInt64] = [:]
        /// The types followed (`--types`).
        var followed: [SampleType] = []
        /// Types followed once and left out now, by identifier, with the anchor after which their
        /// changes are not on the server.
        var unfollowed: [String: UInt64] = [:]
        /// Types owed a backfill that the app could not read when the session started: the
        /// access watch starts a new session once it may.
        var waiting: Set<SampleType> = []
        /// The record on the server (`salus.feeds.access`) was read into this memory.
        var restored = false

        /// The memory as the server keeps it, with the followed types at `anchor` (the feed's,
        /// committed).
        func record(anchor: UInt64) -> AccessRecord {
            var record = AccessRecord()
            for (type, anchor) in grantedAt { record.granted[type.identifier.rawValue] = anchor }
            for (type, anchor) in withdrawnAfter { record.withdrawn[type.identifier.rawValue] = anchor }
            for (type, anchor) in backfill { record.backfill[type.identifier.rawValue] = anchor }
            record.followed = Dictionary(followed.map { ($0.identifier.rawValue, anchor) }, uniquingKeysWith: { first, _ in first })
            record.unfollowed = unfollowed
            return record
        }

        /// Adds what the server kept (an earlier process's memory) to what this one has seen,
        /// for the followed `types`, with the feed at `feedAnchor` on the server.
        ///
        /// **Rule: a type the last process did not follow is sent from where its changes stopped
        /// reaching the server.** The feed's anchor moved past its changes while it was not in
        /// `--types`: a type never followed is owed from the start of its history (0), a type
        /// left out and added back from the anchor it was last followed at. Why: the feed reads
        /// only after its anchor, so without this the type's earlier samples never reach the
        /// server, and the status says nothing is behind. A record written before the followed
        /// types were kept counts as followed the types it names (granted, withdrawn or owed a
        /// backfill); the others are sent once from the start (upserts: nothing repeats).
        mutating func restore(_ record: AccessRecord, types: [SampleType], anchor feedAnchor: UInt64) {
            let ids = Set(types.map(\.identifier.rawValue))
            let before = record.followed ?? Self.followedBefore(record)
            for type in types {
                let id = type.identifier.rawValue
                if grantedAt[type] == nil, let anchor = record.granted[id] { grantedAt[type] = anchor }
                if withdrawnAfter[type] == nil, let anchor = record.withdrawn[id] { withdrawnAfter[type] = anchor }
                if let anchor = record.backfill[id] { backfill[type] = Swift.min(backfill[type] ?? anchor, anchor) }
                if before[id] == nil {
                    let from = record.unfollowed[id] ?? 0
                    if from < feedAnchor { backfill[type] = Swift.min(backfill[type] ?? from, from) }
                }
            }
            unfollowed = record.unfollowed.filter { !ids.contains($0.key) }
            for (id, anchor) in before where !ids.contains(id) {
                let upTo = [anchor, record.withdrawn[id], record.backfill[id]].compactMap { $0 }.min() ?? anchor
                unfollowed[id] = Swift.min(unfollowed[id] ?? upTo, upTo)
            }
            followed = types
            restored = true
        }

        /// The types a record written before the followed types were kept shows followed: those
        /// it names, each at the lowest anchor it gives.
        static func followedBefore(_ record: AccessRecord) -> [String: UInt64] {
            var followed: [String: UInt64] = [:]
            for map in [record.granted, record.withdrawn, record.backfill] {
                for (id, anchor) in map { followed[id] = Swift.min(followed[id] ?? anchor, anchor) }
            }
            return followed
        }
    }

    /// Ends a session on purpose, not as a failure: the next one starts at once.
    struct SessionRestart: Error {
        let reason: String
    }

    /// An engine for `options`, writing to the server `database`, reading the store at
    /// `storeSocket` (nil: `SALUS_SOCKET` or the default app socket) as `appID`.
    package init(options: SyncOptions, database: DatabaseSettings, storeSocket: String?, appID: String = "org.salus.sync", logger: Logger) {
        self.options = options
        self.database = database
        self.storeSocket = storeSocket
        self.appID = appID
        self.logger = logger
        status = Mutex(SyncStatus(person: options.person, origin: options.origin))
    }

    /// The status as of now.
    package var currentStatus: SyncStatus { status.withLock { $0 } }

    /// Changes the status and writes the file, under the lock so that a later status is never
    /// overwritten by an earlier one (the feed, the inbox and the access watch all report).
    private func update(_ change: (inout SyncStatus) -> Void) {
        status.withLock { status in
            change(&status)
            status.updatedAt = Date()
            guard let path = options.statusFile else { return }
            do {
                try status.write(to: path)
            } catch {
                logger.warning("cannot write the status file", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }

    /// Runs until the task is cancelled; throws only ``SyncError`` with code
    /// ``SyncError/Code/configuration`` (bad settings, or a request the store refuses as an
    /// invalid argument, such as an unknown type).
    package func run() async throws {
        var backoff = options.initialBackoff
        update { $0.phase = .starting }
        while !Task.isCancelled {
            let committedBefore = currentStatus.changesCommitted
            let anchorBefore = currentStatus.anchor
            do {
                try await session()
            } catch let restart as SessionRestart {
                if Task.isCancelled { break }
                logger.notice("starting a new session", metadata: ["reason": "\(restart.reason)"])
                continue
            } catch {
                if Task.isCancelled { break }
                let failure = Self.syncError(error, settings: database)
                if failure.code == .configuration {
                    update { $0.phase = .stopped; $0.lastError = failure.description; $0.lastErrorCode = failure.code.rawValue; $0.lastErrorAt = Date() }
                    throw failure
                }
                logger.warning("sync session ended; retrying", metadata: ["error": "\(failure)", "wait": "\(backoff)"])
                update {
                    $0.phase = .retrying
                    $0.lastError = failure.description
                    $0.lastErrorCode = failure.code.rawValue
                    $0.lastErrorAt = Date()
                }
            }
            let progressed = currentStatus.changesCommitted != committedBefore || currentStatus.anchor != anchorBefore
            if progressed { backoff = options.initialBackoff }
            do { try await Task.sleep(for: backoff) } catch { break }
            if !progressed { backoff = min(backoff * 2, options.maximumBackoff) }
        }
        update { $0.phase = .stopped }
    }

    /// `error` as a ``SyncError``; `settings` (where the connection went) are named in a
    /// refusal by the server.
    static func syncError(_ error: any Error, settings: DatabaseSettings? = nil) -> SyncError {
        if let error = error as? SyncError { return error }
        if let error = error as? SalusError {
            // The store refuses what was asked (an unknown type, a type that cannot be asked
            // for, a missing usage description): asking again will not help.
            if error.code == .invalidArgument {
                return SyncError(.configuration, "the store refused: \(error.message)", field: error.field, value: error.value, expected: error.expected)
            }
            return SyncError(.store, "the store: \(error.description)")
        }
        if let refusal = PostgresMirror.refusal(error, settings: settings) { return refusal }
        return SyncError(.server, "PostgreSQL: \(PostgresMirror.describe(error))")
    }

    /// One connection to the server and one to the store, until either fails.
    func session() async throws {
        let mirror = try await PostgresMirror.connect(database, person: options.person, origin: options.origin, logger: logger)
        do {
            let opened = try await mirror.answered(within: options.answerTimeout) { try await mirror.open() }
            update { $0.anchor = opened.anchor }
            let store: HealthStore
            do {
                store = try await HealthStore.connect(socketPath: storeSocket, appID: appID, appName: "Salus Sync")
            } catch {
                await mirror.recordError("the store: \(error.description)", within: options.answerTimeout)
                throw error
            }
            do {
                if options.requestAuthorization {
                    try await store.requestAuthorization(toShare: options.inbox ? Set(options.types) : [], read: Set(options.types))
                }
                try await restoreAccess(mirror: mirror, anchor: opened.anchor)
                try await noteSharedTypes(store: store, anchor: opened.anchor)
                try await saveAccess(mirror: mirror)
                var state = try await catchUp(mirror: mirror, store: store, state: opened)
                state = try await backfill(mirror: mirror, store: store, state: state)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { [state] in try await self.follow(mirror: mirror, store: store, state: state) }
                    group.addTask { try await self.watch(store: store) }
                    group.addTask { try await self.checkFeed(store: store) }
                    if self.options.inbox {
                        group.addTask { try await self.inbox(store: store) }
                    }
                    if self.options.pull {
                        group.addTask { try await self.pull(store: store) }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            } catch {
                await store.close()
                if !Task.isCancelled && !(error is SessionRestart) { await mirror.recordError(Self.syncError(error).description, within: options.answerTimeout) }
                throw error
            }
            await store.close()
        } catch {
            await mirror.close()
            throw error
        }
        await mirror.close()
    }

    private var predicates: [SampleTypePredicate] { options.types.map { SampleTypePredicate($0) } }

    /// Pages through the changes after the server's anchor, one transaction per page; starts a
    /// full resync when the anchor expired, and ends one that is under way.
    func catchUp(mirror: PostgresMirror, store: HealthStore, state initial: FeedState) async throws -> FeedState {
        var state = initial
        let phase: SyncStatus.Phase = initial.resyncing ? .resyncing : .catchingUp
        update { $0.phase = phase }
        while true {
            let page = await readPage(store: store, anchor: state.anchor)
            let result: AnchoredObjectQueryResult
            switch page {
            case .success(let value):
                result = value
            case .failure(let error) where error.code == .anchorExpired:
                logger.notice("the store's anchor expired; resyncing everything", metadata: ["anchor": "\(state.anchor)"])
                state = try await mirror.answered(within: options.answerTimeout) { [state] in try await mirror.beginResync(state: state) }
                update { $0.phase = .resyncing; $0.anchor = 0 }
                continue
            case .failure(let error):
                throw error
            }
            state = try await commit(result, mirror: mirror, state: state)
            if !result.hasMore { break }
        }
        if state.resyncing {
            let covered = try await resyncCoverage(store: store)
            let (next, removed) = try await mirror.answered(within: options.answerTimeout) { [state] in
                try await mirror.finishResync(state: state, types: covered.map(\.identifier.rawValue))
            }
            state = next
            let kept = options.types.filter { !covered.contains($0) }.map(\.identifier.rawValue)
            logger.notice("resync complete", metadata: [
                "removed": "\(removed)", "anchor": "\(state.anchor)", "kept types the app may not read": "\(kept)",
            ])
        }
        return state
    }

    /// The followed types a full resync has read whole: those the app may write and has been
    /// asked to read now, and that the access watch has not seen withdrawn (in this process or,
    /// through `feeds.access`, an earlier one). The resync's end removes only rows of these types. A type the store hid from
    /// it keeps its rows on the server, deletions made meanwhile included; the backfill after a
    /// new grant sends its samples again.
    ///
    /// A read denied while writing stays allowed cannot be seen (an app is never told of its
    /// read permission): such a type counts as read, and its rows are removed (docs/sync.md).
    private func resyncCoverage(store: HealthStore) async throws -> [SampleType] {
        var covered: [SampleType] = []
        for type in options.types {
            let sharing = try await store.authorizationStatus(for: type)
            let asking = try await store.statusForAuthorizationRequest(toShare: [], read: [type])
            let seenWithdrawn = access.withLock { $0.withdrawnAfter[type] != nil || $0.backfill[type] != nil }
            if sharing == .sharingAuthorized && asking != .shouldRequest && !seenWithdrawn { covered.append(type) }
        }
        return covered
    }

    /// A page of at most ``SyncOptions/batchSize`` local changes after `anchor` (nil: from the
    /// start) matching `predicates` (nil: every followed type).
    private func readPage(
        store: HealthStore, predicates chosen: [SampleTypePredicate]? = nil, anchor: UInt64?
    ) async -> Result<AnchoredObjectQueryResult, SalusError> {
        do {
            return .success(try await AnchoredObjectQueryDescriptor(
                predicates: chosen ?? predicates, anchor: anchor.map { QueryAnchor(rawValue: $0) }, limit: options.batchSize,
                localChangesOnly: true
            ).result(for: store))
        } catch {
            return .failure(error)
        }
    }

    private func commit(_ result: AnchoredObjectQueryResult, mirror: PostgresMirror, state: FeedState) async throws -> FeedState {
        guard !result.addedSamples.isEmpty || !result.deletedObjects.isEmpty || result.newAnchor.rawValue != state.anchor else {
            return state
        }
        logger.debug("committing", metadata: [
            "added": "\(result.addedSamples.count)", "deleted": "\(result.deletedObjects.count)", "anchor": "\(result.newAnchor)",
        ])
        let next = try await mirror.answered(within: options.answerTimeout) {
            try await mirror.apply(
                added: result.addedSamples, deleted: result.deletedObjects, newAnchor: result.newAnchor.rawValue, state: state)
        }
        let changes = Int64(result.addedSamples.count + result.deletedObjects.count)
        update {
            $0.anchor = next.anchor
            $0.committedAt = next.committedAt
            $0.changesCommitted += changes
            $0.lastError = nil
            $0.lastErrorCode = nil
            $0.lastErrorAt = nil
        }
        return next
    }

    /// Follows the live feed from `state`'s anchor, committing each update.
    func follow(mirror: PostgresMirror, store: HealthStore, state initial: FeedState) async throws {
        var state = initial
        update { $0.phase = .live }
        let query = AnchoredObjectQueryDescriptor(
            predicates: predicates, anchor: QueryAnchor(rawValue: state.anchor), localChangesOnly: true)
        for try await update in query.results(for: store) {
            if options.droppingLiveUpdates { continue }
            state = try await commit(update, mirror: mirror, state: state)
        }
        throw SyncError(.store, "the store ended the live feed")
    }

    /// Ends the session when the live feed has stalled: at two checks in a row, the store had
    /// changes after the committed anchor and the anchor did not move. The next session reads
    /// them from that anchor, as after any failure.
    ///
    /// Why: the feed is the only way changes reach the server while live, and a feed that stops
    /// delivering would leave the server behind with no error anywhere. A check is one anchored
    /// query of at most one change.
    func checkFeed(store: HealthStore) async throws {
        var behindAt: UInt64?
        while true {
            try await Task.sleep(for: options.feedCheckInterval)
            let committed = currentStatus.anchor
            let after = try await AnchoredObjectQueryDescriptor(
                predicates: predicates, anchor: QueryAnchor(rawValue: committed), limit: 1, localChangesOnly: true
            ).result(for: store)
            guard !after.addedSamples.isEmpty || !after.deletedObjects.isEmpty else {
                behindAt = nil
                continue
            }
            if behindAt == committed {
                logger.warning("the live feed stalled; reading its changes again", metadata: ["anchor": "\(committed)"])
                throw SyncError(
                    .store, "the live feed delivered nothing for \(options.feedCheckInterval) while the store had changes "
                        + "after anchor \(committed); reading them again")
            }
            behindAt = committed
        }
    }

    /// Reads what an earlier process kept of the app's access and of the types it followed,
    /// once per process, with the feed at `anchor` on the server.
    private func restoreAccess(mirror: PostgresMirror, anchor: UInt64) async throws {
        guard !access.withLock({ $0.restored }) else { return }
        let record = try await mirror.answered(within: options.answerTimeout) { try await mirror.access() }
        access.withLock { $0.restore(record, types: options.types, anchor: anchor) }
    }

    /// Keeps the access memory on the server, so a restart of this process still knows which
    /// types were withdrawn and what a new grant must send. A stale record is safe: its anchors
    /// are older, and a backfill from an older anchor sends again what the server has.
    private func saveAccess(mirror: PostgresMirror) async throws {
        let anchor = currentStatus.anchor
        let record = access.withLock { $0.record(anchor: anchor) }
        try await mirror.answered(within: options.answerTimeout) { try await mirror.saveAccess(record) }
    }

    /// Saves the access memory on a connection of its own (the feed's may be in a transaction),
    /// once a type is seen withdrawn. A failure is only logged: the next session saves it.
    private func keepWithdrawal() async {
        do {
            let aside = try await PostgresMirror.connect(database, person: options.person, origin: options.origin, logger: logger)
            do {
                try await saveAccess(mirror: aside)
            } catch {
                await aside.close()
                throw error
            }
            await aside.close()
        } catch {
            logger.warning("cannot keep the withdrawal on the server yet", metadata: ["error": "\(Self.syncError(error))"])
        }
    }

    /// Notes the types the app may write now, at `anchor` (the server's, as the session
    /// starts). A session does this before it reads anything, so a revocation made once its first
    /// changes are on the server is always seen as one (the access watch runs beside the feed and
    /// may look later).
    private func noteSharedTypes(store: HealthStore, anchor: UInt64) async throws {
        var shared: [SampleType] = []
        for type in options.types where try await store.authorizationStatus(for: type) == .sharingAuthorized {
            shared.append(type)
        }
        access.withLock { memory in
            for type in shared where memory.withdrawnAfter[type] == nil { memory.grantedAt[type] = anchor }
        }
    }

    /// Sends the changes each owed type has after its anchor: a type granted again, after the
    /// anchor it was withdrawn at (the live feed dropped its changes while the app could not
    /// read them, and its anchor has moved past); a type added to `--types`, from the start of
    /// its history, or from where it was left out. The feed's anchor does not move; a change sent
    /// here and again by the feed is applied twice to the same effect (rows are upserted,
    /// tombstones kept once). The status shows each backfill, sent of owed.
    ///
    /// A type the app may not read now stays owed: withdrawn, not answered by the owner, or (with
    /// the inbox, which asks to write every type) not allowed to be written, the sign an app has
    /// of a denial, since a denied read looks like no data. The store would show none of its
    /// samples, and the backfill must not end on nothing; the access watch starts a new session
    /// when the owner grants it.
    func backfill(mirror: PostgresMirror, store: HealthStore, state initial: FeedState) async throws -> FeedState {
        var state = initial
        let pending = access.withLock { $0.backfill }
        var readable: [(type: SampleType, from: UInt64)] = []
        for (type, from) in pending.sorted(by: { ($0.value, $0.key.identifier.rawValue) < ($1.value, $1.key.identifier.rawValue) }) {
            let withdrawn = access.withLock { $0.withdrawnAfter[type] != nil }
            let asking = try await store.statusForAuthorizationRequest(toShare: [], read: [type])
            let sharing = try await store.authorizationStatus(for: type)
            if withdrawn || !Self.mayRead(asking: asking, sharing: sharing, inbox: options.inbox) {
                logger.notice("a type owed a backfill may not be read yet; it stays owed", metadata: ["type": "\(type.identifier.rawValue)"])
                access.withLock { _ = $0.waiting.insert(type) }
                continue
            }
            readable.append((type, from))
        }
        var progress: [SyncStatus.Backfill] = []
        for (type, from) in readable {
            let owed = try await SyncLag.pending(store: store, predicates: [SampleTypePredicate(type)], after: from, limit: Self.countLimit)
            progress.append(SyncStatus.Backfill(type: type.identifier.rawValue, from: from, sent: 0, owed: Int64(owed.changes), atLeast: owed.atLeast))
        }
        update { [progress] in $0.backfills = progress.isEmpty ? nil : progress }
        for (type, from) in readable {
            var anchor: UInt64? = from
            var sent = 0
            while true {
                let page: AnchoredObjectQueryResult
                switch await readPage(store: store, predicates: [SampleTypePredicate(type)], anchor: anchor) {
                case .success(let value):
                    page = value
                case .failure(let error) where error.code == .anchorExpired && anchor != nil:
                    // Left out or withdrawn for longer than the store keeps deletions: every
                    // sample of the type is sent. Rows of samples deleted meanwhile stay on the
                    // server (their tombstones are gone); a full resync would remove them.
                    logger.notice(
                        "the anchor of a type owed a backfill expired; sending all its samples",
                        metadata: ["type": "\(type.identifier.rawValue)", "anchor": "\(from)"])
                    anchor = nil
                    continue
                case .failure(let error):
                    throw error
                }
                if !page.addedSamples.isEmpty || !page.deletedObjects.isEmpty {
                    state = try await mirror.answered(within: options.answerTimeout) { [state] in
                        try await mirror.apply(
                            added: page.addedSamples, deleted: page.deletedObjects, newAnchor: state.anchor, state: state)
                    }
                    let changes = page.addedSamples.count + page.deletedObjects.count
                    sent += changes
                    update { status in
                        status.changesCommitted += Int64(changes)
                        status.committedAt = state.committedAt
                        if let at = status.backfills?.firstIndex(where: { $0.type == type.identifier.rawValue }) {
                            status.backfills?[at].sent = Int64(sent)
                            // Samples saved while it runs are sent too: what is owed grows with them.
                            if let owed = status.backfills?[at].owed, Int64(sent) > owed { status.backfills?[at].owed = Int64(sent) }
                        }
                    }
                }
                anchor = page.newAnchor.rawValue
                if !page.hasMore { break }
            }
            access.withLock { memory in
                if memory.backfill[type] == from { memory.backfill[type] = nil }
            }
            try await saveAccess(mirror: mirror)
            update { status in status.backfills?.removeAll { $0.type == type.identifier.rawValue } }
            logger.notice(
                "sent the changes owed for a type",
                metadata: ["type": "\(type.identifier.rawValue)", "after": "\(from)", "changes": "\(sent)"])
        }
        update { $0.backfills = nil }
        return state
    }

    /// Whether the app can tell it may read a type: answered by the owner, and, when it asked to
    /// write it too (`inbox`), allowed to (a read alone is never disclosed).
    static func mayRead(asking: AuthorizationRequestStatus, sharing: SharingAuthorizationStatus, inbox: Bool) -> Bool {
        asking != .shouldRequest && (!inbox || sharing == .sharingAuthorized)
    }

    /// The most changes counted for a lag or a backfill; beyond it, "more than".
    static let countLimit = 100_000

    /// Looks at the app's access every poll: a type whose writing the owner denied after this
    /// process had it, or whose answer the owner reset, is reported (its changes are no longer
    /// delivered); a type granted again is no longer reported, and the changes made to it
    /// meanwhile are sent (``backfill(mirror:store:state:)``, in a new session).
    ///
    /// **Rule: what the app had is remembered across sessions and restarts.** A session that
    /// starts after a revocation (the server or the store went away meanwhile, or the process
    /// restarted) still reports it, and clears it when the owner grants the type again. The
    /// memory is kept in `salus.feeds.access`: written at each session's start, when a type is
    /// first seen withdrawn, and when a backfill ends; read once per process.
    ///
    /// A read permission alone is never disclosed to an app (a denied read looks like no data),
    /// so a read withdrawn with writing left allowed cannot be seen here; docs/sync.md says so.
    func watch(store: HealthStore) async throws {
        var reported: Set<String>? = nil
        while true {
            // Changes up to here were committed before this look.
            let anchorNow = currentStatus.anchor
            var revoked: [String] = []
            var grantedAgain: [String] = []
            var newlyWithdrawn = false
            for type in options.types {
                let sharing = try await store.authorizationStatus(for: type)
                let asking = try await store.statusForAuthorizationRequest(toShare: [], read: [type])
                let revokedNow = access.withLock { memory in
                    let hadIt = memory.grantedAt[type] != nil
                    if asking == .shouldRequest || (hadIt && sharing != .sharingAuthorized) {
                        if memory.withdrawnAfter[type] == nil {
                            memory.withdrawnAfter[type] = memory.grantedAt[type] ?? anchorNow
                            newlyWithdrawn = true
                        }
                        return true
                    }
                    if let from = memory.withdrawnAfter.removeValue(forKey: type) {
                        memory.backfill[type] = Swift.min(memory.backfill[type] ?? from, from)
                        grantedAgain.append(type.identifier.rawValue)
                    }
                    if sharing == .sharingAuthorized { memory.grantedAt[type] = anchorNow }
                    if memory.waiting.contains(type), Self.mayRead(asking: asking, sharing: sharing, inbox: options.inbox) {
                        memory.waiting.remove(type)
                        grantedAgain.append(type.identifier.rawValue)
                    }
                    return false
                }
                if revokedNow { revoked.append(type.identifier.rawValue) }
            }
            // A session's first look always reports (the last session may have left a list).
            if reported == nil || Set(revoked) != reported {
                let changed = Set(revoked) != Set(currentStatus.revokedTypes)
                reported = Set(revoked)
                let list = revoked.sorted()
                update {
                    $0.revokedTypes = list
                    if !list.isEmpty {
                        let error = SyncError(
                            .accessRevoked, "the owner withdrew this app's access; these types are no longer synced",
                            field: "types", value: list.joined(separator: ","), expected: "read and write granted to \(self.appID)")
                        $0.lastError = error.description
                        $0.lastErrorCode = error.code.rawValue
                        $0.lastErrorAt = Date()
                    }
                }
                if changed && !list.isEmpty { logger.warning("access withdrawn", metadata: ["types": "\(list)"]) }
            }
            if newlyWithdrawn { await keepWithdrawal() }
            if !grantedAgain.isEmpty {
                logger.notice("access granted again; sending what changed meanwhile", metadata: ["types": "\(grantedAgain.sorted())"])
                throw SessionRestart(reason: "access granted again to \(grantedAgain.sorted().joined(separator: ", "))")
            }
            try await Task.sleep(for: options.pollInterval)
        }
    }

    /// Brings the other stores' changes into this one, on a connection of its own: the rows
    /// after this store's `pulled_seq`, in seq order, as replicas (so the feed above, which reads
    /// local changes only, never sends them back).
    ///
    /// **Rule: the pull position moves only after the store has the changes.** A crash between
    /// the two pulls them again, and a replica save is idempotent on the UUID (a sample already
    /// here is `present`, one deleted here stays deleted).
    ///
    /// **Rule: pull when the server announces a commit, and every poll interval anyway.** Every
    /// commit of the person's rows notifies `salus_sync` with the person; the pull listens and
    /// wakes at once, so a change reaches the other machine in milliseconds. PostgreSQL keeps no
    /// announcement for a listener that was not connected, so the poll still runs.
    ///
    /// A store whose owner has not made this app the sync agent refuses replicas, and one that
    /// does not let it write a synced type refuses those samples; each is reported (status
    /// `notSyncAgent` or `accessRevoked`, naming the command that fixes it) and tried again every
    /// ten polls, while the feed to the server goes on.
    func pull(store: HealthStore) async throws {
        let mirror = try await PostgresMirror.connect(database, person: options.person, origin: options.origin, logger: logger)
        let person = options.person
        do {
            // The server announces each commit of the person's rows; between announcements the
            // pull still looks every poll interval (an announcement is not stored if missed).
            // LISTEN is bounded like every statement; the connection closes with this pull, so
            // no UNLISTEN is sent.
            let doorbell = Doorbell()
            let announcements = try await mirror.answered(within: options.answerTimeout) {
                try await mirror.connection.listen(PostgresMirror.channel)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await announcement in announcements where announcement.payload == person { doorbell.ring() }
                    throw SyncError(.server, "the PostgreSQL server stopped announcing changes")
                }
                group.addTask { try await self.pullLoop(mirror: mirror, store: store, doorbell: doorbell) }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            await mirror.close()
            throw error
        }
    }

    private func pullLoop(mirror: PostgresMirror, store: HealthStore, doorbell: Doorbell) async throws {
        let types = options.types.map(\.identifier.rawValue)
        var position = try await mirror.answered(within: options.answerTimeout) { try await mirror.pulledSequence() }
        while true {
            let (changes, upTo) = try await mirror.answered(within: options.answerTimeout) { [position, options] in
                try await mirror.pull(after: position, types: types, limit: options.batchSize)
            }
            guard !changes.isEmpty else {
                // Nothing of the others': move past this store's own rows.
                if upTo > position {
                    try await mirror.answered(within: options.answerTimeout) { [position] in
                        try await mirror.recordPulled(from: position, to: upTo)
                    }
                    position = upTo
                }
                await doorbell.wait(upTo: options.pollInterval)
                try Task.checkCancellation()
                continue
            }
            let applied: Int
            do {
                applied = try await apply(changes.map(\.change), to: store)
            } catch let error as SalusError
                where [.permissionDenied, .authorizationDenied, .authorizationNotDetermined].contains(error.code)
            {
                // The owner's answer is awaited; the feed to the server goes on meanwhile.
                let failure =
                    error.code == .permissionDenied
                    ? SyncError(
                        .notSyncAgent, "the store refuses the other machines' changes: \(error.message)", field: "appId",
                        value: appID, expected: "the store's sync agent (salusctl apps sync-agent \(appID))")
                    : SyncError(
                        .accessRevoked, "the store refuses the other machines' samples of a type this app may not write: \(error.message)",
                        field: "types", value: error.value ?? "",
                        expected: "write permission for every synced type (salusctl apps grant \(appID) --share TYPE)")
                logger.warning("cannot bring the other machines' changes", metadata: ["error": "\(failure)"])
                update { $0.lastError = failure.description; $0.lastErrorCode = failure.code.rawValue; $0.lastErrorAt = Date() }
                try await Task.sleep(for: options.pollInterval * 10)
                continue
            }
            try await mirror.answered(within: options.answerTimeout) { [position] in
                try await mirror.recordPulled(from: position, to: upTo)
            }
            position = upTo
            update { $0.replicasApplied = ($0.replicasApplied ?? 0) + Int64(applied) }
            if changes.count < options.batchSize {
                await doorbell.wait(upTo: options.pollInterval)
                try Task.checkCancellation()
            }
        }
    }

    /// The most bytes of samples (their `payload`s) one replica save carries before the next
    /// begins: a save is one request frame of at most 4 MiB, and a pull of `batchSize` samples
    /// of up to `Validation.maximumSampleBytes` each is far more. Ten samples of 440 KB in one
    /// pull were one request of 4.4 MB, refused by the connection at every retry, and the
    /// other machine never got them.
    static let replicaSaveBytes = 1 << 20

    /// The index of the sample an error names ("samples[3].metadata" is 3), if it names one.
    static func sampleIndex(_ field: String?) -> Int? {
        guard let field, field.hasPrefix("samples["), let close = field.firstIndex(of: "]") else { return nil }
        return Int(field[field.index(field.startIndex, offsetBy: 8)..<close])
    }

    /// Applies pulled changes in order, each run of samples as replica saves of up to
    /// `replicaSaveBytes` (a sample larger alone), each run of deletions as one replica
    /// deletion; returns how many changed the store.
    func apply(_ changes: [PostgresMirror.PulledChange], to store: HealthStore) async throws -> Int {
        var applied = 0
        var samples: [Sample] = []
        var sampleBytes = 0
        var deletions: [UUID] = []
        func flush() async throws {
            while !samples.isEmpty {
                let outcomes: [ReplicaOutcome]
                do {
                    outcomes = try await store.saveReplicas(samples)
                } catch {
                    // A sample this store refuses (one over the sample bound, sent by an earlier
                    // version; a type no plugin here declares) stays on the server, as a row this
                    // build cannot read does; the others go on. Refused, the whole save changed
                    // nothing: it is made again without it. Before, it was refused at every retry
                    // and nothing after it in the pull ever arrived.
                    guard error.code == .invalidArgument, let index = Self.sampleIndex(error.field), samples.indices.contains(index)
                    else { throw error }
                    let refused = samples.remove(at: index)
                    logger.error(
                        "a sample on the server is refused by the store; skipped",
                        metadata: ["uuid": "\(refused.uuid)", "error": "\(error)"])
                    update {
                        $0.lastError = "salus.samples row \(refused.uuid): the store refuses it (\(error.message))"
                        $0.lastErrorCode = SyncError.Code.server.rawValue
                        $0.lastErrorAt = Date()
                    }
                    continue
                }
                applied += outcomes.filter { outcome in
                    switch outcome {
                    case .saved, .replaced: true
                    case .present, .deletedHere, .keptLocal: false
                    }
                }.count
                samples = []
                sampleBytes = 0
            }
            if !deletions.isEmpty {
                applied += try await store.deleteReplicas(uuids: deletions)
                deletions = []
            }
        }
        for change in changes {
            switch change {
            case .sample(let uuid, let payload):
                if !deletions.isEmpty || (!samples.isEmpty && sampleBytes + payload.count > Self.replicaSaveBytes) {
                    try await flush()
                }
                do {
                    samples.append(try SampleRow.sample(payload: payload))
                    sampleBytes += payload.count
                } catch {
                    // A row this build cannot read stays on the server; the others go on.
                    logger.error("a sample on the server cannot be read; skipped", metadata: ["uuid": "\(uuid)", "error": "\(error)"])
                    update {
                        $0.lastError = "salus.samples row \(uuid): the payload is not a sample this build reads (\(error))"
                        $0.lastErrorCode = SyncError.Code.server.rawValue
                        $0.lastErrorAt = Date()
                    }
                }
            case .deletion(let uuid):
                if !samples.isEmpty { try await flush() }
                deletions.append(uuid)
            }
        }
        try await flush()
        return applied
    }

    /// Saves the inbox's pending rows into the store at every poll, on a connection of its own.
    func inbox(store: HealthStore) async throws {
        let mirror = try await PostgresMirror.connect(database, person: options.person, origin: options.origin, logger: logger)
        do {
            let processor = InboxProcessor(
                connection: mirror.connection, person: options.person, store: store, logger: logger, timeout: options.answerTimeout)
            while true {
                let pass = try await processor.drain()
                if pass.applied + pass.rejected > 0 {
                    update { $0.inboxApplied += Int64(pass.applied); $0.inboxRejected += Int64(pass.rejected) }
                }
                try await Task.sleep(for: options.pollInterval)
            }
        } catch {
            await mirror.close()
            throw error
        }
    }
}
