import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Statistics use only the samples the caller may read.
@Suite("Statistics under authorization")
struct StatisticsAuthorizationTests {
    static func sum(_ client: RPCClient) async throws -> Double? {
        var request = Salus_V1_StatisticsRequest()
        request.type = Authz.steps
        request.options = [.cumulativeSum, .separateBySource]
        request.windowStart = StatisticsServiceTests.paris(20, 0)
        request.windowEnd = StatisticsServiceTests.paris(21, 0)
        let response: Salus_V1_StatisticsResponse = try await client.unary(StatisticsServiceTests.query, request: request)
        return response.statistics.values.optionalSum != nil ? response.statistics.values.sum : nil
    }

    @Test("an app without read access gets statistics of its own samples only; with read, the merged total; with nothing, empty")
    func ownContributionsOnly() async throws {
        let server = try await ServerHarness.start()
        let owner = try await Authz.owner(server)
        for app in [StatisticsServiceTests.phone, StatisticsServiceTests.watch, "org.example.reader", "org.example.stranger"] {
            try await Authz.register(owner, app)
        }
        try await Authz.grant(owner, StatisticsServiceTests.phone, Authz.steps, read: nil, share: .granted)
        try await Authz.grant(owner, StatisticsServiceTests.watch, Authz.steps, read: nil, share: .granted)
        try await Authz.grant(owner, "org.example.reader", Authz.steps, read: .granted, share: nil)
        try await StatisticsServiceTests.fixture(server)

        let phone = try await Authz.app(server, StatisticsServiceTests.phone)
        let reader = try await Authz.app(server, "org.example.reader")
        let stranger = try await Authz.app(server, "org.example.stranger")
        // The phone's own samples on the 20th: 3000 + 1200.
        #expect(try await Self.sum(phone) == 4200)
        // Everything, merged (the watch saved last wins the overlap): 1500 + 2400 + 1200 + 300.
        #expect(try await Self.sum(reader) == 5400)
        #expect(try await Self.sum(stranger) == nil)
        await phone.close()
        await reader.close()
        await stranger.close()
        await owner.close()
    }
}
