import Foundation
import SalusStore
import ZIPFoundation

/// The files and folders an export writes the person's data to, private to the owner from their
/// creation (`PrivateFiles`' rules), a failure as ``ExportError``.
enum ExportFiles {
    /// A new file of mode 0600 at `path`, for writing; a file or link already there is replaced,
    /// never written through.
    static func file(_ path: String) throws -> FileHandle {
        do {
            return try PrivateFiles.createFileHandle(path, replacing: true)
        } catch {
            throw ExportError("\(error)")
        }
    }

    /// The folder `path`, made with mode 0700 unless it exists.
    static func folder(_ path: String) throws {
        do {
            try PrivateFiles.ensureFolder(path)
        } catch {
            throw ExportError("\(error)")
        }
    }

    /// A new folder of mode 0700 beside `path` (`.NAME.export-XXXXXX`, named by mkdtemp: a name
    /// nobody can guess and claim first), for what is staged before `path` is written; the
    /// caller removes it.
    static func temporaryFolder(beside path: String) throws -> String {
        let url = URL(fileURLWithPath: path)
        do {
            return try PrivateFiles.makeTemporaryFolder(
                prefix: ".\(url.lastPathComponent).export-", in: url.deletingLastPathComponent().path)
        } catch {
            throw ExportError("\(error)")
        }
    }

    /// A new, empty zip archive of mode 0600 at `path`, replacing what is there.
    static func zip(_ path: String) throws -> Archive {
        unlink(path)
        return try BackupArchive.createArchive(at: path)
    }
}
