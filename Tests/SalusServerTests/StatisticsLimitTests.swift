import Foundation
import SalusProto
import SalusRPC
import Testing

/// Requests at the edges of what statistics compute: refused naming the field, and the daemon
/// serves on.
@Suite("Statistics requests at the limits")
struct StatisticsLimitTests {
    static let collection = SalusMethods.Statistics.queryCollection

    static func daily() -> Salus_V1_StatisticsCollectionRequest {
        var request = Salus_V1_StatisticsCollectionRequest()
        request.type = StoreServiceTests.steps
        request.options = [.cumulativeSum]
        request.anchorDate = StatisticsServiceTests.paris(20, 0)
        request.intervalCount = 1
        request.intervalUnit = .day
        request.timeZone = "Europe/Paris"
        request.from = StatisticsServiceTests.paris(20, 0)
        request.to = StatisticsServiceTests.paris(23, 0)
        return request
    }

    static func collect(_ client: RPCClient, _ request: Salus_V1_StatisticsCollectionRequest) async throws -> [Salus_V1_StatisticsResult] {
        var results: [Salus_V1_StatisticsResult] = []
        for try await batch in try client.serverStreaming(collection, request: request) {
            results += batch.statistics
        }
        return results
    }

    @Test("dates outside years 1–9999, interval counts beyond 100 years and ranges of more than 100,000 intervals are refused by field")
    func limits() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        try await StatisticsServiceTests.fixture(server)
        let app = try await StoreServiceTests.app(server, "org.example.reader")

        var cases: [(String, Salus_V1_StatisticsCollectionRequest)] = []
        var request = Self.daily()
        request.from = .min
        cases.append(("from", request))
        request = Self.daily()
        request.to = .max
        cases.append(("to", request))
        request = Self.daily()
        request.anchorDate = .max
        cases.append(("anchorDate", request))
        request = Self.daily()
        request.intervalUnit = .month
        request.intervalCount = .max
        cases.append(("intervalCount", request))
        request = Self.daily()
        request.intervalUnit = .second
        request.to = request.from + 2 * 86_400 * 1_000_000
        cases.append(("to", request))
        for (field, request) in cases {
            let error = await #expect(throws: RPCError.self) { _ = try await Self.collect(app, request) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.hasPrefix("\(field):") == true, "\(field): \(String(describing: error))")
        }

        var window = Salus_V1_StatisticsRequest()
        window.type = StoreServiceTests.steps
        window.options = [.cumulativeSum]
        window.windowStart = .min
        window.windowEnd = 0
        let error = await #expect(throws: RPCError.self) {
            let _: Salus_V1_StatisticsResponse = try await app.unary(StatisticsServiceTests.query, request: window)
        }
        #expect(error?.message.hasPrefix("windowStart:") == true, "\(String(describing: error))")

        // Still serving: the fixture's days (no priority: the watch, saved last, wins the overlap).
        #expect(try await Self.collect(app, Self.daily()).map { $0.values.sum } == [5400, 300, 0])
        await app.close()
        await server.stop()
    }
}
