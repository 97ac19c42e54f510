import Foundation
import SalusProto
import SalusRPC
import Testing

/// Merged statistics, in process: a phone and a watch that counted the same walk.
@Suite("salus.v1.Statistics")
struct StatisticsServiceTests {
    static let phone = "org.example.phone"
    static let watch = "org.example.watch"
    static let query = SalusMethods.Statistics.query

    static var paris: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Paris")!
        return calendar
    }

    /// Microseconds since the epoch of a wall-clock time in Paris.
    static func paris(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        let date = paris.date(from: DateComponents(year: 2026, month: 11, day: day, hour: hour, minute: minute))!
        return Int64(date.timeIntervalSince1970 * 1_000_000)
    }

    static func steps(_ count: Double, from start: Int64, to end: Int64) -> Salus_V1_Sample {
        var sample = StoreServiceTests.stepSample(count, start: start)
        sample.endDate = end
        return sample
    }

    /// The fixture of docs/statistics.md, in Europe/Paris:
    /// phone 3000 steps 09:00–10:00 and 1200 steps 18:00–18:30 on the 20th;
    /// watch 2400 steps 09:30–10:30 on the 20th and 600 steps 23:30–00:30 across midnight.
    static func fixture(_ server: ServerHarness) async throws {
        let phone = try await StoreServiceTests.app(server, Self.phone)
        let watch = try await StoreServiceTests.app(server, Self.watch)
        let _: Salus_V1_SaveResponse = try await phone.unary(StoreServiceTests.save, request: StoreServiceTests.saveRequest([
            steps(3000, from: paris(20, 9), to: paris(20, 10)),
            steps(1200, from: paris(20, 18), to: paris(20, 18, 30)),
        ]))
        let _: Salus_V1_SaveResponse = try await watch.unary(StoreServiceTests.save, request: StoreServiceTests.saveRequest([
            steps(2400, from: paris(20, 9, 30), to: paris(20, 10, 30)),
            steps(600, from: paris(20, 23, 30), to: paris(21, 0, 30)),
        ]))
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
