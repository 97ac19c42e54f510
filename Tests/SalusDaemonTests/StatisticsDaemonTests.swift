import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Merged statistics through salusctl on a running daemon: a phone and a watch that counted the same walk.
@Suite("salusctl stats on a running daemon")
struct StatisticsDaemonTests {
    static let phone = StatisticsWalk.phone
    static let watch = StatisticsWalk.watch
    static let query = SalusMethods.Statistics.query

    /// The fixture of docs/statistics.md (`StatisticsWalk`), saved by the phone and the watch.
    static func fixture(_ daemon: DaemonHarness) async throws {
        let phone = try await DaemonClients.app(daemon, Self.phone)
        let watch = try await DaemonClients.app(daemon, Self.watch)
        let _: Salus_V1_SaveResponse = try await phone.unary(DaemonClients.save, request: StatisticsWalk.saveRequest(StatisticsWalk.phoneWalks))
        let _: Salus_V1_SaveResponse = try await watch.unary(DaemonClients.save, request: StatisticsWalk.saveRequest(StatisticsWalk.watchWalks))
        await phone.close()
        await watch.close()
    }

    static func salusctl(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(
            DaemonHarness.binDirectory.appendingPathComponent("salusctl"), arguments + ["--admin-socket", daemon.adminSocketPath],
            environment: ["TZ": "Europe/Paris"], timeout: .seconds(60))
    }

    static func daily(_ output: String) throws -> [[String: Any]] {
        try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
    }

    @Test("salusctl stats stepCount --interval day gives the hand-computed merged totals, following the priority")
    func dailyMergedTotals() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        try await Self.fixture(daemon)

        let set = try await Self.salusctl(daemon, ["priority", "set", "stepCount", Self.watch, Self.phone])
        #expect(set.status == 0, "\(set.output)")
        #expect(set.output.contains("1. \(Self.watch)"))
        let shown = try await Self.salusctl(daemon, ["priority", "show", "HKQuantityTypeIdentifierStepCount"])
        #expect(shown.output.contains("2. \(Self.phone)"), "\(shown.output)")

        // Watch first. 20th: phone 09:00–09:30 1500 + watch 2400 + phone 1200 + watch 23:30–24:00 300 = 5400;
        // 21st: watch 00:00–00:30 300; 22nd: nothing (listed, empty). A plain sum would say 7200.
        let arguments = ["stats", "stepCount", "--interval", "day", "--since", "2026-11-20", "--until", "2026-11-22"]
        let json = try await Self.salusctl(daemon, arguments + ["--json", "--by-source"])
        #expect(json.status == 0, "\(json.output)")
        let days = try Self.daily(json.output)
        #expect(days.count == 3)
        #expect(days.map { $0["sum"] as? Double } == [5400, 300, nil])
        #expect(days.first?["start"] as? String == "2026-11-20T00:00:00+0100")
        #expect(days.first?["sources"] as? [String] == [Self.phone, Self.watch])
        let bySource = days.first?["bySource"] as? [String: [String: Double]]
        #expect(bySource?[Self.phone]?["sum"] == 4200)
        #expect(bySource?[Self.watch]?["sum"] == 2700)

        let table = try await Self.salusctl(daemon, arguments)
        #expect(table.status == 0, "\(table.output)")
        #expect(table.output.contains("5400"))
        #expect(table.output.contains("merged sums in count"))

        // Phone first: 3000 + watch 10:00–10:30 1200 + 1200 + 300 = 5700 on the 20th.
        _ = try await Self.salusctl(daemon, ["priority", "set", "stepCount", Self.phone])
        let reranked = try Self.daily(try await Self.salusctl(daemon, arguments + ["--json"]).output)
        #expect(reranked.map { $0["sum"] as? Double } == [5700, 300, nil])

        // One window without --interval.
        let window = try await Self.salusctl(daemon, ["stats", "stepCount", "--since", "2026-11-20T09:00+01:00", "--until", "2026-11-20T10:00+01:00", "--json"])
        #expect(try Self.daily(window.output).first?["sum"] as? Double == 3000)
    }
}
