import Foundation
import SalusStore
import ZIPFoundation

/// The files and folders salusctl writes the person's data to (exports, a route's GPX), private
/// to the owner from their creation: `PrivateFiles`' rules, with the error naming the option.
enum PrivateOutput {
    /// A new file of mode 0600 at `path`, for writing; a file or link already there is replaced,
    /// never written through.
    static func file(_ path: String) throws -> FileHandle {
        do {
            return try PrivateFiles.createFileHandle(path, replacing: true)
        } catch {
            throw CommandFailure("--output: \(error)")
        }
    }

    /// The folder `path`, made with mode 0700 unless it exists.
    static func folder(_ path: String) throws {
        do {
            try PrivateFiles.ensureFolder(path)
        } catch {
            throw CommandFailure("--output: \(error)")
        }
    }

    /// `data` as the file `path` of mode 0600, replacing what is there.
    static func write(_ data: Data, to path: String) throws {
        try PrivateFiles.write(data, to: path, replacing: true)
    }

    /// A new folder of mode 0700 beside `path` (`.NAME.export-XXXXXX`), for what is staged
    /// before `path` is written; the caller removes it.
    static func temporaryFolder(beside path: String) throws -> String {
        let url = URL(fileURLWithPath: path)
        do {
            return try PrivateFiles.makeTemporaryFolder(
                prefix: ".\(url.lastPathComponent).export-", in: url.deletingLastPathComponent().path)
        } catch {
            throw CommandFailure("--output: \(error)")
        }
    }

    /// A new, empty zip archive of mode 0600 at `path`, replacing what is there.
    static func zip(_ path: String) throws -> Archive {
        unlink(path)
        return try BackupArchive.createArchive(at: path)
    }
}
