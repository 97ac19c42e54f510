import Foundation

/// A month of one person's Apple Health export, written for the report's tests: 28 days
/// (2026-10-01 to 2026-10-28, Europe/Paris, across the end of summer time on 25 October) of
/// hourly steps from a watch and a phone and pushes from a wheelchair app, heart rate every
/// 10 minutes with a daily resting heart rate, stand hours, a night of sleep stages before each
/// day with the phone's in-bed span around it, a menstrual period, spotting, ovulation tests and a
/// daily basal body temperature, and six workouts, three with a route and one a triathlon with its
/// three legs. Deterministic.
public enum ReportFixture {
    public static let timeZone = TimeZone(identifier: "Europe/Paris")!
    public static let firstDay = "2026-10-01"
    public static let lastDay = "2026-10-28"
    public static let days = 28
    /// The days of the fixture's workouts (0-based) and their activity types.
    public static let workouts: [(day: Int, activity: String, route: Bool)] = [
        (2, "Running", true), (9, "Cycling", true), (12, "SwimBikeRun", false), (16, "Swimming", false),
        (20, "HighIntensityIntervalTraining", false), (24, "Running", true),
    ]
    /// The days (0-based) of the menstrual flow and their HKCategoryValueVaginalBleeding values.
    public static let flow: [(day: Int, value: Int)] = [(3, 3), (4, 4), (5, 4), (6, 3), (7, 2)]
    public static let spottingDay = 17
    /// The day of the positive (LH surge) ovulation test; negative tests the days around it.
    public static let surgeDay = 15

