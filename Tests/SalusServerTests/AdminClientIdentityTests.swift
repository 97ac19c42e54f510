import Foundation
import SalusAdmin
import SalusKit
import Testing

/// The owner's choice on weak identities through SalusAdmin, as `salusctl apps trust` makes it.
@Suite("AdminClient: weak identities")
struct AdminClientIdentityTests {
    @Test("accepting a weak identity for an app is shown on the app, kept over a restart, undone with false; an unknown app is not found")
    func acceptWeakIdentity() async throws {
        let server = try await ServerHarness.start()
        let admin = try await AdminClientTests.admin(server)
        _ = try await admin.addApp("org.example.scoped", name: "Scoped", readUsage: "r")
        #expect(try await admin.app("org.example.scoped").acceptsWeakIdentity == false)
        #expect(try await admin.setAcceptsWeakIdentity("org.example.scoped", true).acceptsWeakIdentity)
        #expect(try await admin.app("org.example.scoped").acceptsWeakIdentity)
        // `apps show --json`: the daemon's AppInfo, the choice in it.
        let json = try AdminJSON.text(app: try await admin.app("org.example.scoped"))
        #expect(json.replacingOccurrences(of: " ", with: "").contains("\"acceptsWeakIdentity\":true"), "\(json)")
        // A reset returns the decisions to not determined, not the choice.
        _ = try await admin.resetApp("org.example.scoped")
        #expect(try await admin.app("org.example.scoped").acceptsWeakIdentity)
        await server.stop()
        let restarted = try await server.restart()
        let again = try await AdminClientTests.admin(restarted)
        #expect(try await again.app("org.example.scoped").acceptsWeakIdentity)
        #expect(try await again.setAcceptsWeakIdentity("org.example.scoped", false).acceptsWeakIdentity == false)
        let missing = await AdminClientTests.refusal { _ = try await again.setAcceptsWeakIdentity("org.example.nobody", true) }
        #expect(missing?.code == .notFound, "\(String(describing: missing))")
        await restarted.stop()
    }
}
