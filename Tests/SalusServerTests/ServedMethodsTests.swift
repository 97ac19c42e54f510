import SalusProto
import SalusRPC
import SalusTestSupport
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

    /// The owner's services: what each app did (the access log), each app's data, consent,
    /// imports and backups. An app must not reach them, not even to learn that they exist with
    /// its own calls' traces in them.
    static let ownerOnlyServices = [
        SalusMethods.AccessLog.name, SalusMethods.AppData.name, SalusMethods.Consent.name,
        SalusMethods.Import.name, SalusMethods.Backup.name,
    ]

    @Test("no app reaches the owner's services: the access log, each app's data, consent, imports and backups are on the admin socket only")
    func ownerServicesAreNotOnTheAppSocket() async throws {
        let server = try await ServerHarness.start()
        let appServices = Set(server.services.appRouter.methods.map(\.service))
        let adminServices = Set(server.services.adminRouter.methods.map(\.service))
        for service in Self.ownerOnlyServices {
            #expect(!appServices.contains(service), "\(service) is served on the app socket")
            #expect(adminServices.contains(service), "\(service) is not served on the admin socket")
        }
        // An app that saved a sample asks the log what it and the others did, and to delete
        // another app's data: both refused, nothing learnt, nothing deleted.
        let app = try await server.app("org.example.curious")
        let owner = try await server.owner()
        let log = await Authz.error { _ = try await app.unary(SalusMethods.AccessLog.list, request: Salus_V1_AccessLogRequest()) }
        #expect(log != nil, "the access log answered an app: \(String(describing: log))")
        var request = Salus_V1_AppDataRequest()
        request.appID = "org.example.curious"
        let deletion = await Authz.error { _ = try await app.unary(SalusMethods.AppData.delete, request: request) }
        #expect(deletion != nil, "an app's data deletion answered an app")
        let settings = try await owner.unary(SalusMethods.AccessLog.getSettings, request: Salus_V1_AccessLogSettingsRequest())
        #expect(settings.retentionSeconds > 0, "the owner reads the log's settings")
        await app.close()
        await owner.close()
        await server.stop()
    }
}
