import Foundation
import SalusModel

/// One quantity sample a workout's statistics count: its type, interval and canonical value.
package struct AssociatedQuantityRow: Hashable, Sendable {
    /// The quantity type.
    package var type: TypeIdentifier
    /// Start, microseconds since 1970.
    package var startMicroseconds: Int64
    /// End, microseconds since 1970.
    package var endMicroseconds: Int64
    /// The value in the type's canonical unit.
    package var value: Double
}

extension SampleStore {
    /// The statement of `associatedQuantities`: ?1 the start, ?2 the end (microseconds), ?3
    /// the app.
    ///
    /// For each type with samples (`type_spans`, which holds every type's longest span), a range
    /// of the (type, start) index: from the start less that span, which no overlapping sample
    /// starts before, to the end. The app is a filter on those rows (`+` keeps SQLite from the
    /// (app, type) index, which would walk every sample the app ever saved, per workout).
    package static let associatedQuantitiesSQL =
        "SELECT t.identifier, r.start_us, r.end_us, r.value FROM type_spans s CROSS JOIN samples r "
        + "JOIN types t ON t.id = r.type_id "
        + "WHERE r.type_id = s.type_id AND r.start_us >= ?1 - s.max_span_us AND r.start_us <= ?2 AND r.end_us >= ?1 "
        + "AND +r.app_ref = (SELECT id FROM apps WHERE app_id = ?3) AND r.kind = 0 AND r.value IS NOT NULL "
        + "ORDER BY r.start_us"

    /// The quantity samples of every type that `appID` saved whose interval overlaps
    /// `start`...`end` (a point sample at either end included), in start order, read in one
    /// transaction: the samples a workout of that app over that interval is associated with
    /// (docs/workouts.md, "Statistics"). Reads one range of the (type, start) index per type.
    package func associatedQuantities(appID: String, from start: Date, to end: Date) async throws -> [AssociatedQuantityRow] {
        try checkOpen()
        let from = StoredTime.microseconds(start)
        let to = StoredTime.microseconds(end)
        return try await readers.run { database in
            try database.transaction(immediate: false) {
                let statement = try database.prepare(Self.associatedQuantitiesSQL, cached: true)
                try statement.bind([.integer(from), .integer(to), .text(appID)])
                var rows: [AssociatedQuantityRow] = []
                while try statement.step() {
                    rows.append(
                        AssociatedQuantityRow(
                            type: TypeIdentifier(rawValue: statement.text(0) ?? ""), startMicroseconds: statement.int64(1),
                            endMicroseconds: statement.int64(2), value: statement.double(3)))
                }
                statement.reset()
                return rows
            }
        }
    }
}
