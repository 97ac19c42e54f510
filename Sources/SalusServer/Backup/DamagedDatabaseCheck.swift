import Foundation
import SalusStore

/// The check that keeps the daemon from serving, or writing to, a damaged database.
///
/// Rule: before anything opens a database for writing (the store's migrations, the
/// authorization engine), each existing database file of the data folder passes
/// `PRAGMA quick_check` on a read-only connection; a file that fails stops the start with a
/// ``DaemonError`` naming the file, the check's first findings and how to restore. Why: a
/// writer on a damaged b-tree can spread the damage (and the WAL checkpoint on close writes
/// into the file), and the file as it is may be what the owner or a recovery tool needs.
///
/// The check runs on every start: `quick_check` reads every page once (it skips the index
/// cross-checks of `integrity_check`); docs/reliability.md gives its cost per gigabyte.
enum DamagedDatabaseCheck {
    /// Throws when one of `paths` that exists fails `PRAGMA quick_check`; `dataDirectory` goes
    /// into the advice.
    static func run(paths: [String], dataDirectory: String) throws {
        for path in paths where FileManager.default.fileExists(atPath: path) {
            let problems = DatabaseSnapshot.problems(path: path, full: false, limit: 5)
            guard !problems.isEmpty else { continue }
            throw DaemonError(
                "the database \(path) is damaged; salusd did not start and did not change it. "
                    + "PRAGMA quick_check found:\n"
                    + problems.map { "  " + $0 }.joined(separator: "\n")
                    + "\nRestore the data folder from a backup: salusctl restore BACKUP --data-dir \(dataDirectory) "
                    + "(with salusd stopped), or move the file away to start with an empty one.")
        }
    }
}
