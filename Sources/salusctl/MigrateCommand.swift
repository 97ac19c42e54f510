#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Foundation
import SalusAdmin
import SalusRPC
import SalusStore

/// `salusctl migrate`: the store's pending schema migrations, run on a stopped daemon's data
/// folder with their progress line, rather than at the daemon's next start.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a stopped daemon's store to this build's schema, showing the progress.",
        discussion: """
            Runs the migrations the store has not had yet, as salusd would when it starts. From \
            schema 13, 14 or 15 the store is written into a new file beside it \
            (salus.sqlite-migrating), synced, then renamed over it; an older store is migrated \
            in one transaction. Killed at any moment, the store is left as it was or wholly \
            migrated, never a mix, and running this again (or starting salusd) does the whole \
            job. Checks the free disk first (a new file of at most the store's size, plus 64 \
            MiB). Refuses while a process (salusd) has the store open, or while salusd answers \
            on the admin socket.
            """)

    @OptionGroup var connection: ConnectionOptions

    @Option(name: .long, help: ArgumentHelp("The daemon's data folder (default: salusd's default).", valueName: "dir"))
    var dataDir: String?

    func run() async throws {
        if let admin = try? await AdminClient.connect(socketPath: connection.adminSocketPath) {
            await admin.close()
            throw CommandFailure(
                "salusd is running (it answers on \(connection.adminSocketPath)); stop it before migrating, "
                    + "or start it with this build: it migrates the store as it starts")
        }
        let folder = dataDir ?? DefaultPaths.dataDirectory()
        let path = folder + "/" + BackupArchive.storeName
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("there is no store at \(path); expected the data folder of a daemon that has run (--data-dir)")
        }
        if let pid = Schema.otherOpener(of: path) {
            throw CommandFailure("process \(pid) has \(path) open (salusd?); stop it before migrating")
        }
        let line = ProgressLine()
        do {
            let database = try Database(path: path, create: false)
            defer { database.close() }
            let started = ContinuousClock.now
            let found = try Schema.migrate(
                database,
                show: { text in
                    if line.enabled {
                        line.show(text)
                    } else {
                        FileHandle.standardError.write(Data((text + "\n").utf8))
                    }
                })
            line.end()
            if found == Schema.currentVersion {
                print("\(path) is at schema \(found), this build's: nothing to migrate")
            } else {
                let elapsed = ContinuousClock.now - started
                print("migrated \(path) from schema \(found) to \(Schema.currentVersion) in \(elapsed)")
            }
        } catch let error as StoreError {
            line.end()
            throw CommandFailure("migration refused: \(error)")
        } catch let error as DatabaseError {
            line.end()
            throw CommandFailure("migration failed, the store is as it was before the step that failed: \(error)")
        }
    }
}
