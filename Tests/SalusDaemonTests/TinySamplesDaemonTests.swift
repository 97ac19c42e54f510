import Foundation
import SalusProto
import SalusRPC
import Testing

/// A save request of millions of empty samples (two bytes each: a 4 MB frame holds two million)
/// from an app with no permission at all: it is refused naming the first sample's missing type,
/// and the daemon's memory stays within its bound while it reads the request.
@Suite("Save requests of tiny samples", .serialized)
struct TinySamplesDaemonTests {
    @Test("two million empty samples in one request are refused naming samples[0].type, and salusd's peak memory grows by less than 16 MiB")
    func millionsOfEmptySamples() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"])
        let app = try await DaemonClients.app(daemon, "org.example.tiny")
        var request = Salus_V1_SaveRequest()
        request.samples = Array(repeating: Salus_V1_Sample(), count: 2_000_000)
        let baseline = try AttachmentDaemonTests.peakMemory(daemon)
        do {
            let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: request)
            Issue.record("a request of empty samples was saved")
        } catch let error as RPCError {
            #expect(error.code == .invalidArgument, "\(error)")
            #expect(error.message.contains("samples[0].type"), "\(error)")
        }
        let growth = try AttachmentDaemonTests.peakMemory(daemon) - baseline
        #expect(growth < 16 << 20, "salusd's peak memory grew by \(growth >> 20) MiB")
        // Still answering, as before.
        var one = Salus_V1_SaveRequest()
        one.samples = [Salus_V1_Sample()]
        await #expect(throws: RPCError.self) {
            let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: one)
        }
        await app.close()
        #expect(try await daemon.stop() == 0)
    }

    @Test("two million empty samples added to a workout builder (one that does not exist) are refused naming samples[0].type, and salusd's peak memory grows by less than 16 MiB")
    func millionsOfEmptyBuilderSamples() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"])
        let app = try await DaemonClients.app(daemon, "org.example.tiny")
        var request = Salus_V1_AddWorkoutSamplesRequest()
        request.builderID = Data(count: 16)
        request.samples = Array(repeating: Salus_V1_Sample(), count: 2_000_000)
        let baseline = try AttachmentDaemonTests.peakMemory(daemon)
        do {
            let _: Salus_V1_WorkoutBuilderState = try await app.unary(SalusMethods.WorkoutBuilder.addSamples, request: request)
            Issue.record("a request of empty samples was added")
        } catch let error as RPCError {
            #expect(error.code == .invalidArgument, "\(error)")
            #expect(error.message.contains("samples[0].type"), "\(error)")
        }
        let growth = try AttachmentDaemonTests.peakMemory(daemon) - baseline
        #expect(growth < 16 << 20, "salusd's peak memory grew by \(growth >> 20) MiB")
        await app.close()
        #expect(try await daemon.stop() == 0)
    }
}
