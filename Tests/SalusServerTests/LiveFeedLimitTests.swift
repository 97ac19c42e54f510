import Foundation
import SalusProto
import SalusRPC
import Testing

/// `AnchoredQueryRequest.limit` with and without `live` (store.proto): a limited query answers
/// one page and says whether more changes are there; a live feed is not limited.
@Suite("salus.v1.Store anchored limit")
struct LiveFeedLimitTests {
    @Test("a limit pages a one-time anchored query; a live feed with the same limit sends every change, then later ones")
    func limitWithAndWithoutLive() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let writer = try await StoreServiceTests.app(server, "org.example.writer")
        let reader = try await StoreServiceTests.app(server, "org.example.reader")
        let first: Int64 = 1_700_000_000_000_000
        let _: Salus_V1_SaveResponse = try await writer.unary(
            StoreServiceTests.save,
            request: StoreServiceTests.saveRequest((0..<5).map { StoreServiceTests.stepSample(Double($0), start: first + Int64($0) * 60_000_000) }))
        var request = Salus_V1_AnchoredQueryRequest()
        var descriptor = Salus_V1_TypedPredicate()
        descriptor.type = StoreServiceTests.steps
        request.descriptors = [descriptor]
        request.limit = 2

        var once: [Salus_V1_AnchoredBatch] = []
        for try await batch in try reader.serverStreaming(StoreServiceTests.queryAnchored, request: request) { once.append(batch) }
        #expect(once.flatMap(\.added).map(\.quantity.value) == [0, 1])
        #expect(once.last?.moreChanges == true)
        #expect(once.last?.initialResultsComplete == true)

        request.live = true
        let live = try reader.serverStreaming(StoreServiceTests.queryAnchored, request: request)
        var batches = live.makeAsyncIterator()
        var initial: [Double] = []
        while let batch = try await batches.next() {
            initial += batch.added.map(\.quantity.value)
            #expect(!batch.moreChanges)
            if batch.initialResultsComplete { break }
        }
        #expect(initial == [0, 1, 2, 3, 4])
        let _: Salus_V1_SaveResponse = try await writer.unary(
            StoreServiceTests.save, request: StoreServiceTests.saveRequest([StoreServiceTests.stepSample(5, start: first + 5 * 60_000_000)]))
        let later = try #require(try await batches.next())
        #expect(later.added.map(\.quantity.value) == [5])
        #expect(!later.initialResultsComplete && !later.moreChanges)
        live.cancel()
        await writer.close()
        await reader.close()
        await server.stop()
    }
}
