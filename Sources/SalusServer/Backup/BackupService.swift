import Dispatch
import Foundation
import SalusProto
import SalusRPC
import SalusStatistics
import SalusStore

/// salus.v1.Backup: a verified archive of the data folder, made while the daemon serves and
/// streamed to the owner (admin socket only).
///
/// **Why the daemon streams the archive** rather than writing it to a path the caller names:
/// the daemon may run sandboxed, without access to where the owner keeps backups, and a path
/// from a client would let it choose where the daemon writes. The archive is made in the data
/// folder (`.backup-UUID.zip`), verified there (`BackupArchive.verify`), streamed in 1 MiB
/// messages and removed, whether the stream completes or not.
package struct BackupService: Sendable {
    /// The databases of the data folder, snapshotted with SQLite's online backup API.
    package static let databaseNames = [BackupArchive.storeName, DaemonConfiguration.authorizationDatabaseName]
    /// The settings files of the data folder, copied when they exist.
    package static let settingsFileNames = [
        PersonSettings.fileName, StatisticsService.priorityFileName, StatisticsService.preferredUnitFileName,
    ]
    /// The largest piece of the archive in one message.
    static let chunkSize = 1 << 20

    let dataDirectory: String
    let authorization: AuthorizationEngine

    /// A service over the data folder `dataDirectory`; `authorization`'s queued decisions are
    /// written before its database is copied.
    package init(dataDirectory: String, authorization: AuthorizationEngine) {
        self.dataDirectory = dataDirectory
        self.authorization = authorization
    }

    /// Adds the service's method to the admin router.
    package func register(into router: inout RPCRouter) {
        router.registerServerStreaming(SalusMethods.Backup.create, onEventLoop: false) {
            (_: Salus_V1_CreateBackupRequest, writer: RPCWriter<Salus_V1_BackupChunk>, _) in
            try await create(writer)
        }
    }

    private func create(_ writer: RPCWriter<Salus_V1_BackupChunk>) async throws {
        let archivePath = dataDirectory + "/.backup-\(UUID().uuidString).zip"
        defer { unlink(archivePath) }
        authorization.flush()
        let (progress, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
        let directory = dataDirectory
        let made = Task<BackupManifest, any Error> {
            try await withCheckedThrowingContinuation { result in
                DispatchQueue.global().async {
                    defer { continuation.finish() }
                    result.resume(with: Result {
                        try BackupArchive.create(
                            dataDirectory: directory, databases: Self.databaseNames, files: Self.settingsFileNames,
                            archivePath: archivePath
                        ) { continuation.yield($0) }
                    })
                }
            }
        }
        for await line in progress {
            var chunk = Salus_V1_BackupChunk()
            chunk.progress = line
            try await writer.write(chunk)
        }
        let manifest: BackupManifest
        do {
            manifest = try await made.value
        } catch {
            throw RPCError(code: .internal, message: "the backup failed: \(error)")
        }
        guard let handle = FileHandle(forReadingAtPath: archivePath) else {
            throw RPCError(code: .internal, message: "the backup failed: \(archivePath) vanished after it was written")
        }
        defer { try? handle.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: archivePath)[.size] as? NSNumber)?.uint64Value ?? 0
        var first = true
        while let data = try handle.read(upToCount: Self.chunkSize), !data.isEmpty {
            var chunk = Salus_V1_BackupChunk()
            if first { chunk.archiveSize = size }
            first = false
            chunk.data = data
            try await writer.write(chunk)
        }
        var last = Salus_V1_BackupChunk()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        last.manifestJson = String(decoding: try encoder.encode(manifest), as: UTF8.self)
        try await writer.write(last)
    }
}
