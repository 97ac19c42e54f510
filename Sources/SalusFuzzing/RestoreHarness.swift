import Foundation
import SalusModel
import SalusStore

/// Backup archives: the bytes as the archive that `salusctl restore --force` restores into a data
/// folder (`BackupArchive.restore`: the archive's checks, then moving files aside and into place).
///
/// Two kinds of input: bytes that start with `PK` are the archive itself; any others are its
/// `manifest.json`, put in an archive that holds, for each file the manifest lists (when it
/// parses), an entry at that path (a small valid store for a database, else a few bytes) with
/// the manifest's size and SHA-256 filled in to match. Why both: the zip's CRC-32 guards the
/// manifest's bytes, so a mutated archive rarely gets its manifest read, while a mutated manifest
/// reaches every check of its paths and the moves of a restore.
///
/// The data folder lies three levels deep in a sandbox folder of this process,
/// `restore/outer/inner/data/`, with a `victim/` folder holding a file at each level beside it
/// (reached by `../victim`, `../../victim`, `../../../victim`) and the archive itself in the
/// sandbox. Before each input the data folder is made afresh, holding a file at each name a
/// backup covers. The harness traps when anything in the sandbox outside the data folder
/// changed, when a refused restore changed the data folder, or when a restore that succeeded
/// left a link, a hidden or unexpected name, or a file that group or others may read in it.
enum RestoreHarness {
    /// The sandbox: `restore/` in the process's fuzzing folder.
    static let sandbox: String = {
        let root = FuzzEnvironment.folder.appendingPathComponent("restore").path
        do {
            try FileManager.default.createDirectory(atPath: root + "/outer/inner", withIntermediateDirectories: true)
            for folder in [root, root + "/outer", root + "/outer/inner"] {
                try FileManager.default.createDirectory(atPath: folder + "/victim", withIntermediateDirectories: true)
                try Data("the victim's".utf8).write(to: URL(fileURLWithPath: folder + "/victim/keep"))
            }
        } catch {
            fatalError("cannot prepare the restore harness's sandbox \(root): \(error)")
        }
        return root
    }()

    /// What a data folder holds before the restore: a name each of the kinds a backup covers.
    /// (Text, not `Data`: LeakSanitizer does not follow a global `Data`'s storage.)
    static let before: [String: String] = [
        "salus.sqlite": "not a store",
        "authorization.sqlite": "not a store either",
        "person.json": "{}",
        "attachments/00000000-0000-0000-0000-000000000001": "an attachment",
    ]

    /// A sample database as a restore checks it (`BackupArchive.storeSummary`): three step
    /// samples up to change 3. Kept as bytes in an array: LeakSanitizer does not see the
    /// storage of a `Data` held in a global, and libFuzzer would report it as a leak.
    static let store: [UInt8] = {
        let path = FuzzEnvironment.folder.appendingPathComponent("restore-template.sqlite").path
        do {
            let database = try Database(path: path, create: true)
            try database.execute("""
                PRAGMA journal_mode=DELETE;
                CREATE TABLE store_info(key TEXT PRIMARY KEY, value INTEGER);
                INSERT INTO store_info VALUES ('last_sequence', 3);
                CREATE TABLE types(id INTEGER PRIMARY KEY, identifier TEXT UNIQUE);
                INSERT INTO types VALUES (1, 'HKQuantityTypeIdentifierStepCount');
                CREATE TABLE samples(id INTEGER PRIMARY KEY, type_id INTEGER, value REAL);
                INSERT INTO samples(type_id, value) VALUES (1, 10), (1, 20), (1, 30);
                """)
            database.close()
            return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            fatalError("cannot make the restore harness's store: \(error)")
        }
    }()

