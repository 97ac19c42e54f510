import Foundation
import SalusProto
import SalusRPC
import Testing

/// `salusctl me` and `salusctl summary` against a running daemon with the bundled plugins.
@Suite("Characteristics and activity summaries on a running daemon")
struct PersonDaemonTests {
    @Test("salusctl me set/show/clear and salusctl summary --days 7 with goals")
    func meAndSummary() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let ctl = { (arguments: [String]) in try await StatisticsDaemonTests.salusctl(daemon, arguments) }

        let blood = try await ctl(["me", "set", "bloodType", "oNegative"])
        #expect(blood.status == 0, "\(blood.output)")
        #expect(try await ctl(["me", "set", "dateOfBirth", "1984-02-29"]).status == 0)
        let wrong = try await ctl(["me", "set", "bloodType", "purple"])
        #expect(wrong.status != 0)
        #expect(wrong.output.contains("oNegative (8)"), "the error lists the cases: \(wrong.output)")
        let future = try await ctl(["me", "set", "dateOfBirth", "2999-01-01"])
        #expect(future.status != 0 && future.output.contains("set[0].dateValue"), "\(future.output)")

        let shown = try await ctl(["me", "show", "--json"])
        #expect(shown.status == 0, "\(shown.output)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shown.output.utf8)) as? [String: Any])
        let bloodType = try #require(object["HKCharacteristicTypeIdentifierBloodType"] as? [String: Any])
        #expect(bloodType["name"] as? String == "oNegative" && bloodType["rawValue"] as? Int == 8)
        #expect((object["HKCharacteristicTypeIdentifierDateOfBirth"] as? [String: Any])?["date"] as? String == "1984-02-29")
        #expect(object["HKCharacteristicTypeIdentifierFitzpatrickSkinType"] is NSNull)
        #expect(try await ctl(["me", "clear", "bloodType"]).output.contains("not set"))

        // Half an hour of exercise today (UTC), with a 45-minute goal from today.
        let goals = try await ctl(["summary", "goals", "--time-zone", "UTC", "--exercise", "45"])
        #expect(goals.status == 0 && goals.output.contains("exercise 45 min"), "\(goals.output)")
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let midnight = calendar.startOfDay(for: Date())
        let start = Int64(midnight.timeIntervalSince1970 * 1_000_000) + 60_000_000
        var exercise = DaemonClients.stepSample(30, start: start, unit: "min")
        exercise.type = "HKQuantityTypeIdentifierAppleExerciseTime"
        exercise.endDate = start + 1_800_000_000
        let app = try await DaemonClients.app(daemon, "org.example.watch")
        let _: Salus_V1_SaveResponse = try await app.unary(DaemonClients.save, request: DaemonClients.saveRequest([exercise]))

        let week = try await ctl(["summary", "--days", "7", "--json"])
        #expect(week.status == 0, "\(week.output)")
        let days = try StatisticsDaemonTests.daily(week.output)
        try #require(days.count == 7)
        #expect(days.last?["appleExerciseTime"] as? Double == 30)
        #expect(days.last?["appleExerciseTimeGoal"] as? Double == 45)
        #expect(days.first?["appleExerciseTimeGoal"] as? Double == 30, "the default before the new goal")
        let table = try await ctl(["summary"])
        #expect(table.output.contains("30/45 min"), "\(table.output)")

        await app.close()
        #expect(try await daemon.stop() == 0)
    }
}
