import NIOCore
import SalusModel
import SalusProtoCodec

/// What a page of an anchored read tells the live feed: where to resume and whether it holds
/// anything.
package protocol AnchoredPage: Sendable {
    /// Where to resume.
    var anchor: Anchor { get }
    /// Whether the limit cut the changes short.
    var hasMore: Bool { get }
    /// Whether the page holds no change.
    var isEmpty: Bool { get }
}

extension AnchoredQueryResult: AnchoredPage {
    package var isEmpty: Bool { added.isEmpty && deleted.isEmpty }
}

/// An anchored read written as wire bytes (`SampleStore.anchoredWire`): the `AnchoredBatch`
/// fields of the added samples (1) and deleted objects (2), in change order.
package struct WireAnchoredPage: AnchoredPage {
    /// The serialized fields 1 and 2; `count` is added plus deleted.
    package var changes: WirePage
    /// How many added samples.
    package var added: Int
    /// How many deleted objects.
    package var deleted: Int
    /// Where to resume.
    package var anchor: Anchor
    /// Whether the limit cut the changes short.
    package var hasMore: Bool

    package var isEmpty: Bool { changes.count == 0 }

    /// The whole serialized `salus.v1.AnchoredBatch`: the changes, then the anchor (3),
    /// `initial_results_complete` (4), `more_changes` (5) and `initial_added_hint` (6), written
    /// after the changes in the room the page left for them. The page's buffer becomes the
    /// batch's, with no copy: the page holds no bytes after.
    package mutating func batch(initialResultsComplete: Bool, moreChanges: Bool, initialAddedHint: Int = 0) -> ByteBuffer {
        var out = changes.bytes
        changes.bytes = ByteBuffer()
        let anchor = anchor
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.trailerRoom) { buffer in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            var writer = ProtoWriter(cursor: base)
            writer.int64(3, Int64(bitPattern: anchor.rawValue))
            writer.int64(4, initialResultsComplete ? 1 : 0)
            writer.int64(5, moreChanges ? 1 : 0)
            writer.int64(6, Int64(Swift.max(0, initialAddedHint)))
            return writer.cursor - base
        }
        return out
    }

    /// The most bytes `batch` adds after the changes: four varint fields.
    static let trailerRoom = 4 * 2 * ProtoWriter.maxVarint
}

/// One batch of a live anchored query: changes in change order and where to resume.
package struct LiveAnchoredBatch<Page: AnchoredPage>: Sendable {
    /// The changes.
    package var result: Page
    /// True on the last batch of the initial results (the changes that existed when the query
    /// started); later batches are live updates.
    package var initialResultsComplete: Bool

    /// Creates a batch.
    package init(result: Page, initialResultsComplete: Bool) {
        self.result = result
        self.initialResultsComplete = initialResultsComplete
    }
}

extension LiveAnchoredBatch: Equatable where Page: Equatable {}
extension LiveAnchoredBatch: Hashable where Page: Hashable {}

/// A batch of a live anchored query of model samples.
package typealias AnchoredBatch = LiveAnchoredBatch<AnchoredQueryResult>

