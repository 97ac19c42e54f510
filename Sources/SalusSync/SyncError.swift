/// What went wrong in `salus-sync`: a code, a message, and the field, value and what was
/// expected where one input was at fault.
package struct SyncError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; new codes never break callers that switch over the known ones.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        package var rawValue: String
        /// A code by name.
        package init(rawValue: String) { self.rawValue = rawValue }
        /// A bad option, connection string or schema: nothing will work until it is fixed.
        package static let configuration = Code(rawValue: "configuration")
        /// The PostgreSQL server could not be reached or failed a statement; retried with backoff.
        package static let server = Code(rawValue: "server")
        /// The daemon could not be reached or refused a call; retried with backoff.
        package static let store = Code(rawValue: "store")
        /// An inbox row that cannot become a sample; the row is marked and skipped.
        package static let inbox = Code(rawValue: "inbox")
        /// The owner withdrew the app's access to a type.
        package static let accessRevoked = Code(rawValue: "accessRevoked")
        /// The store refuses the other machines' changes: the owner has not made this app its
        /// sync agent. The feed to the server goes on.
        package static let notSyncAgent = Code(rawValue: "notSyncAgent")
        /// The code's name.
        package var description: String { rawValue }
    }

    /// The kind of failure.
    package var code: Code
    /// What happened, for people.
    package var message: String
    /// The input at fault (an option, a connection parameter, an inbox column), if one was.
    package var field: String?
    /// Its value.
    package var value: String?
    /// What was expected instead.
    package var expected: String?

    /// An error; `field`, `value` and `expected` name the input at fault.
    package init(_ code: Code, _ message: String, field: String? = nil, value: String? = nil, expected: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.value = value
        self.expected = expected
    }

    /// The message with the field, value and what was expected.
    package var description: String {
        var text = message
        if let field { text += ": \(field)" }
        if let value { text += " is '\(value)'" }
        if let expected { text += "; expected \(expected)" }
        return text + " (\(code))"
    }
}
