import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusSpawn
import SalusTestSupport
import Testing
@testable import WeeklyReport

#if canImport(Glibc)
import Glibc
#endif

/// The WeeklyReport example end to end: an anchored query's changes drive statistics
/// collections over just the changed days, and only days whose merged totals changed are sent.
@Suite("WeeklyReport example")
struct WeeklyReportTests: UsesStatisticsWalk {
    static let report = DaemonHarness.binary("WeeklyReport")

    /// The fixture of docs/statistics.md: phone 3000 steps 09:00–10:00 and 1200 steps
    /// 18:00–18:30 on the 20th; watch 2400 steps 09:30–10:30 and 600 steps 23:30–00:30 across
    /// midnight; the watch ranks first (set by the owner's client, as `salusctl priority set` does).
    static func fixture(_ daemon: DaemonHarness) async throws -> (phone: HealthStore, watch: HealthStore) {
        let phone = try await DaemonClients.store(daemon, Self.phone)
        let watch = try await DaemonClients.store(daemon, Self.watch)
        try await phone.save(StatisticsWalk.phoneWalks.map(\.sample))
        try await watch.save(StatisticsWalk.watchWalks.map(\.sample))
        let admin = try await AdminClient.connect(socketPath: daemon.adminSocketPath)
        try await admin.setSourcePriority([Self.watch, Self.phone], of: Authz.steps)
        await admin.close()
        return (phone, watch)
    }

    static func run(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(report, arguments, environment: ["SALUS_SOCKET": daemon.socketPath], timeout: .seconds(60))
    }

