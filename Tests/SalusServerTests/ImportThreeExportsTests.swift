import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// One person's history, described once with its instants, exported three times as Apple writes
/// exports: each at the UTC offset the phone had when the export was made, in that export's
/// locale, with the Watch's device description written anew, route files named by that export's
/// clock, and each holding another, overlapping range of days (docs/import.md, "Once, however
/// often"). Importing the three must give exactly one copy of every sample, workout, route and
/// heartbeat series of the history.
@Suite("Apple Health import: one history exported three times")
struct ImportThreeExportsTests {
    /// 2025-03-15 00:00:00 UTC: the history runs 30 days, over the change to summer time in
    /// Europe (2025-03-30), where the person lives (Europe/Paris).
    static let firstDay = Date(timeIntervalSince1970: 1_741_996_800)
    static let home = TimeZone(identifier: "Europe/Paris")!

    enum Source {
        case watch, phone, cuff
    }

    /// One thing the history holds, with its instants.
    enum Entry {
        /// A `Record`: its type, source, unit (nil for a category), value text, instants, metadata.
        case record(type: String, source: Source, unit: String?, value: String, start: Date, end: Date, metadata: [(String, String)])
        /// A blood pressure correlation; its members are also written at top level, as Apple does.
        case bloodPressure(at: Date, systolic: Int, diastolic: Int)
        /// A heart-rate variability record with its beats (seconds since its start): one
        /// HRV sample and one heartbeat series.
        case variability(start: Date, sdnn: Double, beats: [(bpm: Int, since: Double)])
        /// A run of `minutes` with a pause, its totals in WorkoutStatistics, and its route in a
        /// GPX side file (one location a minute).
        case run(start: Date, minutes: Int, activity: String)
    }

    /// The history: each entry with its day (0–29).
    static let history: [(day: Int, entry: Entry)] = {
        var entries: [(Int, Entry)] = []
        for day in 0..<30 {
            let base = firstDay.addingTimeInterval(Double(day) * 86_400)
            func at(_ hours: Double) -> Date { base.addingTimeInterval(hours * 3600) }
            for (index, hour) in [7.0, 12.25, 19.5].enumerated() {
                entries.append((day, .record(
                    type: "HKQuantityTypeIdentifierHeartRate", source: .watch, unit: "count/min", value: "\(55 + (day * 7 + index * 13) % 45)",
                    start: at(hour), end: at(hour), metadata: [("HKMetadataKeyHeartRateMotionContext", "\(index % 3)")])))
            }
            entries.append((day, .record(
                type: "HKQuantityTypeIdentifierStepCount", source: .phone, unit: "count", value: "\(900 + day * 37)",
                start: at(8), end: at(9), metadata: [])))
            entries.append((day, .record(
                type: "HKQuantityTypeIdentifierDistanceWalkingRunning", source: .phone, unit: "km", value: "\(0.7 + Double(day) / 100)",
                start: at(8), end: at(9), metadata: [])))
            entries.append((day, .record(
                type: "HKCategoryTypeIdentifierSleepAnalysis", source: .watch, unit: nil, value: "HKCategoryValueSleepAnalysisAsleepCore",
                start: at(-1.5), end: at(5), metadata: [("HKTimeZone", "Europe/Paris")])))
            if day % 5 == 0 {
                entries.append((day, .bloodPressure(at: at(6.5), systolic: 115 + day % 10, diastolic: 75 + day % 7)))
            }
            if day % 7 == 3 {
                // Days 3 and 10 in winter time at home (+0100), 17 and 24 in summer time (+0200).
                entries.append((day, .variability(
                    start: at(10 + Double(day) / 60), sdnn: 40 + Double(day) / 2,
                    beats: [(62, 0.6), (64, 10.2), (61, 20.45), (63, 31), (66, 42.5), (60, 55.3)])))
            }
            if [8, 12, 18, 26].contains(day) {
                entries.append((day, .run(start: at(17), minutes: 30, activity: "1E6C0A3B-4F7D-4E55-8E0B-6A7B2C9D1F\(String(format: "%02d", day))")))
            }
        }
        return entries
    }()

