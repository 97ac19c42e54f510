import Foundation
import SalusSpawn
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The SleepDiary example end to end against a real daemon, and the owner browsing what it
/// saved with `salusctl samples`.
@Suite("SleepDiary example and salusctl samples")
struct SleepDiaryTests {
    static let diary = DaemonHarness.binary("SleepDiary")
    static let salusctl = DaemonHarness.binary("salusctl")

    static func diary(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(diary, arguments, environment: ["SALUS_SOCKET": daemon.socketPath], timeout: .seconds(60))
    }

    static func salusctl(_ daemon: DaemonHarness, _ arguments: [String]) async throws -> CommandResult {
        try await DaemonHarness.run(salusctl, arguments + ["--admin-socket", daemon.adminSocketPath], timeout: .seconds(60))
    }

    @Test("night saves the stages, reads back only REM, then all asleep values; saving it again keeps what is there")
    func night() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let first = try await Self.diary(daemon, ["night", "--date", "2026-11-20", "--time-zone", "Europe/Paris"])
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("night of 2026-11-20 (Europe/Paris): saved 13, kept 0 existing of 13 samples"))
        #expect(first.output.contains("REM: 3 samples, 130 min"))
        #expect(first.output.contains("asleep: 9 samples, 445 min"))
        #expect(first.output.contains("01:15–01:45 asleepREM"), "times in the night's own time zone")
        let lines = first.output.split(separator: "\n")
        let remSection = lines.drop { $0 != "REM only:" }.dropFirst().prefix { $0.hasPrefix("  ") }
        #expect(remSection.count == 3)
        #expect(remSection.allSatisfy { $0.contains("asleepREM") })

        let again = try await Self.diary(daemon, ["night", "--date", "2026-11-20", "--time-zone", "Europe/Paris"])
        #expect(again.output.contains("saved 0, kept 13 existing of 13 samples"), "\(again.output)")

        let bad = try await Self.diary(daemon, ["night", "--time-zone", "Mars/Olympus"])
        #expect(bad.status == 1)
        #expect(bad.output.contains("--time-zone: \"Mars/Olympus\" is not a time zone"))
        #expect(try await daemon.stop() == 0)
    }

    @Test("follow sees what a second process adds and deletes, live")
    func follow() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        #expect(try await Self.diary(daemon, ["night", "--date", "2026-11-20"]).status == 0)

        let follower = try BackgroundProgram(
            Self.diary, ["follow", "--updates", "2", "--socket", daemon.socketPath],
            log: daemon.directory.appendingPathComponent("follow.log"))
        try await follower.wait(for: "following sleep analysis")
        #expect(follower.output.contains("initial: 13 added, 0 deleted"), "\(follower.output)")

        let added = try await Self.diary(daemon, ["add", "--stage", "rem", "--start", "2026-11-21T05:10:00Z", "--minutes", "25"])
        #expect(added.status == 0, "\(added.output)")
        let uuid = try #require(added.output.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let deleted = try await Self.diary(daemon, ["delete", uuid])
        #expect(deleted.output.contains("deleted 1 sample: \(uuid)"), "\(deleted.output)")

        #expect(try await follower.waitForExit() == .exited(0), "follow --updates 2 ends after two updates; output:\n\(follower.output)")
        let text = follower.output
        #expect(text.contains("+ 05:10–05:35 asleepREM") || text.contains("asleepREM         25 min  \(uuid)"), "\(text)")
        #expect(text.contains("- deleted \(uuid)"), "\(text)")
        let addLine = try #require(text.range(of: uuid))
        let deleteLine = try #require(text.range(of: "- deleted \(uuid)"))
        #expect(addLine.lowerBound < deleteLine.lowerBound, "the add comes before the delete")

        let refused = try await Self.diary(daemon, ["add", "--stage", "dreaming"])
        #expect(refused.status == 1)
        #expect(refused.output.contains("--stage: \"dreaming\" is not a sleep stage"))
        #expect(try await daemon.stop() == 0)
    }

    @Test("demo runs the whole story in one terminal, with a second process for the add and the delete")
    func demo() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let result = try await Self.diary(daemon, ["demo"])
        #expect(result.status == 0, "\(result.output)")
        for expected in ["saved 13", "REM: 3 samples, 130 min", "asleep: 9 samples, 445 min", "initial: 13 added", "$ sleepdiary add", "+ ", "- deleted "] {
            #expect(result.output.contains(expected), "missing \(expected) in:\n\(result.output)")
        }
        #expect(try await daemon.stop() == 0)
    }

    @Test("salusctl samples lists the diary's night by short name, as a table and as JSON; bad flags are named")
    func samplesCommand() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        #expect(try await Self.diary(daemon, ["night", "--date", "2026-11-20", "--time-zone", "Europe/Paris"]).status == 0)

        let table = try await Self.salusctl(daemon, ["samples", "sleepAnalysis"])
        #expect(table.status == 0, "\(table.output)")
        #expect(table.output.contains("START"))
        #expect(table.output.contains("asleepREM (5)"))
        #expect(table.output.contains("inBed (0)"))
        #expect(table.output.contains("org.example.sleepdiary"))
        #expect(table.output.contains("13 samples of HKCategoryTypeIdentifierSleepAnalysis"))

        let full = try await Self.salusctl(daemon, ["samples", "HKCategoryTypeIdentifierSleepAnalysis", "--limit", "2"])
        #expect(full.output.contains("2 samples of HKCategoryTypeIdentifierSleepAnalysis"), "\(full.output)")

        // 2026-11-20 21:30Z to 2026-11-21 05:45Z; --since an instant after 05:00Z keeps the stages that end after it.
        let late = try await Self.salusctl(daemon, ["samples", "sleepAnalysis", "--since", "2026-11-21T05:00:00Z", "--json"])
        #expect(late.status == 0, "\(late.output)")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(late.output.utf8)) as? [[String: Any]])
        let names = array.compactMap { ($0["category"] as? [String: Any])?["name"] as? String }
        #expect(names == ["inBed", "asleepREM", "awake"], "\(late.output)")
        #expect(array.allSatisfy { ($0["sourceRevision"] as? [String: Any])?["appID"] as? String == "org.example.sleepdiary" })
        #expect(array.allSatisfy { ($0["metadata"] as? [String: Any])?["HKTimeZone"] as? String == "Europe/Paris" })

        let early = try await Self.salusctl(daemon, ["samples", "sleepAnalysis", "--until", "2026-11-20T22:00:00Z", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(early.output.utf8)) as? [Any])?.count == 3, "\(early.output)")
        let nobody = try await Self.salusctl(daemon, ["samples", "sleepAnalysis", "--source", "org.example.nobody"])
        #expect(nobody.output.contains("0 samples"), "\(nobody.output)")
        let byDay = try await Self.salusctl(daemon, ["samples", "sleepAnalysis", "--since", "2026-11-19", "--until", "2026-11-19", "--json"])
        #expect(byDay.output.trimmingCharacters(in: .whitespacesAndNewlines) == "[]", "\(byDay.output)")

        let badLimit = try await Self.salusctl(daemon, ["samples", "sleepAnalysis", "--limit", "0"])
        #expect(badLimit.status != 0)
        #expect(badLimit.output.contains("--limit: 0 is not valid"), "\(badLimit.output)")
        let badDate = try await Self.salusctl(daemon, ["samples", "sleepAnalysis", "--since", "yesterday"])
        #expect(badDate.status != 0)
        #expect(badDate.output.contains("--since: \"yesterday\" is not a date"), "\(badDate.output)")
        let badType = try await Self.salusctl(daemon, ["samples", "sleepAnalysi"])
        #expect(badType.status != 0)
        #expect(badType.output.contains("TYPE: no registered sample type \"sleepAnalysi\""), "\(badType.output)")
        #expect(badType.output.contains("HKCategoryTypeIdentifierSleepAnalysis"), "suggests the near name: \(badType.output)")
        #expect(try await daemon.stop() == 0)
    }
}