    /// A small deterministic generator (a linear congruential one).
    struct Numbers {
        var state: UInt64
        mutating func next(_ range: ClosedRange<Int>) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return range.lowerBound + Int((state >> 33) % UInt64(range.count))
        }
    }

    /// The export.xml.
    public static func exportXML() -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        func text(_ date: Date) -> String { formatter.string(from: date) }
        let first = calendar.date(from: DateComponents(year: 2026, month: 10, day: 1))!
        var numbers = Numbers(state: 2026)
        let watch = "sourceName=\"Lena’s Apple Watch\" sourceVersion=\"11.1\" device=\"&lt;&lt;HKDevice: 0x3012772a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch7,2, software:11.1&gt;\""
        let phone = "sourceName=\"Lena’s iPhone\" sourceVersion=\"26.1\""
        let wheels = "sourceName=\"Wheelchair Log\" sourceVersion=\"3.2\""
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_GB">
             <ExportDate value="2026-10-29 09:00:00 +0100"/>
             <Me HKCharacteristicTypeIdentifierDateOfBirth="1990-05-12" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeAPositive" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeII"/>

            """
        func record(_ type: String, _ source: String, unit: String? = nil, _ start: Date, _ end: Date, _ value: String, metadata: [(String, String)] = []) {
            xml += " <Record type=\"\(type)\" \(source)\(unit.map { " unit=\"\($0)\"" } ?? "") creationDate=\"\(text(end))\" startDate=\"\(text(start))\" endDate=\"\(text(end))\" value=\"\(value)\""
            if metadata.isEmpty {
                xml += "/>\n"
            } else {
                xml += ">\n" + metadata.map { "  <MetadataEntry key=\"\($0.0)\" value=\"\($0.1)\"/>\n" }.joined() + " </Record>\n"
            }
        }
        for dayIndex in 0..<days {
            let day = calendar.date(byAdding: .day, value: dayIndex, to: first)!
            func at(_ hour: Int, _ minute: Int = 0) -> Date {
                calendar.date(bySettingHour: hour, minute: minute, second: 0, of: day)!
            }
            // The night before this day: in bed about 23:00, up about 07:00.
            let bedtime = calendar.date(byAdding: .minute, value: -60 + numbers.next(-35...35), to: day)!
            let wake = at(6, 30).addingTimeInterval(Double(numbers.next(0...60)) * 60)
            record("HKCategoryTypeIdentifierSleepAnalysis", phone, bedtime, wake, "HKCategoryValueSleepAnalysisInBed")
            var cursor = bedtime.addingTimeInterval(Double(numbers.next(8...20)) * 60)
            var cycle = 0
            while cursor < wake.addingTimeInterval(-15 * 60) {
                // One cycle: core, deep (shorter as the night goes on), core, REM (longer), at times awake.
                let parts: [(String, Int)] = [
                    ("AsleepCore", numbers.next(15...25)), ("AsleepDeep", max(5, 40 - cycle * 10 + numbers.next(-5...5))),
                    ("AsleepCore", numbers.next(10...20)), ("AsleepREM", 10 + cycle * 8 + numbers.next(0...8)),
                ] + (numbers.next(0...2) == 0 ? [("Awake", numbers.next(3...9))] : [])
                for (stage, minutes) in parts where cursor < wake {
                    let end = min(wake, cursor.addingTimeInterval(Double(minutes) * 60))
                    record("HKCategoryTypeIdentifierSleepAnalysis", watch, cursor, end, "HKCategoryValueSleepAnalysis\(stage)",
                           metadata: [("HKTimeZone", "Europe/Paris")])
                    cursor = end
                }
                cycle += 1
            }
            // Steps and pushes, hourly from 07:00 to 22:00; the phone counts a little more than the watch.
            for hour in 7..<23 {
                let busy = (hour >= 8 && hour <= 9) || (hour >= 17 && hour <= 19)
                let steps = numbers.next(busy ? 900...1600 : 150...650)
                record("HKQuantityTypeIdentifierStepCount", watch, unit: "count", at(hour), at(hour, 59), "\(steps)")
                record("HKQuantityTypeIdentifierStepCount", phone, unit: "count", at(hour, 2), at(hour, 58), "\(steps + numbers.next(0...80))")
                record("HKQuantityTypeIdentifierPushCount", wheels, unit: "count", at(hour), at(hour, 59), "\(numbers.next(busy ? 250...600 : 40...200))")
                if hour >= 8, hour <= 21 {
                    let stood = numbers.next(0...5) > 0
                    record("HKCategoryTypeIdentifierAppleStandHour", watch, at(hour), at(hour + 1), stood ? "HKCategoryValueAppleStandHourStood" : "HKCategoryValueAppleStandHourIdle")
                }
            }
            // Heart rate every 10 minutes: low at night, higher by day.
            for slot in 0..<144 {
                let instant = day.addingTimeInterval(Double(slot) * 600)
                let hour = slot / 6
                let training = workouts.contains { $0.day == dayIndex } && slot >= 110 && slot < 117  // 18:20–19:20
                let bpm = hour < 7 ? numbers.next(48...60) : training ? numbers.next(128...166) : numbers.next(62...98)
                record("HKQuantityTypeIdentifierHeartRate", watch, unit: "count/min", instant, instant, "\(bpm)")
            }
            record("HKQuantityTypeIdentifierRestingHeartRate", watch, unit: "count/min", at(0), at(23, 59), "\(numbers.next(54...61))")
            // Cycle tracking.
            if let flow = flow.first(where: { $0.day == dayIndex }) {
                let names = [2: "Light", 3: "Medium", 4: "Heavy"]
                record("HKCategoryTypeIdentifierMenstrualFlow", phone, at(8), at(8), "HKCategoryValueMenstrualFlow\(names[flow.value]!)",
                       metadata: [("HKMenstrualCycleStart", dayIndex == Self.flow[0].day ? "1" : "0")])
            }
            if dayIndex == spottingDay {
                record("HKCategoryTypeIdentifierIntermenstrualBleeding", phone, at(9), at(9), "HKCategoryValueNotApplicable")
            }
            if (surgeDay - 3)...(surgeDay + 2) ~= dayIndex {
                record("HKCategoryTypeIdentifierOvulationTestResult", phone, at(8, 15), at(8, 15),
                       dayIndex == surgeDay ? "HKCategoryValueOvulationTestResultLuteinizingHormoneSurge" : "HKCategoryValueOvulationTestResultNegative")
            }
            let temperature = (dayIndex > surgeDay ? 36.72 : 36.38) + Double(numbers.next(-6...6)) / 100
            record("HKQuantityTypeIdentifierBasalBodyTemperature", phone, unit: "degC", at(6, 45), at(6, 45), String(format: "%.2f", temperature))
            // Workouts.
            if let workout = workouts.first(where: { $0.day == dayIndex }) {
                let start = at(18, 10)
                let minutes = switch workout.activity {
                case "Cycling", "SwimBikeRun": 75
                case "Swimming": 40
                case "Running": 42
                default: 25
                }
                let end = start.addingTimeInterval(Double(minutes) * 60)
                xml += " <Workout workoutActivityType=\"HKWorkoutActivityType\(workout.activity)\" duration=\"\(minutes)\" durationUnit=\"min\" \(watch) creationDate=\"\(text(end))\" startDate=\"\(text(start))\" endDate=\"\(text(end))\">\n"
                xml += "  <MetadataEntry key=\"HKIndoorWorkout\" value=\"\(workout.route ? 0 : 1)\"/>\n"
                if workout.activity == "SwimBikeRun" {
                    // Swim 20 min, transition 5, bike 30, transition 2, run 18; totals per leg.
                    var legStart = start
                    for (index, (leg, length)) in [("DistanceSwimming", 20), ("", 5), ("DistanceCycling", 30), ("", 2), ("DistanceWalkingRunning", 18)].enumerated() {
                        let legEnd = legStart.addingTimeInterval(Double(length) * 60)
                        xml += "  <WorkoutActivity uuid=\"6D0C1B52-9A04-4C3E-9B1F-2F0E3D4C5B0\(index + 1)\" startDate=\"\(text(legStart))\" endDate=\"\(text(legEnd))\""
                        if leg.isEmpty {
                            xml += "/>\n"
                        } else {
                            let (sum, unit) = leg == "DistanceSwimming" ? ("750", "m") : leg == "DistanceCycling" ? ("20", "km") : ("5", "km")
                            xml += ">\n   <WorkoutStatistics type=\"HKQuantityTypeIdentifier\(leg)\" startDate=\"\(text(legStart))\" endDate=\"\(text(legEnd))\" sum=\"\(sum)\" unit=\"\(unit)\"/>\n  </WorkoutActivity>\n"
                        }
                        legStart = legEnd
                    }
                }
                let distance: (String, Double, String)? = switch workout.activity {
                case "Running": ("HKQuantityTypeIdentifierDistanceWalkingRunning", 7.4 + Double(dayIndex) / 20, "km")
                case "Cycling": ("HKQuantityTypeIdentifierDistanceCycling", 31.2, "km")
                case "Swimming": ("HKQuantityTypeIdentifierDistanceSwimming", 1500, "m")
                default: nil
                }
                if let (type, value, unit) = distance {
                    xml += "  <WorkoutStatistics type=\"\(type)\" startDate=\"\(text(start))\" endDate=\"\(text(end))\" sum=\"\(value)\" unit=\"\(unit)\"/>\n"
                }
                xml += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" startDate=\"\(text(start))\" endDate=\"\(text(end))\" sum=\"\(minutes * 9)\" unit=\"kcal\"/>\n"
                xml += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierHeartRate\" startDate=\"\(text(start))\" endDate=\"\(text(end))\" average=\"\(140 + dayIndex % 9)\" minimum=\"102\" maximum=\"171\" unit=\"count/min\"/>\n"
                if workout.route {
                    // A loop round a park, one location every 15 s.
                    xml += "  <WorkoutRoute \(watch) creationDate=\"\(text(end))\" startDate=\"\(text(start))\" endDate=\"\(text(end))\">\n"
                    let points = minutes * 4
                    let size = workout.activity == "Cycling" ? 3.0 : 1.0
                    for point in 0..<points {
                        let angle = Double(point) / Double(points) * 2 * Double.pi * (workout.activity == "Cycling" ? 1 : 2)
                        let latitude = 48.8462 + size * (0.006 * sin(angle) + 0.0015 * sin(3 * angle))
                        let longitude = 2.3372 + size * (0.009 * cos(angle))
                        xml += "   <Location date=\"\(text(start.addingTimeInterval(Double(point) * 15)))\" latitude=\"\(String(format: "%.6f", latitude))\" longitude=\"\(String(format: "%.6f", longitude))\" altitude=\"40\" horizontalAccuracy=\"3\" verticalAccuracy=\"2\" course=\"0\" speed=\"3.1\"/>\n"
                    }
                    xml += "  </WorkoutRoute>\n"
                }
                xml += " </Workout>\n"
            }
        }
        xml += "</HealthData>\n"
        return xml
    }
}
