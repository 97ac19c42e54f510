import Foundation

/// The format of a file `salusctl import` is given, told by its content, never by its name: a
/// watch's `.FIT` files are often renamed, a Strava export holds `.gpx` and `.tcx` files with
/// numbers for names, and a zip may be called anything.
///
/// The one place where formats are told apart: salusctl uses it to choose how a file is sent
/// (an Apple Health export to `ImportAppleHealthWithProgress`, everything else to `ImportFiles`),
/// and the daemon again for each file it receives (`FileImporters.read`), so a client cannot
/// make the daemon read a file as what it is not.
package enum SourceFormat: String, Sendable, CaseIterable {
    /// Apple Health's export.xml (root element `HealthData`).
    case appleHealth = "apple-health"
    /// A zip archive (an Apple Health export, or a zip of activity files).
    case zip
    /// A FIT file (`.FIT` in the 12- or 14-byte header).
    case fit
    /// GPX (root element `gpx`, any prefix).
    case gpx
    /// Garmin's Training Center XML (root element `TrainingCenterDatabase`).
    case tcx
    /// An SQLite database, as Gadgetbridge exports it.
    case gadgetbridge

    /// How many first bytes `detect` needs at most. Apple's export.xml opens with a DTD of about
    /// 10 KiB; its DOCTYPE names the root element before that.
    package static let prefixLength = 64 * 1024

    /// The format of a file whose first bytes are `prefix` (up to `prefixLength`), or nil when
    /// none of these.
    package static func detect(_ prefix: some Collection<UInt8>) -> SourceFormat? {
        let bytes = Array(prefix.prefix(prefixLength))
        if bytes.count >= 12, bytes[0] == 12 || bytes[0] == 14, bytes[8...11].elementsEqual(Array(".FIT".utf8)) { return .fit }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) { return .zip }
        if bytes.starts(with: Array("SQLite format 3\0".utf8)) { return .gadgetbridge }
        switch rootElement(bytes) {
        case "HealthData": return .appleHealth
        case "gpx": return .gpx
        case "TrainingCenterDatabase": return .tcx
        default: return nil
        }
    }

    /// A name for reports: "FIT", "GPX", "TCX", "Gadgetbridge database", "Apple Health export", "zip".
    package var displayName: String {
        switch self {
        case .appleHealth: "Apple Health export"
        case .zip: "zip"
        case .fit: "FIT"
        case .gpx: "GPX"
        case .tcx: "TCX"
        case .gadgetbridge: "Gadgetbridge database"
        }
    }

    /// The local name (without its prefix) of the root element of the XML document starting with
    /// `bytes`, or the name its DOCTYPE gives; nil when the bytes are not XML or end before it.
    /// Skips a UTF-8 byte order mark, white space, the XML declaration, processing instructions
    /// and comments, as XML's grammar of the prolog allows them.
    static func rootElement(_ bytes: [UInt8]) -> String? {
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }
        func starts(_ text: String) -> Bool {
            let pattern = Array(text.utf8)
            return index + pattern.count <= bytes.count && bytes[index..<index + pattern.count].elementsEqual(pattern)
        }
        /// Moves past the next `end`; false when the bytes end first.
        func skip(past end: String) -> Bool {
            let pattern = Array(end.utf8)
            while index + pattern.count <= bytes.count {
                if bytes[index..<index + pattern.count].elementsEqual(pattern) {
                    index += pattern.count
                    return true
                }
                index += 1
            }
            return false
        }
        func name() -> String? {
            let start = index
            while index < bytes.count, !([0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "[")].contains(bytes[index])) {
                index += 1
            }
            guard index > start, index < bytes.count else { return nil }
            let qualified = String(decoding: bytes[start..<index], as: UTF8.self)
            return qualified.split(separator: ":").last.map(String.init)
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else { return nil }
            if starts("<?") {
                guard skip(past: "?>") else { return nil }
            } else if starts("<!--") {
                guard skip(past: "-->") else { return nil }
            } else if starts("<!DOCTYPE") {
                index += "<!DOCTYPE".utf8.count
                skipSpace()
                return name()
            } else {
                index += 1
                return name()
            }
        }
    }
}
