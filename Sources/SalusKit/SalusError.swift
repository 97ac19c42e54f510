import SalusProto
import SalusRPC

/// An error from the daemon or from SalusKit, as HealthKit's `HKError`: a code, a message that
/// names what was wrong, and when known the field, the value and what was expected.
///
/// ```swift
/// do { try await store.save(sample) }
/// catch let error as SalusError where error.code == .invalidArgument {
///     print(error.field ?? "", error.value ?? "", error.expected ?? "")
/// }
/// ```
public struct SalusError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure it is; codes added later never break a client.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name ("invalidArgument").
        public var rawValue: String

        /// A code from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// A field of the request holds a value that is not allowed (the field is named).
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// The person denied the app access.
        public static let authorizationDenied = Code(rawValue: "authorizationDenied")
        /// The app has not asked for access to a type it used.
        public static let authorizationNotDetermined = Code(rawValue: "authorizationNotDetermined")
        /// The anchor is older than the tombstones kept: resynchronise from the start.
        public static let anchorExpired = Code(rawValue: "anchorExpired")
        /// Something named does not exist.
        public static let notFound = Code(rawValue: "notFound")
        /// Something to create exists already (a UUID).
        public static let alreadyExists = Code(rawValue: "alreadyExists")
        /// A limit was exceeded (a frame over 4 MiB).
        public static let resourceExhausted = Code(rawValue: "resourceExhausted")
        /// The connection has no app id.
        public static let unauthenticated = Code(rawValue: "unauthenticated")
        /// The app may not do this (delete another app's sample, write a read-only type).
        public static let permissionDenied = Code(rawValue: "permissionDenied")
        /// The daemon does not offer this call.
        public static let unimplemented = Code(rawValue: "unimplemented")
        /// A message could not be decoded, by the daemon or by SalusKit.
        public static let malformedMessage = Code(rawValue: "malformedMessage")
        /// The call did not finish before its deadline.
        public static let deadlineExceeded = Code(rawValue: "deadlineExceeded")
        /// The call was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The daemon cannot be reached, or is shutting down.
        public static let unavailable = Code(rawValue: "unavailable")
        /// The peer broke the protocol.
        public static let protocolViolation = Code(rawValue: "protocolViolation")
        /// The database cannot be opened or read.
        public static let databaseInaccessible = Code(rawValue: "databaseInaccessible")
        /// There is no data for the request.
        public static let noData = Code(rawValue: "noData")
        /// A failure inside the daemon.
        public static let `internal` = Code(rawValue: "internal")
        /// A failure without a more precise code.
        public static let unknown = Code(rawValue: "unknown")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// What kind of failure it is.
    public var code: Code
    /// A message for people that names what was wrong.
    public var message: String
    /// The request field at fault ("samples[3].quantity.unit"), when known.
    public var field: String?
    /// The value found there, when known.
    public var value: String?
    /// What was expected there, when known.
    public var expected: String?
    /// The gRPC status code of the call that failed (3 INVALID_ARGUMENT), or nil for errors
    /// found by SalusKit itself.
    public var statusCode: Int32?

    /// Creates an error.
    public init(
        code: Code,
        message: String,
        field: String? = nil,
        value: String? = nil,
        expected: String? = nil,
        statusCode: Int32? = nil
    ) {
        self.code = code
        self.message = message
        self.field = field
        self.value = value
        self.expected = expected
        self.statusCode = statusCode
    }

    /// The error an RPC failure stands for: the code from its reason, else from its status code.
    package init(_ error: RPCError) {
        let detail = error.detail
        let code = Self.code(reason: error.reason) ?? Self.code(status: error.code)
        self.init(
            code: code,
            message: error.message,
            field: detail.flatMap { $0.field.isEmpty ? nil : $0.field },
            value: detail.flatMap { $0.value.isEmpty ? nil : $0.value },
            expected: detail.flatMap { $0.expected.isEmpty ? nil : $0.expected },
            statusCode: error.code.rawValue
        )
    }

    /// `error` as a ``SalusError``: itself, or mapped from an ``RPCError``; anything else is
    /// ``Code/unknown`` with its description.
    public static func from(_ error: any Error) -> SalusError {
        switch error {
        case let error as SalusError: error
        case let error as RPCError: SalusError(error)
        case is CancellationError: SalusError(code: .cancelled, message: "the call was cancelled")
        default: SalusError(code: .unknown, message: String(describing: error))
        }
    }

    /// The message, then the code: "samples[0].type: … (invalidArgument)".
    public var description: String { "\(message) (\(code))" }

    static func code(reason: Salus_V1_ErrorReason) -> Code? {
        switch reason {
        case .unspecified, .UNRECOGNIZED: nil
        case .invalidArgument: .invalidArgument
        case .authorizationDenied: .authorizationDenied
        case .authorizationNotDetermined: .authorizationNotDetermined
        case .anchorExpired: .anchorExpired
        case .notFound: .notFound
        case .alreadyExists: .alreadyExists
        case .resourceExhausted: .resourceExhausted
        case .unauthenticated: .unauthenticated
        case .permissionDenied: .permissionDenied
        case .unimplemented: .unimplemented
        case .malformedMessage: .malformedMessage
        case .deadlineExceeded: .deadlineExceeded
        case .cancelled: .cancelled
        case .unavailable: .unavailable
        case .protocolViolation: .protocolViolation
        case .databaseInaccessible: .databaseInaccessible
        case .noData: .noData
        case .internal: .internal
        }
    }

    static func code(status: RPCError.Code) -> Code {
        switch status {
        case .invalidArgument, .outOfRange, .failedPrecondition: .invalidArgument
        case .notFound: .notFound
        case .alreadyExists: .alreadyExists
        case .permissionDenied: .permissionDenied
        case .resourceExhausted: .resourceExhausted
        case .unauthenticated: .unauthenticated
        case .unimplemented: .unimplemented
        case .deadlineExceeded: .deadlineExceeded
        case .cancelled: .cancelled
        case .unavailable: .unavailable
        case .dataLoss: .databaseInaccessible
        case .internal: .internal
        default: .unknown
        }
    }
}

/// Runs `body`, turning any error into a ``SalusError``.
func mappingErrors<T>(_ body: () async throws -> T) async throws(SalusError) -> T {
    do {
        return try await body()
    } catch {
        throw SalusError.from(error)
    }
}
