import Foundation
import SalusImport
import SalusModel
import Testing

/// A TCX `MultiSportSession` (TCX v2: `FirstSport` and `NextSport`s each holding an `Activity`,
/// a `Transition` lap before each next leg) as one workout, as FIT's multisport sessions are.
/// No public multisport TCX with a licence that allows tests exists (shared/data/gpx-tcx's
/// README), so the tests build them from the schema's elements (and Tests/Fixtures/tcx holds
/// one written out).
@Suite("TCX: multisport sessions")
struct TCXMultisportTests {
    static let catalog = ExportReaderTests.catalog

    /// A trackpoint at `time` (`HH:MM:SS` on 2024-06-02, UTC) with a position, heart rate and
    /// optionally cadence and power.
    static func point(_ time: String, lat: Double, hr: Int, cadence: Int? = nil, watts: Int? = nil) -> String {
        var text = "<Trackpoint><Time>2024-06-02T\(time)Z</Time>"
        text += "<Position><LatitudeDegrees>\(lat)</LatitudeDegrees><LongitudeDegrees>8.5</LongitudeDegrees></Position>"
        text += "<AltitudeMeters>410</AltitudeMeters><HeartRateBpm><Value>\(hr)</Value></HeartRateBpm>"
        if let cadence { text += "<Cadence>\(cadence)</Cadence>" }
        if let watts { text += "<Extensions><ns3:TPX><ns3:Watts>\(watts)</ns3:Watts></ns3:TPX></Extensions>" }
        return text + "</Trackpoint>"
    }

    /// A lap (or, with `element` "Transition", a transition) from `start` for `seconds`.
    static func lap(_ start: String, seconds: Int, meters: Int? = nil, kcal: Int? = nil, points: [String], element: String = "Lap") -> String {
        var text = "<\(element) StartTime=\"2024-06-02T\(start)Z\"><TotalTimeSeconds>\(seconds)</TotalTimeSeconds>"
        if let meters { text += "<DistanceMeters>\(meters)</DistanceMeters>" }
        if let kcal { text += "<Calories>\(kcal)</Calories>" }
        text += "<Intensity>Active</Intensity><TriggerMethod>Manual</TriggerMethod>"
        if !points.isEmpty { text += "<Track>" + points.joined() + "</Track>" }
        return text + "</\(element)>"
    }

    static let creator = """
        <Creator xsi:type="Device_t"><Name>Forerunner 935</Name><UnitId>3900000000</UnitId><ProductID>2691</ProductID>\
        <Version><VersionMajor>9</VersionMajor><VersionMinor>60</VersionMinor></Version></Creator>
        """

    /// An `Activity` of `sport` holding `laps`.
    static func activity(_ sport: String, id: String, laps: [String]) -> String {
        "<Activity Sport=\"\(sport)\"><Id>2024-06-02T\(id)Z</Id>\n" + laps.joined(separator: "\n") + "\n" + creator + "</Activity>"
    }

