import SalusProto
import SalusRPC
import Testing

@testable import SalusServer

/// The parts' errors become the wire errors clients have always had.
@Suite("Authorization errors at the service edge")
struct AuthorizationErrorMappingTests {
    @Test("each code gives its gRPC code and reason, with the field, value and expected unchanged")
    func codes() async {
        func wire(_ error: any Error) async -> RPCError? {
            await #expect(throws: RPCError.self) { try await authorizationCall { throw error } }
        }
        let cases: [(any Error, RPCError.Code, Salus_V1_ErrorReason)] = [
            (AccessError(.invalidArgument, field: "share[1]", value: "X", expected: "a type"), .invalidArgument, .invalidArgument),
            (AccessError(.notRegistered, field: "appId", value: "a", expected: "registered"), .failedPrecondition, .notFound),
            (AccessError(.notDetermined, field: "type", value: "T", expected: "allowed"), .permissionDenied, .authorizationNotDetermined),
            (AccessError(.denied, field: "type", value: "T", expected: "allowed"), .permissionDenied, .authorizationDenied),
            (AppRegistryError(.invalidArgument, field: "name", value: "", expected: "a name"), .invalidArgument, .invalidArgument),
            (AppRegistryError(.notFound, field: "appId", value: "a", expected: "registered"), .notFound, .notFound),
            (AppRegistryError(.notSaved, field: "appId", value: "a", expected: "saved"), .internal, .databaseInaccessible),
            (ConsentError(.invalidArgument, field: "grantRead", value: "T", expected: "asked"), .invalidArgument, .invalidArgument),
            (ConsentError(.notFound, field: "requestId", value: "r9", expected: "pending"), .notFound, .notFound),
            (ConsentError(.notSaved, field: "appId", value: "a", expected: "saved"), .internal, .databaseInaccessible),
        ]
        for (error, code, reason) in cases {
            let mapped = await wire(error)
            #expect(mapped?.code == code, "\(error)")
            #expect(mapped?.reason == reason, "\(error)")
            #expect(mapped?.message == "\(error)")
        }
        let invalid = await wire(AccessError(.invalidArgument, field: "share[1]", value: "X", expected: "a type"))
        #expect(invalid == RPCError.invalidArgument(field: "share[1]", value: "X", expected: "a type"))
    }

    @Test("other errors pass through unchanged")
    func others() async {
        let original = RPCError(code: .unavailable, message: "closing", reason: .unavailable)
        let passed = await #expect(throws: RPCError.self) { try await authorizationCall { throw original } }
        #expect(passed == original)
    }
}
