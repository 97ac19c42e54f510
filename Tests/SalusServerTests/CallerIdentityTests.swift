import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Who is calling, as the app listener decides it without development mode.
@Suite("Caller identity")
struct CallerIdentityTests {
    @Test("without --dev a declared app id is refused with UNAUTHENTICATED saying how to launch the app")
    func declaredRefused() async throws {
        let server = try await ServerHarness.start(developmentMode: false)
        let app = try await server.app("org.example.sleepdiary")
        let error = await Authz.error { _ = try await Authz.batches(app) }
        #expect(error?.code == .unauthenticated)
        #expect(error?.message.contains("salusctl launch --app org.example.sleepdiary") == true)
        await app.close()
        await server.stop()
    }
}
