import Foundation
import SalusModel
import Synchronization

/// One quantity sample reduced to the five numbers statistics need.
package struct QuantityRow: Hashable, Sendable {
    /// Start, microseconds since 1970.
    package var startMicroseconds: Int64
    /// End, microseconds since 1970.
    package var endMicroseconds: Int64
    /// The value in the type's canonical unit.
    package var value: Double
    /// The app that saved it, as the store's id of the app; `appIDs` in the same read names it.
    package var appRef: Int64
    /// When it was saved, microseconds since 1970.
    package var creationMicroseconds: Int64

    /// Creates a row.
    package init(startMicroseconds: Int64, endMicroseconds: Int64, value: Double, appRef: Int64, creationMicroseconds: Int64) {
        self.startMicroseconds = startMicroseconds
        self.endMicroseconds = endMicroseconds
        self.value = value
        self.appRef = appRef
        self.creationMicroseconds = creationMicroseconds
    }
}

extension SampleStore {
    /// Folds the quantity samples of `type` matching `predicate` into `state`, in start order,
    /// without building a `Sample` for each: the lean read behind statistics.
    ///
    /// Everything is read in **one** read transaction, so the rows form one consistent
    /// snapshot (a sync-identifier replacement committed meanwhile is seen either before or
    /// after, never both). `body` runs on the reader's thread for every row, with the app ids
    /// by store id (read in the same transaction); it should be quick. Memory is whatever
    /// `state` keeps. Throws `invalidArgument` naming the node for an invalid predicate, and
    /// `CancellationError` when the calling task is cancelled (checked every 65,536 rows).
    package func reduceQuantities<State: Sendable>(
        type: TypeIdentifier, matching predicate: SamplePredicate?, into state: State,
        _ body: @escaping @Sendable (inout State, QuantityRow, _ appIDs: [Int64: String]) throws -> Void
    ) async throws -> State {
        try checkOpen()
        let filter = try PredicateCompiler(
            type: type, info: catalog.rules(for: type), catalog: catalog, target: .samples
        ).compile(predicate)
        let cancelled = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await readers.run { database in
                try database.transaction(immediate: false) {
                    var appIDs: [Int64: String] = [:]
                    let apps = try database.prepare("SELECT id, app_id FROM apps", cached: true)
                    while try apps.step() { appIDs[apps.int64(0)] = apps.text(1) ?? "" }
                    apps.reset()
                    let statement = try database.prepare(
                        "SELECT r.start_us, r.span_us, r.value, r.app_ref, r.creation_us, r.id FROM samples r "
                            + "WHERE r.type_id = (SELECT id FROM types WHERE identifier = ?) AND r.value IS NOT NULL "
                            + "AND \(filter.sql) ORDER BY r.start_us", cached: false)
                    try statement.bind([.text(type.rawValue)] + filter.arguments)
                    var state = state
                    var count = 0
                    while try statement.step() {
                        count &+= 1
                        if count & 0xFFFF == 0, cancelled.isSet { throw CancellationError() }
                        // The span, not the virtual end, which reads a damaged span as some end.
                        let start = statement.int64(0)
                        let end = try StoredRowChecks.end(statement, column: 1, start: start, row: "row \(statement.int64(5))")
                        try body(
                            &state,
                            QuantityRow(
                                startMicroseconds: start, endMicroseconds: end,
                                value: statement.double(2), appRef: statement.int64(3),
                                creationMicroseconds: statement.int64(4)),
                            appIDs)
                    }
                    return state
                }
            }
        } onCancel: {
            cancelled.set()
        }
    }
}

/// A flag set from a task's cancellation handler and read on a database thread.
final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)

    var isSet: Bool { value.load(ordering: .relaxed) }

    func set() { value.store(true, ordering: .relaxed) }
}

/// The time spans touched by the changes after an anchor: what a live statistics collection
/// needs to know which intervals to recompute.
package struct ChangedSpans: Hashable, Sendable {
    /// The start and end (microseconds since 1970) of every matching sample added and every
    /// matching sample deleted after the anchor, in no particular order.
    package var spans: [ClosedRange<Int64>]
    /// The latest change position of the snapshot read: resume from here.
    package var anchor: Anchor
}

extension SampleStore {
    /// The spans of the samples of `type` matching `predicate` added or deleted after `anchor`,
    /// in one snapshot. A deletion's span is its tombstone's; a tombstone that cannot be
    /// filtered exactly (a metadata predicate) counts as matching.
    ///
    /// Throws `anchorExpired` when `anchor` is below the tombstone horizon (deletions were
    /// purged: recompute everything), and `invalidArgument` for an anchor after the latest
    /// change or an invalid predicate.
    package func changedSpans(type: TypeIdentifier, matching predicate: SamplePredicate?, after anchor: Anchor)
        async throws -> ChangedSpans
    {
        try checkOpen()
        let compiled = try StoreReads.compile([QueryDescriptor(type: type, predicate: predicate)], catalog: catalog)[0]
        return try await readers.run { database in
            try database.transaction(immediate: false) {
                let (from, last) = try StoreReads.range(database, after: anchor)
                var spans: [ClosedRange<Int64>] = []
                for (table, fragment) in [("samples", compiled.samples), ("tombstones", compiled.tombstones)] {
                    let test = table == "samples" ? fragment.sql : "coalesce(\(fragment.sql), 1)"
                    // A sample's row id is its change position (schema 15); a tombstone's is `seq`.
                    let position = table == "samples" ? "r.id" : "r.seq"
                    let statement = try database.prepare(
                        "SELECT r.start_us, r.end_us FROM \(table) r WHERE \(position) > ? AND \(position) <= ? "
                            + "AND +r.type_id = (SELECT id FROM types WHERE identifier = ?) AND \(test)", cached: false)
                    try statement.bind([.integer(from), .integer(last), .text(type.rawValue)] + fragment.arguments)
                    while try statement.step() {
                        let start = statement.int64(0)
                        spans.append(start...max(start, statement.int64(1)))
                    }
                }
                return ChangedSpans(spans: spans, anchor: Anchor(sequence: last))
            }
        }
    }
}
