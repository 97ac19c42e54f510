import SalusRPC
import Testing

/// Every method the protos declare (`SalusMethods`, generated from them) is served by the
/// daemon, on the app socket, the admin socket or both, and with the kind the proto declares:
/// none is declared but unserved, and the routers serve nothing the protos do not declare.
@Suite("Served methods")
struct ServedMethodsTests {
    /// Answered by every connection itself, before any router.
    static let answeredByConnection: Set<String> = ["\(SalusMethods.Session.hello)"]

    @Test("every method of the protos is registered on a socket's router, with its declared kind")
    func everyMethodServed() async throws {
        let server = try await ServerHarness.start()
        let routers = [("app", server.services.appRouter), ("admin", server.services.adminRouter)]
        await server.stop()
        var served: [String: MethodDescriptor.Kind] = [:]
        for (socket, router) in routers {
            for service in router.methods {
                for method in service.methods {
                    let name = "\(service.service)/\(method.name)"
                    if let other = served[name] {
                        #expect(other == method.kind, "\(name) is \(other) on one socket, \(method.kind) on the \(socket) socket")
                    }
                    served[name] = method.kind
                }
            }
        }
        for method in SalusMethods.all where !Self.answeredByConnection.contains("\(method)") {
            let kind = served["\(method)"]
            #expect(kind != nil, "\(method) is declared in the protos but no router serves it")
            if let kind { #expect(kind == method.kind, "\(method) is served as \(kind), declared \(method.kind)") }
        }
        let declared = Set(SalusMethods.all.map { "\($0)" })
        let undeclared = Set(served.keys).subtracting(declared).sorted()
        #expect(undeclared.isEmpty, "served but not declared in the protos: \(undeclared)")
    }
}
