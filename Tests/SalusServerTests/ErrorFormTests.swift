import Foundation
import SalusProto
import SalusRPC
import Testing

/// What docs/protocol.md section 11 promises of every refusal: the field in the one path
/// syntax, the offending value, what was expected; and queries of a type no plugin declares are
/// refused rather than answered with nothing.
@Suite("Error details keep the documented form")
struct ErrorFormTests {
    static func refusal(saving sample: Salus_V1_Sample, _ client: RPCClient) async -> Salus_V1_ErrorDetail? {
        let error = await #expect(throws: RPCError.self) {
            let _: Salus_V1_SaveResponse = try await client.unary(
                StoreServiceTests.save, request: StoreServiceTests.saveRequest([sample]))
        }
        #expect(error?.code == .invalidArgument)
        return error?.detail
    }

    @Test("saves: field path, value and expected are each filled in and in their place")
    func saveRefusals() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await StoreServiceTests.app(server, "org.example.forms")
        let start: Int64 = 1_700_000_000_000_000

        var sleep = Salus_V1_Sample()
        sleep.type = StoreServiceTests.sleep
        sleep.startDate = start
        sleep.endDate = start + 60_000_000
        sleep.category.value = 9
        let raw = await Self.refusal(saving: sleep, client)
        #expect(raw?.field == "samples[0].category.value")
        #expect(raw?.value == "9")
        #expect(raw?.expected.contains("inBed 0") == true && raw?.expected.contains("expected") == false)

        let kilograms = await Self.refusal(saving: StoreServiceTests.stepSample(1, start: start, unit: "kg"), client)
        #expect(kilograms?.field == "samples[0].quantity.unit")
        // The value is the value as text; what it measures goes with what was expected.
        #expect(kilograms?.value == "kg")
        #expect(kilograms?.expected.contains("like HKQuantityTypeIdentifierStepCount's canonical unit count") == true, "\(kilograms?.expected ?? "")")
        #expect(kilograms?.expected.contains("mass") == true, "\(kilograms?.expected ?? "")")

        // A predicate's quantity in a unit of another dimension: the same form.
        var query = Salus_V1_SampleQueryRequest()
        query.type = StoreServiceTests.steps
        query.predicate.quantity.operator = .greaterThan
        query.predicate.quantity.quantity.value = 3
        query.predicate.quantity.quantity.unit = "kg"
        let predicateError = await #expect(throws: RPCError.self) {
            for try await _ in try client.serverStreaming(StoreServiceTests.querySamples, request: query) {}
        }
        #expect(predicateError?.detail?.field == "predicate.quantity.unit")
        #expect(predicateError?.detail?.value == "kg")
        #expect(predicateError?.detail?.expected.contains("mass") == true, "\(predicateError?.detail?.expected ?? "")")

        var flow = Salus_V1_Sample()
        flow.type = "HKCategoryTypeIdentifierMenstrualFlow"
        flow.startDate = start
        flow.endDate = start
        flow.category.value = 2
        let cycle = await Self.refusal(saving: flow, client)
        #expect(cycle?.field == "samples[0].metadata.HKMenstrualCycleStart")
        #expect(cycle?.value == "nil")

        let version = await Self.refusal(
            saving: StoreServiceTests.stepSample(
                1, start: start, metadata: ["HKMetadataKeySyncIdentifier": StoreServiceTests.string("a")]), client)
        #expect(version?.field == "samples[0].metadata.HKMetadataKeySyncVersion")

        // A plugin's own validator (sleep under a day) answers in parts too.
        sleep.category.value = 4
        sleep.endDate = start + 25 * 3_600_000_000
        let long = await Self.refusal(saving: sleep, client)
        #expect(long?.field == "samples[0].endDate")
        #expect(long?.value == "a sample lasting 25.0 h")
        #expect(long?.expected.hasPrefix("less than 24 h") == true)
        await client.close()
        await server.stop()
    }

    @Test("deletes: a malformed UUID is named uuids[i]")
    func deleteRefusal() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await StoreServiceTests.app(server, "org.example.forms")
        var request = Salus_V1_DeleteRequest()
        request.uuids.uuids = [Data(count: 16), Data(count: 15)]
        let error = await #expect(throws: RPCError.self) {
            let _: Salus_V1_DeleteResponse = try await client.unary(StoreServiceTests.delete, request: request)
        }
        #expect(error?.detail?.field == "uuids[1]")
        #expect(error?.detail?.value == "15 bytes")
        request.uuids.uuids = []
        let empty = await #expect(throws: RPCError.self) {
            let _: Salus_V1_DeleteResponse = try await client.unary(StoreServiceTests.delete, request: request)
        }
        #expect(empty?.detail?.field == "uuids")
        await client.close()
        await server.stop()
    }

    @Test("sample, anchored, source and observer queries of an unknown type are refused naming the field")
    func unknownTypes() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let client = try await StoreServiceTests.app(server, "org.example.forms")
        let typo = "HKQuantityTypeIdentifierStepCont"

        var samples = Salus_V1_SampleQueryRequest()
        samples.type = typo
        let sampleError = await #expect(throws: RPCError.self) {
            for try await _ in try client.serverStreaming(StoreServiceTests.querySamples, request: samples) {}
        }
        #expect(sampleError?.code == .invalidArgument)
        #expect(sampleError?.detail?.field == "type" && sampleError?.detail?.value == typo)

        var anchored = Salus_V1_AnchoredQueryRequest()
        var known = Salus_V1_TypedPredicate()
        known.type = StoreServiceTests.steps
        var unknown = Salus_V1_TypedPredicate()
        unknown.type = typo
        anchored.descriptors = [known, unknown]
        let anchoredError = await #expect(throws: RPCError.self) {
            for try await _ in try client.serverStreaming(StoreServiceTests.queryAnchored, request: anchored) {}
        }
        #expect(anchoredError?.detail?.field == "descriptors[1].type" && anchoredError?.detail?.value == typo)

        var sources = Salus_V1_SourceQueryRequest()
        sources.type = typo
        let sourceError = await #expect(throws: RPCError.self) {
            let _: Salus_V1_SourceQueryResponse = try await client.unary(StoreServiceTests.querySources, request: sources)
        }
        #expect(sourceError?.detail?.field == "type")

        var observe = Salus_V1_ObserverRequest()
        observe.descriptors = [unknown]
        let observeError = await #expect(throws: RPCError.self) {
            for try await _ in try client.serverStreaming(StoreServiceTests.observe, request: observe) {}
        }
        #expect(observeError?.detail?.field == "descriptors[0].type")

        var delete = Salus_V1_DeleteRequest()
        delete.matching = unknown
        let deleteError = await #expect(throws: RPCError.self) {
            let _: Salus_V1_DeleteResponse = try await client.unary(StoreServiceTests.delete, request: delete)
        }
        #expect(deleteError?.detail?.field == "matching.type")
        await client.close()
        await server.stop()
    }
}