    /// A TCX v2 document whose `Activities` hold `body`.
    static func document(_ body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
              xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
              xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
            <Activities>
            \(body)
            </Activities>
            </TrainingCenterDatabase>
            """.utf8)
    }

    /// Legs as the schema writes them: a run, a transition, a ride (the fixture's first three).
    static let firstRun = activity("Running", id: "08:00:00", laps: [
        lap("08:00:00", seconds: 600, meters: 2000, kcal: 150, points: [
            point("08:00:00", lat: 47.50, hr: 140, watts: 250), point("08:05:00", lat: 47.51, hr: 150), point("08:10:00", lat: 47.52, hr: 160),
        ])
    ])
    static let firstTransition = lap("08:10:00", seconds: 60, kcal: 5, points: [point("08:10:30", lat: 47.521, hr: 155)], element: "Transition")
    static let bike = activity("Biking", id: "08:11:00", laps: [
        lap("08:11:00", seconds: 1800, meters: 15000, kcal: 400, points: [
            point("08:11:00", lat: 47.53, hr: 145, cadence: 85, watts: 190), point("08:26:00", lat: 47.60, hr: 150, cadence: 90, watts: 200),
            point("08:41:00", lat: 47.67, hr: 155, cadence: 95, watts: 210),
        ])
    ])
    static func session(_ legs: String) -> String {
        "<MultiSportSession><Id>2024-06-02T08:00:00Z</Id>\n" + legs + "\n</MultiSportSession>"
    }

    /// Tests/Fixtures/tcx/duathlon.tcx: the same legs written out as a file (the daemon's tests
    /// import it too): run, transition, bike, transition, run.
    static let duathlon = try! Data(contentsOf: URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/tcx/duathlon.tcx"))

    static func date(_ time: String) -> Date { ActivityFile.date(Substring("2024-06-02T\(time)Z"))! }

    /// The error reading `data` and the line holding a text: the bad-input suite's.
    static func error(_ data: Data) -> ActivityFileError? { ActivityFileBadInputTests.error(data) }
    static func line(of text: String, in data: Data) -> Int { ActivityFileBadInputTests.line(of: text, in: data) }

    @Test("a MultiSportSession is one swimBikeRun workout: a leg per Activity in order with a transition activity per Transition, each leg's figures, the session's totals, one route and every point's samples")
    func duathlon() throws {
        let activities = try ActivityFile.read(Self.duathlon, catalog: Self.catalog)
        try #require(activities.count == 1)
        let imported = activities[0]
        guard case .workout(let workout) = imported.workout.value else {
            Issue.record("not a workout: \(imported.workout.value)")
            return
        }
        #expect(workout.activityType == WorkoutActivityType.swimBikeRun)
        #expect(workout.activities.map(\.activityType) == [37, 83, 13, 83, 37])
        #expect(workout.activities.map(\.startDate) == ["08:00:00", "08:10:00", "08:11:00", "08:41:00", "08:41:45"].map(Self.date))
        #expect(workout.activities.map(\.endDate) == ["08:10:00", "08:11:00", "08:41:00", "08:41:45", "08:56:45"].map(Self.date))
        #expect(imported.workout.startDate == Self.date("08:00:00") && imported.workout.endDate == Self.date("08:56:45"))

        // Each leg's distance is its sport's, from its laps; energy from the laps and transitions.
        let running = TypeIdentifier("HKQuantityTypeIdentifierDistanceWalkingRunning")
        let cycling = TypeIdentifier("HKQuantityTypeIdentifierDistanceCycling")
        let energy = TypeIdentifier("HKQuantityTypeIdentifierActiveEnergyBurned")
        let heartRate = TypeIdentifier("HKQuantityTypeIdentifierHeartRate")
        #expect(workout.activities[0].statistics[running] == Quantity(value: 2000, unit: .meter))
        #expect(workout.activities[2].statistics[cycling] == Quantity(value: 15000, unit: .meter))
        #expect(workout.activities[4].statistics[running] == Quantity(value: 3000, unit: .meter))
        #expect(workout.activities[1].statistics[energy] == Quantity(value: 5, unit: .kilocalorie))
        #expect(workout.activities[1].allStatistics[heartRate]?.maximum == Quantity(value: 155, unit: .countPerMinute))
        #expect(workout.statistics[running] == Quantity(value: 5000, unit: .meter))
        #expect(workout.statistics[cycling] == Quantity(value: 15000, unit: .meter))
        #expect(workout.statistics[energy] == Quantity(value: 755, unit: .kilocalorie))
        let rates: [Double] = [140, 150, 160, 155, 145, 150, 155, 158, 162, 170]
        #expect(workout.allStatistics[heartRate]?.minimum == Quantity(value: 140, unit: .countPerMinute))
        #expect(workout.allStatistics[heartRate]?.maximum == Quantity(value: 170, unit: .countPerMinute))
        #expect(workout.allStatistics[heartRate]?.average == Quantity(value: rates.reduce(0, +) / 10, unit: .countPerMinute))
        #expect(workout.recordedDuration == TimeInterval(600 + 60 + 1800 + 45 + 900))
        // The legs' laps are lap events; transitions are activities, not laps.
        #expect(workout.events.filter { $0.type == WorkoutEventType.lap.rawValue }.map(\.startDate)
            == ["08:00:00", "08:11:00", "08:41:45"].map(Self.date))

        // One route through the legs and the transitions, in time order.
        #expect(imported.route.map(\.latitude) == [47.50, 47.51, 47.52, 47.521, 47.53, 47.60, 47.67, 47.68, 47.69, 47.70])
        // Heart rate at every point; cadence and cycling power on the ride, running power on the run.
        func values(_ type: String) -> [Double] {
            imported.samples.filter { $0.type.rawValue == type }.compactMap {
                if case .quantity(let quantity) = $0.value { return quantity.value }
                return nil
            }
        }
        #expect(values("HKQuantityTypeIdentifierHeartRate") == rates)
        #expect(values("HKQuantityTypeIdentifierCyclingCadence") == [85, 90, 95])
        #expect(values("HKQuantityTypeIdentifierCyclingPower") == [190, 200, 210])
        #expect(values("HKQuantityTypeIdentifierRunningPower") == [250])
        #expect(imported.workout.sourceRevision.appID == "tcx.forerunner-935")
        #expect(imported.workout.device?.name == "Forerunner 935" && imported.workout.device?.softwareVersion == "9.60")

        // It passes the one sample check as it will be saved, and reads the same twice.
        #expect(Self.catalog.prepareForSaving(imported.workout, at: "workout", allowReadOnly: true).errors.isEmpty)
        for sample in imported.samples {
            #expect(Self.catalog.prepareForSaving(sample, at: "sample", allowReadOnly: true).errors.isEmpty, "\(sample)")
        }
        let again = try ActivityFile.read(Self.duathlon, catalog: Self.catalog)[0]
        #expect(again.workout.syncIdentifier == imported.workout.syncIdentifier)
        #expect(again.workout.value == imported.workout.value)
        #expect(again.routeSyncIdentifier == imported.routeSyncIdentifier)
        #expect(Set(again.samples.compactMap(\.syncIdentifier)).count == imported.samples.count)
    }

    @Test("a file holding a multisport session and a plain activity gives both, in document order; FileImporters reports the legs' distance")
    func withPlainActivity() throws {
        let plain = Self.activity("Biking", id: "17:00:00", laps: [
            Self.lap("17:00:00", seconds: 600, meters: 4000, points: [Self.point("17:00:00", lat: 47.1, hr: 120), Self.point("17:10:00", lat: 47.2, hr: 130)])
        ])
        let data = Self.document(
            plain + "\n"
                + Self.session("<FirstSport>\(Self.firstRun)</FirstSport>\n<NextSport>\(Self.firstTransition)\n\(Self.bike)</NextSport>"))
        let read = try FileImporters.read(Array(data), format: .tcx, catalog: Self.catalog)
        try #require(read.workouts.count == 2)
        let types = read.workouts.map { workout -> UInt in
            if case .workout(let value) = workout.workout.value { return value.activityType }
            return 0
        }
        #expect(types == [WorkoutActivityType.cycling, WorkoutActivityType.swimBikeRun])
        #expect(read.workouts[1].route.count == 7)
        #expect(read.workouts[1].distance == 17000)
    }

    @Test("a session with a leg of a sport no swimBikeRun holds (TCX's Other) gives a workout per leg, as FIT's sessions of other sports do; its transitions are left out")
    func otherSport() throws {
        let other = Self.activity("Other", id: "08:00:00", laps: [
            Self.lap("08:00:00", seconds: 600, meters: 2000, points: [Self.point("08:00:00", lat: 47.50, hr: 120), Self.point("08:10:00", lat: 47.51, hr: 125)])
        ])
        let data = Self.document(Self.session("<FirstSport>\(other)</FirstSport>\n<NextSport>\(Self.firstTransition)\n\(Self.bike)</NextSport>"))
        let read = try ActivityFile.read(data, catalog: Self.catalog)
        let types = read.map { imported -> UInt in
            if case .workout(let value) = imported.workout.value { return value.activityType }
            return 0
        }
        #expect(types == [3000, WorkoutActivityType.cycling])
        #expect(read.map(\.route.count) == [2, 3])
    }

    @Test("a MultiSportSession without legs, a leg without an Activity or without any time, a Transition without its StartTime: refused naming the element and its line, nothing of the file kept")
    func badSessions() throws {
        let plain = Self.activity("Biking", id: "17:00:00", laps: [
            Self.lap("17:00:00", seconds: 600, points: [Self.point("17:00:00", lat: 47.1, hr: 120)])
        ])
        // No leg at all: only the session's Id.
        let empty = Self.document(plain + "\n<MultiSportSession><Id>2024-06-02T08:00:00Z</Id></MultiSportSession>")
        let noLegs = try #require(Self.error(empty))
        #expect(noLegs.element == "MultiSportSession" && noLegs.line == Self.line(of: "<MultiSportSession>", in: empty))
        #expect(noLegs.message.contains("FirstSport"), "\(noLegs)")

        // A NextSport whose Activity is missing.
        let missing = Self.document(Self.session("<FirstSport>\(Self.firstRun)</FirstSport>\n<NextSport>\(Self.firstTransition)</NextSport>"))
        let noActivity = try #require(Self.error(missing))
        #expect(noActivity.element == "MultiSportSession.NextSport[0].Activity", "\(noActivity)")
        #expect(noActivity.line == Self.line(of: "<NextSport>", in: missing))

        // A leg whose Activity holds neither a Lap nor a Trackpoint: no time to place it.
        let untimed = Self.document(Self.session(
            "<FirstSport>\(Self.firstRun)</FirstSport>\n<NextSport>\(Self.firstTransition)\n<Activity Sport=\"Biking\"><Id>2024-06-02T08:11:00Z</Id></Activity></NextSport>"))
        let noTimes = try #require(Self.error(untimed))
        #expect(noTimes.element == "MultiSportSession.NextSport[0].Activity", "\(noTimes)")
        #expect(noTimes.line == Self.line(of: "<Activity Sport=\"Biking\"><Id>", in: untimed))
        #expect(noTimes.message.contains("no Lap or Trackpoint"), "\(noTimes)")

        // A Transition without its StartTime (the schema requires one).
        let transition = Self.firstTransition.replacingOccurrences(of: " StartTime=\"2024-06-02T08:10:00Z\"", with: "")
        let startless = Self.document(Self.session("<FirstSport>\(Self.firstRun)</FirstSport>\n<NextSport>\(transition)\n\(Self.bike)</NextSport>"))
        let noStart = try #require(Self.error(startless))
        #expect(noStart.element == "MultiSportSession.NextSport[0].Transition.StartTime", "\(noStart)")
        #expect(noStart.message.contains("missing"))

        // Through FileImporters: a problem naming the line and the element; no workout.
        #expect {
            _ = try FileImporters.read(Array(empty), format: .tcx, catalog: Self.catalog)
        } throws: { error in
            guard let problem = error as? FileProblem else { return false }
            return problem.field == "line \(Self.line(of: "<MultiSportSession>", in: empty)): MultiSportSession"
        }
    }
}
