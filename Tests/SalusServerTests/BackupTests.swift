import Foundation
import SalusAdmin
import SalusModel
import SalusProto
import SalusRPC
import SalusStore
import SalusTestSupport
import Synchronization
import Testing
import ZIPFoundation

@testable import SalusServer

/// `salus.v1.Backup/Create` on the in-process services and `BackupArchive.restore` into data
/// folders: a snapshot taken while apps save, its restore, and the refusals.
@Suite("Backup and restore")
struct BackupTests {
    typealias S = Authz

    /// Takes a backup through the owner's client, as `salusctl backup` does, and writes the
    /// streamed bytes to `path`; returns the progress lines and the manifest the daemon sent last.
    static func backup(_ owner: RPCClient, to path: URL) async throws -> (progress: [String], manifest: BackupManifest) {
        var data = Data()
        var progress: [String] = []
        var manifestJSON = ""
        for try await event in AdminClient(rpc: owner).createBackup() {
            switch event {
            case .progress(let text): progress.append(text)
            case .size: break
            case .data(let bytes): data.append(bytes)
            case .manifest(let json): manifestJSON = json
            }
        }
        try data.write(to: path)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (progress, try decoder.decode(BackupManifest.self, from: Data(manifestJSON.utf8)))
    }

    /// Samples per type in the open store, as the owner's sample queries return them.
    static func counts(_ server: ServerHarness, types: [String]) async throws -> [String: Int64] {
        let owner = try await server.owner()
        var counts: [String: Int64] = [:]
        for type in types {
            let total = try await S.batches(owner, type: type).reduce(0) { $0 + $1.samples.count }
            if total > 0 { counts[type] = Int64(total) }
        }
        await owner.close()
        return counts
    }

    /// The offset of the zip local file header ("PK\u{3}\u{4}") of the entry named `name`.
    static func localHeader(of name: [UInt8], in bytes: [UInt8]) -> Int? {
        let signature: [UInt8] = [0x50, 0x4B, 3, 4]
        for index in 0..<(bytes.count - 30 - name.count) {
            guard Array(bytes[index..<(index + 4)]) == signature else { continue }
            let start = index + 30
            if Array(bytes[start..<(start + name.count)]) == name { return index }
        }
        return nil
    }

    static func saveSteps(_ app: RPCClient, count: Int, from start: Int64) async throws {
        _ = try await S.save(app, (0..<count).map { S.sample(value: Double($0), start: start + Int64($0) * 60_000_000) })
    }

    @Test("a backup taken while 64 apps save continuously restores into a fresh data folder with the manifest's counts per type")
    func backupDuringSaves() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let writing = WritersState()
        let writers = (0..<64).map { index in
            Task {
                let app = try await server.app("org.example.writer\(index)")
                var round: Int64 = 0
                while !writing.stop.load(ordering: .relaxed) {
                    let type = index % 2 == 0 ? S.steps : S.heartRate
                    let start = 1_700_000_000_000_000 + (Int64(index) * 1_000_000 + round) * 600_000_000
                    _ = try await S.save(app, (0..<10).map { S.sample(type, value: Double(60 + $0), start: start + Int64($0) * 60_000_000) })
                    writing.saves.add(1, ordering: .relaxed)
                    round += 1
                }
                await app.close()
            }
        }
        try await waitUntil(timeout: .seconds(60), "the writers have saved") { writing.saves.load(ordering: .relaxed) >= 64 }
        let archive = server.directory.appendingPathComponent("backup.zip")
        let owner = try await server.owner()
        let (progress, manifest) = try await Self.backup(owner, to: archive)
        writing.stop.store(true, ordering: .relaxed)
        for writer in writers { try await writer.value }
        await owner.close()

