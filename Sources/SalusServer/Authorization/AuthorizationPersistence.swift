import Dispatch
import Foundation
import SalusStore

/// Keeps the registered apps and the owner's decisions in `authorization.sqlite` beside the
/// store, one JSON row per app, written in order on a serial queue.
///
/// **Rule: write the record as it is when the write runs.** A write is given app ids and reads
/// each record from memory on the queue, so writes that overtake each other on their way to the
/// queue still leave the latest state on disk. Nothing here reports to stderr: each failure is
/// returned to the caller, which logs it and tells the owner.
final class AuthorizationPersistence: @unchecked Sendable {
    /// One app whose row could not be written.
    struct Failure: Sendable {
        /// The app.
        var appID: String
        /// What SQLite or the encoder said.
        var error: any Error
    }

    /// The file.
    let path: String
    private let queue = DispatchQueue(label: "salus.authorization.persistence")
    // Used only on `queue`.
    private let database: Database

    /// Opens (creating) the file and its table.
    init(path: String) throws {
        self.path = path
        database = try Database(path: path)
        try database.execute("CREATE TABLE IF NOT EXISTS apps (id TEXT PRIMARY KEY NOT NULL, record TEXT NOT NULL) STRICT")
    }

    /// Every stored app; a row that does not decode is reported, not dropped silently.
    func load() throws -> [AppRecord] {
        try queue.sync {
            let statement = try database.prepare("SELECT id, record FROM apps ORDER BY id", cached: false)
            var records: [AppRecord] = []
            while try statement.step() {
                let id = statement.text(0) ?? ""
                guard let data = statement.text(1)?.data(using: .utf8) else { continue }
                do {
                    records.append(try JSONDecoder().decode(AppRecord.self, from: data))
                } catch {
                    throw DaemonError("authorization.sqlite: the record of app \(id) does not decode: \(error)")
                }
            }
            return records
        }
    }

    /// Stores the record `current` gives for each app (replacing its row), or removes the row
    /// when it gives nil; returns the apps whose row could not be written.
    func write(_ ids: [String], current: @escaping @Sendable (String) -> AppRecord?) async -> [Failure] {
        await withCheckedContinuation { continuation in
            queue.async { [database] in
                var failures: [Failure] = []
                for id in ids {
                    do {
                        if let record = current(id) {
                            let encoder = JSONEncoder()
                            encoder.outputFormatting = .sortedKeys
                            let text = String(decoding: try encoder.encode(record), as: UTF8.self)
                            _ = try database.run("INSERT OR REPLACE INTO apps (id, record) VALUES (?, ?)", [.text(id), .text(text)])
                        } else {
                            _ = try database.run("DELETE FROM apps WHERE id = ?", [.text(id)])
                        }
                    } catch {
                        failures.append(Failure(appID: id, error: error))
                    }
                }
                continuation.resume(returning: failures)
            }
        }
    }

    /// Waits for every write queued so far.
    func flush() {
        queue.sync {}
    }
}
