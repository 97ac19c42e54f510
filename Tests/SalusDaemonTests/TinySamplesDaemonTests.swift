import Foundation
import SalusProto
import SalusRPC
import Testing

/// Requests of millions of empty samples (two bytes each: a 4 MB frame holds two million) from
/// an app with no permission at all: each is refused naming the first sample's missing type,
/// and the daemon's memory stays within its bound while it reads the request.
@Suite("Requests of tiny samples", .serialized)
struct TinySamplesDaemonTests {
    static let emptySamples = Array(repeating: Salus_V1_Sample(), count: 2_000_000)

    /// Runs `call`, which must fail with `code`, its error passing `names` (the field or
    /// message it names), and checks salusd's peak memory grew by less than 16 MiB meanwhile.
    static func refused(
        _ daemon: DaemonHarness, _ label: String, _ code: RPCError.Code, names: (RPCError) -> Bool,
        _ call: () async throws -> Void
    ) async throws {
        let baseline = try AttachmentDaemonTests.peakMemory(daemon)
        do {
            try await call()
            Issue.record("\(label): the request was taken")
        } catch let error as RPCError {
            #expect(error.code == code, "\(label): \(error)")
            #expect(names(error), "\(label): \(error)")
        }
        let growth = try AttachmentDaemonTests.peakMemory(daemon) - baseline
        #expect(growth < 16 << 20, "\(label): salusd's peak memory grew by \(growth >> 20) MiB")
    }

    /// Refused with INVALID_ARGUMENT naming `samples[0].type`, within the memory bound.
    static func refusedWithinBound(_ daemon: DaemonHarness, _ label: String, _ call: () async throws -> Void) async throws {
        try await refused(daemon, label, .invalidArgument, names: { $0.message.contains("samples[0].type") }, call)
    }

    @Test("two million empty samples, in a save (also with a group after them, which decoding passes over) and added to a workout builder that does not exist, are refused naming samples[0].type, and salusd's peak memory grows by less than 16 MiB each time")
    func millionsOfEmptySamples() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"])
        let app = try await DaemonClients.app(daemon, "org.example.tiny")
        var save = Salus_V1_SaveRequest()
        save.samples = Self.emptySamples
        try await Self.refusedWithinBound(daemon, "save") {
            let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: save)
        }
        // An unknown group (field 9: start, a varint inside, end), kept as an unknown field and
        // sent after the samples.
        save = try Salus_V1_SaveRequest(serializedBytes: [UInt8]([0x4B, 0x08, 0x01, 0x4C]))
        save.samples = Self.emptySamples
        let sent: [UInt8] = try save.serializedBytes()
        #expect(Array(sent.suffix(4)) == [0x4B, 0x08, 0x01, 0x4C])
        try await Self.refusedWithinBound(daemon, "save with a group") {
            let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: save)
        }
        var add = Salus_V1_AddWorkoutSamplesRequest()
        add.builderID = Data(count: 16)
        add.samples = Self.emptySamples
        try await Self.refusedWithinBound(daemon, "builder") {
            let _: Salus_V1_WorkoutBuilderState = try await app.unary(SalusMethods.WorkoutBuilder.addSamples, request: add)
        }
        // Still answering, as before.
        var one = Salus_V1_SaveRequest()
        one.samples = [Salus_V1_Sample()]
        await #expect(throws: RPCError.self) {
            let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: one)
        }
        await app.close()
        #expect(try await daemon.stop() == 0)
    }

    /// Refused with RESOURCE_EXHAUSTED naming `field` before it is decoded, within the memory bound.
    static func refusedBeforeDecoding(_ daemon: DaemonHarness, _ field: String, _ call: () async throws -> Void) async throws {
        try await refused(daemon, field, .resourceExhausted, names: { $0.detail?.field == field }, call)
    }

    @Test("a query whose predicate is an or of two million empty predicates, or with two million empty sort descriptors, statistics with four million options, a sample of two million empty voltages: each refused before it is decoded, naming its list, and salusd's peak memory grows by less than 16 MiB each time")
    func millionsOfEmptyElements() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev"])
        let app = try await DaemonClients.app(daemon, "org.example.tiny")
        func query(_ request: Salus_V1_SampleQueryRequest) async throws {
            for try await _ in try app.serverStreaming(SalusMethods.Store.querySamples, request: request) {}
        }
        var predicates = Salus_V1_SampleQueryRequest()
        predicates.type = "HKQuantityTypeIdentifierHeartRate"
        predicates.predicate.or.predicates = Array(repeating: Salus_V1_Predicate(), count: 2_000_000)
        try await Self.refusedBeforeDecoding(daemon, "predicate.or.predicates") { try await query(predicates) }
        var sort = Salus_V1_SampleQueryRequest()
        sort.type = "HKQuantityTypeIdentifierHeartRate"
        sort.sort = Array(repeating: Salus_V1_SortDescriptor(), count: 2_000_000)
        try await Self.refusedBeforeDecoding(daemon, "sort") { try await query(sort) }
        var statistics = Salus_V1_StatisticsRequest()
        statistics.type = "HKQuantityTypeIdentifierHeartRate"
        statistics.options = Array(repeating: .discreteAverage, count: 4_000_000)
        try await Self.refusedBeforeDecoding(daemon, "options") {
            let _: Salus_V1_StatisticsResponse = try await app.unary(SalusMethods.Statistics.query, request: statistics)
        }
        var save = Salus_V1_SaveRequest()
        var sample = Salus_V1_Sample()
        sample.electrocardiogram.voltages = Array(repeating: Salus_V1_ElectrocardiogramVoltage(), count: 2_000_000)
        save.samples = [sample]
        try await Self.refusedBeforeDecoding(daemon, "samples[0].electrocardiogram.voltages") {
            let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: save)
        }
        // Still answering, as before.
        var echo = Salus_V1_EchoRequest()
        echo.text = "still here"
        let answer: Salus_V1_EchoResponse = try await app.unary(SalusMethods.Diagnostics.echo, request: echo)
        #expect(answer.text == "still here")
        await app.close()
        #expect(try await daemon.stop() == 0)
    }
}