        #expect(progress.contains { $0.hasPrefix("salus.sqlite: ") }, "progress names the database being copied: \(progress)")
        #expect(manifest.samplesPerType[S.steps, default: 0] > 0 && manifest.samplesPerType[S.heartRate, default: 0] > 0)
        #expect(manifest.files.contains { $0.path == "authorization.sqlite" && $0.isDatabase })
        let final = try await Self.counts(server, types: [S.steps, S.heartRate])
        let savedSamples = final.values.reduce(0, +)
        #expect(savedSamples >= manifest.samplesPerType.values.reduce(0, +), "the store holds at least what the snapshot holds")
        // Every save is a batch of 10 in one transaction: a consistent snapshot holds whole batches.
        for (type, count) in manifest.samplesPerType { #expect(count % 10 == 0, "\(type): \(count) samples is not whole batches") }
        await server.stop()

        let fresh = try await ServerHarness.start(openAuthorization: true)
        await fresh.stop()
        let restored = try BackupArchive.restore(archivePath: archive.path, dataDirectory: fresh.dataDirectory.path, force: false)
        #expect(restored == manifest)
        let reopened = try await fresh.restart()
        #expect(try await Self.counts(reopened, types: [S.steps, S.heartRate]) == manifest.samplesPerType)
        let left = try FileManager.default.contentsOfDirectory(atPath: fresh.dataDirectory.path)
        #expect(!left.contains { $0.hasSuffix(BackupArchive.asideSuffix) || $0.hasPrefix(".restore-") }, "\(left)")
        await reopened.stop()
    }

    @Test("restore refuses a store with changes after the backup unless forced, and then holds the backup's samples only")
    func restoreRefusesNewerStore() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let app = try await server.app("org.example.steps")
        try await Self.saveSteps(app, count: 5, from: 1_700_000_000_000_000)
        let owner = try await server.owner()
        let archive = server.directory.appendingPathComponent("backup.zip")
        let (_, manifest) = try await Self.backup(owner, to: archive)
        try await Self.saveSteps(app, count: 7, from: 1_710_000_000_000_000)
        await app.close()
        await owner.close()
        await server.stop()

        let data = server.dataDirectory.path
        let store = data + "/salus.sqlite"
        let bytesBefore = try Data(contentsOf: URL(fileURLWithPath: store))
        #expect {
            try BackupArchive.restore(archivePath: archive.path, dataDirectory: data, force: false)
        } throws: { error in
            let message = "\(error)"
            return message.contains(store) && message.contains("newer than the backup") && message.contains("--force")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == bytesBefore, "a refused restore changes nothing")

        _ = try BackupArchive.restore(archivePath: archive.path, dataDirectory: data, force: true)
        let reopened = try await server.restart()
        #expect(try await Self.counts(reopened, types: [S.steps]) == [S.steps: 5])
        #expect(manifest.samplesPerType == [S.steps: 5])
        await reopened.stop()
    }

    @Test("a damaged archive is refused naming the file inside it, and the data folder is left as it was")
    func damagedArchiveRefused() async throws {
        let (server, archive) = try await Self.smallBackup(steps: 200)

        // Overwrites bytes inside salus.sqlite's compressed data (after its local file header).
        var bytes = [UInt8](try Data(contentsOf: archive))
        let name = Array("salus.sqlite".utf8)
        let header = try #require(Self.localHeader(of: name, in: bytes))
        let extra = Int(bytes[header + 28]) | Int(bytes[header + 29]) << 8
        let start = header + 30 + name.count + extra + 64
        for offset in start..<(start + 32) { bytes[offset] ^= 0x5A }
        try Data(bytes).write(to: archive)

        let data = server.dataDirectory.path
        let before = try FileManager.default.contentsOfDirectory(atPath: data).sorted()
        #expect {
            try BackupArchive.restore(archivePath: archive.path, dataDirectory: data, force: true)
        } throws: { error in
            let message = "\(error)"
            return message.contains(archive.path) && message.contains("salus.sqlite")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: data).sorted() == before)
        let reopened = try await server.restart()
        #expect(try await Self.counts(reopened, types: [S.steps]) == [S.steps: 200])
        await reopened.stop()
    }

    @Test("a backup interrupted by a kill leaves nothing behind once the daemon starts again")
    func leftoversRemovedOnStart() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        await server.stop()
        let data = server.dataDirectory.path
        let staging = data + "/.backup-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: staging + "/attachments", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: staging + ".zip", contents: Data("PK".utf8)))
        let restoring = data + "/.restore-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: restoring, withIntermediateDirectories: true)
        let reopened = try await server.restart()
        let names = try FileManager.default.contentsOfDirectory(atPath: data)
        #expect(!names.contains { $0.hasPrefix(".backup-") }, "\(names)")
        #expect(names.contains((restoring as NSString).lastPathComponent), "a restore's folder is not the daemon's to remove")
        await reopened.stop()
    }

    @Test("an archive whose file does not match the manifest's SHA-256 is refused naming the file")
    func checksumMismatchRefused() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let owner = try await server.owner()
        let archive = server.directory.appendingPathComponent("backup.zip")
        _ = try await Self.backup(owner, to: archive)
        await owner.close()
        await server.stop()

        // A well-formed zip (every CRC right) whose salus.sqlite differs by one byte from the
        // file the manifest describes.
        let original = try Archive(url: archive, accessMode: .read)
        let forged = server.directory.appendingPathComponent("forged.zip")
        let copy = try Archive(url: forged, accessMode: .create)
        for entry in original {
            var content = Data()
            _ = try original.extract(entry) { content.append($0) }
            if entry.path == "salus.sqlite" { content[content.count - 1] ^= 0x01 }
            let bytes = content
            try copy.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(bytes.count)) { position, size in
                bytes.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        #expect {
            try BackupArchive.verify(archivePath: forged.path, into: server.directory.appendingPathComponent("check").path)
        } throws: { error in
            let message = "\(error)"
            return message.contains("salus.sqlite does not match manifest.json") && message.contains(forged.path)
        }
    }
}

