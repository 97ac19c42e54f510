import Foundation
import SalusProto
import SwiftProtobuf

/// An error of a call: a gRPC status code, a message that names what was wrong, and an
/// optional structured detail (reason, field, value, expected).
///
/// Codes are a struct wrapping the number, so codes added later never break a client.
package struct RPCError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A gRPC status code.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        package var rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        package static let ok = Code(rawValue: 0)
        package static let cancelled = Code(rawValue: 1)
        package static let unknown = Code(rawValue: 2)
        package static let invalidArgument = Code(rawValue: 3)
        package static let deadlineExceeded = Code(rawValue: 4)
        package static let notFound = Code(rawValue: 5)
        package static let alreadyExists = Code(rawValue: 6)
        package static let permissionDenied = Code(rawValue: 7)
        package static let resourceExhausted = Code(rawValue: 8)
        package static let failedPrecondition = Code(rawValue: 9)
        package static let aborted = Code(rawValue: 10)
        package static let outOfRange = Code(rawValue: 11)
        package static let unimplemented = Code(rawValue: 12)
        package static let `internal` = Code(rawValue: 13)
        package static let unavailable = Code(rawValue: 14)
        package static let dataLoss = Code(rawValue: 15)
        package static let unauthenticated = Code(rawValue: 16)

        package var description: String {
            let names = [
                "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
                "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
                "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
                "UNAUTHENTICATED",
            ]
            return names.indices.contains(Int(rawValue)) ? names[Int(rawValue)] : "CODE_\(rawValue)"
        }
    }

    /// The type URL under which ``detail`` travels in `google.rpc.Status.details`.
    package static let detailTypeURL = "type.googleapis.com/salus.v1.ErrorDetail"

    package var code: Code
    package var message: String
    /// The structured detail; its `domain` is "salus".
    package var detail: Salus_V1_ErrorDetail?

    package init(code: Code, message: String, detail: Salus_V1_ErrorDetail? = nil) {
        self.code = code
        self.message = message
        self.detail = detail
    }

    /// An error with a detail built from its parts.
    package init(
        code: Code,
        message: String,
        reason: Salus_V1_ErrorReason,
        field: String = "",
        value: String = "",
        expected: String = ""
    ) {
        var detail = Salus_V1_ErrorDetail()
        detail.reason = reason
        detail.field = field
        detail.value = value
        detail.expected = expected
        detail.domain = "salus"
        self.init(code: code, message: message, detail: detail)
    }

    /// The reason of the detail, or `.unspecified` without one.
    package var reason: Salus_V1_ErrorReason { detail?.reason ?? .unspecified }

    package var description: String { "\(code): \(message)" }

    /// The status that carries this error on the wire.
    package var status: Google_Rpc_Status {
        var status = Google_Rpc_Status()
        status.code = code.rawValue
        status.message = message
        if let detail, let bytes: [UInt8] = try? detail.serializedBytes() {
            var any = Salus_V1_AnyMessage()
            any.typeURL = Self.detailTypeURL
            any.value = Data(bytes)
            status.details = [any]
        }
        return status
    }

    /// The error a non-OK status stands for.
    package init(status: Google_Rpc_Status) {
        var detail: Salus_V1_ErrorDetail?
        if let any = status.details.first(where: { $0.typeURL == Self.detailTypeURL }) {
            detail = try? Salus_V1_ErrorDetail(serializedBytes: any.value)
        }
        self.init(code: Code(rawValue: status.code), message: status.message, detail: detail)
    }
}

extension RPCError {
    /// INVALID_ARGUMENT for a field: names the field, the value and what was expected.
    package static func invalidArgument(field: String, value: String, expected: String, message: String? = nil) -> RPCError {
        RPCError(
            code: .invalidArgument,
            message: message ?? "\(field): \(value.isEmpty ? "(empty)" : value) is not valid; expected \(expected)",
            reason: .invalidArgument,
            field: field,
            value: value,
            expected: expected
        )
    }
}
