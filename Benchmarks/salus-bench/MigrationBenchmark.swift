import Foundation
import Logging
import SalusStore

/// The migration to store v2 (migrations 14, 15 and 16, the store written anew beside itself and renamed over it,
/// `Schema.rebuild`): a schema-13 store of `samples` heart
/// rates from one watch, each with the metadata a Watch sample carries (2.25 keys on average:
/// a time zone, a motion context, and on one sample in four a "was user entered"), written by
/// SQL as the released schema-13 writer laid it out, then migrated; rows/s of the migration,
/// the median of `trials` runs on copies of the same file, with min and max.
enum MigrationBenchmark {
    static func makeThirteen(at path: String, samples: Int) throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let database = try Database(path: path)
        defer { database.close() }
        try database.execute("BEGIN")
        for migration in Schema.migrations where migration.version <= 13 { try database.execute(migration.sql) }
        try database.execute(
            """
            INSERT INTO types (id, identifier) VALUES (1, 'HKQuantityTypeIdentifierHeartRate');
            INSERT INTO apps (id, app_id) VALUES (1, 'com.apple.health.watch');
            INSERT INTO sources (id, app_ref, app_id, name, version, product_type, os_version, key)
                VALUES (1, 1, 'com.apple.health.watch', 'Apple Watch', '10.1', 'Watch6,2', '10.1', 'watch');
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(samples))
            INSERT INTO samples (id, uuid, type_id, kind, start_us, end_us, value, value_in_unit, unit, app_ref,
                                 source_id, creation_us, seq)
                SELECT i, randomblob(16), 1, 0, 1420070400000000 + i * 21000000, 1420070400000000 + i * 21000000,
                       55 + i % 90, 55 + i % 90, 'count/min', 1, 1, 1420070400000000 + i * 21000000, i FROM n;
            INSERT INTO metadata (sample_id, key, value_type, text_value)
                SELECT id, 'HKTimeZone', 0, 'Europe/Paris' FROM samples;
            INSERT INTO metadata (sample_id, key, value_type, number_value)
                SELECT id, 'HKMetadataKeyHeartRateMotionContext', 1, id % 3 FROM samples;
            INSERT INTO metadata (sample_id, key, value_type, number_value)
                SELECT id, 'HKWasUserEntered', 2, 0 FROM samples WHERE id % 4 = 0;
            INSERT INTO type_spans (type_id, max_span_us) VALUES (1, 0);
            UPDATE store_info SET value = \(samples) WHERE key = 'last_sequence';
            PRAGMA user_version = 13;
            """)
        try database.execute("COMMIT")
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Rows migrated per second in each trial.
    static func run(samples: Int, trials: Int, directory: String) throws -> Spread {
        let template = directory + "/migration-template.sqlite"
        try makeThirteen(at: template, samples: samples)
        var logger = Logger(label: "salus.bench.migration")
        logger.logLevel = .error
        var rates: [Double] = []
        for _ in 0..<trials {
            let path = directory + "/migration.sqlite"
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try FileManager.default.copyItem(atPath: template, toPath: path)
            let database = try Database(path: path)
            let started = ContinuousClock.now
            try Schema.migrate(database, logger: logger)
            let elapsed = StoreBenchmark.seconds(ContinuousClock.now - started)
            database.close()
            rates.append(Double(samples) / elapsed)
        }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: template + suffix)
            try? FileManager.default.removeItem(atPath: directory + "/migration.sqlite" + suffix)
        }
        return Spread(rates)
    }
}
