import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Merged statistics, in process: a phone and a watch that counted the same walk.
@Suite("salus.v1.Statistics")
struct StatisticsServiceTests {
    static let phone = StatisticsWalk.phone
    static let watch = StatisticsWalk.watch
    static let query = SalusMethods.Statistics.query

    static var paris: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = StatisticsWalk.timeZone
        return calendar
    }

    /// Microseconds since the epoch of a wall-clock time in Paris.
    static func paris(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        StatisticsWalk.microseconds(day, hour, minute)
    }

    /// The fixture of docs/statistics.md (`StatisticsWalk`), saved by the phone and the watch.
    static func fixture(_ server: ServerHarness) async throws {
        let phone = try await StoreServiceTests.app(server, Self.phone)
        let watch = try await StoreServiceTests.app(server, Self.watch)
        let _: Salus_V1_SaveResponse = try await phone.unary(StoreServiceTests.save, request: StatisticsWalk.saveRequest(StatisticsWalk.phoneWalks))
        let _: Salus_V1_SaveResponse = try await watch.unary(StoreServiceTests.save, request: StatisticsWalk.saveRequest(StatisticsWalk.watchWalks))
        await phone.close()
        await watch.close()
    }

    @Test("an app queries merged statistics on the app socket; refusals name the field")
    func appSocket() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        try await Self.fixture(server)
        let app = try await StoreServiceTests.app(server, "org.example.reader")
        var request = Salus_V1_StatisticsRequest()
        request.type = StoreServiceTests.steps
        request.options = [.cumulativeSum]
        request.windowStart = Self.paris(20, 0)
        request.windowEnd = Self.paris(21, 0)
        // No priority set: the most recently saved (the watch) wins the overlap: 1500 + 2400 + 1200 + 300.
        let response: Salus_V1_StatisticsResponse = try await app.unary(Self.query, request: request)
        #expect(response.statistics.values.sum == 5400)
        #expect(response.statistics.unit == "count")

        request.options = [.cumulativeSum, .discreteAverage]
        await #expect(throws: RPCError.self) {
            let _: Salus_V1_StatisticsResponse = try await app.unary(Self.query, request: request)
        }
        do {
            let _: Salus_V1_StatisticsResponse = try await app.unary(Self.query, request: request)
        } catch let error as RPCError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("cumulativeSum cannot be combined with discreteAverage"), "\(error.message)")
        }
        await app.close()
    }
}
