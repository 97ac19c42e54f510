import Foundation
import Logging
import SalusModel
import Synchronization

/// One person's health samples in a SQLite database: batch saves, deletions with tombstones,
/// sample, anchored and source queries, and a feed of commits.
///
/// **Concurrency.** Every method is `async` and safe to call from any task. Writes (save,
/// delete, purge) run one at a time on a single writer connection, each in one transaction;
/// reads run on a small pool of reader connections that see the last committed state (WAL
/// mode) and never wait for the writer. All SQLite work runs on the store's own dispatch queues,
/// never on Swift's cooperative threads, so a slow query cannot stall other tasks; see
/// docs/storage.md for the rules and their reasons.
///
/// **Caller identity.** The store trusts its caller: `source` on save and `requester` on delete
/// are what the service layer derived from the connection, never what a client claimed.
///
/// **Errors** are `StoreError`s; refused input names the field path, the value and what was
/// expected.
package final class SampleStore: Sendable {
    /// How the store runs.
    package struct Configuration: Sendable {
        /// How many reader connections to open (at least 1).
        package var readerCount: Int
        /// How long tombstones are kept by `purgeExpiredTombstones`; 30 days by default.
        package var tombstoneRetention: Duration
        /// The page size `samples(_:pageSize:)` uses when none is given.
        package var defaultPageSize: Int
        /// Called on the writer's queue inside the transaction that finishes a workout builder,
        /// just before it commits: the crash-safety test stops the daemon there. Nil in use.
        package var beforeFinishingWorkoutBuilderCommits: (@Sendable () -> Void)?
        /// Called on the writer's queue at each named point of a schema migration on open
        /// ("14 metadata begin", "14 metadata chunk 0", "14 dropped", "14 before commit",
        /// "14 committed"): the migration's crash test stops the process there. Nil in use.
        package var migrationPoints: (@Sendable (String) -> Void)?

        /// Creates a configuration.
        package init(
            readerCount: Int = 3, tombstoneRetention: Duration = .seconds(30 * 86_400), defaultPageSize: Int = 500,
            beforeFinishingWorkoutBuilderCommits: (@Sendable () -> Void)? = nil,
            migrationPoints: (@Sendable (String) -> Void)? = nil
        ) {
            self.beforeFinishingWorkoutBuilderCommits = beforeFinishingWorkoutBuilderCommits
            self.migrationPoints = migrationPoints
            self.readerCount = readerCount
            self.tombstoneRetention = tombstoneRetention
            self.defaultPageSize = defaultPageSize
        }
    }

    /// The database file.
    package let path: String
    /// The configuration the store was opened with.
    package let configuration: Configuration
    /// Where type rules come from.
    package let catalog: TypeCatalog

    let writer: StoreWriter
    let readers: ReaderPool
    private let broadcaster: CommitBroadcaster
    private let closed = Atomic<Bool>(false)
    private let logger: Logger

    private init(
        path: String, configuration: Configuration, catalog: TypeCatalog, writer: StoreWriter,
        readers: ReaderPool, broadcaster: CommitBroadcaster, logger: Logger
    ) {
        self.path = path
        self.configuration = configuration
        self.catalog = catalog
        self.writer = writer
        self.readers = readers
        self.broadcaster = broadcaster
        self.logger = logger
    }

    /// Opens (creating if needed) the store at `path`, migrating its schema to
    /// `Schema.currentVersion`, and opens the writer and reader connections.
    ///
    /// Throws `StoreError` with `.database` when the file cannot be opened or was made by a
    /// newer schema.
    package static func open(
        path: String, catalog: TypeCatalog, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "salus.store")
    ) async throws -> SampleStore {
        let label = "salus.store"
        let writerConnection = ConnectionQueue(label: "\(label).writer")
        try await writerConnection.open { try Database(path: path) }
        _ = try await writerConnection.run { database in 
            try Schema.migrate(database, logger: logger, observe: configuration.migrationPoints)
        }
        let broadcaster = CommitBroadcaster()
        let writer = StoreWriter(
            connection: writerConnection, catalog: catalog, broadcaster: broadcaster, logger: logger,
            beforeFinishingWorkoutBuilderCommits: configuration.beforeFinishingWorkoutBuilderCommits)
        try await writer.load()
        let attachmentFolder = AttachmentFiles.folder(storePath: path)
        _ = try await writerConnection.run { database in
            try AttachmentFiles.sweep(database, folder: attachmentFolder, includingPartial: true)
        }
        let readers = ReaderPool(count: configuration.readerCount, label: label)
        for reader in readers.readers {
            try await reader.open { try Database(path: path, create: false, readOnly: true) }
        }
        logger.debug("opened the store", metadata: ["path": "\(path)", "readers": "\(readers.readers.count)"])
        return SampleStore(
            path: path, configuration: configuration, catalog: catalog, writer: writer, readers: readers,
            broadcaster: broadcaster, logger: logger)
    }

    /// Closes the store: commit feeds end, calls already queued finish, later calls throw
    /// `.closed`.
    package func close() async {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        broadcaster.close()
        await writer.connection.close()
        for reader in readers.readers { await reader.close() }
    }

    func checkOpen() throws(StoreError) {
        if closed.load(ordering: .relaxed) { throw StoreError(code: .closed, message: "the store is closed") }
    }

    // MARK: Writing

    /// Saves `samples` in one transaction — all of them or none — as written by `source`.
    ///
    /// The samples must have passed `TypeCatalog.check` (the one check of every rule a sample
    /// follows); the store decides only what needs the database: UUIDs kept with
    /// `SaveOptions.uuidPolicy` `.keep` must be new, and sync identifiers replace or keep (below).
    /// A refusal throws `invalidArgument` naming `samples[i]`'s field, and nothing is saved.
    ///
    /// Quantities are stored in the type's canonical unit, with the unit the app used kept for
    /// display; `source` replaces whatever `sourceRevision` the samples carried, and the store
    /// sets `creationDate` to now and assigns UUIDs (see `SaveOptions.uuidPolicy`).
    ///
    /// **Sync identifier and version** (`MetadataKey.syncIdentifier`/`syncVersion`, scoped per
    /// app id and type): a sample whose identifier is new is saved; one whose identifier exists
    /// with a strictly lower version replaces that sample in the same transaction (the old one
    /// becomes a tombstone keeping only the two sync keys); an equal or higher existing version
    /// changes nothing and the result is `.keptExisting` with the existing UUID. One key without
    /// the other is an `invalidArgument` error.
    package func save(_ samples: [Sample], source: SourceRevision, options: SaveOptions = SaveOptions()) async throws
        -> SaveResponse
    {
        try checkOpen()
        return try await writer.save(samples, source: source, options: options)
    }

    /// Saves, as ``save(_:source:options:)`` with UUIDs assigned, the samples `feed` hands over
    /// in parts while its producer converts and checks the parts after: one transaction, in the
    /// feed's order, rolled back whole when the producer fails (the save then throws its error).
    /// The producer must end the feed (``SampleFeed/finish()`` or ``SampleFeed/fail(_:)``).
    package func save(feed: SampleFeed, source: SourceRevision) async throws -> SaveResponse {
        do {
            try checkOpen()
        } catch {
            feed.abandon()
            throw error
        }
        do {
            return try await writer.save(feed: feed, source: source, options: SaveOptions(uuidPolicy: .assign))
        } catch {
            // The writer's connection reports what its closure threw as a database error.
            if let failure = feed.failure { throw failure }
            throw error
        }
    }

    /// Saves samples from the person's other stores in one transaction, each with the UUID,
    /// source revision and creation date it has there (`SaveOptions.UUIDPolicy.replica`), marking
    /// the changes as replicas so that an anchored query for local changes only leaves them out.
    ///
    /// A UUID already here is `.present` and one deleted here `.deletedHere` (deletions win);
    /// neither changes anything. Sync identifiers follow the server's order: a replica replaces
    /// this store's sample of the same app, type and identifier when its version is equal or
    /// higher (the server saw it first), and is `.keptExisting` when this store's version is
    /// higher (this store's sample is on its way to the server, where it wins).
    package func saveReplicas(_ samples: [Sample]) async throws -> SaveResponse {
        try checkOpen()
        guard let first = samples.first else { return SaveResponse(results: [], anchor: try await currentAnchor()) }
        return try await writer.save(samples, source: first.sourceRevision, options: SaveOptions(uuidPolicy: .replica))
    }

    /// Deletes the samples with these UUIDs that the store has, whoever saved them, in one
    /// transaction, marking the tombstones as replicas; UUIDs it does not have are skipped.
    package func deleteReplicas(_ uuids: [UUID], agent: String) async throws -> DeleteResponse {
        try checkOpen()
        let response = try await writer.deleteReplicas(uuids, agent: agent)
        _ = try? await sweepAttachmentFiles()
        return response
    }

    /// The types of the samples with these UUIDs that the store has (a sample's type never
    /// changes, so the answer stays true for as long as the sample exists).
    package func types(of uuids: [UUID]) async throws -> Set<TypeIdentifier> {
        try checkOpen()
        return try await readers.run { database in
            let lookup = try database.prepare(
                "SELECT t.identifier FROM samples s CROSS JOIN types t ON t.id = s.type_id WHERE \(SampleUUIDs.match("s", "?1"))")
            var types = Set<TypeIdentifier>()
            for uuid in uuids {
                try lookup.bind([.uuid(uuid)])
                if try lookup.step() { types.insert(TypeIdentifier(lookup.text(0) ?? "")) }
                lookup.reset()
            }
            return types
        }
    }

    /// Deletes the samples with these UUIDs in one transaction — all or none — leaving a
    /// tombstone for each at a new change position.
    ///
    /// Throws `notFound` for a UUID not in the store and, for `.app(id)`, `notOwner` for a
    /// sample another app saved, naming `uuids[i]`; then nothing is deleted. Repeated UUIDs count
    /// once. An empty list is `invalidArgument`.
    package func delete(_ uuids: [UUID], requester: Requester) async throws -> DeleteResponse {
        try checkOpen()
        let response = try await writer.delete(uuids, requester: requester)
        _ = try? await sweepAttachmentFiles()
        return response
    }

    /// Deletes every sample of `type` matching `predicate` (nil: all) that `requester` may
    /// delete — for `.app(id)` only that app's samples — in one transaction, and returns how
    /// many.
    package func delete(type: TypeIdentifier, matching predicate: SamplePredicate?, requester: Requester) async throws
        -> DeleteResponse
    {
        try checkOpen()
        let response = try await writer.delete(type: type, matching: predicate, requester: requester)
        _ = try? await sweepAttachmentFiles()
        return response
    }

    /// Removes the tombstones of deletions made before `date`, oldest first, and moves the
    /// tombstone horizon up to the last one removed.
    ///
    /// Purging removes a prefix of the change sequence: every tombstone at or below the newest
    /// one older than `date` goes. Anchors below the new horizon then get `anchorExpired`.
    package func purgeTombstones(olderThan date: Date) async throws -> PurgeResult {
        try checkOpen()
        return try await writer.purgeTombstones(olderThan: date)
    }

    /// Purges the tombstones older than `configuration.tombstoneRetention` before `now`; the
    /// daemon calls this periodically.
    package func purgeExpiredTombstones(now: Date = Date()) async throws -> PurgeResult {
        let retention = configuration.tombstoneRetention.components
        let seconds = Double(retention.seconds) + Double(retention.attoseconds) / 1e18
        return try await purgeTombstones(olderThan: now.addingTimeInterval(-seconds))
    }

    // MARK: Reading

    /// The latest change position: the anchor a client is at after reading everything.
    package func currentAnchor() async throws -> Anchor {
        try checkOpen()
        return try await readers.run { database in
            Anchor(sequence: try database.scalarInt("SELECT value FROM store_info WHERE key = 'last_sequence'") ?? 0)
        }
    }

    /// The tombstone horizon: the lowest anchor still valid. Anchors below it get
    /// `anchorExpired`; no anchor (or `Anchor.zero`) is always valid.
    package func tombstoneHorizon() async throws -> Anchor {
        try checkOpen()
        return try await readers.run { database in
            Anchor(sequence: try database.scalarInt("SELECT value FROM store_info WHERE key = 'tombstone_horizon'") ?? 0)
        }
    }

    /// The samples matching `query`, in pages of at most `pageSize` (by default
    /// `configuration.defaultPageSize`); see `SamplePages` for memory and consistency.
    /// Correlations come with their members (read for the whole page in one query).
    ///
    /// Throws `invalidArgument` at once, naming the node, when the predicate or a member
    /// predicate is invalid for its type, when member predicates are given for a type that is not
    /// a correlation type, or when `pageSize` or `limit` is not positive.
    /// Checks `predicate` for a read of `type` as a query compiles it, reading nothing: the
    /// error names the node by `path` as the caller wrote it. The server checks a caller's
    /// predicate with this before narrowing it to what the caller may read, so a refusal is the
    /// same whatever the caller was granted (docs/authorization.md, "Non-interference").
    package func checkPredicate(_ predicate: SamplePredicate?, of type: TypeIdentifier, path: String = "predicate") throws(StoreError) {
        _ = try PredicateCompiler(type: type, info: catalog.rules(for: type), catalog: catalog, target: .samples)
            .compile(predicate, path: path)
    }

    package func samples(_ query: SampleQuery, pageSize: Int? = nil) throws -> SamplePages {
        try checkOpen()
        let size = pageSize ?? configuration.defaultPageSize
        guard size > 0 else {
            throw StoreError.invalid("pageSize", value: "\(size)", expected: "a positive page size")
        }
        if let limit = query.limit, limit <= 0 {
            throw StoreError.invalid("limit", value: "\(limit)", expected: "a positive limit, or nil for no limit")
        }
        var filter = try PredicateCompiler(
            type: query.type, info: catalog.rules(for: query.type), catalog: catalog, target: .samples
        ).compile(query.predicate)
        if !query.memberPredicates.isEmpty {
            guard catalog.rules(for: query.type)?.kind == .correlation else {
                throw StoreError.invalid(
                    "samplePredicates", value: "\(query.memberPredicates.count) for \(query.type)",
                    expected: "member predicates only in a query of a correlation type")
            }
        }
        for (index, member) in query.memberPredicates.enumerated() {
            // The members' alias `r` shadows the correlation's inside the subquery, which is what
            // the compiled fragment refers to.
            let fragment = try PredicateCompiler(
                type: member.type, info: catalog.rules(for: member.type), catalog: catalog, target: .samples
            ).compile(member.predicate, path: "samplePredicates[\(index)].predicate")
            filter = SQLFragment(
                sql: "(\(filter.sql) AND r.id IN (SELECT m.correlation_id FROM correlation_members m "
                    + "JOIN samples r ON r.id = m.member_id "
                    + "WHERE r.type_id = (SELECT id FROM types WHERE identifier = ?) AND \(fragment.sql)))",
                arguments: filter.arguments + [.text(member.type.rawValue)] + fragment.arguments)
        }
        let sort = query.sort.isEmpty ? [SampleSortDescriptor(.startDate)] : query.sort
        var keys = sort.map { (column: $0.column, descending: $0.descending) }
        keys.append((column: "r.id", descending: sort.last!.descending))
        var plan = SamplePages.Plan(type: query.type, filter: filter, keys: keys, limit: query.limit)
        if query.limit == nil, keys.first?.column == "r.start_us", let window = Self.dateWindow(of: query.predicate),
            let start = window.start, let end = window.end, end > start
        {
            let (first, last) = (StoredTime.microseconds(start), StoredTime.microseconds(end))
            plan.split = first / 2 + last / 2
        }
        return SamplePages(readers: readers, plan: plan, pageSize: size)
    }

    /// The date window a predicate bounds its samples to: its own, or one of a conjunction's
    /// (`SamplePages.Plan.split`).
    static func dateWindow(of predicate: SamplePredicate?) -> DateWindow? {
        switch predicate {
        case .dateWindow(let window): window
        case .and(let parts): parts.lazy.compactMap { dateWindow(of: $0) }.first
        default: nil
        }
    }

    /// The changes after `anchor` (nil: from the start, including the deletions still retained)
    /// that match any of `descriptors`, read in one snapshot: added samples, deleted objects
    /// (UUID, type and the two sync keys) and the anchor to resume from.
    ///
    /// With a `limit`, at most that many changes (samples and deletions together) come back, and
    /// `hasMore` says whether to call again from the returned anchor; page through large
    /// catch-ups this way to bound memory. Throws `anchorExpired` when `anchor` is below the
    /// tombstone horizon, and `invalidArgument` for an anchor after the latest change, a
    /// non-positive limit, or an invalid predicate (naming `descriptors[i].predicate…`).
    ///
    /// With `maxBytes`, the page also ends (`hasMore`, its anchor after the last change it holds)
    /// once its samples' stored values, metadata and sync identifiers reach that many bytes:
    /// what a server sends as one frame (`StoreReads.anchored`).
    package func anchoredQuery(_ descriptors: [QueryDescriptor], anchor: Anchor?, limit: Int? = nil, maxBytes: Int? = nil)
        async throws -> AnchoredQueryResult
    {
        try checkOpen()
        if let limit, limit <= 0 {
            throw StoreError.invalid("limit", value: "\(limit)", expected: "a positive limit, or nil for no limit")
        }
        let compiled = try StoreReads.compile(descriptors, catalog: catalog)
        return try await readers.run { database in
            try StoreReads.anchored(database, descriptors: compiled, anchor: anchor, limit: limit, maxBytes: maxBytes)
        }
    }

    /// How many samples of `type` the store holds now: a count over the type's index, without
    /// reading the samples. 0 for a type with none or one the store has never seen.
    package func sampleCount(of type: TypeIdentifier) async throws -> Int {
        try checkOpen()
        return try await readers.run { database in
            Int(
                try database.scalarInt(
                    "SELECT count(*) FROM samples WHERE type_id = (SELECT id FROM types WHERE identifier = ?)",
                    [.text(type.rawValue)]) ?? 0)
        }
    }

    /// The same changes as `anchoredQuery`, written as the `AnchoredBatch` bytes of the added
    /// samples and deleted objects by `encoder`, with no model sample in between (not for
    /// correlation types: reading one fails). Same errors as `anchoredQuery`.
    package func anchoredWire(
        _ descriptors: [QueryDescriptor], anchor: Anchor?, limit: Int? = nil, encoder: SampleWireEncoder,
        walk: AnchoredWalk = .rowID
    ) async throws -> WireAnchoredPage {
        try await anchoredWire(descriptors, anchor: anchor, limit: limit, builder: WirePageBuilder(encoder: encoder), walk: walk)
    }

    func anchoredWire(
        _ descriptors: [QueryDescriptor], anchor: Anchor?, limit: Int?, builder: WirePageBuilder, walk: AnchoredWalk = .rowID
    ) async throws -> WireAnchoredPage {
        try checkOpen()
        if let limit, limit <= 0 {
            throw StoreError.invalid("limit", value: "\(limit)", expected: "a positive limit, or nil for no limit")
        }
        let compiled = try StoreReads.compile(descriptors, catalog: catalog)
        return try await readers.run { database in
            try StoreReads.anchoredWire(database, descriptors: compiled, anchor: anchor, limit: limit, builder: builder, walk: walk)
        }
    }

    /// The type and the saving app (the app a deletion's ownership is decided on) of each of
    /// `uuids` the store holds, read in one transaction; a UUID the store does not hold is
    /// left out.
    package func deletionKeys(uuids: [UUID]) async throws -> [UUID: (type: TypeIdentifier, appID: String)] {
        try checkOpen()
        return try await readers.run { database in
            try database.transaction(immediate: false) {
                let lookup = try database.prepare(
                    "SELECT t.identifier, a.app_id FROM samples s CROSS JOIN apps a ON a.id = s.app_ref "
                        + "CROSS JOIN types t ON t.id = s.type_id WHERE \(SampleUUIDs.match("s", "?1"))", cached: false)
                defer { lookup.reset() }
                var keys: [UUID: (type: TypeIdentifier, appID: String)] = [:]
                for uuid in uuids where keys[uuid] == nil {
                    try lookup.bind([.uuid(uuid)])
                    if try lookup.step() { keys[uuid] = (TypeIdentifier(lookup.text(0) ?? ""), lookup.text(1) ?? "") }
                    lookup.reset()
                }
                return keys
            }
        }
    }

    /// The type and the saving app of sample `uuid`, or nil when the store has none: what a
    /// caller's read permission is decided on, read from the row's type and source alone, so
    /// that a read by UUID is refused to an app that may not read the sample before the row's
    /// other columns are read. A damaged row is refused naming the row and the column
    /// (`StoredRowChecks`), and that error must reach only an app that may read the row.
    package func readKey(uuid: UUID) async throws -> (type: TypeIdentifier, appID: String)? {
        try checkOpen()
        return try await readers.run { database in
            let statement = try database.prepare(
                "SELECT t.identifier, src.app_id FROM samples r JOIN types t ON t.id = r.type_id "
                    + "JOIN sources src ON src.id = r.source_id WHERE \(SampleUUIDs.match("r", "?1"))", cached: false)
            defer { statement.reset() }
            try statement.bind([.uuid(uuid)])
            guard try statement.step() else { return nil }
            return (TypeIdentifier(statement.text(0) ?? ""), statement.text(1) ?? "")
        }
    }

    /// The sample with this UUID, of any type, or nil when there is none; it carries no
    /// electrocardiogram voltages (see `electrocardiogramVoltages(of:)`).
    ///
    /// The store does not know who asks: the caller decides whether the sample may be seen.
    package func sample(uuid: UUID) async throws -> Sample? {
        try checkOpen()
        return try await readers.run { database in
            try database.transaction(immediate: false) {
                let statement = try database.prepare(
                    "SELECT \(SampleRows.columns) \(SampleRows.from) WHERE \(SampleUUIDs.match("r", "?1"))", cached: false)
                try statement.bind([.uuid(uuid)])
                var decoder = SampleRowDecoder()
                guard try statement.step() else { return nil }
                return try SampleRows.samples(database, rows: [try decoder.decode(statement)]).first
            }
        }
    }

    /// The voltages of the electrocardiogram with this UUID, in chunks of at most 1,024 in
    /// recording order; see `ElectrocardiogramVoltagePages` for memory and consistency. No
    /// chunk when there is no such electrocardiogram or it was saved without voltages.
    ///
    /// The store does not know who asks: check first that the caller may read the sample.
    package func electrocardiogramVoltages(of uuid: UUID) throws -> ElectrocardiogramVoltagePages {
        try checkOpen()
        return ElectrocardiogramVoltagePages(readers: readers, uuid: uuid, blockReads: voltageBlockReads)
    }

    /// Voltage blocks read from the database since the store opened, by every stream (for tests
    /// and diagnostics: a stream reads a block only when it may send it).
    package var electrocardiogramBlocksRead: Int { voltageBlockReads.count.load(ordering: .relaxed) }
    private let voltageBlockReads = VoltageBlockReads()

    /// The commits from now on, as an asynchronous sequence of events (changed types and the
    /// anchor after the commit).
    ///
    /// The subscription starts when this returns: subscribe first, then run the initial
    /// anchored query, then follow the events, re-running the anchored query from the last
    /// anchor when an event's types interest you. Events may coalesce; none is lost (see
    /// `CommitEvents`).
    package func commits() -> CommitEvents {
        CommitEvents(subscription: broadcaster.subscribe())
    }

    /// The apps (and their devices) that wrote samples of `type` matching `predicate`, by app id.
    package func sources(type: TypeIdentifier, matching predicate: SamplePredicate? = nil) async throws -> [SourceInfo] {
        try checkOpen()
        let fragment = try PredicateCompiler(
            type: type, info: catalog.rules(for: type), catalog: catalog, target: .samples
        ).compile(predicate)
        return try await readers.run { database in
            try StoreReads.sources(database, type: type, fragment: fragment)
        }
    }

    /// `PRAGMA integrity_check`'s answer: "ok" for a sound database.
    package func integrityCheck() async throws -> String {
        try checkOpen()
        return try await readers.run { database in
            try database.scalarText("PRAGMA integrity_check") ?? ""
        }
    }
}
