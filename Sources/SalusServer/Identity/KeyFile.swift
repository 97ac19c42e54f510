/// A desktop key file (GLib's `GKeyFile` format, the one of `.flatpak-info` and `.desktop`
/// files), read strictly: `[Group]` lines, `key=value` lines, `#` comments and blank lines,
/// nothing else. The one reader of that format in the daemon.
///
/// Why not GLib: the daemon links no GLib, and the files it reads this way are small and
/// written by Flatpak, whose own reader is GLib's: a file GLib refuses is refused here too
/// (text before the first group, a line that is neither, bytes that are not UTF-8), and values
/// unescape as GLib's `g_key_file_get_string` does (`\s \n \t \r \\`).
struct KeyFile: Sendable, Equatable {
    /// Why a text is not a key file, naming the line.
    struct Refusal: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    /// The groups, each a map of its keys to their unescaped values (the last value of a key
    /// given twice, as GLib keeps).
    private(set) var groups: [String: [String: String]] = [:]

    /// The value of `key` in `group`, if both are there.
    subscript(group: String, key: String) -> String? { groups[group]?[key] }

    /// Reads `bytes` as a key file.
    init(bytes: [UInt8]) throws(Refusal) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw Refusal(description: "not UTF-8 text")
        }
        var current: String?
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let number = index + 1
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw Refusal(description: "line \(number): a group line must be [NAME]")
                }
                let name = String(line.dropFirst().dropLast())
                guard !name.contains("["), !name.contains("]"), !name.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                    throw Refusal(description: "line \(number): a group name holds '[', ']' or a control character")
                }
                current = name
                groups[name, default: [:]] = groups[name] ?? [:]
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw Refusal(description: "line \(number): neither a [group], a key=value nor a # comment")
            }
            guard let group = current else {
                throw Refusal(description: "line \(number): a key before the first [group]")
            }
            let key = line[..<equals].trimmingTrailingBlanks
            guard !key.isEmpty else {
                throw Refusal(description: "line \(number): a key=value line without a key")
            }
            let value = try Self.unescape(line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" }, line: number)
            groups[group]![String(key)] = value
        }
    }

    private static func unescape(_ raw: Substring, line: Int) throws(Refusal) -> String {
        var value = ""
        var iterator = raw.makeIterator()
        while let character = iterator.next() {
            guard character == "\\" else {
                value.append(character)
                continue
            }
            switch iterator.next() {
            case "s": value.append(" ")
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "\\": value.append("\\")
            default: throw Refusal(description: "line \(line): an escape other than \\s \\n \\t \\r \\\\")
            }
        }
        return value
    }
}

extension Substring {
    fileprivate var trimmingTrailingBlanks: Substring {
        var result = self
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
