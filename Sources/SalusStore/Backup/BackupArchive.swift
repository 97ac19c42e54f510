import Foundation
import ZIPFoundation

#if canImport(Glibc)
import Glibc
#endif

/// Backup archives of a data folder: a zip of database snapshots, the attachments and the
/// settings files, with `manifest.json` (schema version, last change, samples per type, SHA-256
/// per file).
///
/// Rules:
/// 1. Databases are copied with the online backup API (``DatabaseSnapshot``), so the daemon
///    serves and saves while a backup is made. Attachment files are linked before and after the
///    sample database's snapshot: a file is published before the row that names it commits, so
///    every attachment the snapshot names is present unless it was both published and removed
///    during the backup.
/// 2. An archive is trusted only after ``verify(archivePath:into:)``: every file the manifest
///    lists is present with its size and SHA-256, nothing else is, every database passes
///    `PRAGMA integrity_check`, and the sample database's counts per type and last change match
///    the manifest. `create` verifies what it wrote; `restore` verifies before touching anything.
/// 3. A restore moves each current file aside as `NAME.before-restore`, renames the verified
///    files into place, and removes the old ones only when every rename succeeded; on a failure
///    it puts the old files back. Why: the data folder is never left half old, half new.
package enum BackupArchive {
    /// The sample database's file name in the data folder.
    package static let storeName = "salus.sqlite"
    /// The attachments folder's name in the data folder.
    package static let attachmentsName = "attachments"
    /// The suffix of the files a restore keeps aside until it has succeeded.
    package static let asideSuffix = ".before-restore"

    /// Writes a backup of `dataDirectory` to `archivePath` (replaced when it exists): the
    /// `databases` (file names, snapshotted while in use), the `files` that exist (settings,
    /// copied) and the attachments folder; then verifies the archive. `progress` gets a line
    /// per stage.
    package static func create(
        dataDirectory: String, databases: [String], files: [String], archivePath: String,
        progress: (String) -> Void = { _ in }
    ) throws -> BackupManifest {
        let fileManager = FileManager.default
        let staging = dataDirectory + "/.backup-\(UUID().uuidString)"
        try fileManager.createDirectory(atPath: staging + "/" + attachmentsName, withIntermediateDirectories: true)
        defer { try? fileManager.removeItem(atPath: staging) }

        linkAttachments(from: dataDirectory + "/" + attachmentsName, to: staging + "/" + attachmentsName)
        for name in databases where fileManager.fileExists(atPath: dataDirectory + "/" + name) {
            do {
                try DatabaseSnapshot.copy(from: dataDirectory + "/" + name, to: staging + "/" + name) { done, total in
                    progress("\(name): \(done)/\(total) pages")
                }
            } catch {
                throw BackupError("cannot copy \(dataDirectory)/\(name): \(error)")
            }
        }
        linkAttachments(from: dataDirectory + "/" + attachmentsName, to: staging + "/" + attachmentsName)
        for name in files where fileManager.fileExists(atPath: dataDirectory + "/" + name) {
            try fileManager.copyItem(atPath: dataDirectory + "/" + name, toPath: staging + "/" + name)
        }

        progress("checksums")
        let summary = try storeSummary(staging + "/" + storeName)
        var entries: [BackupManifest.File] = []
        for path in try relativeFiles(in: staging) {
            let full = staging + "/" + path
            let size = (try fileManager.attributesOfItem(atPath: full)[.size] as? NSNumber)?.int64Value ?? 0
            entries.append(.init(path: path, size: size, sha256: try SHA256Digest.file(full), isDatabase: databases.contains(path)))
        }
        var manifest = BackupManifest(
            created: Date(), schemaVersion: summary.schemaVersion, lastSequence: summary.lastSequence,
            samplesPerType: summary.samplesPerType, files: entries)
        manifest.covered = databases + files + [attachmentsName]

        progress("writing \(archivePath)")
        unlink(archivePath)
        let archive = try Archive(url: URL(fileURLWithPath: archivePath), accessMode: .create)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let manifestData = try encoder.encode(manifest)
        try archive.addEntry(
            with: BackupManifest.fileName, type: .file, uncompressedSize: Int64(manifestData.count), compressionMethod: .none
        ) { position, size in manifestData.subdata(in: Int(position)..<Int(position) + size) }
        for entry in entries {
            try archive.addEntry(
                with: entry.path, fileURL: URL(fileURLWithPath: staging + "/" + entry.path), compressionMethod: .deflate)
        }

        progress("verifying \(archivePath)")
        let check = dataDirectory + "/.verify-\(UUID().uuidString)"
        defer { try? fileManager.removeItem(atPath: check) }
        let verified = try verify(archivePath: archivePath, into: check)
        guard verified == manifest || verified.files == manifest.files else {
            throw BackupError("\(archivePath): the archive read back differs from what was written")
        }
        return manifest
    }

    /// Checks the archive at `archivePath` (rule 2), extracting it into `directory` (created;
    /// the caller removes it), and returns its manifest.
    ///
    /// Throws ``BackupError`` naming the archive and the file that failed and how.
    package static func verify(archivePath: String, into directory: String) throws -> BackupManifest {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: archivePath), accessMode: .read)
        } catch {
            throw BackupError("\(archivePath) is not a readable zip archive: \(error)")
        }
        guard let manifestEntry = archive[BackupManifest.fileName] else {
            throw BackupError("\(archivePath) is not a Salus backup: it has no \(BackupManifest.fileName)")
        }
        var manifestData = Data()
        let manifest: BackupManifest
        do {
            _ = try archive.extract(manifestEntry) { manifestData.append($0) }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            manifest = try decoder.decode(BackupManifest.self, from: manifestData)
        } catch {
            throw BackupError("\(archivePath): \(BackupManifest.fileName) is damaged: \(error)")
        }
        guard manifest.format == 1 else {
            throw BackupError("\(archivePath): backup format \(manifest.format) is not known to this build; expected 1")
        }
        let listed = Set(manifest.files.map(\.path))
        for entry in archive where entry.path != BackupManifest.fileName && entry.type == .file {
            guard listed.contains(entry.path) else {
                throw BackupError("\(archivePath): holds \(entry.path), which \(BackupManifest.fileName) does not list")
            }
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for file in manifest.files {
            guard !file.path.hasPrefix("/"), !file.path.split(separator: "/").contains("..") else {
                throw BackupError("\(archivePath): \(file.path) is not a path inside the data folder")
            }
            guard let entry = archive[file.path] else {
                throw BackupError("\(archivePath): \(file.path) is listed in \(BackupManifest.fileName) but missing")
            }
            let target = directory + "/" + file.path
            do {
                _ = try archive.extract(entry, to: URL(fileURLWithPath: target))
            } catch {
                throw BackupError("\(archivePath): \(file.path) is damaged: \(error)")
            }
            let size = (try FileManager.default.attributesOfItem(atPath: target)[.size] as? NSNumber)?.int64Value ?? -1
            let digest = try SHA256Digest.file(target)
            guard size == file.size, digest == file.sha256 else {
                throw BackupError(
                    "\(archivePath): \(file.path) does not match \(BackupManifest.fileName): \(size) bytes with SHA-256 \(digest); "
                        + "expected \(file.size) bytes with SHA-256 \(file.sha256)")
            }
            if file.isDatabase {
                let problems = DatabaseSnapshot.problems(path: target, full: true)
                guard problems.isEmpty else {
                    throw BackupError("\(archivePath): \(file.path) fails PRAGMA integrity_check: \(problems.joined(separator: "; "))")
                }
            }
        }
        let summary = try storeSummary(directory + "/" + storeName)
        guard summary.samplesPerType == manifest.samplesPerType, summary.lastSequence == manifest.lastSequence else {
            throw BackupError(
                "\(archivePath): \(storeName) holds \(summary.samplesPerType.values.reduce(0, +)) samples up to change "
                    + "\(summary.lastSequence); \(BackupManifest.fileName) says \(manifest.samplesPerType.values.reduce(0, +)) "
                    + "up to change \(manifest.lastSequence)")
        }
        return manifest
    }

    /// Replaces the files of `dataDirectory` with the backup at `archivePath` (rule 3), after
    /// verifying it; refuses a store whose last change is later than the backup's unless
    /// `force`. The daemon must not be running on `dataDirectory`.
    package static func restore(archivePath: String, dataDirectory: String, force: Bool) throws -> BackupManifest {
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let staging = dataDirectory + "/.restore-\(UUID().uuidString)"
        defer { try? fileManager.removeItem(atPath: staging) }
        let manifest = try verify(archivePath: archivePath, into: staging)

        let current = dataDirectory + "/" + storeName
        if fileManager.fileExists(atPath: current), !force {
            // A store that cannot be read is what a restore is for; only a readable newer one is kept.
            if let summary = try? storeSummary(current), summary.lastSequence > manifest.lastSequence {
                throw BackupError(
                    "\(current) is newer than the backup: its last change is \(summary.lastSequence), the backup's "
                        + "\(manifest.lastSequence) (taken \(manifest.created)); add --force to replace it")
            }
        }

        var names = manifest.covered
        for file in manifest.files {
            let top = String(file.path.split(separator: "/").first ?? "")
            if !names.contains(top) { names.append(top) }
        }
        for database in manifest.files where database.isDatabase {
            names += [database.path + "-wal", database.path + "-shm"]
        }
        var movedAside: [String] = []
        var placed: [String] = []
        do {
            for name in names where fileManager.fileExists(atPath: dataDirectory + "/" + name) {
                let aside = dataDirectory + "/" + name + asideSuffix
                try? fileManager.removeItem(atPath: aside)
                try rename(dataDirectory + "/" + name, aside)
                movedAside.append(name)
            }
            for name in names where fileManager.fileExists(atPath: staging + "/" + name) {
                try rename(staging + "/" + name, dataDirectory + "/" + name)
                placed.append(name)
            }
        } catch {
            for name in placed { try? fileManager.removeItem(atPath: dataDirectory + "/" + name) }
            for name in movedAside { try? rename(dataDirectory + "/" + name + asideSuffix, dataDirectory + "/" + name) }
            throw BackupError("cannot restore into \(dataDirectory): \(error); the files there are as they were")
        }
        syncFolder(dataDirectory)
        for name in movedAside { try? fileManager.removeItem(atPath: dataDirectory + "/" + name + asideSuffix) }
        return manifest
    }

    /// Removes what a backup interrupted by a crash or a kill left in `dataDirectory`: the
    /// staging folders and archives named `.backup-*` and `.verify-*`; returns how many. The
    /// daemon calls it on start, when no backup of its own is running. A restore's `.restore-*`
    /// folder is left alone: restores run while the daemon is stopped, and one may be under way.
    @discardableResult
    package static func removeLeftovers(in dataDirectory: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dataDirectory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(".backup-") || name.hasPrefix(".verify-") {
            if (try? FileManager.default.removeItem(atPath: dataDirectory + "/" + name)) != nil { removed += 1 }
        }
        return removed
    }

    /// The schema version, last change and samples per type of the sample database at `path`.
    package static func storeSummary(_ path: String) throws -> (schemaVersion: Int, lastSequence: Int64, samplesPerType: [String: Int64]) {
        do {
            let database = try Database(path: path, create: false, readOnly: true)
            defer { database.close() }
            let version = Int(try database.scalarText("PRAGMA user_version") ?? "0") ?? 0
            let last = try database.scalarInt("SELECT value FROM store_info WHERE key = 'last_sequence'") ?? 0
            var counts: [String: Int64] = [:]
            let statement = try database.prepare(
                "SELECT t.identifier, count(*) FROM samples s JOIN types t ON t.id = s.type_id GROUP BY t.identifier", cached: false)
            while try statement.step() { counts[statement.text(0) ?? ""] = statement.int64(1) }
            return (version, last, counts)
        } catch {
            throw BackupError("\(path): cannot read the store's counts: \(error)")
        }
    }

    private static func rename(_ from: String, _ to: String) throws {
        guard Glibc.rename(from, to) == 0 else {
            throw BackupError("cannot rename \(from) to \(to): \(String(cString: strerror(errno)))")
        }
    }

    private static func syncFolder(_ folder: String) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// Hard-links (else copies) the attachment files of `source` missing from `target`.
    private static func linkAttachments(from source: String, to target: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: source) else { return }
        for name in names where !name.hasPrefix(AttachmentFiles.partialPrefix) {
            let destination = target + "/" + name
            guard !FileManager.default.fileExists(atPath: destination) else { continue }
            if link(source + "/" + name, destination) != 0 {
                try? FileManager.default.copyItem(atPath: source + "/" + name, toPath: destination)
            }
        }
    }

    /// The regular files under `folder`, as paths relative to it, sorted.
    private static func relativeFiles(in folder: String) throws -> [String] {
        var paths: [String] = []
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                paths.append(path)
            }
        }
        return paths.sorted()
    }
}
