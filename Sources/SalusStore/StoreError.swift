import Foundation
import SalusModel

/// An error from the store: a stable code, a message for people and, where a value was refused,
/// the field path, the value and what was expected.
///
/// Field paths are written as in code and start from the argument that was refused:
/// `samples[3].endDate`, `samples[0].metadata["HKMetadataKeySyncVersion"]`, `uuids[2]`,
/// `predicate.and[1].metadata`. `sampleIndex` repeats the index for errors about one sample of a
/// batch. Programs branch on `code`; new codes may be added.
package struct StoreError: Error, CustomStringConvertible, Sendable {
    /// Why the call failed, as a stable string code.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The stable code string ("invalidArgument").
        package let rawValue: String

        /// Creates a code from its string.
        package init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code string.
        package var description: String { rawValue }

        /// A sample, UUID, predicate, anchor or option was refused; `field` says which.
        package static let invalidArgument = Code(rawValue: "invalidArgument")
        /// The anchor is older than the tombstone horizon: deletions after it were purged, so
        /// the client must resync from the start.
        package static let anchorExpired = Code(rawValue: "anchorExpired")
        /// A UUID to delete is not in the store.
        package static let notFound = Code(rawValue: "notFound")
        /// A UUID to delete belongs to a sample another app saved.
        package static let notOwner = Code(rawValue: "notOwner")
        /// SQLite failed (I/O, corruption, a full disk); `message` carries SQLite's text.
        package static let database = Code(rawValue: "database")
        /// The store was closed.
        package static let closed = Code(rawValue: "closed")
        /// A value is larger than a stated limit (an attachment above its maximum size).
        package static let resourceExhausted = Code(rawValue: "resourceExhausted")
    }

    /// Why the call failed.
    package var code: Code
    /// What went wrong, for people.
    package var message: String
    /// The path of the offending field, when one value was refused.
    package var field: String?
    /// The offending value, rendered for people.
    package var value: String?
    /// What was expected instead.
    package var expected: String?
    /// The index of the refused sample in a batch save.
    package var sampleIndex: Int?
    /// The model's reason code when the sample broke one of `SalusModel`'s rules.
    package var reason: ValidationError.Reason?

    /// Creates an error; the message defaults to "`field`: got `value`; expected `expected`".
    package init(
        code: Code, message: String? = nil, field: String? = nil, value: String? = nil,
        expected: String? = nil, sampleIndex: Int? = nil, reason: ValidationError.Reason? = nil
    ) {
        self.code = code
        self.field = field
        self.value = value
        self.expected = expected
        self.sampleIndex = sampleIndex
        self.reason = reason
        if let message {
            self.message = message
        } else if let field, let value, let expected {
            self.message = "\(field): got \(value); expected \(expected)"
        } else {
            self.message = code.rawValue
        }
    }

    /// An invalid-argument error naming `field`, `value` and what was `expected`.
    static func invalid(
        _ field: String, value: String, expected: String, sampleIndex: Int? = nil,
        reason: ValidationError.Reason? = nil
    ) -> StoreError {
        StoreError(
            code: .invalidArgument, field: field, value: value, expected: expected, sampleIndex: sampleIndex,
            reason: reason)
    }

    /// The model's validation error as an invalid-argument error about sample `index`.
    init(_ error: ValidationError, sampleIndex: Int) {
        self.init(
            code: .invalidArgument, field: error.field, value: error.value, expected: error.expected,
            sampleIndex: sampleIndex, reason: error.reason)
    }

    /// A database error.
    init(_ error: DatabaseError, path: String? = nil) {
        // SQLITE_FULL: the disk (or its quota) is full. The call's transaction rolled back whole.
        if error.code & 0xFF == 13 {
            let folder = path.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path } ?? "the store's folder"
            self.init(
                code: .resourceExhausted,
                message: "the disk that holds \(folder) is full; nothing of this call was stored (\(error.message))",
                field: "disk", value: folder, expected: "free space on the disk that holds the store")
            return
        }
        self.init(code: .database, message: error.description)
    }

    /// "`code`: `message`".
    package var description: String { "\(code): \(message)" }
}