    /// One export of the history: the days it holds, the offset and locale it was written at,
    /// when it was made, and the device's address in its text.
    struct Export {
        var days: Range<Int>
        var offset: Int
        var locale: String
        var exported: Date
        var address: String
    }

    /// New York in summer time (-0400), days 0–19; London in summer time (+0100), days 10–29;
    /// Tokyo (+0900), days 5–24. Each range overlaps the others.
    static let exports = [
        Export(days: 0..<20, offset: -4 * 3600, locale: "en_US", exported: firstDay.addingTimeInterval(20 * 86_400), address: "0x283ef4a50"),
        Export(days: 10..<30, offset: 3600, locale: "en_GB", exported: firstDay.addingTimeInterval(31 * 86_400), address: "0x3012772a0"),
        Export(days: 5..<25, offset: 9 * 3600, locale: "ja_JP", exported: firstDay.addingTimeInterval(26 * 86_400), address: "0x600001d2c"),
    ]

    /// `entry`'s route file name in `export`: Apple names it by the run's start on the export's
    /// clock (`route_2025-03-23_6.00pm.gpx`), so each export names the same route otherwise.
    static func routeName(_ start: Date, _ export: Export) -> String {
        let stamp = ImportMergeTests.stamp(start, offset: export.offset)  // yyyy-MM-dd HH:mm:ss ±hhmm
        let day = String(stamp.prefix(10))
        let hour = Int(stamp.dropFirst(11).prefix(2))!, minute = String(stamp.dropFirst(14).prefix(2))
        return "workout-routes/route_\(day)_\(hour % 12 == 0 ? 12 : hour % 12).\(minute)\(hour < 12 ? "am" : "pm").gpx"
    }

    /// The time of day of `date` on the clock at home, as `locale` writes a beat's time:
    /// `7:47:41.86 PM` (en_US), `19:47:41,86` (en_GB), `19:47:41.86` (ja_JP). Apple writes beat
    /// times on the clock of where and when they were taken, not at the export's offset.
    static func beatTime(_ date: Date, locale: String) -> String {
        let local = date.timeIntervalSince1970 + Double(home.secondsFromGMT(for: date))
        let ofDay = local - (local / 86_400).rounded(.down) * 86_400
        let hundredths = Int((ofDay * 100).rounded())
        let hour = hundredths / 360_000, minute = hundredths / 6000 % 60, second = hundredths / 100 % 60, fraction = hundredths % 100
        switch locale {
        case "en_US":
            return String(format: "%d:%02d:%02d.%02d %@", hour % 12 == 0 ? 12 : hour % 12, minute, second, fraction, hour < 12 ? "AM" : "PM")
        case "en_GB":
            return String(format: "%02d:%02d:%02d,%02d", hour, minute, second, fraction)
        default:
            return String(format: "%02d:%02d:%02d.%02d", hour, minute, second, fraction)
        }
    }

