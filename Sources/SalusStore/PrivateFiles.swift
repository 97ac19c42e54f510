import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Folders and files that hold health data (backups and their staging, restores, verifications,
/// exports), private to the owner from the moment they exist.
///
/// Rules:
/// 1. A folder is made by `mkdir` with mode 0700 (`mkdtemp` for a temporary one), then set to
///    exactly 0700 (the umask may have taken owner bits). Never made wider and narrowed after.
///    Why: between a wide `mkdir` and a `chmod`, another user can open the folder or a file in
///    it, and a descriptor opened then stays valid after the mode changes: under umask 022 a
///    watcher copied a whole database out of a folder that was 0755 for a moment.
/// 2. A file is created by `open` with `O_CREAT | O_EXCL | O_NOFOLLOW` and mode 0600. Why:
///    `O_EXCL` refuses a file or a link that someone put at the name first (anyone can, in a
///    shared folder such as `/tmp`), `O_NOFOLLOW` a link at the last component, and the mode is
///    the file's from its first instant.
/// 3. A folder that exists already is refused, never reused: it may be someone else's.
///
/// Use these for every folder and file that holds health data; a `FileManager` call that
/// creates one (`createDirectory`, `createFile`, `Data.write`) gets the umask's mode.
package enum PrivateFiles {
    /// Makes the folder `path` (its parent must exist) with mode 0700 (rules 1 and 3).
    ///
    /// Throws ``PrivateFileError`` naming the folder when it exists or cannot be made.
    package static func makeFolder(_ path: String) throws(PrivateFileError) {
        guard mkdir(path, 0o700) == 0 else { throw PrivateFileError(path: path, doing: "create the folder", errno: errno) }
        guard chmod(path, 0o700) == 0 else { throw PrivateFileError(path: path, doing: "set the mode of", errno: errno) }
    }

    /// Makes the folder `path` with mode 0700 unless a folder is there already (its parents with
    /// the umask's mode when missing): for a folder the person names, such as an export's.
    package static func ensureFolder(_ path: String) throws(PrivateFileError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw PrivateFileError(path: path, doing: "use the folder", errno: ENOTDIR) }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != path && access(parent, F_OK) != 0 {
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw PrivateFileError(path: parent, doing: "create the folder", errno: errno == 0 ? EACCES : errno)
            }
        }
        try makeFolder(path)
    }

    /// Makes a new folder named `prefix` and six random characters in `parent` (default: the
    /// temporary folder, `$TMPDIR` or `/tmp`) with `mkdtemp` (mode 0700); returns its path.
    package static func makeTemporaryFolder(prefix: String, in parent: String? = nil) throws(PrivateFileError) -> String {
        let base = parent ?? FileManager.default.temporaryDirectory.path
        var template = Array((base + "/" + prefix + "XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw PrivateFileError(path: base + "/" + prefix + "XXXXXX", doing: "create the folder", errno: errno)
        }
        let path = String(cString: made)
        guard chmod(path, 0o700) == 0 else { throw PrivateFileError(path: path, doing: "set the mode of", errno: errno) }
        return path
    }

    /// Creates the file `path`, which must not exist, with mode 0600 (rule 2) and returns its
    /// descriptor, open for writing (`O_RDWR` when `readable`); the caller closes it.
    package static func createFile(_ path: String, readable: Bool = false) throws(PrivateFileError) -> Int32 {
        let access = readable ? O_RDWR : O_WRONLY
        let descriptor = open(path, access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw PrivateFileError(path: path, doing: "create the file", errno: errno) }
        // The umask can only take bits away; owner read and write must stay.
        guard fchmod(descriptor, 0o600) == 0 else {
            let error = errno
            close(descriptor)
            unlink(path)
            throw PrivateFileError(path: path, doing: "set the mode of", errno: error)
        }
        return descriptor
    }

    /// Creates the file `path` with mode 0600 and returns a handle for writing that closes its
    /// descriptor. With `replacing`, a file or link already at the name is removed first (never
    /// written through); without, it is refused.
    package static func createFileHandle(_ path: String, replacing: Bool = false) throws(PrivateFileError) -> FileHandle {
        if replacing, unlink(path) != 0, errno != ENOENT {
            throw PrivateFileError(path: path, doing: "replace", errno: errno)
        }
        return FileHandle(fileDescriptor: try createFile(path), closeOnDealloc: true)
    }

    /// Writes `data` to `path` as a new file with mode 0600: a file already at the name is
    /// replaced only when `replacing` (by a rename from a private temporary file beside it, so a
    /// reader sees the old file or the new one, never a part).
    package static func write(_ data: Data, to path: String, replacing: Bool = false) throws(PrivateFileError) {
        let target = replacing ? path + ".partial-\(UUID().uuidString)" : path
        let descriptor = try createFile(target)
        var failure: Int32 = 0
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += count
            }
        }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0 && replacing && rename(target, path) != 0 { failure = errno }
        guard failure == 0 else {
            unlink(target)
            throw PrivateFileError(path: path, doing: "write", errno: failure)
        }
    }
}

/// A private folder or file that could not be made, naming the path, what was being done and
/// the system's reason.
package struct PrivateFileError: Error, CustomStringConvertible, Sendable {
    /// The folder or file.
    package var path: String
    /// What was being done ("create the folder").
    package var doing: String
    /// The `errno` value.
    package var code: Int32

    /// An error for `path`.
    package init(path: String, doing: String, errno code: Int32) {
        self.path = path
        self.doing = doing
        self.code = code
    }

    /// What went wrong, for the person.
    package var description: String {
        let reason = code == EEXIST ? "something already exists at that name" : String(cString: strerror(code))
        return "cannot \(doing) \(path): \(reason)"
    }
}
