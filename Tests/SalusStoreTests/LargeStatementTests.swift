import Foundation
import SalusModel
import Testing

@testable import SalusStore

/// A statement's undo record (its statement journal) may grow past any memory limit inside a
/// transaction: SQLite moves it to a temporary file. Keeping it in memory up to 8 MiB
/// (`SQLITE_CONFIG_STMTJRNL_SPILL`, set before the first connection) made such a statement fail
/// with SQLITE_FULL, "database or disk is full", instead (reverted in 40339bd): a migration, a
/// large save or a large deletion would have been refused.
@Suite("Large statements")
struct LargeStatementTests {
    @Test("a 100,000-row INSERT…SELECT and an UPDATE of every row inside one transaction commit, on the store's connections")
    func largeStatementInTransaction() async throws {
        // The store's own setup first: whatever it configures before its first connection.
        let temporary = try await TemporaryStore.make()
        let path = temporary.directory.appendingPathComponent("large.sqlite").path
        let database = try Database(path: path)
        defer { database.close() }
        // The UPDATE's journal holds the original of every page it changes: about 10 MiB here
        // (with the 8 MiB limit, 80,000 rows were enough to fail).
        try database.execute(
            """
            CREATE TABLE s (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b BLOB NOT NULL);
            CREATE INDEX s_a ON s(a, b);
            BEGIN IMMEDIATE;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
                INSERT INTO s (id, a, b) SELECT i, i % 7, randomblob(40) FROM n;
            UPDATE s SET b = randomblob(40);
            COMMIT;
            """)
        #expect(try database.scalarInt("SELECT count(*) FROM s") == 100_000)
        #expect(try database.scalarInt("SELECT count(*) FROM s WHERE length(b) = 40") == 100_000)
    }

    @Test("a save's statement journals stay in memory for its transaction only: after a save and after a refused one, the writer's connection is back to SQLite's temporary files")
    func saveJournalsInMemoryOnlyDuringTheSave() async throws {
        let temporary = try await TemporaryStore.make()
        let store = temporary.store
        func tempStore() async throws -> Int64? {
            try await store.writer.connection.run { try $0.scalarInt("PRAGMA temp_store") }
        }
        #expect(try await tempStore() == 0)
        // Two types taking turns, each sample with a sync identifier: every multi-row insert
        // changes pages that were there before it (the table's last leaf, both indexes), so each
        // has a statement journal.
        for batch in 0..<3 {
            let samples = (0..<1_000).map { index in
                let position = batch * 1_000 + index
                let type = position.isMultiple(of: 2) ? Fixtures.steps : Fixtures.distance
                return Fixtures.quantity(
                    type, Double(position), type == Fixtures.steps ? "count" : "m", start: Double(position),
                    metadata: [
                        MetadataKey.syncIdentifier: .string("import|\(position)|" + String(repeating: "x", count: 60)),
                        MetadataKey.syncVersion: .number(1),
                    ])
            }
            _ = try await store.save(samples, source: Fixtures.app)
            #expect(try await tempStore() == 0)
        }
        var repeated = Fixtures.quantity(1, start: 5_000)
        repeated.uuid = UUID()
        await #expect(throws: StoreError.self) {
            try await store.save([repeated, repeated], source: Fixtures.app, options: SaveOptions(uuidPolicy: .keep))
        }
        #expect(try await tempStore() == 0)
        #expect(try await store.writer.connection.run { try $0.scalarInt("SELECT count(*) FROM samples") } == 3_000)
    }
}
