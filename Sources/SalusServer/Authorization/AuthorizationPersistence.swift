import Dispatch
import Foundation
import SalusStore

/// Keeps the registered apps and the owner's decisions in `authorization.sqlite` beside the
/// store, one JSON row per app, written in order on a serial queue so that no caller waits on
/// the disk (the state in memory is the truth while the daemon runs).
final class AuthorizationPersistence: @unchecked Sendable {
    private let queue = DispatchQueue(label: "salus.authorization.persistence")
    // Used only on `queue`.
    private let database: Database

    /// Opens (creating) the file and its table.
    init(path: String) throws {
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

    /// Stores `record` (replacing the app's row), or removes the row when `record` is nil.
    func write(appID: String, record: AppRecord?) {
        queue.async { [database] in
            do {
                if let record {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = .sortedKeys
                    let text = String(decoding: try encoder.encode(record), as: UTF8.self)
                    _ = try database.run("INSERT OR REPLACE INTO apps (id, record) VALUES (?, ?)", [.text(appID), .text(text)])
                } else {
                    _ = try database.run("DELETE FROM apps WHERE id = ?", [.text(appID)])
                }
            } catch {
                FileHandle.standardError.write(Data("salusd: cannot save the authorization of \(appID): \(error)\n".utf8))
            }
        }
    }

    /// Waits for every write queued so far.
    func flush() {
        queue.sync {}
    }
}
