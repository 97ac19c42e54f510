import Foundation

/// The command line after the subcommand: `--name value` pairs.
struct Options {
    private var values: [String: String] = [:]

    static let known: Set<String> = ["--anchor-file", "--time-zone", "--updates", "--socket"]

    init(_ arguments: some Sequence<String>) throws {
        var iterator = arguments.makeIterator()
        while let name = iterator.next() {
            guard Self.known.contains(name) else {
                throw ReportError("\(name): not an option; expected one of \(Self.known.sorted().joined(separator: ", "))")
            }
            guard let value = iterator.next() else {
                throw ReportError("\(name): a value is missing; expected \(name) VALUE")
            }
            values[name] = value
        }
    }

    /// The value of `--name`, if given.
    subscript(_ name: String) -> String? { values[name] }

    /// `--time-zone`, else this machine's time zone.
    func timeZone() throws -> TimeZone {
        guard let name = values["--time-zone"] else { return .current }
        guard let zone = TimeZone(identifier: name) else {
            throw ReportError("--time-zone: \"\(name)\" is not a time zone; expected an IANA name such as Europe/Paris")
        }
        return zone
    }

    /// `--updates` as a count of at least 1, if given.
    func updates() throws -> Int? {
        guard let text = values["--updates"] else { return nil }
        guard let count = Int(text), count >= 1 else {
            throw ReportError("--updates: \"\(text)\" is not valid; expected a whole number of at least 1")
        }
        return count
    }
}

/// A failure to show to the person.
struct ReportError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
