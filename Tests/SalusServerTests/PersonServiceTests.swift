import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// Characteristics and activity summaries (salus.v1.Person), in process.
@Suite("salus.v1.Person")
struct PersonServiceTests {
    static let bloodType = "HKCharacteristicTypeIdentifierBloodType"
    static let dateOfBirth = "HKCharacteristicTypeIdentifierDateOfBirth"
    static let wheelchairUse = "HKCharacteristicTypeIdentifierWheelchairUse"
    static let moveMode = "HKCharacteristicTypeIdentifierActivityMoveMode"
    static let summaryType = "HKActivitySummaryTypeIdentifier"

    static func enumValue(_ type: String, _ raw: Int64) -> Salus_V1_Characteristic {
        Salus_V1_Characteristic.with {
            $0.type = type
            $0.enumValue = raw
        }
    }

    static func date(_ year: Int32, _ month: Int32, _ day: Int32) -> Salus_V1_CalendarDate {
        Salus_V1_CalendarDate.with {
            $0.year = year
            $0.month = month
            $0.day = day
        }
    }

    static func set(_ client: RPCClient, _ values: [Salus_V1_Characteristic], clear: [String] = []) async throws -> Salus_V1_CharacteristicsResponse {
        try await client.unary(
            SalusMethods.Person.setCharacteristics,
            request: Salus_V1_SetCharacteristicsRequest.with {
                $0.set = values
                $0.clear = clear
            })
    }

    static func get(_ client: RPCClient, _ types: [String] = []) async throws -> [String: Salus_V1_Characteristic] {
        let response: Salus_V1_CharacteristicsResponse = try await client.unary(
            SalusMethods.Person.getCharacteristics, request: Salus_V1_CharacteristicsRequest.with { $0.types = types })
        return Dictionary(uniqueKeysWithValues: response.characteristics.map { ($0.type, $0) })
    }

    @Test("the owner sets characteristics; an app sees only those it may read, and never writes one")
    func characteristics() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        var birth = Salus_V1_Characteristic()
        birth.type = Self.dateOfBirth
        birth.dateValue = Self.date(1984, 2, 29)
        _ = try await Self.set(owner, [birth, Self.enumValue(Self.bloodType, 8), Self.enumValue(Self.wheelchairUse, 2)])
        let seen = try await Self.get(owner)
        #expect(seen[Self.dateOfBirth]?.dateValue == Self.date(1984, 2, 29))
        #expect(seen[Self.bloodType]?.enumValue == 8)
        #expect(seen[Self.wheelchairUse]?.enumValue == 2)
        #expect(seen[Self.moveMode]?.value == nil, "never set")

        // Without read permission: "not set", exactly as an unset one.
        try await Authz.register(owner, "org.example.nosy", type: Self.bloodType, read: .denied, share: nil)
        let nosy = try await server.app("org.example.nosy")
        let hidden = try await Self.get(nosy)
        #expect(hidden[Self.bloodType] != nil && hidden[Self.bloodType]?.value == nil)
        #expect(hidden[Self.dateOfBirth]?.value == nil)

        // Read permission for one characteristic shows that one only.
        try await Authz.register(owner, "org.example.clinic", type: Self.bloodType, read: .granted, share: nil)
        let clinic = try await server.app("org.example.clinic")
        let shown = try await Self.get(clinic, [Self.bloodType, Self.dateOfBirth])
        #expect(shown[Self.bloodType]?.enumValue == 8)
        #expect(shown[Self.dateOfBirth]?.value == nil)

        // An app never writes one, permission or not.
        let refused = await Authz.error { _ = try await Self.set(clinic, [Self.enumValue(Self.bloodType, 1)]) }
        #expect(refused?.code == .permissionDenied)
        #expect(refused?.detail?.value == Self.bloodType)
        let asSample = await Authz.error {
            var sample = Salus_V1_Sample()
            sample.type = Self.bloodType
            sample.startDate = 1_700_000_000_000_000
            sample.endDate = sample.startDate
            sample.category.value = 1
            _ = try await Authz.save(clinic, [sample])
        }
        #expect(asSample != nil, "a characteristic cannot be saved as a sample")
        #expect(try await Self.get(owner)[Self.bloodType]?.enumValue == 8, "nothing changed")

