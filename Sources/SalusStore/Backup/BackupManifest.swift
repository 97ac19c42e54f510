import Foundation

/// `manifest.json` at the root of a backup archive: what the archive holds and how to check it.
package struct BackupManifest: Codable, Sendable, Equatable {
    /// One file of the archive, by its path relative to the data folder.
    package struct File: Codable, Sendable, Equatable {
        /// The path in the archive and in the data folder ("salus.sqlite", "attachments/UUID").
        package var path: String
        /// The size in bytes.
        package var size: Int64
        /// SHA-256 of the content, lowercase hexadecimal.
        package var sha256: String
        /// Whether the file is a SQLite database (checked with `PRAGMA integrity_check`).
        package var isDatabase: Bool

        /// Creates a file entry.
        package init(path: String, size: Int64, sha256: String, isDatabase: Bool) {
            self.path = path
            self.size = size
            self.sha256 = sha256
            self.isDatabase = isDatabase
        }
    }

    /// The archive format; 1 for this one.
    package var format: Int = 1
    /// When the snapshot was taken.
    package var created: Date
    /// The store's schema version (`PRAGMA user_version` of the sample database).
    package var schemaVersion: Int
    /// The store's last change-sequence position: the anchor of the last change in the backup.
    package var lastSequence: Int64
    /// Samples per type identifier in the backup.
    package var samplesPerType: [String: Int64]
    /// Every file but the manifest.
    package var files: [File]
    /// The names in the data folder the backup stands for, whether or not they existed: a
    /// restore moves each aside, so nothing of the replaced store stays beside the backup's.
    package var covered: [String] = []

    /// Creates a manifest.
    package init(created: Date, schemaVersion: Int, lastSequence: Int64, samplesPerType: [String: Int64], files: [File]) {
        self.created = created
        self.schemaVersion = schemaVersion
        self.lastSequence = lastSequence
        self.samplesPerType = samplesPerType
        self.files = files
    }

    /// The manifest's name in the archive.
    package static let fileName = "manifest.json"
}

/// A backup or restore that could not be done, with a message that names the file and what
/// was found.
package struct BackupError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for the person.
    package var description: String
    /// Creates an error.
    package init(_ description: String) { self.description = description }
}
