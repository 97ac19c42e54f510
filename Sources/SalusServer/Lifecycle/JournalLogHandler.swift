import Foundation
import Logging

/// Log lines for the journal on stderr, used when systemd connected stderr to it
/// (`JOURNAL_STREAM`) but its native socket cannot be written: one line per message, `<N>`
/// first with the syslog priority (sd-daemon(3)), so that `journalctl -p warning` filters by
/// level; no timestamp, since the journal records its own. Metadata follows the message as
/// `key=value`.
package struct JournalLogHandler: LogHandler {
    /// The logger's label (printed before the message).
    let label: String
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]

    /// A handler for `label` that drops messages below `logLevel`.
    package init(label: String, logLevel: Logger.Level) {
        self.label = label
        self.logLevel = logLevel
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
        Self.writeLine(level: level, text: Self.text(label: label, message: message, metadata: merged))
    }

    /// "label: message key=value …", the keys sorted.
    package static func text(label: String, message: Logger.Message, metadata: Logger.Metadata) -> String {
        var text = "\(label): \(message)"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            text += " \(key)=\(value)"
        }
        return text
    }

    /// Writes `text` to stderr, each line with the priority of `level` first.
    package static func writeLine(level: Logger.Level, text: String) {
        let text = "<\(priority(level))>" + text
        // A multi-line message stays one journal entry per line, each with the priority.
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let output = lines.enumerated().map { $0.offset == 0 ? String($0.element) : "<\(Self.priority(level))>\($0.element)" }
        FileHandle.standardError.write(Data((output.joined(separator: "\n") + "\n").utf8))
    }

    /// The syslog priority of `level` (0 emergency … 7 debug).
    package static func priority(_ level: Logger.Level) -> Int {
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
