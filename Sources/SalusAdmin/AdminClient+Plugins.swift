import Foundation
import SalusKit
import SalusProto
import SalusRPC

/// A plugin the daemon loaded.
public struct LoadedPlugin: Sendable, Hashable {
    /// The shared library's path.
    public var path: String
    /// The plugin's reverse-DNS id.
    public var id: String
    public var name: String
    public var version: String
    /// The plugin ABI it was built for.
    public var abiMajor: UInt32
    public var abiMinor: UInt32
    /// Installed with the daemon (not from the owner's plugin folder).
    public var isBundled: Bool
    /// It checks samples of its types beyond what its manifest declares.
    public var hasValidator: Bool
    /// The types it registered.
    public var typeIdentifiers: [String]
    public var workoutActivityTypeCount: UInt32
    public var metadataKeyCount: UInt32
}

/// A plugin the daemon refused, with why.
public struct RefusedPlugin: Sendable, Hashable {
    public var path: String
    /// The plugin's id, when the refusal came after its manifest was read; else empty.
    public var id: String
    /// The refusal's stable code ("missingEntrySymbol", "unitWrongDimension", ...).
    public var code: String
    public var reason: String
}

/// The daemon's plugins: loaded, refused, and the folders they came from.
public struct PluginListing: Sendable, Hashable {
    public var loaded: [LoadedPlugin]
    public var refused: [RefusedPlugin]
    /// The folders the daemon loaded plugins from, in order.
    public var directories: [String]
}

/// The plugins (salus.v1.Admin).
extension AdminClient {
    /// The loaded plugins with their versions, paths and types, and the refused ones with their
    /// reasons.
    public func plugins() async throws -> PluginListing {
        PluginListing(try await call(SalusMethods.Admin.listPlugins, Salus_V1_ListPluginsRequest()))
    }
}

extension PluginListing {
    init(_ response: Salus_V1_ListPluginsResponse) {
        loaded = response.loaded.map { plugin in
            LoadedPlugin(
                path: plugin.path, id: plugin.id, name: plugin.name, version: plugin.version, abiMajor: plugin.abiMajor,
                abiMinor: plugin.abiMinor, isBundled: plugin.bundled, hasValidator: plugin.hasValidator_p,
                typeIdentifiers: plugin.typeIdentifiers, workoutActivityTypeCount: plugin.workoutActivityTypeCount,
                metadataKeyCount: plugin.metadataKeyCount)
        }
        refused = response.refused.map { RefusedPlugin(path: $0.path, id: $0.id, code: $0.code, reason: $0.reason) }
        directories = response.directories
    }

    var proto: Salus_V1_ListPluginsResponse {
        var response = Salus_V1_ListPluginsResponse()
        response.loaded = loaded.map { plugin in
            var info = Salus_V1_LoadedPluginInfo()
            info.path = plugin.path
            info.id = plugin.id
            info.name = plugin.name
            info.version = plugin.version
            info.abiMajor = plugin.abiMajor
            info.abiMinor = plugin.abiMinor
            info.bundled = plugin.isBundled
            info.hasValidator_p = plugin.hasValidator
            info.typeIdentifiers = plugin.typeIdentifiers
            info.workoutActivityTypeCount = plugin.workoutActivityTypeCount
            info.metadataKeyCount = plugin.metadataKeyCount
            return info
        }
        response.refused = refused.map { plugin in
            var info = Salus_V1_RefusedPluginInfo()
            info.path = plugin.path
            info.id = plugin.id
            info.code = plugin.code
            info.reason = plugin.reason
            return info
        }
        response.directories = directories
        return response
    }
}

extension AdminJSON {
    /// The plugins (`salus.v1.ListPluginsResponse`), as `salusctl plugins --json` prints them.
    public static func text(plugins: PluginListing) throws -> String {
        try plugins.proto.jsonString(options: options)
    }
}

/// What a backup's stream brings, in order.
public enum BackupEvent: Sendable, Hashable {
    /// What the daemon is doing ("salus.sqlite: 120/480 pages"), while it makes the archive.
    case progress(String)
    /// The archive's size in bytes, before its first bytes.
    case size(UInt64)
    /// The next bytes of the archive (at most 1 MiB).
    case data(Data)
    /// The archive's manifest.json, last.
    case manifest(String)
}

/// Backups (salus.v1.Backup).
extension AdminClient {
    /// Makes a verified backup while the daemon serves (SQLite's online backup, the attachments,
    /// the settings, a manifest) and streams it: progress, then the archive's size and its bytes,
    /// then its manifest. The caller writes the bytes and checks them (SalusStore's
    /// `BackupArchive.verify`). The sequence throws ``SalusError`` when the daemon cannot make
    /// the backup; ending the iteration early cancels it.
    public func createBackup() -> AsyncThrowingStream<BackupEvent, any Error> {
        let chunks = stream(SalusMethods.Backup.create, Salus_V1_CreateBackupRequest()) { chunk -> [BackupEvent] in
            var events: [BackupEvent] = []
            if !chunk.progress.isEmpty { events.append(.progress(chunk.progress)) }
            if chunk.archiveSize > 0 { events.append(.size(chunk.archiveSize)) }
            if !chunk.data.isEmpty { events.append(.data(chunk.data)) }
            if !chunk.manifestJson.isEmpty { events.append(.manifest(chunk.manifestJson)) }
            return events
        }
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await events in chunks {
                        for event in events { continuation.yield(event) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
