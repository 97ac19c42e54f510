/// A refusal by one part of authorization (the access policy, the app registry or the consent
/// queue): a code, and a message that names the field, its value and what was expected.
///
/// Each part has its own error type, an instance of this one with its own codes, so a service
/// maps exactly the codes a part can give. The parts never see the wire: the services turn
/// these into `RPCError` at their edge (`AuthorizationErrorMapping.swift`).
package struct AuthorizationError<Code: Hashable & Sendable>: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    package var code: Code
    /// The request field at fault, in the documented path syntax ("share[1]", "appId").
    package var field: String
    /// The value found there.
    package var value: String
    /// What would have been accepted.
    package var expected: String
    /// The whole explanation, for people.
    package var message: String

    /// An error; without a message, "FIELD: VALUE is not valid; expected EXPECTED".
    package init(_ code: Code, field: String, value: String, expected: String, message: String? = nil) {
        self.code = code
        self.field = field
        self.value = value
        self.expected = expected
        self.message = message ?? "\(field): \(value.isEmpty ? "(empty)" : value) is not valid; expected \(expected)"
    }

    /// The message.
    package var description: String { message }
}
