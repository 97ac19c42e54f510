import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Merged statistics through the owner's client in process, what `salusctl stats` shows: a
/// phone and a watch that counted the same walk (docs/statistics.md, `StatisticsWalk`).
@Suite("AdminClient: merged statistics")
struct AdminClientStatisticsTests {
    static let phone = StatisticsWalk.phone
    static let watch = StatisticsWalk.watch
    static let steps = "HKQuantityTypeIdentifierStepCount"

    static func fixture(_ server: ServerHarness) async throws {
        for (app, walks) in [(phone, StatisticsWalk.phoneWalks), (watch, StatisticsWalk.watchWalks)] {
            let client = try await server.app(app)
            _ = try await client.unary(SalusMethods.Store.save, request: StatisticsWalk.saveRequest(walks))
            await client.close()
        }
    }

    @Test("daily merged totals follow the source priority (empty days listed), by source too; the JSON has the local start, the sources and each source's sum; a window without intervals")
    func dailyMergedTotals() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        try await Self.fixture(server)
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let paris = StatisticsWalk.timeZone
        let from = StatisticsWalk.date(20)
        let to = StatisticsWalk.date(23)

        #expect(try await admin.setSourcePriority([Self.watch, Self.phone], of: Self.steps).sources == [Self.watch, Self.phone])

        // Watch first. 20th: phone 09:00–09:30 1500 + watch 2400 + phone 1200 + watch 23:30–24:00 300 = 5400;
        // 21st: watch 00:00–00:30 300; 22nd: nothing (listed, empty). A plain sum would say 7200.
        let days = try await admin.statisticsCollection(
            of: Self.steps, options: [.cumulativeSum, .separateBySource], interval: .day, from: from, to: to, timeZone: paris)
        #expect(days.map(\.values.sum) == [5400, 300, nil])
        #expect(days.map(\.startDate) == [StatisticsWalk.date(20), StatisticsWalk.date(21), StatisticsWalk.date(22)])
        #expect(days.first?.unit == "count")
        #expect(days.first?.sources == [Self.phone, Self.watch])
        #expect(days.first?.bySource[Self.phone]?.sum == 4200)
        #expect(days.first?.bySource[Self.watch]?.sum == 2700)

        let json = try #require(try JSONSerialization.jsonObject(with: Data(AdminJSON.text(statistics: days, timeZone: paris).utf8)) as? [[String: Any]])
        #expect(json.map { $0["sum"] as? Double } == [5400, 300, nil])
        #expect(json.first?["start"] as? String == "2026-11-20T00:00:00+0100")
        #expect(json.first?["unit"] as? String == "count")
        #expect(json.first?["sources"] as? [String] == [Self.phone, Self.watch])
        let bySource = json.first?["bySource"] as? [String: [String: Double]]
        #expect(bySource?[Self.phone]?["sum"] == 4200)
        #expect(bySource?[Self.watch]?["sum"] == 2700)
        #expect(json.last?["bySource"] == nil || (json.last?["bySource"] as? [String: Any])?.isEmpty == true)

        // Phone first: 3000 + watch 10:00–10:30 1200 + 1200 + 300 = 5700 on the 20th.
        _ = try await admin.setSourcePriority([Self.phone], of: Self.steps)
        let reranked = try await admin.statisticsCollection(of: Self.steps, options: .cumulativeSum, interval: .day, from: from, to: to, timeZone: paris)
        #expect(reranked.map(\.values.sum) == [5700, 300, nil])
        #expect(reranked.allSatisfy { $0.bySource.isEmpty })

        // One window without intervals.
        let window = try await admin.statistics(
            of: Self.steps, options: .cumulativeSum, window: DateInterval(start: StatisticsWalk.date(20, 9), end: StatisticsWalk.date(20, 10)))
        #expect(window.values.sum == 3000)
        #expect(window.hasPeriod)

        // Weeks from Monday, months from the 1st, hours from midnight, in the zone asked.
        let week = try await admin.statisticsCollection(of: Self.steps, options: .cumulativeSum, interval: .week, from: from, to: to, timeZone: paris)
        #expect(week.first?.startDate == StatisticsWalk.date(16), "Monday 16 November")
        #expect(abs((week.first?.values.sum ?? 0) - 6000) < 1e-6, "the 20th and the 21st: \(week)")
        let month = try await admin.statisticsCollection(of: Self.steps, options: .cumulativeSum, interval: .month, from: from, to: to, timeZone: paris)
        #expect(month.first?.startDate == StatisticsWalk.date(1))
        let hours = try await admin.statisticsCollection(
            of: Self.steps, options: .cumulativeSum, interval: .hour, from: StatisticsWalk.date(20, 9), to: StatisticsWalk.date(20, 11), timeZone: paris)
        #expect(hours.map(\.startDate) == [StatisticsWalk.date(20, 9), StatisticsWalk.date(20, 10)])
        #expect(hours.map(\.values.sum) == [3000, 1200], "phone first: its 3000 fill 09:00–10:00, the watch's 10:00–10:30 half counts")
        await admin.close()
    }

    @Test("a unit of another dimension is refused as an invalid argument; a window-less query of an empty store has no period and no sum")
    func refusals() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        var refusal: SalusError?
        do {
            _ = try await admin.statistics(of: Self.steps, options: .cumulativeSum, unit: "kg")
        } catch {
            refusal = error as? SalusError
        }
        #expect(refusal?.code == .invalidArgument, "\(String(describing: refusal))")
        let empty = try await admin.statistics(of: Self.steps, options: .cumulativeSum)
        #expect(!empty.hasPeriod)
        #expect(empty.values.sum == nil)
        await admin.close()
    }
}