        await nosy.close()
        await clinic.close()
        await owner.close()
        await server.stop()
    }

    @Test("bad characteristic values are refused naming the field, and change nothing; values survive a restart")
    func characteristicRefusals() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        _ = try await Self.set(owner, [Self.enumValue(Self.bloodType, 3)])

        func refusal(_ values: [Salus_V1_Characteristic], clear: [String] = []) async -> RPCError? {
            await Authz.error { _ = try await Self.set(owner, values, clear: clear) }
        }
        var impossible = Salus_V1_Characteristic()
        impossible.type = Self.dateOfBirth
        impossible.dateValue = Self.date(1990, 2, 30)
        var future = impossible
        future.dateValue = Self.date(2999, 1, 1)
        let cases: [(error: RPCError?, field: String, value: String)] = [
            (await refusal([Self.enumValue(Self.bloodType, 1), Self.enumValue(Self.bloodType, 9)]), "set[1].enumValue", "9"),
            (await refusal([impossible]), "set[0].dateValue", "1990-2-30"),
            (await refusal([future]), "set[0].dateValue", "2999-01-01"),
            (await refusal([Self.enumValue(Self.dateOfBirth, 1)]), "set[0].enumValue", "1"),
            (await refusal([Self.enumValue("HKQuantityTypeIdentifierStepCount", 1)]), "set[0].type", "HKQuantityTypeIdentifierStepCount"),
            (await refusal([Self.enumValue("org.example.nothing", 1)]), "set[0].type", "org.example.nothing"),
            (await refusal([], clear: ["HKQuantityTypeIdentifierStepCount"]), "clear[0]", "HKQuantityTypeIdentifierStepCount"),
        ]
        for item in cases {
            #expect(item.error?.code == .invalidArgument, "\(item.field)")
            #expect(item.error?.detail?.field == item.field)
            #expect(item.error?.detail?.value == item.value)
        }
        #expect(try await Self.get(owner)[Self.bloodType]?.enumValue == 3, "the first value of a refused request was not kept")

        _ = try await Self.set(owner, [], clear: [Self.bloodType])
        #expect(try await Self.get(owner)[Self.bloodType]?.value == nil)
        _ = try await Self.set(owner, [Self.enumValue(Self.wheelchairUse, 1)])
        await owner.close()
        await server.stop()

        let restarted = try await server.restart()
        let again = try await restarted.owner()
        #expect(try await Self.get(again)[Self.wheelchairUse]?.enumValue == 1)
        await again.close()
        await restarted.stop()
    }

    // MARK: Activity summaries

    static let paris = TimeZone(identifier: "Europe/Paris")!

    /// Microseconds of a wall-clock time in Paris on a day of March 2026 (the 29th changes to
    /// summer time at 02:00, which becomes 03:00: the day lasts 23 hours).
    static func local(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = paris
        let date = calendar.date(from: DateComponents(year: 2026, month: 3, day: day, hour: hour, minute: minute))!
        return Int64(date.timeIntervalSince1970 * 1_000_000)
    }

    static func quantity(_ type: String, _ value: Double, _ unit: String, _ start: Int64, _ end: Int64) -> Salus_V1_Sample {
        Salus_V1_Sample.with {
            $0.type = "HKQuantityTypeIdentifier" + type
            $0.startDate = start
            $0.endDate = end
            $0.quantity.value = value
            $0.quantity.unit = unit
        }
    }

    static func standHour(_ value: Int64, _ start: Int64) -> Salus_V1_Sample {
        Salus_V1_Sample.with {
            $0.type = "HKCategoryTypeIdentifierAppleStandHour"
            $0.startDate = start
            $0.endDate = start + 3_600_000_000
            $0.category.value = value
        }
    }

    /// One day of a person's activity around the spring change of 2026 in Paris.
    static var day: [Salus_V1_Sample] {
        [
            // 100 kcal from 23:30 to 00:30 (UTC+1): half of it on the 29th.
            quantity("ActiveEnergyBurned", 100, "kcal", local(28, 23, 30), local(29, 0, 30)),
            quantity("ActiveEnergyBurned", 200, "kcal", local(29, 10), local(29, 11)),
            // 60 kcal from 23:30 to 00:30 (UTC+2): half of it on the 29th.
            quantity("ActiveEnergyBurned", 60, "kcal", local(29, 23, 30), local(30, 0, 30)),
            quantity("AppleMoveTime", 20, "min", local(29, 9), local(29, 9, 20)),
            quantity("AppleMoveTime", 15, "min", local(29, 18), local(29, 18, 15)),
            quantity("AppleExerciseTime", 30, "min", local(29, 10), local(29, 10, 30)),
            // Stood at 01:00 (UTC+1), 03:00 (UTC+2, the hour after the skipped one), 09:00, 10:00;
            // idle at 11:00; stood the evening before (another day).
            standHour(0, local(29, 1)), standHour(0, local(29, 3)), standHour(0, local(29, 9)), standHour(0, local(29, 10)),
            standHour(1, local(29, 11)), standHour(0, local(28, 23)),
            // Pushes at 14:05 (an hour without a stand) and 09:30 (an hour with one).
            quantity("PushCount", 120, "count", local(29, 14, 5), local(29, 14, 10)),
            quantity("PushCount", 50, "count", local(29, 9, 30), local(29, 9, 35)),
        ]
    }

    static func summaries(_ client: RPCClient, first: Int32, last: Int32) async throws -> [Salus_V1_ActivitySummary] {
        var summaries: [Salus_V1_ActivitySummary] = []
        for try await batch in try client.serverStreaming(
            SalusMethods.Person.queryActivitySummaries, request: request(first: first, last: last))
        {
            summaries += batch.summaries
        }
        return summaries
    }

    static func request(first: Int32, last: Int32, live: Bool = false) -> Salus_V1_ActivitySummaryRequest {
        Salus_V1_ActivitySummaryRequest.with {
            $0.firstDay = date(2026, 3, first)
            $0.lastDay = date(2026, 3, last)
            $0.timeZone = "Europe/Paris"
            $0.live = live
        }
    }

    @Test("activity summaries of a walking and a wheelchair user on the day Paris changes to summer time, by hand")
    func summariesOnDaylightSavingDay() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let owner = try await server.owner()
        let watch = try await server.app("org.example.watch")
        _ = try await Authz.save(watch, Self.day)

        // Walking, move in kilocalories (the default move mode).
        _ = try await Self.set(owner, [Self.enumValue(Self.wheelchairUse, 1), Self.enumValue(Self.moveMode, 1)])
        let walking = try await Self.summaries(owner, first: 28, last: 29)
        try #require(walking.count == 2)
        let day = walking[1]
        #expect(day.date == Self.date(2026, 3, 29))
        #expect(day.endDate - day.startDate == 23 * 3_600_000_000, "a 23-hour day")
        #expect(day.startDate == Self.local(29, 0))
        #expect(abs(day.activeEnergyBurned - 280) < 1e-9, "50 + 200 + 30 kcal")
        #expect(abs(day.appleMoveTime - 35) < 1e-9)
        #expect(abs(day.appleExerciseTime - 30) < 1e-9)
        #expect(day.appleStandHours == 4, "01:00, 03:00, 09:00, 10:00")
        #expect(day.activityMoveMode == 1)
        #expect(!day.wheelchairUse)
        #expect(day.activeEnergyBurnedGoal == 400 && day.appleExerciseTimeGoal == 30 && day.appleStandHoursGoal == 12)
        #expect(abs(walking[0].activeEnergyBurned - 50) < 1e-9, "the other half of the sample crossing midnight")
        #expect(walking[0].appleStandHours == 1)

        // A wheelchair user who moves in minutes: the roll hour at 14:00 counts as well.
        _ = try await Self.set(owner, [Self.enumValue(Self.wheelchairUse, 2), Self.enumValue(Self.moveMode, 2)])
        let rolling = try await Self.summaries(owner, first: 29, last: 29)
        try #require(rolling.count == 1)
        #expect(rolling[0].appleStandHours == 5, "01:00, 03:00, 09:00, 10:00 and the pushes at 14:00")
        #expect(rolling[0].activityMoveMode == 2)
        #expect(rolling[0].wheelchairUse)
        #expect(abs(rolling[0].appleMoveTime - 35) < 1e-9)

        // Goals from the 29th on leave the 28th's alone.
        let settings: Salus_V1_ActivitySettings = try await owner.unary(
            SalusMethods.Person.setActivitySettings,
            request: Salus_V1_SetActivitySettingsRequest.with {
                $0.goals = Salus_V1_ActivityGoals.with {
                    $0.from = Self.date(2026, 3, 29)
                    $0.activeEnergyBurned = 500
                    $0.appleMoveTime = 45
                    $0.appleExerciseTime = 40
                    $0.appleStandHours = 10
                }
            })
        #expect(settings.goals.count == 1)
        let withGoals = try await Self.summaries(owner, first: 28, last: 29)
        #expect(withGoals[0].activeEnergyBurnedGoal == 400)
        #expect(withGoals[1].activeEnergyBurnedGoal == 500 && withGoals[1].appleMoveTimeGoal == 45)
        #expect(withGoals[1].appleStandHoursGoal == 10)

        await watch.close()
        await owner.close()
        await server.stop()
    }

    @Test("a live summary query follows new samples and new goals; refusals name the field")
    func liveSummaries() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let owner = try await server.owner()
        let watch = try await server.app("org.example.watch")
        _ = try await Authz.save(watch, Self.day)
        let live = try owner.serverStreaming(
            SalusMethods.Person.queryActivitySummaries, request: Self.request(first: 29, last: 29, live: true))
        var batches = live.makeAsyncIterator()
        let initial = try #require(try await batches.next())
        #expect(initial.initialResultsComplete)
        #expect(initial.summaries.first?.appleExerciseTime == 30)

        _ = try await Authz.save(watch, [Self.quantity("AppleExerciseTime", 10, "min", Self.local(29, 20), Self.local(29, 20, 10))])
        let afterSave = try #require(try await batches.next())
        #expect(afterSave.summaries.map(\.appleExerciseTime) == [40])

        let _: Salus_V1_ActivitySettings = try await owner.unary(
            SalusMethods.Person.setActivitySettings,
            request: Salus_V1_SetActivitySettingsRequest.with {
                $0.goals = Salus_V1_ActivityGoals.with {
                    $0.from = Self.date(2026, 3, 1)
                    $0.activeEnergyBurned = 600
                    $0.appleMoveTime = 30
                    $0.appleExerciseTime = 30
                    $0.appleStandHours = 12
                }
            })
        let afterGoals = try #require(try await batches.next())
        #expect(afterGoals.summaries.map(\.activeEnergyBurnedGoal) == [600])
        live.cancel()

        var backwards = Self.request(first: 29, last: 28)
        let reversed = await Authz.error {
            for try await _ in try owner.serverStreaming(
                SalusMethods.Person.queryActivitySummaries, request: backwards) {}
        }
        #expect(reversed?.detail?.field == "lastDay")
        backwards = Self.request(first: 28, last: 29)
        backwards.timeZone = "Mars/Olympus"
        let zone = await Authz.error {
            for try await _ in try owner.serverStreaming(
                SalusMethods.Person.queryActivitySummaries, request: backwards) {}
        }
        #expect(zone?.detail?.field == "timeZone")
        let badGoal = await Authz.error {
            let _: Salus_V1_ActivitySettings = try await owner.unary(
                SalusMethods.Person.setActivitySettings,
                request: Salus_V1_SetActivitySettingsRequest.with {
                    $0.goals = Salus_V1_ActivityGoals.with {
                        $0.activeEnergyBurned = 500
                        $0.appleMoveTime = 30
                        $0.appleExerciseTime = 30
                        $0.appleStandHours = 25
                    }
                })
        }
        #expect(badGoal?.detail?.field == "goals.appleStandHours")
        let appGoal = await Authz.error {
            let _: Salus_V1_ActivitySettings = try await watch.unary(
                SalusMethods.Person.setActivitySettings, request: Salus_V1_SetActivitySettingsRequest.with { $0.timeZone = "UTC" })
        }
        #expect(appGoal?.code == .permissionDenied)

        await watch.close()
        await owner.close()
        await server.stop()
    }

    @Test("an app reads summaries only with read access to the activity summary type, which it can never share")
    func summaryAuthorization() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        try await Authz.register(owner, "org.example.rings", type: Self.summaryType, read: .granted, share: nil)
        try await Authz.register(owner, "org.example.other", type: "HKQuantityTypeIdentifierAppleExerciseTime", read: .granted, share: .granted)
        let other = try await server.app("org.example.other")
        _ = try await Authz.save(other, [Self.quantity("AppleExerciseTime", 30, "min", Self.local(29, 10), Self.local(29, 10, 30))])
        #expect(try await Self.summaries(other, first: 29, last: 29).isEmpty, "no read access to summaries: none")
        let rings = try await server.app("org.example.rings")
        #expect(try await Self.summaries(rings, first: 29, last: 29).map(\.appleExerciseTime) == [30])
        let share = await Authz.error { try await Authz.requestAuthorization(rings, share: [Self.summaryType]) }
        #expect(share?.code == .invalidArgument)
        #expect(share?.detail?.value == Self.summaryType)
        await rings.close()
        await other.close()
        await owner.close()
        await server.stop()
    }
}

