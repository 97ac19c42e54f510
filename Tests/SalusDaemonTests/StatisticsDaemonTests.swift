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

    // What the daemon computes (merged totals by priority, by source, characteristics, goals
    // and summaries) and the JSON of `stats`, `me` and `summary` are tested in process:
    // AdminClientStatisticsTests and AdminClientPersonTests. This test keeps what needs the
    // process: the text printed at the terminal, the local time zone from TZ, the exit codes.
    @Test("salusctl stats, me and summary print their tables in the local zone; a value a characteristic lacks exits non-zero listing its cases")
    func terminalOutput() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        try await Self.fixture(daemon)
        let ctl = { (arguments: [String]) in try await Self.salusctl(daemon, arguments) }

        let set = try await ctl(["priority", "set", "stepCount", Self.watch, Self.phone])
        #expect(set.status == 0, "\(set.output)")
        #expect(set.output.contains("1. \(Self.watch)"))
        let shown = try await ctl(["priority", "show", "HKQuantityTypeIdentifierStepCount"])
        #expect(shown.output.contains("2. \(Self.phone)"), "\(shown.output)")

        // Days in TZ=Europe/Paris: the 20th holds 5400 merged steps.
        let arguments = ["stats", "stepCount", "--interval", "day", "--since", "2026-11-20", "--until", "2026-11-22"]
        let json = try Self.daily(try await ctl(arguments + ["--json"]).output)
        #expect(json.map { $0["sum"] as? Double } == [5400, 300, nil])
        #expect(json.first?["start"] as? String == "2026-11-20T00:00:00+0100")
        let table = try await ctl(arguments)
        #expect(table.status == 0, "\(table.output)")
        #expect(table.output.contains("5400"))
        #expect(table.output.contains("merged sums in count"))
        let window = try await ctl(["stats", "stepCount", "--since", "2026-11-20T09:00+01:00", "--until", "2026-11-20T10:00+01:00", "--json"])
        #expect(try Self.daily(window.output).first?["sum"] as? Double == 1500 + 1200, "watch first: the phone's 09:00–09:30 half and the watch's 09:30–10:00 half")

        #expect(try await ctl(["me", "set", "bloodType", "oNegative"]).status == 0)
        let wrong = try await ctl(["me", "set", "bloodType", "purple"])
        #expect(wrong.status != 0)
        #expect(wrong.output.contains("oNegative (8)"), "the error lists the cases: \(wrong.output)")
        let future = try await ctl(["me", "set", "dateOfBirth", "2999-01-01"])
        #expect(future.status != 0 && future.output.contains("set[0].dateValue"), "\(future.output)")
        #expect(try await ctl(["me", "show"]).output.contains("oNegative (8)"))
        #expect(try await ctl(["me", "clear", "bloodType"]).output.contains("not set"))

        // Half an hour of exercise today (UTC), with a 45-minute goal from today.
        let goals = try await ctl(["summary", "goals", "--time-zone", "UTC", "--exercise", "45"])
        #expect(goals.status == 0 && goals.output.contains("exercise 45 min"), "\(goals.output)")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let start = Int64(calendar.startOfDay(for: Date()).timeIntervalSince1970 * 1_000_000) + 60_000_000
        var exercise = DaemonClients.stepSample(30, start: start, unit: "min")
        exercise.type = "HKQuantityTypeIdentifierAppleExerciseTime"
        exercise.endDate = start + 1_800_000_000
        let app = try await DaemonClients.app(daemon, "org.example.watch")
        let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: DaemonClients.saveRequest([exercise]))
        await app.close()
        let week = try await ctl(["summary", "--days", "7", "--json"])
        #expect(try Self.daily(week.output).count == 7, "\(week.output)")
        let summary = try await ctl(["summary"])
        #expect(summary.output.contains("30/45 min"), "\(summary.output)")
        #expect(try await daemon.stop() == 0)
    }
}