    /// Writes the archive holding `manifest` and the files it lists to `path`.
    static func writeArchive(manifest bytes: Data, to path: String) throws {
        var manifest = bytes
        var entries: [(path: String, content: Data)] = []
        if var object = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any], let files = object["files"] as? [Any] {
            object["files"] = files.map { item -> Any in
                guard var file = item as? [String: Any], let path = file["path"] as? String, path.utf8.count <= 4096 else { return item }
                let content = file["isDatabase"] as? Bool == true ? Data(store) : Data("attachment \(path)".utf8)
                var digest = SHA256Digest()
                digest.update(content)
                file["size"] = content.count
                file["sha256"] = digest.hexDigest()
                entries.append((path, content))
                return file
            }
            if JSONSerialization.isValidJSONObject(object), let data = try? JSONSerialization.data(withJSONObject: object) {
                manifest = data
            }
        }
        let archive = try BackupArchive.createArchive(at: path)
        for (name, content) in [(BackupManifest.fileName, manifest)] + entries {
            try archive.addEntry(with: name, type: .file, uncompressedSize: Int64(content.count), compressionMethod: .deflate) { position, size in
                content.subdata(in: Int(position)..<Int(position) + size)
            }
        }
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let sandbox = Self.sandbox
        let data = sandbox + "/outer/inner/data"
        let archive = sandbox + "/archive.zip"
        try? FileManager.default.removeItem(atPath: data)
        do {
            try PrivateFiles.makeFolder(data)
            try PrivateFiles.makeFolder(data + "/attachments")
            for (name, content) in before { try PrivateFiles.write(Data(content.utf8), to: data + "/" + name) }
            unlink(archive)
            if bytes.starts(with: [0x50, 0x4B]) {
                try PrivateFiles.write(Data(bytes), to: archive)
            } else {
                try writeArchive(manifest: Data(bytes), to: archive)
            }
        } catch {
            fatalError("cannot prepare the restore harness's data folder or archive: \(error)")
        }
        let outside = snapshot(sandbox, skipping: data)
        let inside = snapshot(data, skipping: nil)

        let restored: Bool
        do {
            // A never-ending deflate stream is refused after the stall limit (GuardedArchive);
            // one second here, so such an input is not a libFuzzer "slow unit" (10 s) of its own.
            _ = try BackupArchive.restore(archivePath: archive, dataDirectory: data, force: true, stallLimit: 1)
            restored = true
        } catch {
            _ = "\(error)"
            restored = false
        }

        let outsideAfter = snapshot(sandbox, skipping: data)
        guard outsideAfter == outside else {
            let changed = Set(outside.keys).symmetricDifference(outsideAfter.keys).union(
                outside.keys.filter { outsideAfter[$0] != nil && outsideAfter[$0] != outside[$0] })
            fatalError("a restore changed the sandbox outside the data folder: \(changed.sorted())")
        }
        guard restored else {
            let insideAfter = snapshot(data, skipping: nil)
            guard insideAfter == inside else {
                fatalError("a refused restore changed the data folder: \(inside.keys.sorted()) became \(insideAfter.keys.sorted())")
            }
            return
        }
        checkRestored(data)
    }

    /// A restored data folder holds plain names, folders only as `attachments`, no link, and
    /// nothing that group or others may read.
    static func checkRestored(_ data: String) {
        guard let enumerator = FileManager.default.enumerator(atPath: data) else { return }
        while let path = enumerator.nextObject() as? String {
            var status = stat()
            guard lstat(data + "/" + path, &status) == 0 else { continue }
            let kind = status.st_mode & S_IFMT
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            guard kind == S_IFREG || (kind == S_IFDIR && path == BackupArchive.attachmentsName) else {
                fatalError("a restore left \(path.debugDescription) in the data folder, of type \(String(kind, radix: 8))")
            }
            guard segments.count == 1 || (segments.count == 2 && segments[0] == Substring(BackupArchive.attachmentsName)),
                !segments.contains(where: { $0.hasPrefix(".") })
            else {
                fatalError("a restore left the unexpected name \(path.debugDescription) in the data folder")
            }
            if kind == S_IFREG && status.st_mode & 0o077 != 0 {
                fatalError("a restore left \(path.debugDescription) with mode \(String(status.st_mode & 0o777, radix: 8))")
            }
        }
    }

    /// Every entry under `folder` (not following links) by relative path, with its type, mode
    /// and content (a file's bytes, a link's target), except `skipping` and what is under it.
    static func snapshot(_ folder: String, skipping: String?) -> [String: String] {
        var entries: [String: String] = [:]
        func walk(_ path: String, _ relative: String) {
            guard path != skipping else { return }
            var status = stat()
            guard lstat(path, &status) == 0 else { return }
            let mode = String(status.st_mode, radix: 8)
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                entries[relative] = "folder \(mode)"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                    walk(path + "/" + name, relative + "/" + name)
                }
            case S_IFLNK:
                entries[relative] = "link \(mode) " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?")
            default:
                let content = FileManager.default.contents(atPath: path) ?? Data()
                entries[relative] = "file \(mode) \(content.count) " + content.base64EncodedString()
            }
        }
        walk(folder, ".")
        return entries
    }
}
