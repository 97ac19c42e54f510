import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Deleting asks what saving asks: permission to write the sample's type, as HealthKit's
/// deletion does. An app's own samples of a type it may no longer write stay.
@Suite("Deletion needs share permission for the sample's type")
struct DeletionShareTests {
    @Test("an app reset and then allowed to write another type cannot delete its samples of a type it may not write")
    func undecidedTypeOfOwnSample() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        let appID = "org.example.pulse"
        try await Authz.register(owner, appID, type: Authz.steps, read: .granted, share: .granted)
        try await Authz.grant(owner, appID, Authz.heartRate, read: .granted, share: .granted)
        let app = try await Authz.app(server, appID)
        var pulse = Authz.sample(Authz.heartRate, value: 60, start: 1_700_000_000_000_000)
        pulse.quantity.unit = "count/min"
        let saved = try await Authz.save(app, [pulse, Authz.sample(value: 10, start: 1_700_000_000_000_000)])
        #expect(saved.results.map(\.outcome) == [.saved, .saved])

        // The owner resets the app (every permission back to not determined), then lets it write
        // steps again: it holds no decision for heart rate at all.
        var reset = Salus_V1_AppRequest()
        reset.appID = appID
        let _: Salus_V1_AppInfo = try await owner.unary(SalusMethods.Consent.resetApp, request: reset)
        try await Authz.grant(owner, appID, Authz.steps, read: .granted, share: .granted)
        try await Authz.grant(owner, appID, Authz.heartRate, read: .granted, share: nil)
        var delete = Salus_V1_DeleteRequest()
        delete.uuids.uuids = [saved.results[0].uuid]
        let error = await #expect(throws: RPCError.self) {
            let _: Salus_V1_DeleteResponse = try await app.unary(SalusMethods.Store.delete, request: delete)
        }
        #expect(error?.message.contains(Authz.heartRate) == true, "\(String(describing: error))")
        #expect(try await Authz.batches(app, type: Authz.heartRate).flatMap(\.samples).map(\.uuid) == [saved.results[0].uuid])
        // Its steps, which it may still write, it deletes.
        delete.uuids.uuids = [saved.results[1].uuid]
        let deleted: Salus_V1_DeleteResponse = try await app.unary(SalusMethods.Store.delete, request: delete)
        #expect(try await Authz.batches(app).flatMap(\.samples).isEmpty, "\(deleted)")
        await app.close()
        await owner.close()
        await server.stop()
    }
}
