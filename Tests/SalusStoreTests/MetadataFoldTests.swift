import Foundation
@testable import SalusStore
import Testing

/// Migration 14's fold (`MetadataFold`): each sample's metadata bytes as the aggregate
/// `salus_metadata_rows` makes them from the `metadata` table, whatever order the copy asks in,
/// with its walk run ahead on a thread of its own (as the rebuild from schema 13 runs it) or not.
@Suite("Metadata fold")
struct MetadataFoldTests {
    /// A file with schema 13's `metadata` table: 10,000 samples (more than two of the walk's
    /// batches) with 0 to 4 keys of every value type, some samples with none.
    static func make(at path: String) throws {
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute(
            """
            BEGIN;
            CREATE TABLE samples (id INTEGER PRIMARY KEY);
            CREATE TABLE metadata (
                sample_id INTEGER NOT NULL, key TEXT NOT NULL, value_type INTEGER NOT NULL, text_value TEXT,
                number_value REAL, quantity_value REAL, dimension TEXT, PRIMARY KEY (sample_id, key)
            ) WITHOUT ROWID;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
            INSERT INTO samples (id) SELECT i * 3 FROM n;
            INSERT INTO metadata (sample_id, key, value_type, text_value) SELECT id, 'HKTimeZone', 0, 'Europe/Paris'
                FROM samples WHERE id % 5 <> 0;
            INSERT INTO metadata (sample_id, key, value_type, number_value) SELECT id, 'motion', 1, id % 3
                FROM samples WHERE id % 7 <> 0;
            INSERT INTO metadata (sample_id, key, value_type, number_value) SELECT id, 'entered', 2, id % 2
                FROM samples WHERE id % 4 = 0;
            INSERT INTO metadata (sample_id, key, value_type, number_value) SELECT id, 'when', 3, 1700000000.5 + id
                FROM samples WHERE id % 11 = 0;
            INSERT INTO metadata (sample_id, key, value_type, text_value, number_value, quantity_value, dimension)
                SELECT id, 'depth', 4, 'cm', id / 100.0, id, 'length' FROM samples WHERE id % 13 = 0;
            COMMIT;
            """)
    }

    @Test("the fold gives each sample's metadata as the aggregate does, asked in increasing, decreasing or interleaved order, with its walk ahead or not")
    func sameAsAggregate() throws {
        let directory = try TemporaryStore.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("thirteen.sqlite").path
        try Self.make(at: path)
        for ahead in [false, true] {
            for order in ["id", "id DESC", "id % 7, id", "id % 2 DESC, id DESC"] {
                let database = try Database(path: path)
                defer { database.close() }
                let fold = try MetadataFold(database, schema: "main", ahead: ahead ? path : nil)
                try MetadataFold.register(fold, on: database)
                defer { fold.finish() }
                // The function is called in the order of `asks`' rows, as the copy calls it in its own.
                try database.execute(
                    """
                    CREATE TEMP TABLE asks (n INTEGER PRIMARY KEY, id INTEGER NOT NULL);
                    INSERT INTO asks (id) SELECT id FROM samples ORDER BY \(order);
                    CREATE TEMP TABLE answers AS SELECT a.id, salus_metadata_fold(a.id) AS folded FROM asks a ORDER BY a.n;
                    """)
                let differing = try database.scalarInt(
                    """
                    SELECT count(*) FROM answers f WHERE folded IS NOT (SELECT salus_metadata_rows(m.key, m.value_type,
                    m.text_value, m.number_value, m.quantity_value) FROM metadata m WHERE m.sample_id = f.id)
                    """)
                #expect(differing == 0, "ahead \(ahead), order \(order)")
                let withMetadata = try database.scalarInt("SELECT count(*) FROM answers WHERE folded IS NOT NULL")
                #expect(withMetadata == (try database.scalarInt("SELECT count(DISTINCT sample_id) FROM metadata")), "ahead \(ahead), order \(order)")
                #expect(try database.scalarInt("SELECT count(*) FROM answers") == 10_000)
            }
        }
    }
}
