import SalusModel

/// One batch of a live anchored query: changes in change order and where to resume.
package struct AnchoredBatch: Hashable, Sendable {
    /// The changes.
    package var result: AnchoredQueryResult
    /// True on the last batch of the initial results (the changes that existed when the query
    /// started); later batches are live updates.
    package var initialResultsComplete: Bool

    /// Creates a batch.
    package init(result: AnchoredQueryResult, initialResultsComplete: Bool) {
        self.result = result
        self.initialResultsComplete = initialResultsComplete
    }
}

/// A live anchored query: the initial results in pages, then every later matching change, in
/// order, until the store closes or the iterating task is cancelled.
///
/// It follows the rule `CommitEvents` states: it subscribes to commits when it is created, then
/// queries from its anchor, so no commit can fall between the initial results and the live
/// updates. Each `next()` reads at most `pageSize` changes, and reads only when called: a
/// consumer that stops pulling (a client without credit) leaves the changes in the database,
/// not in memory. Live batches are never empty; the initial results end with one batch marked
/// `initialResultsComplete`, empty if there was nothing.
///
/// Errors: `anchorExpired` from the first `next()` when the anchor is below the tombstone
/// horizon, and any other `StoreError` from the queries. Iterate it once, from one task.
package struct AnchoredChanges: AsyncSequence, Sendable {
    /// Each element is one batch.
    package typealias Element = AnchoredBatch

    let store: SampleStore
    let descriptors: [QueryDescriptor]
    let anchor: Anchor?
    let pageSize: Int
    let events: CommitEvents

    /// The iterator.
    package struct AsyncIterator: AsyncIteratorProtocol {
        let store: SampleStore
        let descriptors: [QueryDescriptor]
        let types: Set<TypeIdentifier>
        let pageSize: Int
        var events: CommitEvents.AsyncIterator
        var anchor: Anchor?
        var initialDone = false
        var hasMore = false
        var finished = false

        /// The next batch, or nil when the store closed or the task was cancelled.
        package mutating func next() async throws -> AnchoredBatch? {
            while !finished {
                if !initialDone {
                    let result = try await store.anchoredQuery(descriptors, anchor: anchor, limit: pageSize)
                    anchor = result.anchor
                    initialDone = !result.hasMore
                    return AnchoredBatch(result: result, initialResultsComplete: initialDone)
                }
                if !hasMore {
                    guard let event = await events.next() else {
                        finished = true
                        return nil
                    }
                    guard event.anchor > (anchor ?? .zero), !event.changedTypes.isDisjoint(with: types) else {
                        continue
                    }
                }
                try Task.checkCancellation()
                let result = try await store.anchoredQuery(descriptors, anchor: anchor, limit: pageSize)
                anchor = result.anchor
                hasMore = result.hasMore
                if !result.added.isEmpty || !result.deleted.isEmpty {
                    return AnchoredBatch(result: result, initialResultsComplete: false)
                }
            }
            return nil
        }
    }

    /// Makes the iterator; the commit subscription was taken when the sequence was made.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            store: store, descriptors: descriptors, types: Set(descriptors.map(\.type)), pageSize: pageSize,
            events: events.makeAsyncIterator(), anchor: anchor)
    }
}

extension SampleStore {
    /// A live anchored query from `anchor` (nil: from the start): the initial results in pages
    /// of at most `pageSize` changes, then every later change matching `descriptors`; see
    /// `AnchoredChanges`.
    ///
    /// The commit subscription starts here, before any query runs. Throws `invalidArgument`
    /// at once for an invalid predicate or a non-positive page size.
    package func anchoredChanges(_ descriptors: [QueryDescriptor], from anchor: Anchor?, pageSize: Int = 500) throws
        -> AnchoredChanges
    {
        guard pageSize > 0 else {
            throw StoreError.invalid("pageSize", value: "\(pageSize)", expected: "a positive page size")
        }
        _ = try StoreReads.compile(descriptors, catalog: catalog)
        return AnchoredChanges(
            store: self, descriptors: descriptors, anchor: anchor, pageSize: pageSize, events: commits())
    }
}