/// What the writers of a backup test share: how many batches they saved, and when to stop.
final class WritersState: Sendable {
    let saves = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
}

/// A backup archive changed as an attacker would: a manifest entry, an extra entry, an entry type.
struct CraftedArchive: Sendable, CustomTestStringConvertible {
    /// What the test names the attack by.
    var name: String
    /// Names appended to the manifest's `covered` (`{victim}` is the sibling folder's absolute path).
    var covered: [String] = []
    /// An extra file entry listed in `files[]` under this path (`{victim}` as above).
    var filePath: String? = nil
    /// The extra entry is a symbolic link to this target instead of a file.
    var symlinkTarget: String? = nil
    /// An entry of the archive added a second time under this path (listed once).
    var duplicateEntry: String? = nil
    /// The field the refusal must name.
    var field: String
    /// The value the refusal must quote (`{victim}` as above).
    var value: String

    var testDescription: String { name }
}

extension BackupTests {
    static let craftedArchives: [CraftedArchive] = [
        .init(name: "covered ../victim", covered: ["../victim"], field: "covered[", value: "../victim"),
        .init(name: "covered absolute", covered: ["{victim}"], field: "covered[", value: "{victim}"),
        .init(name: "covered inner ..", covered: ["attachments/../../victim"], field: "covered[", value: "attachments/../../victim"),
        .init(name: "covered empty", covered: [""], field: "covered[", value: ""),
        .init(name: "covered .", covered: ["."], field: "covered[", value: "."),
        .init(name: "covered ..", covered: [".."], field: "covered[", value: ".."),
        .init(name: "covered NUL", covered: ["victim\u{0}"], field: "covered[", value: "victim\u{0}"),
        .init(name: "covered backslash", covered: ["..\\victim"], field: "covered[", value: "..\\victim"),
        .init(name: "covered hidden bookkeeping", covered: [".database-check"], field: "covered[", value: ".database-check"),
        .init(name: "covered aside name", covered: ["salus.sqlite.before-restore"], field: "covered[", value: "salus.sqlite.before-restore"),
        .init(name: "covered very long", covered: [String(repeating: "a", count: 300)], field: "covered[", value: String(repeating: "a", count: 300)),
        .init(name: "file ../victim/x", filePath: "../victim/x", field: "files[", value: "../victim/x"),
        .init(name: "file absolute", filePath: "{victim}/x", field: "files[", value: "{victim}/x"),
        .init(name: "file empty segment", filePath: "attachments//x", field: "files[", value: "attachments//x"),
        .init(name: "file . segment", filePath: "./x", field: "files[", value: "./x"),
        .init(name: "file trailing /", filePath: "attachments/", field: "files[", value: "attachments/"),
        .init(name: "file backslash", filePath: "attachments\\..\\..\\victim", field: "files[", value: "attachments\\..\\..\\victim"),
        .init(name: "file too deep", filePath: "attachments/a/b", field: "files[", value: "attachments/a/b"),
        .init(name: "symbolic link entry", filePath: "attachments/link", symlinkTarget: "../../victim/keep", field: "attachments/link", value: "symbolic link"),
        .init(name: "duplicate entry", duplicateEntry: "salus.sqlite", field: "salus.sqlite", value: "twice"),
        .init(name: "names differing by case", filePath: "SALUS.SQLITE", field: "files[", value: "SALUS.SQLITE"),
    ]

