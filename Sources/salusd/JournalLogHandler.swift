import Foundation
import Logging

/// Log lines for the journal, used when systemd connected stderr to it (`JOURNAL_STREAM`):
/// one line per message, `<N>` first with the syslog priority (sd-daemon(3)), so that
/// `journalctl -p warning` filters by level; no timestamp, since the journal records its own.
/// Metadata follows the message as `key=value`.
struct JournalLogHandler: LogHandler {
    /// The logger's label (printed before the message).
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    /// A handler for `label` that drops messages below `logLevel`.
    init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?,
        source: String, file: String, function: String, line: UInt
    ) {
        let merged = metadata.merging(explicit ?? [:]) { $1 }
        var text = "<\(Self.priority(level))>\(label): \(message)"
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            text += " \(key)=\(value)"
        }
        // A multi-line message stays one journal entry per line, each with the priority.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let output = lines.enumerated().map { $0.offset == 0 ? String($0.element) : "<\(Self.priority(level))>\($0.element)" }
        FileHandle.standardError.write(Data((output.joined(separator: "\n") + "\n").utf8))
    }

    /// The syslog priority of `level` (0 emergency … 7 debug).
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