    /// The JSON lines of `output` (the report's notes on standard error are not JSON).
    static func days(_ output: String) -> [String: [String: Any]] {
        var days: [String: [String: Any]] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("{") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let day = object["day"] as? String {
                days[day] = object
            }
        }
        return days
    }

    static func totals(_ output: String) -> [String: Double] {
        days(output).compactMapValues { $0["steps"] as? Double }
    }

    /// The docs' phone and watch walk on the 20th (5400 with the watch first), plus phone 800
    /// steps on the 18th, watch 1000 on the 19th and 500 on Monday the 23rd (week 48).
    static func walks(_ daemon: DaemonHarness) async throws -> (phone: HealthStore, watch: HealthStore) {
        let (phone, watch) = try await Self.fixture(daemon)
        try await phone.save(steps(800, paris(18, 8, 0), paris(18, 9, 0)))
        try await watch.save([steps(1000, paris(19, 12, 0), paris(19, 13, 0)), steps(500, paris(23, 7, 0), paris(23, 8, 0))])
        return (phone, watch)
    }

    @Test("once reports every day, then from the saved anchor only the day whose total changed; deletions too")
    func once() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let (phone, watch) = try await Self.walks(daemon)
        let anchorFile = daemon.directory.appendingPathComponent("weekly.json").path
        let once = ["once", "--anchor-file", anchorFile, "--time-zone", "Europe/Paris"]

        let first = try await Self.run(daemon, once)
        #expect(first.status == 0, "\(first.output)")
        // The 21st holds the watch's 00:00–00:30 half of 600; the 22nd has no sample and is not sent.
        #expect(Self.totals(first.output) == ["2026-11-18": 800, "2026-11-19": 1000, "2026-11-20": 5400, "2026-11-21": 300, "2026-11-23": 500])
        let days = Self.days(first.output)
        #expect(days["2026-11-20"]?["sources"] as? [String] == [Self.phone, Self.watch])
        #expect(days["2026-11-20"]?["week"] as? String == "2026-W47")
        #expect(days["2026-11-23"]?["week"] as? String == "2026-W48")
        #expect(first.output.contains("5 days changed after anchor 0"), "\(first.output)")
        #expect(FileManager.default.fileExists(atPath: anchorFile))

        // Nothing new: nothing sent.
        let idle = try await Self.run(daemon, once)
        #expect(idle.status == 0, "\(idle.output)")
        #expect(Self.days(idle.output).isEmpty, "\(idle.output)")
        #expect(idle.output.contains("0 days changed"))

        // 250 steps on the 19th at 18:00, apart from the watch's hour: 1000 + 250.
        let evening = try await phone.save(Self.steps(250, Self.paris(19, 18, 0), Self.paris(19, 18, 20)))
        let second = try await Self.run(daemon, once)
        #expect(second.status == 0, "\(second.output)")
        #expect(Self.totals(second.output) == ["2026-11-19": 1250], "\(second.output)")
        #expect(Self.days(second.output)["2026-11-19"]?["sources"] as? [String] == [Self.phone, Self.watch])

        // A phone sample inside the watch's 09:30–10:30 on the 20th: the day is recomputed, its
        // merged total does not change, and nothing is sent.
        try await phone.save(Self.steps(100, Self.paris(20, 9, 40), Self.paris(20, 9, 50)))
        let covered = try await Self.run(daemon, once)
        #expect(Self.days(covered.output).isEmpty, "\(covered.output)")

        // Deleting the evening sample: the 19th is back to 1000, and only it is sent.
        try await phone.delete(uuids: [evening.uuid])
        let afterDelete = try await Self.run(daemon, once)
        #expect(Self.totals(afterDelete.output) == ["2026-11-19": 1000], "\(afterDelete.output)")

        // Without the file, everything is sent again.
        let fresh = try await Self.run(daemon, ["once", "--anchor-file", anchorFile + ".new", "--time-zone", "Europe/Paris"])
        #expect(Self.totals(fresh.output).count == 5, "\(fresh.output)")

        let missing = try await Self.run(daemon, ["once"])
        #expect(missing.status == 1)
        #expect(missing.output.contains("--anchor-file: missing"), "\(missing.output)")
        let zone = try await Self.run(daemon, once.dropLast() + ["Mars/Olympus"])
        #expect(zone.status == 1)
        #expect(zone.output.contains("--time-zone: \"Mars/Olympus\" is not a time zone"), "\(zone.output)")

        await phone.close()
        await watch.close()
        #expect(try await daemon.stop() == 0)
    }

    @Test("a sample touches every day it overlaps, in the report's time zone; affected days are queried in runs of consecutive days")
    func affectedDays() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.paris
        let acrossMidnight = Self.steps(600, Self.paris(20, 23, 30), Self.paris(21, 0, 30))
        #expect(Report.days(of: acrossMidnight, in: calendar) == [Self.paris(20, 0, 0), Self.paris(21, 0, 0)])
        let toMidnight = Self.steps(100, Self.paris(20, 23, 0), Self.paris(21, 0, 0))
        #expect(Report.days(of: toMidnight, in: calendar) == [Self.paris(20, 0, 0)], "the end is exclusive")
        let instant = Self.steps(5, Self.paris(21, 0, 0), Self.paris(21, 0, 0))
        #expect(Report.days(of: instant, in: calendar) == [Self.paris(21, 0, 0)])
        let threeDays = Self.steps(3, Self.paris(18, 12, 0), Self.paris(20, 12, 0))
        #expect(Report.days(of: threeDays, in: calendar).count == 3)

        let runs = Report.runs(of: [18, 19, 20, 23, 25].map { Self.paris($0, 0, 0) }, in: calendar)
        #expect(runs.map(\.start) == [Self.paris(18, 0, 0), Self.paris(23, 0, 0), Self.paris(25, 0, 0)])
        #expect(runs.map(\.end) == [Self.paris(21, 0, 0), Self.paris(24, 0, 0), Self.paris(26, 0, 0)])
        #expect(Report.week(of: Self.paris(22, 0, 0), in: calendar) == "2026-W47")
        #expect(Report.week(of: Self.paris(23, 0, 0), in: calendar) == "2026-W48")
    }

    @Test("follow sends every day, then the day a later save changes, live")
    func follow() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let (phone, watch) = try await Self.walks(daemon)

        let follower = try BackgroundProgram(
            Self.report, ["follow", "--updates", "1", "--time-zone", "Europe/Paris", "--socket", daemon.socketPath],
            log: daemon.directory.appendingPathComponent("follow.log"))
        try await follower.wait(for: "following step count")
        #expect(Self.totals(follower.output).count == 5, "\(follower.output)")

        // 600 steps on Sunday the 22nd, then the process ends after that one update.
        try await watch.save(Self.steps(600, Self.paris(22, 10, 0), Self.paris(22, 11, 0)))
        #expect(try await follower.waitForExit() == .exited(0), "follow --updates 1 ends after one update; output:\n\(follower.output)")
        let lines = follower.output.split(separator: "\n").filter { $0.hasPrefix("{") }
        #expect(lines.count == 6, "five days, then the 22nd: \(follower.output)")
        #expect(lines.last?.contains("\"day\":\"2026-11-22\"") == true)
        #expect(Self.totals(String(lines.last ?? "")) == ["2026-11-22": 600])

        await phone.close()
        await watch.close()
        #expect(try await daemon.stop() == 0)
    }
}
