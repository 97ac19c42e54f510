import Foundation

/// The command line after the subcommand: `--name value` options and bare words.
struct Arguments {
    private(set) var options: [String: String] = [:]
    private(set) var words: [String] = []

    /// Options that take no value.
    static let flags: Set<String> = ["--last"]

    init(_ arguments: some Sequence<String>) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if argument.hasPrefix("--") {
                if Self.flags.contains(argument) {
                    options[argument] = "true"
                    continue
                }
                guard let value = iterator.next() else {
                    throw DiaryError("\(argument): a value is missing; expected \(argument) VALUE")
                }
                options[argument] = value
            } else {
                words.append(argument)
            }
        }
    }

    /// The value of `--name`, if given.
    subscript(_ name: String) -> String? { options[name] }

    /// Whether the flag `--name` was given.
    func has(_ name: String) -> Bool { options[name] != nil }

    /// `--name` as a whole number, if given; errors name the option and the value.
    func integer(_ name: String, minimum: Int = 0) throws -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text), value >= minimum else {
            throw DiaryError("\(name): \"\(text)\" is not valid; expected a whole number of at least \(minimum)")
        }
        return value
    }

    /// `--name` as a date (ISO 8601 with a zone, or local time without one), if given.
    func date(_ name: String) throws -> Date? {
        guard let text = options[name] else { return nil }
        let zoned = ISO8601DateFormatter()
        if let date = zoned.date(from: text) { return date }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm"] {
            local.dateFormat = format
            if let date = local.date(from: text) { return date }
        }
        throw DiaryError("\(name): \"\(text)\" is not a date; expected ISO 8601 such as 2026-11-20T23:10:00Z or 2026-11-20T23:10")
    }

    /// Fails on options the subcommand does not know.
    func allowOnly(_ names: Set<String>, command: String) throws {
        if let unknown = options.keys.sorted().first(where: { !names.contains($0) && $0 != "--socket" }) {
            throw DiaryError("\(unknown): not an option of `\(command)`; expected one of \(names.union(["--socket"]).sorted().joined(separator: ", "))")
        }
    }
}

/// A failure to show to the person.
struct DiaryError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
