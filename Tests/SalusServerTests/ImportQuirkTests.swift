import Foundation
import SalusImport
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// What Apple's own files say in ways a tidy export would not (docs/import.md, "What Apple's files
/// break, and what Salus does"), each imported as the person's history means it: beat times on
/// the clock of the place and season they were taken, totals and durations of workouts before
/// iOS 16, a statistic's minimum and maximum, a move-time goal of 0, the sleep goal.
@Suite("Apple Health import: quirks of Apple's files")
struct ImportQuirkTests {
    static let workoutType = "HKWorkoutTypeIdentifier"

    /// An export of `body`'s elements.
    static func export(_ body: String, exported: String = "2024-08-10 12:00:00 +0200") -> Data {
        Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="de_DE">
             <ExportDate value="\(exported)"/>
            \(body)
            </HealthData>
            """.utf8)
    }

    /// `samples` written by `AppleHealthWriter` (with `goals` as activity summaries) and imported
    /// into a fresh store: that store's server and owner, and the report.
    static func writtenAndImported(
        _ samples: [Sample], goals: [ActivityGoals] = [], by server: ServerHarness
    ) async throws -> (server: ServerHarness, owner: RPCClient, report: Salus_V1_ImportReport) {
        let path = server.directory.appendingPathComponent("written.xml").path
        let writer = try AppleHealthWriter(
            path: path, names: ExportNames(catalog: server.services.plugins.registry.catalog),
            timeZone: TimeZone(identifier: "Europe/Berlin")!)
        try writer.begin(exportDate: Date(timeIntervalSince1970: 1_795_250_000), locale: "de_DE", characteristics: [])
        for sample in samples.sorted(by: { (AppleHealthWriter.rank(of: $0.kind) ?? 9) < (AppleHealthWriter.rank(of: $1.kind) ?? 9) }) {
            #expect(try writer.write(sample))
        }
        try writer.activitySummaries(goals)
        try writer.finish()
        let fresh = try await ServerHarness.start()
        let owner = try await fresh.owner()
        let report = try await ImportServiceTests.importExport(owner, try Data(contentsOf: URL(fileURLWithPath: path)))
        return (fresh, owner, report)
    }

    static func samples(_ owner: RPCClient, _ type: String) async throws -> [Sample] {
        try await SampleQueryDescriptor(type: SampleType(type), sortDescriptors: [.startDate()]).result(for: HealthStore(client: owner))
    }

    static func rounded(_ quantity: Quantity?, _ unit: String) throws -> Double? {
        try ImportOddCaseTests.value(quantity, unit)
    }

    // MARK: Beat times (defect: series a day long)

    static let hrv = "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"

    /// An HRV record of 60 s from `start` to `end` (as the export writes them) with beats at the
    /// clock times `times` (as the Watch wrote them: the local time where and when it was worn).
    static func hrvRecord(_ start: String, _ end: String, _ times: [String]) -> String {
        """
         <Record type="\(hrv)" sourceName="Annas Apple Watch" sourceVersion="10.1" unit="ms" startDate="\(start)" endDate="\(end)" value="41.5">
          <HeartRateVariabilityMetadataList>
        \(times.map { "   <InstantaneousBeatsPerMinute bpm=\"61\" time=\"\($0)\"/>" }.joined(separator: "\n"))
          </HeartRateVariabilityMetadataList>
         </Record>
        """
    }

    @Test("beat times are the clock of the place and season they were taken: a series of 60 s spans 60 s, recorded before a DST change, crossing midnight, or both")
    func beatTimesOnTheirOwnClock() async throws {
        // Exported in summer (+0200): a January record's beats were written at +0100, an hour
        // behind its dates; a record just before 1 a.m. on 1 March was 23:59 on the Watch.
        let summer = Self.export([
            Self.hrvRecord("2024-01-15 09:00:00 +0200", "2024-01-15 09:01:00 +0200", ["08:00:00,80", "08:00:30,10", "08:00:59,40"]),
            Self.hrvRecord("2024-03-01 00:59:40 +0200", "2024-03-01 01:00:40 +0200", ["23:59:40,50", "00:00:10,00", "00:00:39,90"]),
            Self.hrvRecord("2024-08-01 23:59:30 +0200", "2024-08-02 00:00:30 +0200", ["23:59:30,60", "23:59:59,90", "00:00:29,70"]),
        ].joined(separator: "\n"))
        // Exported in winter (+0100) in English: a July record's beats were written at +0200,
        // an hour ahead of its dates.
        let winter = Self.export(
            Self.hrvRecord("2024-07-01 21:00:00 +0100", "2024-07-01 21:01:00 +0100", ["10:00:00.70 PM", "10:00:30.00 PM", "10:00:59.90 PM"]),
            exported: "2024-12-10 12:00:00 +0100")
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        for data in [summer, winter] {
            let report = try await ImportServiceTests.importExport(owner, data)
            #expect(report.skipped == 0, "\(report.problems)")
        }
        let records = try await Self.samples(owner, Self.hrv)
        let series = try await Self.samples(owner, "HKDataTypeIdentifierHeartbeatSeries")
        #expect(records.count == 4 && series.count == 4)
        // In time order: January, March, July, August.
        let expected: [[Double]] = [[0.8, 30.1, 59.4], [0.5, 30, 59.9], [0.7, 30, 59.9], [0.6, 29.9, 59.7]]
        for (record, beats) in zip(records, expected) {
            let match = try #require(series.first { $0.startDate == record.startDate }, "a series for \(record.startDate)")
            #expect(match.endDate == record.endDate, "the series spans its record's 60 s: \(match.startDate) – \(match.endDate)")
            let times = try #require(match.heartbeatSeries).beats.map { ($0.timeSinceSeriesStart * 1000).rounded() / 1000 }
            #expect(times == beats, "beats of the series from \(record.startDate)")
        }
        await owner.close()
        await server.stop()
    }

    // MARK: Workouts before iOS 16 (totals, duration)

    /// Workouts as iOS 10 wrote them: totals as attributes, Apple's duration (a little more than
    /// the whole seconds of its dates say); a swim whose total is also in a statistic.
    static let oldWorkouts = """
         <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="5.19412346680959" durationUnit="min" totalDistance="0.4971749504535062" totalDistanceUnit="mi" totalEnergyBurned="48.74499999999999" totalEnergyBurnedUnit="kcal" sourceName="Apple Watch" sourceVersion="3.1" creationDate="2016-11-14 07:33:49 -0700" startDate="2016-11-14 07:25:41 -0700" endDate="2016-11-14 07:30:52 -0700">
          <MetadataEntry key="HKTimeZone" value="America/Los_Angeles"/>
         </Workout>
         <Workout workoutActivityType="HKWorkoutActivityTypeCycling" duration="45" durationUnit="min" totalDistance="18.2" totalDistanceUnit="km" totalEnergyBurned="1500" totalEnergyBurnedUnit="kJ" sourceName="Apple Watch" sourceVersion="3.1" startDate="2016-11-15 17:00:00 -0700" endDate="2016-11-15 17:45:00 -0700"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeOther" duration="31.73680251737436" durationUnit="min" totalDistance="0" totalDistanceUnit="km" totalEnergyBurned="139.3170000000021" totalEnergyBurnedUnit="kcal" sourceName="NJR Apple Watch" sourceVersion="2.2" creationDate="2016-04-02 11:12:57 +0100" startDate="2016-04-02 10:40:38 +0100" endDate="2016-04-02 11:12:22 +0100"/>
         <Workout workoutActivityType="HKWorkoutActivityTypeSwimming" duration="30" durationUnit="min" totalDistance="1000" totalDistanceUnit="m" sourceName="Apple Watch" sourceVersion="9.0" startDate="2022-09-20 07:00:00 +0200" endDate="2022-09-20 07:30:00 +0200">
          <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceSwimming" startDate="2022-09-20 07:00:00 +0200" endDate="2022-09-20 07:30:00 +0200" sum="1025" unit="m"/>
         </Workout>
        """

    @Test("workouts before iOS 16 keep totalDistance and totalEnergyBurned as their totals, the distance of their activity's kind; a statistic of the same type is preferred and a differing attribute reported")
    func totalsOfOldWorkouts() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await ImportServiceTests.importExport(owner, Self.export(Self.oldWorkouts))
        #expect(report.skipped == 0 && report.saved == 4, "\(report.problems)")
        let workouts = try await Self.samples(owner, Self.workoutType)
        #expect(workouts.count == 4)
        func statistics(_ activity: UInt) throws -> [TypeIdentifier: Quantity] {
            let sample = try #require(workouts.first { $0.workoutValue?.activityType == activity })
            return try #require(sample.workoutValue).statistics
        }
        let energy = TypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned")
        let run = try statistics(WorkoutActivityType.running)
        #expect(try Self.rounded(run[TypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning")], "mi") == 0.497175)
        #expect(try Self.rounded(run[energy], "kcal") == 48.745)
        let ride = try statistics(WorkoutActivityType.cycling)
        #expect(try Self.rounded(ride[TypeIdentifier("HKQuantityTypeIdentifierDistanceCycling")], "km") == 18.2)
        #expect(try Self.rounded(ride[energy], "kJ") == 1500)
        let other = try statistics(3000)
        #expect(try Self.rounded(other[energy], "kcal") == 139.317)
        // An activity without a distance type of its own: the general one.
        #expect(try Self.rounded(other[TypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning")], "km") == 0, "\(other)")
        let swim = try statistics(WorkoutActivityType.swimming)
        #expect(try Self.rounded(swim[TypeIdentifier("HKQuantityTypeIdentifierDistanceSwimming")], "m") == 1025, "the statistic preferred")
        let differs = try #require(report.problems.first { $0.field == "totalDistance" }, "\(report.problems)")
        #expect(differs.value == "1000 m" && differs.line == 9 && differs.expected.contains("1025"), "\(differs)")
        #expect(report.problems.count == 1, "\(report.problems)")
        await owner.close()
        await server.stop()
    }

    @Test("a workout keeps the duration its export gives, pauses Apple counted its own way included, and the export writes it back")
    func durationAsAppleSaid() async throws {
        // 40 minutes from start to end, a pause of 446 s in the events, and Apple's 31.5 minutes.
        let run = """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="31.5" durationUnit="min" sourceName="Annas Apple Watch" sourceVersion="9.0" startDate="2022-09-20 08:00:00 +0200" endDate="2022-09-20 08:40:00 +0200">
              <WorkoutEvent type="HKWorkoutEventTypePause" date="2022-09-20 08:10:00 +0200"/>
              <WorkoutEvent type="HKWorkoutEventTypeResume" date="2022-09-20 08:17:26 +0200"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="2022-09-20 08:00:00 +0200" endDate="2022-09-20 08:40:00 +0200" sum="5.2" unit="km"/>
             </Workout>
            """
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await ImportServiceTests.importExport(owner, Self.export(run + "\n" + Self.oldWorkouts))
        #expect(report.skipped == 0 && report.saved == 5, "\(report.problems)")
        func durations(_ owner: RPCClient) async throws -> [Double] {
            try await ImportServiceTests.samples(owner, Self.workoutType).sorted { $0.startDate < $1.startDate }
                .map { ($0.workout.duration * 1e6).rounded() / 1e6 }
        }
        // In time order: the 2016 other, run and ride; the 2022 swim and run.
        let apple = [1904.208151, 311.647408, 2700, 1800, 1890]
        #expect(try await durations(owner) == apple)

        // Written back and read again: the same durations.
        let saved = try await Self.samples(owner, Self.workoutType)
        let (fresh, again, second) = try await Self.writtenAndImported(saved, by: server)
        #expect(second.skipped == 0 && second.saved == 5, "\(second.problems)")
        #expect(try await durations(again) == apple)
        await again.close()
        await fresh.stop()
        await owner.close()
        await server.stop()
    }

    // MARK: Statistics' minimum and maximum

    @Test("a WorkoutStatistics' minimum and maximum are kept, for the workout and each activity, and written back")
    func minimumAndMaximumKept() async throws {
        let run = """
             <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" sourceName="Annas Apple Watch" sourceVersion="10.1" startDate="2023-10-01 08:00:00 +0200" endDate="2023-10-01 08:30:00 +0200">
              <WorkoutActivity uuid="6D2C3E1A-7F44-4C1B-9E0F-2B8A1C3D5E71" startDate="2023-10-01 08:00:00 +0200" endDate="2023-10-01 08:30:00 +0200" duration="30" durationUnit="min">
               <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2023-10-01 08:00:00 +0200" endDate="2023-10-01 08:30:00 +0200" average="151.2" minimum="97" maximum="178" unit="count/min"/>
               <WorkoutStatistics type="HKQuantityTypeIdentifierRunningPower" startDate="2023-10-01 08:00:00 +0200" endDate="2023-10-01 08:30:00 +0200" average="240" minimum="12" maximum="410" unit="W"/>
              </WorkoutActivity>
              <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="2023-10-01 08:00:00 +0200" endDate="2023-10-01 08:30:00 +0200" average="151.2" minimum="97" maximum="178" unit="count/min"/>
              <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="2023-10-01 08:00:00 +0200" endDate="2023-10-01 08:30:00 +0200" sum="341.2" unit="kcal"/>
             </Workout>
            """
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await ImportServiceTests.importExport(owner, Self.export(run))
        #expect(report.skipped == 0 && report.saved == 1, "\(report.problems)")
        let heartRate = TypeIdentifier("HKQuantityTypeIdentifierHeartRate")
        let power = TypeIdentifier("HKQuantityTypeIdentifierRunningPower")
        func expectKept(_ owner: RPCClient) async throws {
            let sample = try #require(try await Self.samples(owner, Self.workoutType).first)
            let workout = try #require(sample.workoutValue)
            let rate = try #require(workout.allStatistics[heartRate], "\(workout.allStatistics)")
            #expect(try Self.rounded(rate.average, "count/min") == 151.2)
            #expect(try Self.rounded(rate.minimum, "count/min") == 97)
            #expect(try Self.rounded(rate.maximum, "count/min") == 178)
            #expect(try Self.rounded(workout.allStatistics[TypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned")]?.sum, "kcal") == 341.2)
            let activity = try #require(workout.activities.first)
            #expect(try Self.rounded(activity.allStatistics[heartRate]?.maximum, "count/min") == 178, "\(activity.allStatistics)")
            #expect(try Self.rounded(activity.allStatistics[power]?.minimum, "W") == 12)
            #expect(try Self.rounded(activity.allStatistics[power]?.maximum, "W") == 410)
            #expect(try Self.rounded(activity.statistics[power], "W") == 240)
        }
        try await expectKept(owner)
        // Predicates on the workout's maximum match the kept figure.
        let perMinute = SalusUnit.count.divided(by: .minute)
        func matching(maximumAbove bpm: Double) async throws -> Int {
            let predicate = SamplePredicate.workout(.statistic(quantityType: heartRate, .maximum, .greaterThan, Quantity(value: bpm, unit: perMinute)))
            return try await SampleQueryDescriptor(type: SampleType(Self.workoutType), predicate: predicate)
                .result(for: HealthStore(client: owner)).count
        }
        #expect(try await matching(maximumAbove: 175) == 1)
        #expect(try await matching(maximumAbove: 180) == 0)

        let saved = try await Self.samples(owner, Self.workoutType)
        let (fresh, again, second) = try await Self.writtenAndImported(saved, by: server)
        #expect(second.skipped == 0 && second.saved == 1, "\(second.problems)")
        try await expectKept(again)
        await again.close()
        await fresh.stop()
        await owner.close()
        await server.stop()
    }

    // MARK: Goals

    @Test("a move-time goal of 0 (HealthKit's 'not set', the move ring counting kilocalories) stays 0, also written back")
    func moveTimeGoalZero() async throws {
        let summaries = """
             <ActivitySummary dateComponents="2024-05-01" activeEnergyBurned="402.1" activeEnergyBurnedGoal="520" activeEnergyBurnedUnit="kcal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="31" appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>
            """
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await ImportServiceTests.importExport(owner, Self.export(summaries))
        #expect(report.goalsSet == 1 && report.skipped == 0, "\(report)")
        func goals(_ owner: RPCClient) async throws -> Salus_V1_ActivityGoals {
            let settings: Salus_V1_ActivitySettings = try await owner.unary(
                SalusMethods.Person.getActivitySettings, request: Salus_V1_ActivitySettingsRequest())
            return try #require(settings.goals.first)
        }
        let first = try await goals(owner)
        #expect(first.appleMoveTime == 0 && first.activeEnergyBurned == 520 && first.appleExerciseTime == 30, "\(first)")

        let kept = ActivityGoals(
            from: CalendarDate(year: 2024, month: 5, day: 1), activeEnergyBurned: first.activeEnergyBurned,
            appleMoveTime: first.appleMoveTime, appleExerciseTime: first.appleExerciseTime, appleStandHours: first.appleStandHours)
        let (fresh, again, second) = try await Self.writtenAndImported([], goals: [kept], by: server)
        #expect(second.goalsSet == 1, "\(second)")
        #expect(try await goals(again).appleMoveTime == 0)
        await again.close()
        await fresh.stop()
        await owner.close()
        await server.stop()
    }

    @Test("the sleep goal (HKDataTypeSleepDurationGoal, a Record type only exports have) imports, and is written back")
    func sleepDurationGoal() async throws {
        let goal = """
             <Record type="HKDataTypeSleepDurationGoal" sourceName="Annas iPhone" sourceVersion="17.1" unit="hr" creationDate="2024-02-03 22:10:04 +0100" startDate="2024-02-03 22:10:04 +0100" endDate="2024-02-03 22:10:04 +0100" value="7.5"/>
            """
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let report = try await ImportServiceTests.importExport(owner, Self.export(goal))
        #expect(report.skipped == 0 && report.saved == 1, "\(report.problems)")
        let saved = try await Self.samples(owner, "HKDataTypeSleepDurationGoal")
        #expect(try Self.rounded(saved.first?.quantityValue, "hr") == 7.5)

        let (fresh, again, second) = try await Self.writtenAndImported(saved, by: server)
        #expect(second.skipped == 0 && second.saved == 1, "\(second.problems)")
        let back = try await Self.samples(again, "HKDataTypeSleepDurationGoal")
        #expect(back.map(\.startDate) == saved.map(\.startDate))
        #expect(try Self.rounded(back.first?.quantityValue, "hr") == 7.5)
        await again.close()
        await fresh.stop()
        await owner.close()
        await server.stop()
    }
}

private extension Sample {
    var workoutValue: Workout? {
        if case .workout(let value) = value { value } else { nil }
    }

    var quantityValue: Quantity? {
        if case .quantity(let value) = value { value } else { nil }
    }
}
