import CSQLite
import Foundation
import SalusModel

/// A sample's UUID and its row (schema 16).
///
/// **Rule: a UUID the store assigns carries its row id.** Its last six bytes are the sample's
/// row id (its change position), big-endian, after the UUIDv7's 48 bits of time, version,
/// variant and 26 bits of its counter (`UUIDv7`). Such a sample is found by its UUID with a seek
/// of the table's own B-tree and needs no index entry: the UUID index (`samples_uuid`) is partial
/// and holds only the rows whose UUID does not carry their id (UUIDs kept from an import or a
/// replica, and every sample saved before schema 16), keyed by the UUID's first eight bytes. A
/// lookup tries both, and tests the whole UUID on the row it finds: `match`.
///
/// Which rows the index holds is decided by the row itself (its UUID and its id), with SQLite's
/// own functions, so every row is found one way or the other whoever made its UUID: a kept UUID
/// whose last bytes happen to be its id is found by the id. What breaks otherwise: a sample that
/// no lookup finds cannot be deleted, nor its attachments, route or voltages read.
///
/// Uniqueness is the writer's: assigned UUIDs differ by their row ids, and a kept or replica
/// UUID is looked up before it is saved (as it was, also against tombstones).
enum SampleUUIDs {
    /// The largest row id a UUID carries (48 bits); rows past it get a plain UUIDv7 (indexed).
    static let largestRow: Int64 = 1 << 48 - 1

    /// A new time-ordered UUID for the sample of row `row`.
    static func make(row: Int64) -> UUID {
        let made = UUIDv7.make()
        guard row > 0, row <= largestRow else { return made }
        var bytes = made.uuid
        withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 0..<6 { raw[10 + index] = UInt8(truncatingIfNeeded: row >> (8 * (5 - index))) }
        }
        return UUID(uuid: bytes)
    }

    /// The row id the last six bytes of `bytes` (a UUID's 16) name.
    static func row(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        (10..<16).reduce(Int64(0)) { $0 << 8 | Int64(bytes[$1]) }
    }

    /// Whether `uuid` carries the row id `row`: the UUID a save assigns does (below 2^48 rows).
    static func carries(_ uuid: UUID, row: Int64) -> Bool {
        withUnsafeBytes(of: uuid.uuid) { Self.row($0) == row }
    }

    /// The condition of schema 16's and 17's partial UUID index: the row's UUID does not carry
    /// its id, found from the UUID and the id on every insert. SQLite formatted both as hex text
    /// for it: about 0.5 µs of each row's insert, a third of SQLite's time on a plain row.
    static let indexedSixteen = "hex(substr(uuid, 11, 6)) <> printf('%012X', id)"

    /// The UUID index of schemas 16 and 17.
    static let indexSixteen = "CREATE INDEX samples_uuid ON samples(substr(uuid, 1, 8)) WHERE \(indexedSixteen);"

    /// The condition of the partial UUID index (schema 18): the row says its UUID does not carry
    /// its id (`uuid_own`, set by the writer, which knows), so an insert tests one column.
    static let indexed = "uuid_own IS NOT NULL"

    /// The UUID index of schema 18.
    static let index = "CREATE INDEX samples_uuid ON samples(substr(uuid, 1, 8)) WHERE \(indexed);"

    /// SQL true for the row `alias` of `samples` whose UUID is the blob `parameter` (a
    /// placeholder such as `?1`, used three times, or a column): a seek by the row id the UUID
    /// carries, or a seek of the UUID index, each testing the whole UUID.
    static func match(_ alias: String, _ parameter: String) -> String {
        "((\(alias).id = salus_uuid_row(\(parameter)) AND \(alias).uuid = \(parameter)) OR "
            + "(substr(\(alias).uuid, 1, 8) = substr(\(parameter), 1, 8) AND \(alias).uuid = \(parameter) AND "
            + "\(alias).uuid_own IS NOT NULL))"
    }

    /// `salus_uuid_row(uuid)`: the row id a 16-byte UUID's last six bytes name; NULL for
    /// anything else. Registered on every connection (`SQLFunctions.register`).
    static func register(_ handle: OpaquePointer?) -> Int32 {
        sqlite3_create_function_v2(
            handle, "salus_uuid_row", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, values in
                let value = values?[0]
                guard sqlite3_value_type(value) == SQLITE_BLOB, sqlite3_value_bytes(value) == 16,
                    let bytes = sqlite3_value_blob(value)
                else {
                    sqlite3_result_null(context)
                    return
                }
                sqlite3_result_int64(context, SampleUUIDs.row(UnsafeRawBufferPointer(start: bytes, count: 16)))
            }, nil, nil, nil)
    }
}