/// A live anchored query: the initial results in pages, then every later matching change, in
/// order, until the store closes or the iterating task is cancelled.
///
/// It follows the rule `CommitEvents` states: it subscribes to commits when it is created, then
/// queries from its anchor, so no commit can fall between the initial results and the live
/// updates. Each read takes at most `pageSize` changes, and a page is read only when the consumer
/// asks for it or, while the initial results or a backlog go on, as the page before it is
/// returned (`readAhead`): a consumer that stops pulling (a client without credit) leaves the
/// changes in the database and at most one page in memory. Live batches are never empty; the
/// initial results end with one batch marked
/// `initialResultsComplete`, empty if there was nothing.
///
/// Pages are model results (`AnchoredChanges`) or wire bytes (`WireAnchoredChanges`); the
/// feed's rules are the same.
///
/// Errors: `anchorExpired` from the first `next()` when the anchor is below the tombstone
/// horizon, and any other `StoreError` from the queries. Iterate it once, from one task.
package struct LiveAnchoredChanges<Page: AnchoredPage>: AsyncSequence, Sendable {
    /// Each element is one batch.
    package typealias Element = LiveAnchoredBatch<Page>
    /// Reads at most a page of changes after an anchor.
    typealias Read = @Sendable (Anchor?) async throws -> Page

    let types: Set<TypeIdentifier>
    let anchor: Anchor?
    let read: Read
    let events: CommitEvents

    /// The iterator.
    package struct AsyncIterator: AsyncIteratorProtocol {
        let types: Set<TypeIdentifier>
        let read: Read
        var events: CommitEvents.AsyncIterator
        var anchor: Anchor?
        var initialDone = false
        var hasMore = false
        var finished = false
        /// The read of the page after `aheadFrom`, started when the page before said there was more.
        var ahead: ReadAhead<Page>?
        var aheadFrom: Anchor?

        /// Whether the next page's read has been started (tests).
        package var isReadingAhead: Bool { ahead != nil }

        /// The next batch, or nil when the store closed or the task was cancelled.
        package mutating func next() async throws -> LiveAnchoredBatch<Page>? {
            while !finished {
                if !initialDone {
                    let result = try await page()
                    anchor = result.anchor
                    initialDone = !result.hasMore
                    readAhead(if: result.hasMore)
                    return LiveAnchoredBatch(result: result, initialResultsComplete: initialDone)
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
                let result = try await page()
                anchor = result.anchor
                hasMore = result.hasMore
                readAhead(if: result.hasMore)
                if !result.isEmpty {
                    return LiveAnchoredBatch(result: result, initialResultsComplete: false)
                }
            }
            return nil
        }

        /// The page after `anchor`: the one read ahead, or a read now.
        mutating func page() async throws -> Page {
            guard let ahead, aheadFrom == anchor else {
                ahead = nil
                return try await read(anchor)
            }
            self.ahead = nil
            return try await ahead.value()
        }

        /// **Rule: a page that says there is more has the next one read while the caller sends
        /// it** (as `SampleWirePages`): the reader goes from page to page of a catch-up without
        /// waiting for the hops out to the connection and back between them. At most one page
        /// is read ahead, so a consumer that stops pulling holds one page in memory, not more.
        mutating func readAhead(if more: Bool) {
            guard more else { return }
            let (read, anchor) = (self.read, self.anchor)
            aheadFrom = anchor
            ahead = ReadAhead { try await read(anchor) }
        }
    }

    /// Makes the iterator; the commit subscription was taken when the sequence was made.
    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(types: types, read: read, events: events.makeAsyncIterator(), anchor: anchor)
    }
}

/// A live anchored query of model samples.
package typealias AnchoredChanges = LiveAnchoredChanges<AnchoredQueryResult>
/// A live anchored query written as wire bytes.
package typealias WireAnchoredChanges = LiveAnchoredChanges<WireAnchoredPage>

extension SampleStore {
    /// A live anchored query from `anchor` (nil: from the start): the initial results in pages
    /// of at most `pageSize` changes, then every later change matching `descriptors`; see
    /// `LiveAnchoredChanges`.
    ///
    /// The commit subscription starts here, before any query runs. Throws `invalidArgument`
    /// at once for an invalid predicate or a non-positive page size.
    /// With `maxBytes`, a page also ends once its samples' stored bytes reach it (`anchoredQuery`),
    /// and `hold` counts those bytes as each page is read, ahead or not (`PageHold`).
    package func anchoredChanges(
        _ descriptors: [QueryDescriptor], from anchor: Anchor?, pageSize: Int = 500, maxBytes: Int? = nil,
        hold: PageHold = .none
    ) throws -> AnchoredChanges {
        try liveChanges(descriptors, from: anchor, pageSize: pageSize) { store, anchor in
            let page = try await store.anchoredQuery(descriptors, anchor: anchor, limit: pageSize, maxBytes: maxBytes)
            try hold.reserve(page.storedBytes)
            return page
        }
    }

    /// The same live query, each page written as wire bytes by `encoder` (`anchoredWire`) and
    /// counted by `hold` as it is read.
    package func anchoredWireChanges(
        _ descriptors: [QueryDescriptor], from anchor: Anchor?, pageSize: Int = 500, encoder: SampleWireEncoder,
        hold: PageHold = .none
    ) throws -> WireAnchoredChanges {
        let builder = WirePageBuilder(encoder: encoder)
        return try liveChanges(descriptors, from: anchor, pageSize: pageSize) { store, anchor in
            let page = try await store.anchoredWire(descriptors, anchor: anchor, limit: pageSize, builder: builder)
            try hold.reserve(page.changes.bytes.readableBytes)
            return page
        }
    }

    private func liveChanges<Page: AnchoredPage>(
        _ descriptors: [QueryDescriptor], from anchor: Anchor?, pageSize: Int,
        read: @escaping @Sendable (SampleStore, Anchor?) async throws -> Page
    ) throws -> LiveAnchoredChanges<Page> {
        guard pageSize > 0 else {
            throw StoreError.invalid("pageSize", value: "\(pageSize)", expected: "a positive page size")
        }
        _ = try StoreReads.compile(descriptors, catalog: catalog)
        return LiveAnchoredChanges(
            types: Set(descriptors.map(\.type)), anchor: anchor, read: { [self] anchor in try await read(self, anchor) },
            events: commits())
    }
}
