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
    /// The quantity samples of every type that `appID` saved whose interval overlaps
    /// `start`...`end` (a point sample at either end included), in start order, read in one
    /// transaction: the samples a workout of that app over that interval is associated with
    /// (docs/workouts.md, "Statistics"). Uses the (app, type) index.
    package func associatedQuantities(appID: String, from start: Date, to end: Date) async throws -> [AssociatedQuantityRow] {
        try checkOpen()
        let from = StoredTime.microseconds(start)
        let to = StoredTime.microseconds(end)
        return try await readers.run { database in
            try database.transaction(immediate: false) {
                let statement = try database.prepare(
                    "SELECT t.identifier, r.start_us, r.end_us, r.value FROM samples r JOIN types t ON t.id = r.type_id "
                        + "WHERE r.app_ref = (SELECT id FROM apps WHERE app_id = ?) AND r.kind = 0 AND r.value IS NOT NULL "
                        + "AND r.end_us >= ? AND r.start_us <= ? ORDER BY r.start_us", cached: true)
                try statement.bind([.text(appID), .integer(from), .integer(to)])
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