    /// A backup of a store with `steps` step samples in `server`'s data folder (the daemon
    /// stopped after).
    static func smallBackup(steps: Int = 3) async throws -> (server: ServerHarness, archive: URL) {
        let server = try await ServerHarness.start(openAuthorization: true)
        let app = try await server.app("org.example.steps")
        try await Self.saveSteps(app, count: steps, from: 1_700_000_000_000_000)
        await app.close()
        let owner = try await server.owner()
        let archive = server.directory.appendingPathComponent("backup.zip")
        _ = try await Self.backup(owner, to: archive)
        await owner.close()
        await server.stop()
        return (server, archive)
    }

    /// Writes `archive` changed as `crafted` says to `target`.
    static func forge(_ archive: URL, _ crafted: CraftedArchive, victim: String, into target: URL) throws {
        func fill(_ text: String) -> String { text.replacingOccurrences(of: "{victim}", with: victim) }
        let original = try Archive(url: archive, accessMode: .read)
        let copy = try Archive(url: target, accessMode: .create)
        func add(_ path: String, _ content: Data, type: Entry.EntryType = .file) throws {
            try copy.addEntry(with: path, type: type, uncompressedSize: Int64(content.count)) { position, size in
                content.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        var manifestData = Data()
        _ = try original.extract(try #require(original[BackupManifest.fileName])) { manifestData.append($0) }
        var manifest = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
        manifest["covered"] = (manifest["covered"] as? [String] ?? []) + crafted.covered.map(fill)
        let extra = Data("not the victim's".utf8)
        if let path = crafted.filePath.map(fill) {
            let content = crafted.symlinkTarget.map { Data($0.utf8) } ?? extra
            var digest = SHA256Digest()
            digest.update(content)
            var files = manifest["files"] as? [[String: Any]] ?? []
            files.append(["path": path, "size": content.count, "sha256": digest.hexDigest(), "isDatabase": false])
            manifest["files"] = files
        }
        try add(BackupManifest.fileName, try JSONSerialization.data(withJSONObject: manifest))
        for entry in original where entry.path != BackupManifest.fileName {
            var content = Data()
            _ = try original.extract(entry) { content.append($0) }
            try add(entry.path, content)
            if entry.path == crafted.duplicateEntry { try add(entry.path, content) }
        }
        if let path = crafted.filePath.map(fill) {
            if let target = crafted.symlinkTarget {
                try add(path, Data(target.utf8), type: .symlink)
            } else {
                try add(path, extra)
            }
        }
    }

    /// Every file under `folder` with its bytes, by relative path (links as their target).
    static func tree(_ folder: String) -> [String: Data] {
        var contents: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [:] }
        while let path = enumerator.nextObject() as? String {
            let full = folder + "/" + path
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: full) {
                contents[path] = Data(("-> " + target).utf8)
            } else {
                contents[path] = FileManager.default.contents(atPath: full) ?? Data("<folder>".utf8)
            }
        }
        return contents
    }

    @Test("a crafted archive restored with --force is refused naming the field and value; the sibling folder and the data folder are left as they were",
          arguments: BackupTests.craftedArchives)
    func craftedArchiveRefused(crafted: CraftedArchive) async throws {
        let (server, archive) = try await Self.smallBackup()
        defer { try? FileManager.default.removeItem(at: server.directory) }
        let victim = server.directory.appendingPathComponent("victim").path
        try FileManager.default.createDirectory(atPath: victim, withIntermediateDirectories: true)
        try Data("the victim's".utf8).write(to: URL(fileURLWithPath: victim + "/keep"))
        let forged = server.directory.appendingPathComponent("forged.zip")
        try Self.forge(archive, crafted, victim: victim, into: forged)

        let data = server.dataDirectory.path
        let dataBefore = Self.tree(data)
        let victimBefore = Self.tree(victim)
        let siblingsBefore = try FileManager.default.contentsOfDirectory(atPath: server.directory.path).sorted()
        let value = crafted.value.replacingOccurrences(of: "{victim}", with: victim)
        #expect {
            try BackupArchive.restore(archivePath: forged.path, dataDirectory: data, force: true)
        } throws: { error in
            let message = "\(error)"
            // The value quoted with its escapes (`"victim\0"`), or a word of the reason.
            let named = message.contains(crafted.field) && (message.contains(value.debugDescription) || message.contains(value))
            if !named { Issue.record("the refusal does not name \(crafted.field) and \(value.debugDescription): \(message)") }
            return named && message.contains(forged.path)
        }
        #expect(Self.tree(victim) == victimBefore, "the sibling folder is left as it was")
        #expect(FileManager.default.fileExists(atPath: victim + "/keep"))
        #expect(Self.tree(data) == dataBefore, "a refused restore changes nothing in the data folder")
        #expect(try FileManager.default.contentsOfDirectory(atPath: server.directory.path).sorted() == siblingsBefore)
    }

