#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import SalusAdmin
import SalusKit
import SalusRPC
import SalusStore

/// A progress line on the terminal (standard error), rewritten in place; nothing when standard
/// error is not a terminal.
struct ProgressLine {
    let enabled = isatty(STDERR_FILENO) == 1

    func show(_ text: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    func end() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

struct Backup: OwnerCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a verified backup of the daemon's data to FILE, while it serves.",
        discussion: """
            The daemon snapshots its databases with SQLite's online backup API (saves go on), adds \
            the attachments and settings files and a manifest (schema version, last change, samples \
            per type, SHA-256 per file), verifies the archive and streams it here; salusctl checks \
            it again before it names it FILE. Restore it with `salusctl restore FILE`.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: ArgumentHelp("Where to write the backup (a zip archive).", valueName: "file"))
    var file: String

    func run(admin: AdminClient) async throws {
        let partial = file + ".partial"
        // Private from its creation (0600, O_EXCL): another user must not open it while it is
        // filled. A partial file of an earlier run is replaced.
        unlink(partial)
        let handle: FileHandle
        do {
            handle = try PrivateFiles.createFileHandle(partial)
        } catch {
            throw CommandFailure("cannot write the backup: \(error)")
        }
        let line = ProgressLine()
        var received: UInt64 = 0
        var size: UInt64 = 0
        var manifestJSON = ""
        do {
            defer { try? handle.close() }
            for try await event in admin.createBackup() {
                switch event {
                case .progress(let progress): line.show("backup: \(progress)")
                case .size(let archiveSize): size = archiveSize
                case .data(let data):
                    try handle.write(contentsOf: data)
                    received += UInt64(data.count)
                    line.show("backup: received \(received / 1024) of \(size / 1024) KiB")
                case .manifest(let json): manifestJSON = json
                }
            }
            try handle.synchronize()
        } catch let error as SalusError {
            line.end()
            unlink(partial)
            throw CommandFailure("backup failed: \(error.message)")
        }
        line.end()
        guard !manifestJSON.isEmpty, received == size else {
            unlink(partial)
            throw CommandFailure("backup failed: the daemon sent \(received) of \(size) bytes and no manifest")
        }
        // verify makes this folder itself, 0700, and refuses one that exists (PrivateFiles).
        let check = FileManager.default.temporaryDirectory.appendingPathComponent("salus-verify-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: check) }
        let manifest: BackupManifest
        do {
            line.show("backup: verifying \(file)")
            manifest = try BackupArchive.verify(archivePath: partial, into: check)
            line.end()
        } catch {
            line.end()
            unlink(partial)
            throw CommandFailure("backup failed: the archive received does not verify: \(error)")
        }
        guard rename(partial, file) == 0 else {
            throw CommandFailure("cannot rename \(partial) to \(file): \(String(cString: strerror(errno)))")
        }
        let samples = manifest.samplesPerType.values.reduce(0, +)
        print(
            "backed up \(samples) samples of \(manifest.samplesPerType.count) types up to change \(manifest.lastSequence), "
                + "\(manifest.files.count) files, \(size) bytes, to \(file) (verified)")
    }
}

struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replace the daemon's data folder with a backup; the daemon must be stopped.",
        discussion: """
            Checks the archive first (manifest, SHA-256 of every file, PRAGMA integrity_check of \
            every database, counts per type). Refuses a store whose last change is later than the \
            backup's unless --force. Each file is moved aside as NAME.before-restore, the backup's \
            files are renamed into place, and the old ones are removed only when all are in place.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: ArgumentHelp("The daemon's data folder (default: salusd's default).", valueName: "dir"))
    var dataDir: String?

    @Flag(name: .long, help: "Replace a store that has changes later than the backup.")
    var force = false

    @Argument(help: ArgumentHelp("The backup to restore (from salusctl backup).", valueName: "file"))
    var file: String

    func run() async throws {
        if let admin = try? await AdminClient.connect(socketPath: connection.adminSocketPath) {
            await admin.close()
            throw CommandFailure(
                "salusd is running (it answers on \(connection.adminSocketPath)); stop it before restoring, then start it again")
        }
        let folder = dataDir ?? DefaultPaths.dataDirectory()
        do {
            let manifest = try BackupArchive.restore(archivePath: file, dataDirectory: folder, force: force)
            let samples = manifest.samplesPerType.values.reduce(0, +)
            print(
                "restored \(samples) samples of \(manifest.samplesPerType.count) types up to change \(manifest.lastSequence) "
                    + "(backup taken \(manifest.created)) into \(folder)")
        } catch let error as BackupError {
            throw CommandFailure("restore refused: \(error.description)")
        }
    }
}
