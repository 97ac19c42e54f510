import Foundation
import SalusModel
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
/// 2. An archive is trusted only after ``verify(archivePath:into:)``: every path in it (each
///    entry's name, each `files[].path` and `covered` name of the manifest) passes
///    ``ArchivePath`` (one check for all of them), every entry is a regular file listed once,
///    every file the manifest lists is present with its size and SHA-256, nothing else is, every
///    database passes `PRAGMA integrity_check`, and the sample database's counts per type and
///    last change match the manifest. `create` verifies what it wrote; `restore` verifies before
///    touching anything. Why the paths first: a restore moves aside and replaces the names the
///    archive gives, so a name outside the data folder would be removed (`"../victim"` was).
/// 3. A restore moves each current file aside as `NAME.before-restore`, renames the verified
///    files into place, and removes the old ones only when every rename succeeded; on a failure
///    it puts the old files back. Why: the data folder is never left half old, half new.
/// 4. Every folder and file made from an archive is private from its creation (``PrivateFiles``:
///    folders 0700, files 0600 created with `O_EXCL | O_NOFOLLOW`), and unpacking writes only
///    into a folder it has just made. Why: `salusctl backup` unpacks into `$TMPDIR`, where other
///    users could open a file in the moment between a wide creation and a `chmod`.
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
        try PrivateFiles.makeFolder(staging)
        defer { try? fileManager.removeItem(atPath: staging) }
        try PrivateFiles.makeFolder(staging + "/" + attachmentsName)

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
        let archive = try createArchive(at: archivePath)
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

    /// A new, empty zip archive at `path`, which must not exist, private (0600, ``PrivateFiles``)
    /// from its creation: ZIPFoundation's `.create` makes it with the umask's mode.
    package static func createArchive(at path: String) throws -> Archive {
        // An empty zip is its end-of-central-directory record alone.
        try PrivateFiles.write(Data([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)), to: path)
        return try Archive(url: URL(fileURLWithPath: path), accessMode: .update)
    }

    /// The largest `manifest.json` read, in bytes (about 400,000 files at some 160 bytes each):
    /// a crafted manifest cannot fill memory.
    package static let maximumManifestSize = 64 << 20

    /// Checks the archive at `archivePath` (rule 2), unpacking it into `directory`, which it
    /// makes with mode 0700 and which must not exist (rule 4; the caller removes it), and
    /// returns its manifest.
    ///
    /// Throws ``BackupError`` naming the archive, the file or manifest field that failed and how.
    /// `stallLimit` is ``GuardedArchive``'s: seconds without inflated output before an entry
    /// counts as never ending (the fuzzing harness shortens it).
    package static func verify(
        archivePath: String, into directory: String, stallLimit: TimeInterval = GuardedArchive.defaultStallLimit
    ) throws -> BackupManifest {
        let guarded: GuardedArchive
        do {
            guarded = try GuardedArchive(url: URL(fileURLWithPath: archivePath), stallLimit: stallLimit)
        } catch {
            throw BackupError("\(archivePath) is not a readable zip archive: \(error)")
        }
        let archive = guarded.archive
        // Every entry a regular file, under one name once: ZIPFoundation's lookup by name returns
        // the first of two, and a link or folder entry is nothing `create` writes.
        var entries: [String: Entry] = [:]
        for entry in archive {
            let path = entry.path
            guard entry.type == .file else {
                throw BackupError(
                    "\(archivePath): \(path.debugDescription) is a \(entry.type == .symlink ? "symbolic link" : "folder") entry; "
                        + "a backup holds regular files only")
            }
            guard entries.updateValue(entry, forKey: path) == nil else {
                throw BackupError("\(archivePath): holds \(path.debugDescription) twice; a backup holds each file once")
            }
        }
        guard let manifestEntry = entries[BackupManifest.fileName] else {
            throw BackupError("\(archivePath) is not a Salus backup: it has no \(BackupManifest.fileName)")
        }
        var manifestData = Data()
        let manifest: BackupManifest
        do {
            try guarded.extract(manifestEntry) { chunk in
                manifestData.append(chunk)
                guard manifestData.count <= maximumManifestSize else {
                    throw BackupError("it is larger than \(maximumManifestSize) bytes")
                }
            }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            manifest = try decoder.decode(BackupManifest.self, from: manifestData)
        } catch {
            throw BackupError("\(archivePath): \(BackupManifest.fileName) is damaged: \(error)")
        }
        guard manifest.format == 1 else {
            throw BackupError("\(archivePath): backup format \(manifest.format) is not known to this build; expected 1")
        }
        try checkPaths(of: manifest, archivePath: archivePath)
        for path in entries.keys.sorted() where path != BackupManifest.fileName {
            guard manifest.files.contains(where: { $0.path == path }) else {
                throw BackupError("\(archivePath): holds \(path.debugDescription), which \(BackupManifest.fileName) does not list")
            }
        }

        do {
            try PrivateFiles.makeFolder(directory)
        } catch {
            throw BackupError("cannot unpack \(archivePath): \(error)")
        }
        var folders: Set<Substring> = []
        for file in manifest.files {
            guard let entry = entries[file.path] else {
                throw BackupError("\(archivePath): \(file.path) is listed in \(BackupManifest.fileName) but missing")
            }
            let segments = file.path.split(separator: "/")
            let target = directory + "/" + file.path
            let descriptor: Int32
            do {
                if segments.count == 2, folders.insert(segments[0]).inserted {
                    try PrivateFiles.makeFolder(directory + "/" + segments[0])
                }
                descriptor = try PrivateFiles.createFile(target)
            } catch {
                throw BackupError("\(archivePath): cannot unpack \(file.path): \(error)")
            }
            defer { close(descriptor) }
            var size: Int64 = 0
            var digest = SHA256Digest()
            do {
                try guarded.extract(entry) { chunk in
                    size += Int64(chunk.count)
                    // Inflating stops at the size listed: a small archive cannot fill the disk.
                    guard size <= file.size else { throw Oversized() }
                    digest.update(chunk)
                    try writeAll(chunk, to: descriptor, path: target)
                }
            } catch let error as BackupError {
                throw error
            } catch is Oversized {
                throw BackupError(
                    "\(archivePath): \(file.path) does not match \(BackupManifest.fileName): it holds more than the "
                        + "\(file.size) bytes listed")
            } catch {
                throw BackupError("\(archivePath): \(file.path) is damaged: \(error)")
            }
            let sha256 = digest.hexDigest()
            guard size == file.size, sha256 == file.sha256 else {
                throw BackupError(
                    "\(archivePath): \(file.path) does not match \(BackupManifest.fileName): \(size) bytes with SHA-256 \(sha256); "
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

    /// Checks every `files[].path` and `covered` name of `manifest` with ``ArchivePath`` and
    /// refuses a file listed twice, also when two paths differ only by case (one file on a
    /// case-insensitive file system), or listed with a negative size.
    private static func checkPaths(of manifest: BackupManifest, archivePath: String) throws(BackupError) {
        var seen: [String: String] = [:]
        for (index, file) in manifest.files.enumerated() {
            let field = "\(BackupManifest.fileName) files[\(index)].path"
            try ArchivePath.check(file.path, as: .file, field: field, archive: archivePath)
            if let other = seen.updateValue(file.path, forKey: file.path.lowercased()) {
                let reason = other == file.path ? "it is listed twice" : "it differs from \(other.debugDescription) only by case"
                throw BackupError("\(archivePath): \(field) is \(file.path.debugDescription): \(reason); expected each file once")
            }
            guard file.size >= 0 else {
                throw BackupError("\(archivePath): \(BackupManifest.fileName) files[\(index)].size is \(file.size); expected 0 or more")
            }
        }
        for (index, name) in manifest.covered.enumerated() {
            try ArchivePath.check(name, as: .name, field: "\(BackupManifest.fileName) covered[\(index)]", archive: archivePath)
        }
    }

    /// Thrown from the unpacking of a file that holds more than the manifest lists.
    private struct Oversized: Error {}

    private static func writeAll(_ data: Data, to descriptor: Int32, path: String) throws {
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    throw BackupError("cannot write \(path): \(String(cString: strerror(errno)))")
                }
                offset += count
            }
        }
    }

    /// Replaces the files of `dataDirectory` with the backup at `archivePath` (rule 3), after
    /// verifying it; refuses a store whose last change is later than the backup's unless
    /// `force`. The daemon must not be running on `dataDirectory`.
    package static func restore(
        archivePath: String, dataDirectory: String, force: Bool, stallLimit: TimeInterval = GuardedArchive.defaultStallLimit
    ) throws -> BackupManifest {
        let fileManager = FileManager.default
        do {
            try PrivateFiles.ensureFolder(dataDirectory)
        } catch {
            throw BackupError("cannot restore into \(dataDirectory): \(error)")
        }
        let staging = dataDirectory + "/.restore-\(UUID().uuidString)"
        defer { try? fileManager.removeItem(atPath: staging) }
        let manifest = try verify(archivePath: archivePath, into: staging, stallLimit: stallLimit)

        let current = dataDirectory + "/" + storeName
        if fileManager.fileExists(atPath: current), !force {
            // A store that cannot be read is what a restore is for; only a readable newer one is kept.
            if let summary = try? storeSummary(current), summary.lastSequence > manifest.lastSequence {
                throw BackupError(
                    "\(current) is newer than the backup: its last change is \(summary.lastSequence), the backup's "
                        + "\(manifest.lastSequence) (taken \(manifest.created)); add --force to replace it")
            }
        }

        // Every name here passed ArchivePath in verify: one segment, inside the data folder. What
        // is placed is what verify unpacked and checked, nothing the checks left beside it.
        var incoming: [String] = []
        for file in manifest.files {
            let top = String(file.path.split(separator: "/").first ?? "")
            if !incoming.contains(top) { incoming.append(top) }
        }
        var names = manifest.covered.filter { !incoming.contains($0) } + incoming
        for database in manifest.files where database.isDatabase {
            names += [database.path + "-wal", database.path + "-shm"]
        }
        var movedAside: [String] = []
        var placed: [String] = []
        do {
            for name in Set(names).sorted() where fileManager.fileExists(atPath: dataDirectory + "/" + name) {
                let aside = dataDirectory + "/" + name + asideSuffix
                try? fileManager.removeItem(atPath: aside)
                try rename(dataDirectory + "/" + name, aside)
                movedAside.append(name)
            }
            for name in incoming where fileManager.fileExists(atPath: staging + "/" + name) {
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