    @Test("a backup made by this build passes every check of the archive's paths and restores")
    func validArchiveRestores() async throws {
        let (server, archive) = try await Self.smallBackup()
        defer { try? FileManager.default.removeItem(at: server.directory) }
        let manifest = try BackupArchive.restore(archivePath: archive.path, dataDirectory: server.dataDirectory.path, force: true)
        #expect(manifest.samplesPerType == [S.steps: 3])
        #expect(manifest.covered.contains("attachments") && manifest.covered.contains("salus.sqlite"))
    }

    @Test("under umask 022 the folder a verify unpacks into is 0700 and every file in it 0600; a folder that exists already is refused")
    func verifyFolderIsPrivate() async throws {
        let (server, archive) = try await Self.smallBackup()
        defer { try? FileManager.default.removeItem(at: server.directory) }
        let previous = umask(0o022)
        defer { umask(previous) }
        let check = server.directory.appendingPathComponent("check").path
        let manifest = try BackupArchive.verify(archivePath: archive.path, into: check)
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        #expect(try mode(check) == 0o700)
        #expect(!manifest.files.isEmpty)
        for file in manifest.files {
            #expect(try mode(check + "/" + file.path) == 0o600, "\(file.path)")
        }
        for folder in Set(manifest.files.compactMap { $0.path.contains("/") ? String($0.path.split(separator: "/")[0]) : nil }) {
            #expect(try mode(check + "/" + folder) == 0o700, "\(folder)")
        }
        // Someone else's folder (or a link) at the name: refused, never written into.
        let taken = server.directory.appendingPathComponent("taken").path
        try FileManager.default.createDirectory(atPath: taken, withIntermediateDirectories: true)
        #expect(throws: (any Error).self) { try BackupArchive.verify(archivePath: archive.path, into: taken) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: taken).isEmpty)
    }
}

extension BackupTests {
    static let restoreSeeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/restore")

    @Test("the restore fuzz harness's seeds: `valid` restores, every crafted one is refused")
    func restoreSeeds() throws {
        let folder = try ServerHarness.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // manifest-* seeds are manifest.json alone, for the harness to wrap.
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.restoreSeeds.path).sorted().filter { !$0.hasPrefix("manifest-") }
        #expect(names.contains("valid") && names.count > 10)
        for name in names {
            let data = folder.appendingPathComponent(name).path
            let archive = Self.restoreSeeds.appendingPathComponent(name).path
            if name == "valid" {
                let manifest = try BackupArchive.restore(archivePath: archive, dataDirectory: data, force: true)
                #expect(manifest.samplesPerType == ["HKQuantityTypeIdentifierStepCount": 3])
                #expect(FileManager.default.fileExists(atPath: data + "/attachments/0190C2A4-0000-7000-8000-000000000001"))
                let mode = (try FileManager.default.attributesOfItem(atPath: data)[.posixPermissions] as? NSNumber)?.intValue
                #expect(mode == 0o700, "a data folder the restore makes is private")
            } else {
                #expect(throws: BackupError.self, "\(name)") { try BackupArchive.restore(archivePath: archive, dataDirectory: data, force: true) }
            }
        }
    }
}
