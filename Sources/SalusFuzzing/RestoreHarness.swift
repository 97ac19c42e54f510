import Foundation
import SalusStore

/// Backup archives: the bytes as the archive that `salusctl restore --force` restores into a data
/// folder (`BackupArchive.restore`: the archive's checks, then moving files aside and into place).
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
    static let before: [String: Data] = [
        "salus.sqlite": Data("not a store".utf8),
        "authorization.sqlite": Data("not a store either".utf8),
        "person.json": Data("{}".utf8),
        "attachments/00000000-0000-0000-0000-000000000001": Data("an attachment".utf8),
    ]

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let sandbox = Self.sandbox
        let data = sandbox + "/outer/inner/data"
        let archive = sandbox + "/archive.zip"
        try? FileManager.default.removeItem(atPath: data)
        do {
            try PrivateFiles.makeFolder(data)
            try PrivateFiles.makeFolder(data + "/attachments")
            for (name, content) in before { try PrivateFiles.write(content, to: data + "/" + name) }
            unlink(archive)
            try PrivateFiles.write(Data(bytes), to: archive)
        } catch {
            fatalError("cannot prepare the restore harness's data folder: \(error)")
        }
        let outside = snapshot(sandbox, skipping: data)
        let inside = snapshot(data, skipping: nil)

        let restored: Bool
        do {
            _ = try BackupArchive.restore(archivePath: archive, dataDirectory: data, force: true)
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
