import Foundation
import SalusAdmin
import SalusServer
import SalusTestSupport
import Testing

/// The daemon's Hello through the owner's client, what `salusctl status` prints.
@Suite("AdminClient: the daemon's status")
struct AdminClientStatusTests {
    @Test("status() gives the daemon's version, its limits (the attachment limit it is configured with) and the admin services with each method's streaming; the JSON is the Hello response")
    func status() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let status = try admin.status()
        #expect(status.serverVersion == SalusDaemon.version)
        #expect(status.protocolVersion >= 1)
        #expect(status.limits.maxAttachmentSize == UInt64(server.services.configuration.maxAttachmentSize))
        #expect(status.limits.maxFrameSize > 0 && status.limits.receiveWindow > 0)
        let methods = Dictionary(
            status.services.flatMap { service in service.methods.map { ("\(service.name)/\($0.name)", $0) } },
            uniquingKeysWith: { first, _ in first })
        #expect(methods["salus.v1.Admin/ListTypes"].map { !$0.clientStreaming && !$0.serverStreaming } == true, "\(methods.keys.sorted())")
        #expect(methods["salus.v1.Consent/WatchRequests"].map { !$0.clientStreaming && $0.serverStreaming } == true, "\(methods.keys.sorted())")

        let json = try #require(JSONSerialization.jsonObject(with: Data(try AdminJSON.text(status: status).utf8)) as? [String: Any])
        #expect(json["serverVersion"] as? String == status.serverVersion)
        #expect((json["services"] as? [Any])?.count == status.services.count)
        let limits = try #require(json["limits"] as? [String: Any])
        #expect(limits["maxAttachmentSize"] as? String == String(status.limits.maxAttachmentSize), "64-bit as a string, as before")
        await admin.close()
    }
}
