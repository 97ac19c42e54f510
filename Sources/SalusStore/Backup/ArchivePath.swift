/// The one check of a path that comes from a backup archive: every `files[].path` and
/// `covered` name of its manifest and every entry's name go through ``check(_:as:field:archive:)``
/// before anything is read into or moved in a folder.
///
/// A backup made by ``BackupArchive/create(dataDirectory:databases:files:archivePath:progress:)``
/// holds plain names of the data folder (`salus.sqlite`, `person.json`) and the files of its
/// attachments folder (`attachments/NAME`); an archive path is refused unless it is one of those
/// shapes. Rules, each with what it stops:
/// 1. Not empty, at most 1,024 bytes, each segment at most 255 (`NAME_MAX`): a name the file
///    system would cut or refuse halfway through a restore.
/// 2. No control character (NUL included) and no backslash: a name that C ends early, or that a
///    tool reading the archive on another system splits into folders.
/// 3. Relative, segments joined by single slashes, none of them `.` or `..`: an absolute path,
///    an empty segment or a `..` reaches outside the folder (`"../victim"` removed a sibling
///    folder before this check).
/// 4. No segment starts with a dot or ends with ``BackupArchive/asideSuffix``, `-wal`, `-shm`
///    or `-journal`: those names are the data folder's own bookkeeping (`.database-check`,
///    `.restore-*`, attachments' `.partial-*`), the files a restore keeps aside, and SQLite's
///    files beside a database, which would change it after its check (a backup's databases are
///    standalone snapshots).
/// 5. A covered name is one segment; a file is one segment, or `attachments/` and one segment.
package enum ArchivePath {
    /// The longest path, in bytes of UTF-8.
    package static let maximumLength = 1024
    /// The longest segment, in bytes of UTF-8 (`NAME_MAX`).
    package static let maximumSegmentLength = 255
    /// The endings of the files SQLite keeps beside a database.
    static let sqliteSuffixes = ["-wal", "-shm", "-journal"]

    /// What a path may name.
    package enum Shape: Sendable {
        /// A name in the data folder (a manifest's `covered`).
        case name
        /// A file of the data folder or of its attachments folder (`files[].path`, an entry).
        case file
    }

    /// Checks `value` as a path of `shape` and returns its segments; throws ``BackupError``
    /// naming `archive`, `field` (`manifest.json covered[2]`), the value and the rule it breaks.
    @discardableResult
    package static func check(_ value: String, as shape: Shape, field: String, archive: String) throws(BackupError) -> [Substring] {
        func refuse(_ reason: String) -> BackupError {
            let expected = shape == .name
                ? "a name in the data folder, such as salus.sqlite"
                : "a name in the data folder, such as salus.sqlite, or \(BackupArchive.attachmentsName)/NAME"
            return BackupError("\(archive): \(field) is \(value.debugDescription): \(reason); expected \(expected)")
        }
        guard !value.isEmpty else { throw refuse("it is empty") }
        guard value.utf8.count <= maximumLength else { throw refuse("it is \(value.utf8.count) bytes long, more than \(maximumLength)") }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw refuse("it holds a control character")
        }
        guard !value.contains("\\") else { throw refuse("it holds a backslash") }
        guard !value.hasPrefix("/") else { throw refuse("it is an absolute path") }
        let segments = value.split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            if segment.isEmpty { throw refuse("it has an empty segment") }
            if segment == "." || segment == ".." { throw refuse("it has a \(segment) segment") }
            if segment.utf8.count > maximumSegmentLength {
                throw refuse("a segment is \(segment.utf8.count) bytes long, more than \(maximumSegmentLength)")
            }
            if segment.hasPrefix(".") { throw refuse("it names a hidden file, which only the data folder's own bookkeeping uses") }
            if segment.hasSuffix(BackupArchive.asideSuffix) { throw refuse("it names a file that a restore keeps aside") }
            if let suffix = sqliteSuffixes.first(where: { segment.hasSuffix($0) }) {
                throw refuse("it ends with \(suffix), as SQLite's files beside a database")
            }
        }
        switch shape {
        case .name:
            guard segments.count == 1 else { throw refuse("it is not a single name") }
        case .file:
            guard segments.count == 1 || (segments.count == 2 && segments[0] == BackupArchive.attachmentsName) else {
                throw refuse("it is neither a name in the data folder nor a file of its \(BackupArchive.attachmentsName) folder")
            }
        }
        return segments
    }
}
