import SalusModel
import SalusProto
import SalusRPC

/// An anchored object query, as HealthKit's `HKAnchoredObjectQueryDescriptor`: the samples added
/// and the objects deleted since an anchor, for one or several types, and the anchor to resume
/// from next time.
///
/// ```swift
/// var anchor: QueryAnchor? = loadAnchor()
/// let query = AnchoredObjectQueryDescriptor(predicates: [.samples(.category(.sleepAnalysis))], anchor: anchor)
/// let changes = try await query.result(for: store)     // once
/// for try await update in query.results(for: store) {  // then live, until the task is cancelled
///     apply(update.addedSamples, update.deletedObjects)
///     anchor = update.newAnchor
/// }
/// ```
///
/// An anchor older than the daemon's tombstone retention fails with
/// ``SalusError/Code/anchorExpired``: start again from nil.
public struct AnchoredObjectQueryDescriptor: Hashable, Sendable {
    /// The types (each with an optional predicate) to follow.
    public var predicates: [SampleTypePredicate]
    /// Report changes after this anchor; nil means from the start, including the deletions
    /// still retained.
    public var anchor: QueryAnchor?
    /// At most this many changes (added plus deleted) in ``result(for:)``; nil means no limit.
    /// ``AnchoredObjectQueryResult/hasMore`` says whether more are there. ``results(for:)`` (the
    /// live updates) is not limited: its first element holds every change after ``anchor``.
    public var limit: Int?
    /// Leave out the changes that came from the person's other stores
    /// (``HealthStore/saveReplicas(_:)``): what a sync agent reads to send, so that it never
    /// sends back what it brought. The anchor still moves past them.
    public var localChangesOnly: Bool

    /// A query for changes to the samples `predicates` select, after `anchor`.
    public init(
        predicates: [SampleTypePredicate], anchor: QueryAnchor? = nil, limit: Int? = nil, localChangesOnly: Bool = false
    ) {
        self.predicates = predicates
        self.anchor = anchor
        self.limit = limit
        self.localChangesOnly = localChangesOnly
    }

    /// The request sent (`salus.v1.AnchoredQueryRequest`); `live` keeps it streaming.
    package func request(live: Bool) -> Salus_V1_AnchoredQueryRequest {
        var request = Salus_V1_AnchoredQueryRequest()
        request.descriptors = predicates.map(\.wire)
        if let anchor { request.anchor = anchor.rawValue }
        request.limit = UInt64(max(0, limit ?? 0))
        request.live = live
        request.localChangesOnly = localChangesOnly
        // The initial results are gathered into one array: its size, known at the first batch,
        // saves copying it as it grows.
        request.countInitialAdded = true
        return request
    }

    /// The changes after ``anchor`` (up to ``limit``) and the anchor after them.
    public func result(for store: HealthStore) async throws(SalusError) -> AnchoredObjectQueryResult {
        var iterator = AnchoredObjectQueryUpdates(store: store, request: request(live: false)).makeAsyncIterator()
        do {
            guard let result = try await iterator.next() else {
                return AnchoredObjectQueryResult(
                    addedSamples: [], deletedObjects: [], newAnchor: anchor ?? QueryAnchor(rawValue: 0), hasMore: false
                )
            }
            return result
        } catch {
            throw SalusError.from(error)
        }
    }

    /// The changes after ``anchor`` as a first element, then every later matching change as it
    /// is committed, in order, until the iterating task is cancelled or the loop ends (which
    /// cancels the query on the daemon). Errors are ``SalusError``s.
    public func results(for store: HealthStore) -> AnchoredObjectQueryUpdates {
        AnchoredObjectQueryUpdates(store: store, request: request(live: true))
    }
}

/// What an anchored query reports: added samples, deleted objects and the anchor to resume from.
public struct AnchoredObjectQueryResult: Hashable, Sendable {
    /// Samples added since the previous anchor, in change order.
    public var addedSamples: [Sample]
    /// Samples deleted since the previous anchor, in change order.
    public var deletedObjects: [DeletedObject]
    /// The anchor after these changes; pass it to the next query.
    public var newAnchor: QueryAnchor
    /// With a limit: more changes are there after ``newAnchor``.
    public var hasMore: Bool

    /// Creates a result.
    public init(addedSamples: [Sample], deletedObjects: [DeletedObject], newAnchor: QueryAnchor, hasMore: Bool = false) {
        self.addedSamples = addedSamples
        self.deletedObjects = deletedObjects
        self.newAnchor = newAnchor
        self.hasMore = hasMore
    }
}

/// The updates of a live anchored query: the initial results as one element, then one element
/// per batch of later changes.
public struct AnchoredObjectQueryUpdates: AsyncSequence, Sendable {
    /// One update.
    public typealias Element = AnchoredObjectQueryResult

    let store: HealthStore
    let request: Salus_V1_AnchoredQueryRequest

    /// Starts the query.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            batches: ByteResponseReader(store: store, method: SalusMethods.Store.queryAnchored, request: request),
            anchor: request.anchor)
    }

    /// Reads batches from the daemon as updates are consumed, each straight from its bytes
    /// (``SamplePageDecoder``).
    public struct AsyncIterator: AsyncIteratorProtocol {
        var batches: ByteResponseReader
        var decoder = SamplePageDecoder()
        var anchor: UInt64
        var initialDone = false
        var batchIndex = 0

        init(batches: ByteResponseReader, anchor: UInt64) {
            self.batches = batches
            self.anchor = anchor
        }

        /// The next update, or nil when the query has ended; throws ``SalusError``.
        public mutating func next() async throws -> AnchoredObjectQueryResult? {
            var result = AnchoredObjectQueryResult(addedSamples: [], deletedObjects: [], newAnchor: QueryAnchor(rawValue: anchor))
            var gotAny = false
            while let bytes = try await batches.next() {
                let batch = try decoder.anchoredBatch(
                    bytes, path: "batches[\(batchIndex)]", appendingAddedTo: &result.addedSamples)
                batchIndex += 1
                result.deletedObjects += batch.deleted
                anchor = Swift.max(anchor, batch.anchor)
                result.newAnchor = QueryAnchor(rawValue: anchor)
                result.hasMore = batch.moreChanges
                gotAny = true
                // The initial results are gathered into one update; later batches are one each.
                if initialDone { return result }
                if batch.initialResultsComplete {
                    initialDone = true
                    return result
                }
            }
            return gotAny ? result : nil
        }
    }
}
