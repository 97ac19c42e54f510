import Foundation
import SalusAdmin
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// The person through the owner's client in process: what `salusctl me` and `salusctl summary`
/// set, read and print as JSON.
@Suite("AdminClient: characteristics, activity goals and summaries")
struct AdminClientPersonTests {
    static let bloodType = "HKCharacteristicTypeIdentifierBloodType"
    static let dateOfBirth = "HKCharacteristicTypeIdentifierDateOfBirth"
    static let skinType = "HKCharacteristicTypeIdentifierFitzpatrickSkinType"

    @Test("characteristics set, shown as JSON (case name and raw value, the day, null when not set) and cleared; a day in the future is refused naming set[0].dateValue and changes nothing")
    func characteristics() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let types = try await admin.types().types.filter { $0.kind == .characteristic }
        #expect(types.contains { $0.identifier == Self.bloodType && $0.cases.contains(TypeValueCase(name: "oNegative", rawValue: 8)) })
        #expect(types.first { $0.identifier == Self.dateOfBirth }?.characteristicValue == .date)

        let afterBlood = try await admin.setCharacteristic(Self.bloodType, to: .enumeration(8))
        #expect(afterBlood.first { $0.type.rawValue == Self.bloodType }?.value == .enumeration(8))
        try await admin.setCharacteristic(Self.dateOfBirth, to: .date(CalendarDate(year: 1984, month: 2, day: 29)))

        var refusal: SalusError?
        do {
            try await admin.setCharacteristic(Self.dateOfBirth, to: .date(CalendarDate(year: 2999, month: 1, day: 1)))
        } catch {
            refusal = error as? SalusError
        }
        #expect(refusal?.code == .invalidArgument)
        #expect(refusal?.field == "set[0].dateValue", "\(String(describing: refusal))")

        let shown = try await admin.characteristics()
        #expect(shown.first { $0.type.rawValue == Self.dateOfBirth }?.value == .date(CalendarDate(year: 1984, month: 2, day: 29)))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(AdminJSON.text(characteristics: shown, types: types).utf8)) as? [String: Any])
        let blood = try #require(object[Self.bloodType] as? [String: Any])
        #expect(blood["name"] as? String == "oNegative" && blood["rawValue"] as? Int == 8)
        #expect((object[Self.dateOfBirth] as? [String: Any])?["date"] as? String == "1984-02-29")
        #expect(object[Self.skinType] is NSNull)

        let cleared = try await admin.clearCharacteristic(Self.bloodType)
        #expect(cleared.contains { $0.type.rawValue == Self.bloodType && $0.value == nil })
        #expect(try await admin.characteristics([Self.bloodType]).map(\.value) == [nil])
        await admin.close()
    }

    @Test("new goals from today in a time zone set; a week of summaries counts an app's exercise today against the new goal, the days before against the default; the JSON carries the figures and goals")
    func goalsAndSummaries() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let before = try await admin.activitySettings()
        #expect(before.goals.isEmpty)
        #expect(before.defaultGoals.appleExerciseTime == 30)
        let utc = TimeZone(identifier: "UTC")!
        let current = before.currentGoals
        let settings = try await admin.setActivitySettings(
            goals: NewActivityGoals(
                activeEnergyBurned: current.activeEnergyBurned, appleMoveTime: current.appleMoveTime, appleExerciseTime: 45,
                appleStandHours: current.appleStandHours),
            timeZone: "UTC")
        #expect(settings.timeZone == utc.identifier, "the daemon keeps the zone's own name")
        #expect(settings.currentGoals.appleExerciseTime == 45)
        #expect(settings.goals.count == 1)
        #expect(try await admin.activitySettings() == settings)

        // Half an hour of exercise today (UTC).
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let midnight = calendar.startOfDay(for: Date())
        var exercise = Salus_V1_Sample()
        exercise.type = "HKQuantityTypeIdentifierAppleExerciseTime"
        exercise.startDate = Int64(midnight.timeIntervalSince1970 * 1_000_000) + 60_000_000
        exercise.endDate = exercise.startDate + 1_800_000_000
        exercise.quantity.value = 30
        exercise.quantity.unit = "min"
        let app = try await server.app("org.example.watch")
        var save = Salus_V1_SaveRequest()
        save.samples = [exercise]
        _ = try await app.unary(SalusMethods.Store.save, request: save)

        let today = CalendarDate(containing: Date(), in: utc)
        let first = CalendarDate(containing: calendar.date(byAdding: .day, value: -6, to: midnight)!, in: utc)
        let week = try await admin.activitySummaries(from: first, to: today, timeZone: utc)
        try #require(week.count == 7)
        #expect(week.last?.date == today)
        #expect(week.last?.appleExerciseTime == 30)
        #expect(week.last?.goals.appleExerciseTime == 45)
        #expect(week.first?.goals.appleExerciseTime == 30, "the default before the new goal")

        let days = try #require(try JSONSerialization.jsonObject(with: Data(AdminJSON.text(summaries: week).utf8)) as? [[String: Any]])
        #expect(days.count == 7)
        #expect(days.last?["appleExerciseTime"] as? Double == 30)
        #expect(days.last?["appleExerciseTimeGoal"] as? Double == 45)
        #expect(days.first?["appleExerciseTimeGoal"] as? Double == 30)
        #expect(days.last?["date"] as? String == AdminJSON.day(today))
        #expect(days.last?["timeZone"] as? String == utc.identifier)
        #expect(days.last?["startDate"] as? Int64 == Int64(midnight.timeIntervalSince1970 * 1_000_000))
        await app.close()
        await admin.close()
    }
}
