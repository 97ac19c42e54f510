import SalusProto
import SalusRPC
import Testing
@testable import SalusKit

/// RPC failures become SalusErrors with the reason as code and the detail's field, value and
/// expected.
@Suite("SalusError from RPCError")
struct SalusErrorTests {
    @Test("an invalid argument keeps field, value, expected and the status code")
    func invalidArgument() {
        let rpc = RPCError.invalidArgument(field: "samples[3].quantity.unit", value: "degC", expected: "a unit of count")
        let error = SalusError(rpc)
        #expect(error.code == .invalidArgument)
        #expect(error.field == "samples[3].quantity.unit")
        #expect(error.value == "degC")
        #expect(error.expected == "a unit of count")
        #expect(error.statusCode == 3)
        #expect(error.message.contains("samples[3].quantity.unit"))
        #expect(error.description.hasSuffix("(invalidArgument)"))
    }

    @Test("the reason decides the code, even under another status")
    func reasons() {
        let cases: [(Salus_V1_ErrorReason, RPCError.Code, SalusError.Code)] = [
            (.anchorExpired, .failedPrecondition, .anchorExpired),
            (.authorizationDenied, .permissionDenied, .authorizationDenied),
            (.authorizationNotDetermined, .permissionDenied, .authorizationNotDetermined),
            (.permissionDenied, .permissionDenied, .permissionDenied),
            (.alreadyExists, .alreadyExists, .alreadyExists),
            (.unauthenticated, .unauthenticated, .unauthenticated),
            (.databaseInaccessible, .unavailable, .databaseInaccessible),
            (.malformedMessage, .invalidArgument, .malformedMessage),
        ]
        for (reason, status, expected) in cases {
            let error = SalusError(RPCError(code: status, message: "m", reason: reason))
            #expect(error.code == expected, "reason \(reason)")
        }
    }

    @Test("without a detail the status code decides; empty detail fields are nil")
    func statusOnly() {
        #expect(SalusError(RPCError(code: .unavailable, message: "gone")).code == .unavailable)
        #expect(SalusError(RPCError(code: .notFound, message: "none")).code == .notFound)
        #expect(SalusError(RPCError(code: .aborted, message: "x")).code == .unknown)
        let error = SalusError(RPCError(code: .internal, message: "boom", reason: .internal))
        #expect(error.field == nil && error.value == nil && error.expected == nil)
    }

    @Test("a status round trip keeps the detail")
    func statusRoundTrip() {
        let rpc = RPCError(code: .failedPrecondition, message: "anchor 3 expired", reason: .anchorExpired, field: "anchor", value: "3", expected: "an anchor at or after 10")
        let error = SalusError(RPCError(status: rpc.status))
        #expect(error.code == .anchorExpired)
        #expect(error.field == "anchor")
        #expect(error.expected == "an anchor at or after 10")
    }

    @Test("from(_:) passes SalusErrors through and maps cancellation")
    func from() {
        let original = SalusError(code: .noData, message: "nothing")
        #expect(SalusError.from(original) == original)
        #expect(SalusError.from(CancellationError()).code == .cancelled)
        #expect(SalusError.from(RPCError(code: .cancelled, message: "c", reason: .cancelled)).code == .cancelled)
    }
}
