import Foundation
import SalusModel

/// What one app wrote of one type that the store still holds.
package struct AppTypeWrites: Sendable, Hashable {
    /// The type.
    package var type: TypeIdentifier
    /// How many samples.
    package var count: Int
    /// The earliest start of those samples.
    package var first: Date
    /// The latest end of those samples.
    package var last: Date

    /// Creates a summary row.
    package init(type: TypeIdentifier, count: Int, first: Date, last: Date) {
        self.type = type
        self.count = count
        self.first = first
        self.last = last
    }
}

extension SampleStore {
    /// Per type, the samples whose source app is `appID` (replicas of it included), sorted by
    /// type: count, earliest start, latest end. Only those starting at or after `start` and
    /// before `end` when given, and only of `types` when not empty. Reads one snapshot; an app
    /// that wrote nothing (or is unknown) gives an empty list.
    package func writes(
        of appID: String, types: [TypeIdentifier] = [], start: Date? = nil, end: Date? = nil
    ) async throws -> [AppTypeWrites] {
        try checkOpen()
        return try await readers.run { database in
            var sql = """
                SELECT t.identifier, count(*), min(s.start_us), max(s.end_us) FROM samples s \
                JOIN types t ON t.id = s.type_id \
                WHERE s.app_ref = (SELECT id FROM apps WHERE app_id = ?)
                """
            var arguments: [SQLValue] = [.text(appID)]
            if !types.isEmpty {
                sql += " AND t.identifier IN (\(Array(repeating: "?", count: types.count).joined(separator: ", ")))"
                arguments += types.map { .text($0.rawValue) }
            }
            if let start {
                sql += " AND s.start_us >= ?"
                arguments.append(.integer(StoredTime.microseconds(start)))
            }
            if let end {
                sql += " AND s.start_us < ?"
                arguments.append(.integer(StoredTime.microseconds(end)))
            }
            let statement = try database.prepare(sql + " GROUP BY s.type_id ORDER BY t.identifier", cached: false)
            try statement.bind(arguments)
            var rows: [AppTypeWrites] = []
            while try statement.step() {
                rows.append(
                    AppTypeWrites(
                        type: TypeIdentifier(statement.text(0) ?? ""), count: Int(statement.int64(1)),
                        first: StoredTime.date(statement.int64(2)), last: StoredTime.date(statement.int64(3))))
            }
            return rows
        }
    }
}
