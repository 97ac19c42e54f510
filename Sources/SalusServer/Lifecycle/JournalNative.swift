#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Logging

/// Entries for systemd's journal in its native protocol (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/,
/// what sd_journal_send(3) writes): one datagram per entry to `/run/systemd/journal/socket`, each
/// field `NAME=value\n`, or, for a value holding a newline, `NAME\n`, its length as 64-bit
/// little-endian, the value and `\n`.
///
/// The daemon's entries carry `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER=salusd`, `SALUS_LOGGER`
/// (the logger's label), `CODE_FILE`, `CODE_LINE`, `CODE_FUNC` and one `SALUS_<KEY>` field per
/// metadata key, so that `journalctl --user -u salusd SALUS_APP=org.example.sleepdiary` finds an
/// app's entries.
package enum JournalEntry {
    /// The bytes of one entry.
    package static func encode(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var bytes: [UInt8] = []
        for (name, value) in fields {
            let utf8 = Array(value.utf8)
            bytes += Array(name.utf8)
            if utf8.contains(UInt8(ascii: "\n")) {
                bytes.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(utf8.count).littleEndian) { bytes += $0 }
                bytes += utf8
            } else {
                bytes.append(UInt8(ascii: "="))
                bytes += utf8
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// The journal field of a metadata key: `SALUS_` and the key in capitals, every character
    /// other than A–Z, 0–9 and `_` as `_` (`request.id` is `SALUS_REQUEST_ID`), at most 64
    /// characters, as journal field names must be.
    package static func fieldName(metadataKey key: String) -> String {
        let body = key.uppercased().unicodeScalars.map { scalar -> Character in
            let allowed = (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9") || scalar == "_"
            return allowed ? Character(scalar) : "_"
        }
        return String(("SALUS_" + String(body)).prefix(64))
    }

    /// The fields of one log message.
    package static func fields(
        label: String, level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata,
        file: String, function: String, line: UInt
    ) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("MESSAGE", JournalLogHandler.text(label: label, message: message, metadata: metadata)),
            ("PRIORITY", String(JournalLogHandler.priority(level))),
            ("SYSLOG_IDENTIFIER", "salusd"),
            ("SALUS_LOGGER", label),
            ("CODE_FILE", file),
            ("CODE_LINE", String(line)),
            ("CODE_FUNC", function),
        ]
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            fields.append((fieldName(metadataKey: key), "\(value)"))
        }
        return fields
    }
}

/// A datagram socket connected to the journal's native socket (or another path, for tests).
package final class JournalSocket: Sendable {
    /// Where journald listens.
    package static let defaultPath = "/run/systemd/journal/socket"

    private let descriptor: CInt

    /// A socket connected to `path`; nil when there is no such socket or it cannot be reached.
    package init?(path: String = JournalSocket.defaultPath) {
        guard let (initial, length) = Systemd.unixAddress(path) else { return nil }
        var address = initial
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Sends one entry; false when it could not be sent whole (too large for a datagram, the
    /// journal gone).
    package func send(_ entry: [UInt8]) -> Bool {
        entry.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == entry.count
    }

    /// Whether stderr is the stream `JOURNAL_STREAM` names (`device:inode`): systemd connected
    /// it to the journal, so the daemon runs under systemd with its output going there. A
    /// program started from such a service with stderr redirected elsewhere does not match.
    package static func standardErrorIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}

/// Logs to the journal through its native protocol, with the fields of ``JournalEntry``; an
/// entry the socket does not take (larger than a datagram) goes to stderr as a
/// ``JournalLogHandler`` line, so nothing is lost.
package struct JournalNativeLogHandler: LogHandler {
    let label: String
    let socket: JournalSocket
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]

    package init(label: String, logLevel: Logger.Level, socket: JournalSocket) {
        self.label = label
        self.logLevel = logLevel
        self.socket = socket
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?,
        source: String, file: String, function: String, line: UInt
    ) {
        let merged = metadata.merging(explicit ?? [:]) { $1 }
        let fields = JournalEntry.fields(
            label: label, level: level, message: message, metadata: merged, file: file, function: function, line: line)
        if !socket.send(JournalEntry.encode(fields)) {
            JournalLogHandler.writeLine(level: level, text: fields[0].value)
        }
    }
}