/// SalusKit's side of characteristics and activity summaries.
@Suite("SalusKit: characteristics and activity summaries")
struct PersonKitTests {
    @Test("HealthStore reads characteristics as HealthKit does; ActivitySummaryQueryDescriptor once and live")
    func kit() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        var birth = Salus_V1_Characteristic()
        birth.type = PersonServiceTests.dateOfBirth
        birth.dateValue = PersonServiceTests.date(1984, 2, 29)
        _ = try await PersonServiceTests.set(owner, [birth, PersonServiceTests.enumValue(PersonServiceTests.bloodType, 8)])
        try await Authz.register(owner, "org.example.kit", type: PersonServiceTests.bloodType, read: .granted, share: nil)
        try await Authz.grant(owner, "org.example.kit", PersonServiceTests.summaryType, read: .granted, share: nil)
        try await Authz.grant(owner, "org.example.kit", "HKQuantityTypeIdentifierAppleExerciseTime", read: nil, share: .granted)

        let store = try await server.healthStore("org.example.kit")
        #expect(try await store.characteristicRawValue(.bloodType) == 8)
        #expect(try await store.dateOfBirth() == nil, "no read permission: not set")

        let day = CalendarDate(year: 2026, month: 3, day: 29)
        let query = ActivitySummaryQueryDescriptor(first: day, last: day, timeZone: PersonServiceTests.paris)
        let updates = query.results(for: store)
        var iterator = updates.makeAsyncIterator()
        let initial = try #require(try await iterator.next())
        #expect(initial.map(\.appleExerciseTime) == [0])
        #expect(abs((initial.first?.interval.duration ?? 0) - 23 * 3600) < 1e-3, "a 23-hour day")
        let sample = Sample.quantity(
            QuantityTypeIdentifier(rawValue: "HKQuantityTypeIdentifierAppleExerciseTime"),
            Quantity(value: 25, unit: try SalusUnit(parsing: "min")),
            start: Date(timeIntervalSince1970: Double(PersonServiceTests.local(29, 8)) / 1e6),
            end: Date(timeIntervalSince1970: Double(PersonServiceTests.local(29, 8, 25)) / 1e6))
        _ = try await store.save([sample])
        let changed = try #require(try await iterator.next())
        #expect(changed.map(\.appleExerciseTime) == [25])
        #expect(try await query.result(for: store).map(\.appleExerciseTime) == [25])
        await store.close()
        await owner.close()
        await server.stop()
    }
}
