import Foundation
import SalusModel
import SalusStore

extension StatisticsEngine {
    /// One delivery of a live collection: the intervals to show.
    package struct CollectionUpdate: Hashable, Sendable {
        /// Every interval of the range on the first update, then only the intervals whose
        /// statistics changed, in order.
        package var statistics: [Statistics]
        /// True for the first update (the initial results).
        package var isInitial: Bool

        /// Creates an update.
        package init(statistics: [Statistics], isInitial: Bool) {
            self.statistics = statistics
            self.isInitial = isInitial
        }
    }

    /// A live statistics collection: calls `deliver` with every interval of the range, then,
    /// after each commit that touches the type, with only the intervals whose statistics changed
    /// (none: no call). Returns when the store closes; throws `CancellationError` when the task
    /// is cancelled, and whatever `deliver` throws.
    ///
    /// **How changes are found.** The commit feed is subscribed before the initial results are
    /// read. On a commit touching the type, the store lists the spans of the matching samples
    /// added and deleted since the last anchor (`SampleStore.changedSpans`: a deletion's span is
    /// its tombstone's); only the intervals those spans overlap are recomputed, in contiguous
    /// runs, each from the samples overlapping the run, and only the intervals whose statistics
    /// differ from the last delivered ones are sent. If the anchor expired (tombstones purged)
    /// the whole range is recomputed. A change of source priority is seen on the next commit.
    package func liveCollection(
        _ query: StatisticsCollectionQuery, visibility: SamplePredicate? = nil,
        deliver: @Sendable (CollectionUpdate) async throws -> Void
    ) async throws {
        let commits = store.commits()
        var anchor = try await store.currentAnchor()
        var current = try await collection(query, visibility: visibility)
        try await deliver(CollectionUpdate(statistics: current.statistics, isInitial: true))
        guard let first = current.statistics.first, let last = current.statistics.last else { return }
        let range = DateInterval(start: first.startDate, end: last.endDate)
        let predicate = Self.combinedPredicate(query.predicate, window: range, visibility: visibility)
        for await event in commits {
            try Task.checkCancellation()
            guard event.changedTypes.contains(query.type) else { continue }
            let updated: StatisticsCollection
            do {
                let changes = try await store.changedSpans(type: query.type, matching: predicate, after: anchor)
                anchor = changes.anchor
                guard !changes.spans.isEmpty else { continue }
                let spans = changes.spans.map {
                    DateInterval(
                        start: Date(timeIntervalSince1970: Double($0.lowerBound) / 1_000_000),
                        end: Date(timeIntervalSince1970: Double($0.upperBound) / 1_000_000))
                }
                updated = try await recompute(query, current: current, spans: spans, visibility: visibility)
            } catch let error as StoreError where error.code == .anchorExpired {
                // Deletions were purged past the anchor: recompute everything.
                anchor = try await store.currentAnchor()
                updated = try await collection(query, visibility: visibility)
            }
            let changed = zip(current.statistics, updated.statistics).filter { $0 != $1 }.map(\.1)
            current = updated
            if !changed.isEmpty { try await deliver(CollectionUpdate(statistics: changed, isInitial: false)) }
        }
    }

    /// `current` with the intervals the spans touch recomputed.
    func recompute(
        _ query: StatisticsCollectionQuery, current: StatisticsCollection, spans: [DateInterval],
        visibility: SamplePredicate?
    ) async throws -> StatisticsCollection {
        let statistics = current.statistics
        let firstIndex = query.grid.index(containing: statistics[0].startDate)
        var touched = Set<Int>()
        for span in spans {
            let low = max(query.grid.index(containing: span.start) - firstIndex, 0)
            let high = min(query.grid.index(containing: span.end) - firstIndex, statistics.count - 1)
            guard low <= high else { continue }
            for offset in low...high {
                // A span ending exactly on a boundary does not reach the next interval (unless it is a point).
                if offset > low && offset == high && span.end == statistics[offset].startDate && span.duration > 0 { continue }
                touched.insert(offset)
            }
        }
        var result = current
        var offsets = touched.sorted()[...]
        while let start = offsets.first {
            var end = start
            offsets = offsets.dropFirst()
            while let next = offsets.first, next == end + 1 {
                end = next
                offsets = offsets.dropFirst()
            }
            var run = query
            run.from = statistics[start].startDate
            run.to = statistics[end].endDate
            let fresh = try await collection(run, visibility: visibility).statistics
            for (offset, value) in zip(start...end, fresh) { result.statistics[offset] = value }
        }
        return result
    }
}
