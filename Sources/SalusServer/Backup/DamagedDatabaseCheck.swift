import Foundation
import Logging
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
/// Rule: a file salusd closed cleanly after checking it, and that nothing has changed since, is
/// not checked again (``DatabaseCheckStamp``). Why: `quick_check` reads every page, and on a
/// store of 20 million samples (3.6 GB) with a cold page cache that took salusd 6 to 10 minutes
/// at every start. A file copied, restored, written by another program, or left with a WAL by a
/// crash no longer matches its stamp and is checked. docs/reliability.md says what this gives up.
enum DamagedDatabaseCheck {
    /// Throws when one of `paths` that exists fails `PRAGMA quick_check`; `dataDirectory` (which
    /// holds the stamp) goes into the advice. Returns the paths it checked; the others were
    /// absent or unchanged since salusd closed them. Removes the stamp first: the daemon is about
    /// to write.
    @discardableResult
    static func run(paths: [String], dataDirectory: String, logger: Logger? = nil) throws -> [String] {
        let stamp = DatabaseCheckStamp.read(dataDirectory: dataDirectory)
        DatabaseCheckStamp.remove(dataDirectory: dataDirectory)
        var checked: [String] = []
        for path in paths where FileManager.default.fileExists(atPath: path) {
            if let recorded = stamp[(path as NSString).lastPathComponent], DatabaseCheckStamp.unchanged(path, since: recorded) {
                logger?.debug("database unchanged since salusd closed it cleanly; not checked again", metadata: ["path": "\(path)"])
                continue
            }
            let started = ContinuousClock.now
            let problems = DatabaseSnapshot.problems(path: path, full: false, limit: 5)
            checked.append(path)
            logger?.debug("database checked", metadata: ["path": "\(path)", "took": "\(ContinuousClock.now - started)"])
            guard !problems.isEmpty else { continue }
            throw DaemonError(
                "the database \(path) is damaged; salusd did not start and did not change it. "
                    + "PRAGMA quick_check found:\n"
                    + problems.map { "  " + $0 }.joined(separator: "\n")
                    + "\nRestore the data folder from a backup: salusctl restore BACKUP --data-dir \(dataDirectory) "
                    + "(with salusd stopped), or move the file away to start with an empty one.")
        }
        return checked
    }
}

/// What salusd knew of its database files when it closed them cleanly: for each, the device,
/// inode, size and modification time, in `.database-check` in the data folder. Written at a
/// clean stop for each file that has no WAL left beside it; removed at each start before the
/// daemon writes, so a crash leaves none.
enum DatabaseCheckStamp {
    /// The stamp's file name in the data folder.
    static let fileName = ".database-check"

    /// A file as `stat` sees it.
    struct Identity: Codable, Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedSeconds: Int64
        var modifiedNanoseconds: Int64
    }

    /// The identity of the file at `path`, nil when it cannot be read.
    static func identity(of path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modifiedSeconds: Int64(info.st_mtim.tv_sec), modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// Whether the file at `path` is the one `recorded` describes, with no WAL beside it holding
    /// frames.
    static func unchanged(_ path: String, since recorded: Identity) -> Bool {
        guard identity(of: path) == recorded else { return false }
        return (identity(of: path + "-wal")?.size ?? 0) == 0
    }

    /// The stamp of `dataDirectory`, by file name; empty when there is none or it does not read.
    static func read(dataDirectory: String) -> [String: Identity] {
        guard let data = FileManager.default.contents(atPath: dataDirectory + "/" + fileName) else { return [:] }
        return (try? JSONDecoder().decode([String: Identity].self, from: data)) ?? [:]
    }

    /// Removes the stamp of `dataDirectory`.
    static func remove(dataDirectory: String) {
        unlink(dataDirectory + "/" + fileName)
    }

    /// Records the files of `paths` that exist with no WAL beside them (closed cleanly); returns
    /// the paths recorded. Written to a temporary file and renamed, so a stamp is whole or absent.
    @discardableResult
    static func write(dataDirectory: String, paths: [String], logger: Logger? = nil) -> [String] {
        var entries: [String: Identity] = [:]
        for path in paths {
            guard let identity = identity(of: path), (self.identity(of: path + "-wal")?.size ?? 0) == 0 else { continue }
            entries[(path as NSString).lastPathComponent] = identity
        }
        guard !entries.isEmpty else { return [] }
        let final = dataDirectory + "/" + fileName
        let temporary = final + ".tmp"
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try encoder.encode(entries).write(to: URL(fileURLWithPath: temporary))
            guard rename(temporary, final) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            unlink(temporary)
            logger?.warning("cannot write the database check stamp; the next start checks every file", metadata: ["error": "\(error)"])
            return []
        }
        return paths.filter { entries[($0 as NSString).lastPathComponent] != nil }
    }
}
