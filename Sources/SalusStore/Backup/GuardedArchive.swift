import Foundation
import Glibc
import ZIPFoundation

/// A zip archive opened for reading whose entries are inflated with a watchdog.
///
/// On Linux, ZIPFoundation inflates an entry by reading the archive file until zlib reports the end
/// of the deflate stream, not until the entry's compressed size: an entry whose stream never ends
/// (truncated, or crafted: a stored block longer than the file) makes it read an empty chunk at
/// the end of the file for ever, with no output and no error. The restore fuzzing harness found a
/// 1.8 KB backup that held `salusctl restore` so. Here a watchdog that sees no output for
/// `stallLimit` seconds makes the archive's descriptor fail every read (it is replaced, with
/// `dup2`, by a folder's), so ZIPFoundation throws and ``extract(_:bufferSize:consumer:)``
/// reports the entry as damaged. Every zip that comes from outside is read through this type.
package final class GuardedArchive {
    package let archive: Archive
    package let path: String
    /// Seconds without inflated output after which an entry counts as never ending.
    package let stallLimit: TimeInterval
    /// The descriptors this archive opened (those of the file that were not open before).
    private let descriptors: [Int32]

    /// The entry whose deflate stream did not end inside the archive.
    package struct Stalled: Error, CustomStringConvertible {
        package let entry: String
        package let seconds: TimeInterval
        package var description: String {
            "\(entry)'s compressed data does not end inside the archive (no data for \(Int(seconds)) s): "
                + "the entry is truncated or damaged"
        }
    }

    /// The stall limit of every archive read from outside: long enough for a slow disk.
    package static let defaultStallLimit: TimeInterval = 10

    package init(url: URL, stallLimit: TimeInterval = defaultStallLimit) throws {
        let before = Self.descriptors(of: url.path)
        archive = try Archive(url: url, accessMode: .read)
        descriptors = Self.descriptors(of: url.path).filter { !before.contains($0) }
        path = url.path
        self.stallLimit = stallLimit
    }

    /// The open descriptors of this process that refer to the file at `path`.
    static func descriptors(of path: String) -> Set<Int32> {
        var target = stat()
        guard stat(path, &target) == 0,
            let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        else { return [] }
        var found: Set<Int32> = []
        for name in names {
            guard let fd = Int32(name) else { continue }
            var info = stat()
            if fstat(fd, &info) == 0, info.st_dev == target.st_dev, info.st_ino == target.st_ino {
                found.insert(fd)
            }
        }
        return found
    }

    /// Inflates `entry` into `consumer`, chunk by chunk; throws ``Stalled`` when its data does not
    /// end inside the archive (the archive can then no longer be read).
    package func extract(_ entry: Entry, bufferSize: Int = defaultReadChunkSize, consumer: (Data) throws -> Void) throws {
        let watch = Watch()
        let limit = stallLimit
        let descriptors = descriptors
        let watchdog = Thread {
            while true {
                Thread.sleep(forTimeInterval: min(0.1, limit / 4))
                guard watch.stalled(after: limit) else {
                    if watch.isDone { return }
                    continue
                }
                // A folder's descriptor: every read of it fails (EISDIR), so fread reports an error.
                let failing = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                for fd in descriptors { dup2(failing, fd) }
                close(failing)
                return
            }
        }
        watchdog.start()
        defer { watch.finish() }
        do {
            _ = try archive.extract(entry, bufferSize: bufferSize) { chunk in
                watch.progress()
                try consumer(chunk)
            }
        } catch {
            if watch.didStall { throw Stalled(entry: entry.path, seconds: limit) }
            throw error
        }
    }

    /// When output last came, and whether the watchdog gave up; shared with its thread.
    private final class Watch: @unchecked Sendable {
        private let lock = NSLock()
        private var last = Date()
        private var done = false
        private var gaveUp = false

        func progress() { lock.withLock { last = Date() } }
        func finish() { lock.withLock { done = true } }
        var isDone: Bool { lock.withLock { done } }
        var didStall: Bool { lock.withLock { gaveUp } }
        /// Whether no output came for `limit` seconds (and so the watchdog gives up), unless done.
        func stalled(after limit: TimeInterval) -> Bool {
            lock.withLock {
                guard !done, Date().timeIntervalSince(last) > limit else { return false }
                gaveUp = true
                return true
            }
        }
    }
}