    /// `export`'s export.xml and route files.
    static func write(_ export: Export) -> (xml: Data, sideFiles: [(String, Data)]) {
        func at(_ date: Date) -> String { ImportMergeTests.stamp(date, offset: export.offset) }
        let device = export.offset == 3600
            ? "&lt;&lt;HKDevice: \(export.address)&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:11.3&gt;"
            : "&lt;&lt;HKDevice: \(export.address)&gt;,  model:Watch, name:Apple Watch, manufacturer:Apple Inc., software:11.3, hardware:Watch6,7&gt;"
        func source(_ source: Source) -> String {
            switch source {
            case .watch: "sourceName=\"Anna’s Apple\u{00A0}Watch\" sourceVersion=\"11.3\" device=\"\(device)\""
            case .phone: "sourceName=\"Anna’s iPhone\" sourceVersion=\"18.3.2\""
            case .cuff: "sourceName=\"Omron connect\" sourceVersion=\"6.2\""
            }
        }
        func record(_ type: String, _ from: Source, _ unit: String?, _ value: String, _ start: Date, _ end: Date, _ inner: String = "") -> String {
            let unitText = unit.map { " unit=\"\($0)\"" } ?? ""
            let head = "<Record type=\"\(type)\" \(source(from))\(unitText) creationDate=\"\(at(end.addingTimeInterval(90)))\" startDate=\"\(at(start))\" endDate=\"\(at(end))\" value=\"\(value)\""
            return inner.isEmpty ? " \(head)/>\n" : " \(head)>\n\(inner) </Record>\n"
        }
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!-- HealthKit Export Version: 14 -->
            <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram|VisionPrescription)*)
            ]>
            <HealthData locale="\(export.locale)">
             <ExportDate value="\(at(export.exported))"/>
             <Me HKCharacteristicTypeIdentifierDateOfBirth="1984-02-29" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeNotSet" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeNotSet" HKCharacteristicTypeIdentifierCardioFitnessMedicationsUse="None"/>

            """
        var sideFiles: [(String, Data)] = []
        for (day, entry) in history where export.days.contains(day) {
            switch entry {
            case .record(let type, let from, let unit, let value, let start, let end, let metadata):
                let inner = metadata.map { "  <MetadataEntry key=\"\($0.0)\" value=\"\($0.1)\"/>\n" }.joined()
                xml += record(type, from, unit, value, start, end, inner)
            case .bloodPressure(let when, let systolic, let diastolic):
                let members = record("HKQuantityTypeIdentifierBloodPressureSystolic", .cuff, "mmHg", "\(systolic)", when, when)
                    + record("HKQuantityTypeIdentifierBloodPressureDiastolic", .cuff, "mmHg", "\(diastolic)", when, when)
                xml += members
                xml += " <Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" \(source(.cuff)) creationDate=\"\(at(when))\" startDate=\"\(at(when))\" endDate=\"\(at(when))\">\n"
                xml += "  <MetadataEntry key=\"HKWasUserEntered\" value=\"0\"/>\n" + members + " </Correlation>\n"
            case .variability(let start, let sdnn, let beats):
                var inner = "  <HeartRateVariabilityMetadataList>\n"
                for beat in beats {
                    inner += "   <InstantaneousBeatsPerMinute bpm=\"\(beat.bpm)\" time=\"\(beatTime(start.addingTimeInterval(beat.since), locale: export.locale))\"/>\n"
                }
                inner += "  </HeartRateVariabilityMetadataList>\n"
                xml += record("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", .watch, "ms", "\(sdnn)", start, start.addingTimeInterval(60), inner)
            case .run(let start, let minutes, let activity):
                let end = start.addingTimeInterval(Double(minutes) * 60)
                let path = routeName(start, export)
                xml += """
                     <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="\(minutes)" durationUnit="min" \(source(.watch)) creationDate="\(at(end.addingTimeInterval(30)))" startDate="\(at(start))" endDate="\(at(end))">
                      <MetadataEntry key="HKIndoorWorkout" value="0"/>
                      <MetadataEntry key="HKTimeZone" value="Europe/Paris"/>
                      <MetadataEntry key="HKAverageMETs" value="9.1945 kcal/hr-kg"/>
                      <WorkoutEvent type="HKWorkoutEventTypePause" date="\(at(start.addingTimeInterval(600)))"/>
                      <WorkoutEvent type="HKWorkoutEventTypeResume" date="\(at(start.addingTimeInterval(660)))"/>
                      <WorkoutActivity uuid="\(activity)" startDate="\(at(start))" endDate="\(at(end))" duration="\(minutes)" durationUnit="min">
                       <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="\(at(start))" endDate="\(at(end))" sum="5.1" unit="km"/>
                      </WorkoutActivity>
                      <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="\(at(start))" endDate="\(at(end))" sum="310" unit="kcal"/>
                      <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="\(at(start))" endDate="\(at(end))" sum="5.1" unit="km"/>
                      <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="\(at(start))" endDate="\(at(end))" average="151" minimum="120" maximum="171" unit="count/min"/>
                      <WorkoutRoute \(source(.watch)) creationDate="\(at(end.addingTimeInterval(60)))" startDate="\(at(start))" endDate="\(at(end))">
                       <FileReference path="/\(path)"/>
                      </WorkoutRoute>
                     </Workout>

                    """
                sideFiles.append((path, gpx(start: start, minutes: minutes, exported: export.exported)))
            }
        }
        xml += "</HealthData>\n"
        return (Data(xml.utf8), sideFiles)
    }

    /// A run's route as Apple writes it: GPX 1.1, times in UTC, one point a minute; the
    /// metadata's time is the export's.
    static func gpx(start: Date, minutes: Int, exported: Date) -> Data {
        func zulu(_ date: Date) -> String {
            String(ImportMergeTests.stamp(date, offset: 0, zulu: true).dropLast().replacingOccurrences(of: " ", with: "T")) + "Z"
        }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">
              <metadata>
                <time>\(zulu(exported))</time>
              </metadata>
              <trk>
                <name>Route</name>
                <trkseg>

            """
        for point in 0...minutes {
            let when = start.addingTimeInterval(Double(point) * 60)
            text += "      <trkpt lon=\"\(String(format: "%.6f", 2.35 + Double(point) * 0.0007))\" lat=\"\(String(format: "%.6f", 48.85 + Double(point) * 0.0011))\"><ele>35.000000</ele><time>\(zulu(when))</time><extensions><speed>2.800000</speed><course>12.000000</course><hAcc>3.000000</hAcc><vAcc>2.000000</vAcc></extensions></trkpt>\n"
        }
        text += "    </trkseg>\n  </trk>\n</gpx>\n"
        return Data(text.utf8)
    }

    /// The samples of each type the history's `days` hold, counted from the description.
    static func expected(_ days: Set<Int>) -> [String: Int] {
        var counts: [String: Int] = [:]
        for (day, entry) in history where days.contains(day) {
            switch entry {
            case .record(let type, _, _, _, _, _, _):
                counts[type, default: 0] += 1
            case .bloodPressure:
                counts["HKCorrelationTypeIdentifierBloodPressure", default: 0] += 1
                counts["HKQuantityTypeIdentifierBloodPressureSystolic", default: 0] += 1
                counts["HKQuantityTypeIdentifierBloodPressureDiastolic", default: 0] += 1
            case .variability:
                counts["HKQuantityTypeIdentifierHeartRateVariabilitySDNN", default: 0] += 1
                counts["HKDataTypeIdentifierHeartbeatSeries", default: 0] += 1
            case .run:
                counts["HKWorkoutTypeIdentifier", default: 0] += 1
                counts["HKWorkoutRouteTypeIdentifier", default: 0] += 1
            }
        }
        return counts
    }

    static let types = [
        "HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount", "HKQuantityTypeIdentifierDistanceWalkingRunning",
        "HKCategoryTypeIdentifierSleepAnalysis", "HKCorrelationTypeIdentifierBloodPressure",
        "HKQuantityTypeIdentifierBloodPressureSystolic", "HKQuantityTypeIdentifierBloodPressureDiastolic",
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN", "HKDataTypeIdentifierHeartbeatSeries", "HKWorkoutTypeIdentifier",
        "HKWorkoutRouteTypeIdentifier",
    ]

    @Test("exported at -0400, +0100 and +0900 over overlapping days, the history is held once: every sample, workout, route and heartbeat series")
    func threeExportsMerge() async throws {
        let server = try await ServerHarness.start()
        let owner = try await server.owner()
        let store = HealthStore(client: owner)
        func held() async throws -> [String: [Sample]] {
            var samples: [String: [Sample]] = [:]
            for type in Self.types {
                samples[type] = try await SampleQueryDescriptor(type: SampleType(type)).result(for: store)
            }
            return samples
        }
        var days = Set<Int>()
        for export in Self.exports {
            let (xml, sideFiles) = Self.write(export)
            let report = try await ImportServiceTests.importExport(owner, xml, sideFiles: sideFiles, chunk: 64 * 1024)
            days.formUnion(export.days)
            let label = "export at \(export.offset / 3600) h, days \(export.days)"
            #expect(report.skipped == 0 && report.problems.isEmpty, "\(label): \(report.problems)")
            #expect(report.notImported.isEmpty, "\(label): every route file is its workout's: \(report.notImported)")
            let samples = try await held()
            #expect(samples.mapValues(\.count) == Self.expected(days), "\(label)")
            // Tokyo's days 5–24 were all in the first two exports: nothing of it is new.
            if export.offset == 9 * 3600 { #expect(report.saved == 0, "\(label): \(report.saved) saved") }
        }
        #expect(days == Set(0..<30))

        // Each sample is the history's, at its instants: the heart rates by start and value.
        let samples = try await held()
        var heartRates: [String] = []
        var runs: [Date] = []
        var series: [Date: [Double]] = [:]
        for (_, entry) in Self.history {
            switch entry {
            case .record(let type, _, _, let value, let start, _, _) where type == "HKQuantityTypeIdentifierHeartRate":
                heartRates.append("\(start.timeIntervalSince1970) \(value)")
            case .run(let start, _, _):
                runs.append(start)
            case .variability(let start, _, let beats):
                series[start] = beats.map(\.since)
            default:
                break
            }
        }
        let storedRates = samples["HKQuantityTypeIdentifierHeartRate", default: []].map { sample in
            guard case .quantity(let quantity) = sample.value, let figure = ImportCorpusTests.figure(quantity, in: "count/min") else { return "not a quantity" }
            return "\(sample.startDate.timeIntervalSince1970) \(Int(figure.rounded()))"
        }
        #expect(storedRates.sorted() == heartRates.sorted())

        // Workouts and routes: one each per run, each route on its workout with every location.
        let workouts = samples["HKWorkoutTypeIdentifier", default: []]
        #expect(workouts.map(\.startDate).sorted() == runs.sorted())
        let routes = try await ImportServiceTests.routes(owner)
        #expect(routes.count == runs.count)
        for (route, locations) in routes {
            guard case .workoutRoute(let value) = route.value else {
                Issue.record("not a route: \(route)")
                continue
            }
            let workout = workouts.first { $0.uuid == value.workoutUUID }
            #expect(workout != nil, "the route's workout is held")
            #expect(locations.count == 31 && locations.first?.timestamp == workout?.startDate && locations.last?.timestamp == workout?.endDate)
        }

        // Heartbeat series: one per HRV record, its beats where they were taken.
        for sample in samples["HKDataTypeIdentifierHeartbeatSeries", default: []] {
            guard case .heartbeatSeries(let value) = sample.value, let beats = series[sample.startDate] else {
                Issue.record("a series the history does not hold: \(sample.startDate)")
                continue
            }
            #expect(zip(value.beats.map(\.timeSinceSeriesStart), beats).allSatisfy { abs($0 - $1) < 0.006 }, "\(sample.startDate): \(value.beats.map(\.timeSinceSeriesStart)) against \(beats)")
            #expect(sample.endDate.timeIntervalSince(sample.startDate) <= 60, "a series of 60 s spans 60 s")
        }

        // Each export again adds nothing.
        for export in Self.exports {
            let (xml, sideFiles) = Self.write(export)
            let again = try await ImportServiceTests.importExport(owner, xml, sideFiles: sideFiles, chunk: 64 * 1024)
            #expect(again.saved == 0, "export at \(export.offset / 3600) h again: \(again.saved) saved")
        }
        #expect(try await held().mapValues(\.count) == Self.expected(days))
        await owner.close()
        await server.stop()
    }
}
