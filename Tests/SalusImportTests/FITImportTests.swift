import Foundation
import SalusImport
import SalusModel
import Testing

/// `shared/data/fit/oracle.json`'s figures that the import must keep (Garmin's FIT SDK's
/// decoding; see that folder's README.md): the sessions and the first and last record.
struct FITOracle: Decodable {
    struct Session: Decodable, Sendable {
        var sport: String?
        var subSport: String?
        var startTime: String?
        var totalElapsedTime: Double?
        var totalDistance: Double?
    }
    struct Point: Decodable, Sendable {
        var timestamp: String?
        var lat: Double?
        var lon: Double?
        var distance: Double?
        var heartRate: Double?
    }
    struct Records: Decodable, Sendable {
        var count: Int
        var withPosition: Int
        var first: Point?
        var last: Point?
    }
    struct Lengths: Decodable, Sendable {
        var byType: [String: Int]
        var strokes: [String: Int]
    }
    struct File: Decodable, Sendable, CustomTestStringConvertible {
        var file: String
        var sessions: [Session]?
        var records: Records
        var lengths: Lengths?
        var testDescription: String { file }
    }
    var files: [File]

    static let folder: URL = {
        if let shared = ProcessInfo.processInfo.environment["SALUS_SHARED_DATA"] {
            return URL(fileURLWithPath: shared).appendingPathComponent("fit")
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/data/fit").standardizedFileURL
    }()

    static let files: [File] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("oracle.json")) else { return [] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return (try? decoder.decode(FITOracle.self, from: data).files) ?? []
    }()

    static func date(_ text: String?) -> Date? {
        text.flatMap { try? Date($0, strategy: .iso8601) }
    }

    /// The file's bytes.
    static func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.appendingPathComponent(file)))
    }
}

/// Every FIT file of shared/data/fit imported and compared with Garmin's FIT SDK's figures
/// (oracle.json), never with Salus's own output: each session's sport, start, elapsed time and
/// distance, the first and last record's time and position as the route's first and last
/// location, the pool lengths with their strokes.
@Suite("FIT files to workouts, against the oracle")
struct FITImportTests {
    static let catalog = ExportReaderTests.catalog

    /// The HealthKit activity type a FIT sport (and sub-sport) is imported as.
    static let activityTypes: [String: UInt] = [
        "running": 37, "cycling": 13, "swimming": 46, "transition": 83, "fitness_equipment/indoor_rowing": 35,
    ]

    @Test("oracle.json lists the 18 FIT files")
    func everyFile() {
        #expect(FITOracle.files.count == 18)
    }

    @Test("each file: sport, start, elapsed time, distance, first and last route point", arguments: FITOracle.files)
    func file(_ oracle: FITOracle.File) throws {
        let imported = try FITImport.read(FITOracle.bytes(oracle.file), catalog: Self.catalog)
        let sessions = oracle.sessions ?? []
        #expect(imported.source.appID.hasPrefix("fit."))
        try #require(imported.workouts.count == 1)
        let fileWorkout = imported.workouts[0]
        let sample = fileWorkout.workout
        guard case .workout(let workout) = sample.value else {
            Issue.record("not a workout")
            return
        }
        // Every workout passes the one sample check as it will be saved.
        let prepared = Self.catalog.prepareForSaving(sample, at: "workout", allowReadOnly: true)
        #expect(prepared.errors.isEmpty, "\(prepared.errors)")
        for child in fileWorkout.samples {
            let errors = Self.catalog.prepareForSaving(child, at: "sample", allowReadOnly: true).errors
            if !errors.isEmpty {
                Issue.record("\(child.type.rawValue): \(errors)")
                break
            }
        }
        if sessions.isEmpty {
            // nick.fit: no session; the workout spans the records.
            #expect(sample.startDate == FITOracle.date(oracle.records.first?.timestamp))
            #expect(sample.endDate == FITOracle.date(oracle.records.last?.timestamp))
            #expect(abs((fileWorkout.distance ?? 0) - (oracle.records.last?.distance ?? -1)) < 0.01)
        } else if sessions.count == 1 {
            let session = sessions[0]
            let sport = [session.sport, session.subSport].compactMap { $0 }.joined(separator: "/")
            #expect(workout.activityType == Self.activityTypes[sport] ?? Self.activityTypes[session.sport ?? ""], "\(sport)")
            #expect(sample.startDate == FITOracle.date(session.startTime))
            #expect(abs(sample.endDate.timeIntervalSince(sample.startDate) - (session.totalElapsedTime ?? -1)) < 0.0005)
            #expect(abs((fileWorkout.distance ?? 0) - (session.totalDistance ?? 0)) < 0.005)
        } else {
            // A multisport file: one swimBikeRun workout, a leg per session in order.
            #expect(workout.activityType == 82)
            #expect(workout.activities.count == sessions.count)
            for (index, (activity, session)) in zip(workout.activities, sessions).enumerated() {
                #expect(activity.activityType == Self.activityTypes[session.sport ?? ""])
                #expect(activity.startDate == FITOracle.date(session.startTime))
                // A leg's elapsed time runs past the next leg's start, written in whole seconds,
                // by its fraction (1987.521 s from 07:33:01, the next from 08:06:08): it ends there.
                let elapsed = try #require(session.totalElapsedTime)
                let next = index + 1 < sessions.count ? FITOracle.date(sessions[index + 1].startTime) : nil
                let end = min(activity.startDate.addingTimeInterval(elapsed), next ?? .distantFuture)
                #expect(abs((activity.endDate ?? .distantPast).timeIntervalSince(end)) < 0.0005)
                #expect(elapsed - (activity.endDate ?? .distantPast).timeIntervalSince(activity.startDate) < 1)
            }
            let lastSession = try #require(sessions.last)
            #expect(abs(sample.endDate.timeIntervalSince(FITOracle.date(lastSession.startTime)!) - (lastSession.totalElapsedTime ?? -1)) < 0.0005)
            #expect(abs((fileWorkout.distance ?? 0) - sessions.compactMap(\.totalDistance).reduce(0, +)) < 0.01)
        }
        // The route: the records' positions; the first and last record's, where they have one.
        #expect(fileWorkout.route.isEmpty == (oracle.records.withPosition == 0))
        func same(_ location: RouteLocation?, _ point: FITOracle.Point?) {
            guard let point, let latitude = point.lat, let longitude = point.lon else { return }
            guard let location else {
                Issue.record("no route location for \(point)")
                return
            }
            #expect(location.timestamp == FITOracle.date(point.timestamp))
            #expect(abs(location.latitude - latitude) < 0.000_000_05)
            #expect(abs(location.longitude - longitude) < 0.000_000_05)
        }
        same(fileWorkout.route.first, oracle.records.first)
        if let last = oracle.records.last, let when = FITOracle.date(last.timestamp), when > Date(timeIntervalSince1970: 3_000_000_000) {
            // The one listed difference: Strava's last record, dated 2085, is refused (its
            // offset reported); the route ends before it.
            #expect((fileWorkout.route.last?.timestamp ?? .distantFuture) < when)
            #expect(imported.stop != nil)
        } else {
            same(fileWorkout.route.last, oracle.records.last)
        }
        // Pool lengths: the active ones as lap events, each with its stroke.
        if let lengths = oracle.lengths {
            let laps = workout.events.filter { $0.type == WorkoutEventType.lap.rawValue }
            #expect(laps.count == lengths.byType["active"])
            let styles: [String: Double] = ["freestyle": 2, "backstroke": 3, "breaststroke": 4, "butterfly": 5, "drill": 0, "mixed": 1, "im": 1]
            for (stroke, count) in lengths.strokes {
                let found = laps.filter { $0.metadata[MetadataKey.swimmingStrokeStyle]?.numberValue == styles[stroke] }.count
                #expect(found == count, "\(stroke)")
            }
            #expect(workout.configuration.swimmingLocationType == .pool)
        }
    }

    @Test("each file: the first and last record's heart rate, where the workout holds the record, is a heart rate sample of its time", arguments: FITOracle.files)
    func recordHeartRates(_ oracle: FITOracle.File) throws {
        let imported = try FITImport.read(FITOracle.bytes(oracle.file), catalog: Self.catalog)
        let workouts = imported.workouts
        let heartRates = workouts.flatMap(\.samples).filter { $0.type.rawValue == "HKQuantityTypeIdentifierHeartRate" }
        var checked = 0
        for point in [oracle.records.first, oracle.records.last].compactMap({ $0 }) {
            // A heart rate of 0 is no strap: no sample.
            guard let rate = point.heartRate, rate > 0, let time = FITOracle.date(point.timestamp),
                  workouts.contains(where: { $0.workout.startDate <= time && time <= $0.workout.endDate })
            else { continue }
            let at = heartRates.filter { $0.endDate == time }
            #expect(at.count == 1, "\(oracle.file): \(at.count) heart rate samples at \(time)")
            guard case .quantity(let quantity)? = at.first?.value else { continue }
            #expect(quantity == Quantity(value: rate, unit: .countPerMinute))
            checked += 1
        }
        if oracle.file.hasSuffix("developer-types-sample.fit") { #expect(checked == 2) }
    }

    @Test("the 920XT triathlon: one swimBikeRun workout, swim, transition, bike, transition, run, heart rate from the chained files")
    func triathlon() throws {
        let imported = try FITImport.read(FITOracle.bytes("dtcooper-python-fitparse/sample_mulitple_header.fit"), catalog: Self.catalog)
        try #require(imported.workouts.count == 1)
        guard case .workout(let workout) = imported.workouts[0].workout.value else { return }
        #expect(workout.activityType == WorkoutActivityType.swimBikeRun)
        #expect(workout.activities.map(\.activityType) == [46, 83, 13, 83, 37])
        #expect(workout.activities[0].configuration.swimmingLocationType == .openWater)
        let heartRates = imported.workouts[0].samples.filter { $0.type.rawValue == "HKQuantityTypeIdentifierHeartRate" }
        let swimEnd = try #require(workout.activities[0].endDate)
        // The swim's heart rates come from the strap's stored beats, in the chained files.
        #expect(heartRates.contains { $0.startDate < swimEnd })
        // Each leg's distance is its sport's: swimming, cycling, walking and running.
        #expect(workout.activities[0].statistics["HKQuantityTypeIdentifierDistanceSwimming"] != nil)
        #expect(workout.activities[2].statistics["HKQuantityTypeIdentifierDistanceCycling"] != nil)
        #expect(workout.activities[4].statistics["HKQuantityTypeIdentifierDistanceWalkingRunning"] != nil)
    }

    @Test("a file read twice gives the same sync identifiers; its twin re-encoded with the summary first names the same workout and the same samples")
    func stableIdentity() throws {
        let last = try FITImport.read(FITOracle.bytes("muktihari-fit/triathlon_summary_last.fit"), catalog: Self.catalog)
        let again = try FITImport.read(FITOracle.bytes("muktihari-fit/triathlon_summary_last.fit"), catalog: Self.catalog)
        let first = try FITImport.read(FITOracle.bytes("muktihari-fit/triathlon_summary_first.fit"), catalog: Self.catalog)
        #expect(last.workouts.map(\.workout.syncIdentifier) == again.workouts.map(\.workout.syncIdentifier))
        #expect(last.workouts.flatMap(\.samples).map(\.syncIdentifier) == again.workouts.flatMap(\.samples).map(\.syncIdentifier))
        #expect(last.workouts.first?.workout.syncIdentifier == first.workouts.first?.workout.syncIdentifier)
        // The twin's records are the same records in other places of the file: the same samples.
        func named(_ file: FileImport) -> Set<String> {
            Set(file.workouts.flatMap(\.samples).map { "\($0.type.rawValue) \($0.syncIdentifier ?? "")" })
        }
        #expect(named(last).count > 4000)
        #expect(named(last) == named(first))
    }

    @Test("a long ride's record samples are made a batch at a time while they are saved: each batch about the size asked, together the samples of the whole file in file order, a copy starting where its original stood")
    func recordSamplesInBatches() throws {
        let imported = try FITImport.read(FITOracle.bytes("dtcooper-python-fitparse/2019-02-17-062644-ELEMNT-297E-195-0.fit"), catalog: Self.catalog)
        let workout = try #require(imported.workouts.first)
        var more = try #require(workout.moreSamples, "the records' samples made all at once")
        let all = workout.samples
        #expect(all.count > 60_000)
        var batches: [[Sample]] = []
        let untouched = more
        while case let batch = more.next(1000), !batch.isEmpty { batches.append(batch) }
        // A record makes at most five samples: a batch stops at the record that reaches the size.
        #expect(batches.dropLast().allSatisfy { (1000...1004).contains($0.count) })
        #expect((workout.readySamples + batches.flatMap { $0 }).map { "\($0.type.rawValue) \($0.syncIdentifier ?? "")" }
            == all.map { "\($0.type.rawValue) \($0.syncIdentifier ?? "")" })
        var copy = untouched
        let again = copy.next(10)
        #expect((10...14).contains(again.count))
        #expect(again.map(\.syncIdentifier) == batches[0].prefix(again.count).map(\.syncIdentifier))
    }

    @Test("broken files: the Strava file stops at byte 7,471 (a record of local message 11, never defined), nick.fit at its cut-off last message; what came before is imported")
    func brokenFiles() throws {
        let strava = try FITImport.read(FITOracle.bytes("dtcooper-python-fitparse/strava-android-app-201.10-b1218918.fit"), catalog: Self.catalog)
        // The record header's byte, as fitdecode says; Garmin's SDK names the byte after it (7,472).
        #expect(strava.stop?.offset == 7471)
        #expect(strava.workouts.count == 1)
        let nick = try FITImport.read(FITOracle.bytes("dtcooper-python-fitparse/nick.fit"), catalog: Self.catalog)
        let stop = try #require(nick.stop)
        #expect((stop.offset ?? 0) > 400_000)
        #expect(nick.workouts.first?.samples.isEmpty == false)
    }

    @Test("bytes that are no FIT file are refused naming the byte; a truncated header too")
    func notFIT() throws {
        #expect(throws: FileProblem.self) { try FITImport.read(Array("not a fit file at all".utf8), catalog: Self.catalog) }
        let bytes = try FITOracle.bytes("dtcooper-python-fitparse/garmin-fenix-5-run.fit")
        #expect(throws: FileProblem.self) { try FITImport.read(Array(bytes.prefix(10)), catalog: Self.catalog) }
    }

    @Test("formats are told by content: FIT, zip, SQLite, and XML roots past the prolog, comments and DOCTYPE")
    func detection() throws {
        #expect(SourceFormat.detect(try FITOracle.bytes("tormoder-fit/2013-02-06-12-11-14.fit").prefix(64)) == .fit)
        #expect(SourceFormat.detect([0x50, 0x4B, 0x03, 0x04, 0, 0]) == .zip)
        #expect(SourceFormat.detect(Array("SQLite format 3\0rest".utf8)) == .gadgetbridge)
        #expect(SourceFormat.detect(Array("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- <HealthData> -->\n<gpx:gpx xmlns:gpx=\"x\">".utf8)) == .gpx)
        #expect(SourceFormat.detect(Array("<?xml version=\"1.0\"?><TrainingCenterDatabase>".utf8)) == .tcx)
        #expect(SourceFormat.detect(Array("<?xml version=\"1.0\"?>\n<!DOCTYPE HealthData [\n<!ELEMENT HealthData (Record)*>".utf8)) == .appleHealth)
        #expect(SourceFormat.detect(Array("<html><body>".utf8)) == nil)
        #expect(SourceFormat.detect(Array("plain text".utf8)) == nil)
    }
}

/// Monitoring, wellness and sleep messages, which no file of shared/data holds (Garmin's only
/// public examples may not be passed on): FIT bytes built in the test from the protocol's
/// description.
@Suite("FIT monitoring and sleep files to samples")
struct FITMonitoringImportTests {
    /// A FIT file: header, the records, the CRC.
    struct Builder {
        var records: [UInt8] = []

        mutating func define(local: UInt8, global: UInt16, _ fields: [(UInt8, UInt8, UInt8)]) {
            records += [0x40 | local, 0, 0, UInt8(global & 0xFF), UInt8(global >> 8), UInt8(fields.count)]
            for field in fields { records += [field.0, field.1, field.2] }
        }

        mutating func data(local: UInt8, _ content: [UInt8]) { records += [local] + content }

        func file() -> [UInt8] {
            var header: [UInt8] = [14, 0x20, 0x54, 0x08] + Self.le32(UInt32(records.count)) + Array(".FIT".utf8)
            header += Self.le16(Self.crc(header))
            let body = header + records
            return body + Self.le16(Self.crc(body))
        }

        static func crc(_ bytes: [UInt8]) -> UInt16 {
            var crc: UInt16 = 0
            for byte in bytes {
                crc ^= UInt16(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
            }
            return crc
        }
        static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        static func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    }

    /// 2021-09-08 10:00 UTC-ish, in seconds since the FIT epoch.
    static let start: UInt32 = 1_000_000_000

    static func date(_ time: UInt32) -> Date { Date(timeIntervalSince1970: 631_065_600 + Double(time)) }

    @Test("a day's monitoring: steps from the walking count's growth, heart rates (255 and 0 are none), intensity minutes; a night's sleep levels as stages")
    func monitoringAndSleep() throws {
        var builder = Builder()
        // file_id: type 32 (monitoring_b), Garmin, product 2697, serial 12345
        builder.define(local: 0, global: 0, [(0, 1, 0x00), (1, 2, 0x84), (2, 2, 0x84), (3, 4, 0x8C), (4, 4, 0x86)])
        builder.data(local: 0, [32] + Builder.le16(1) + Builder.le16(2697) + Builder.le32(12345) + Builder.le32(Self.start))
        // monitoring: timestamp, cycles (steps when walking), activity type, heart rate, moderate and vigorous minutes
        builder.define(local: 1, global: 55, [(253, 4, 0x86), (3, 4, 0x86), (5, 1, 0x00), (27, 1, 0x02), (33, 2, 0x84), (34, 2, 0x84)])
        let rows: [(UInt32, UInt32, UInt8, UInt8, UInt16, UInt16)] = [
            (0, 1_000, 6, 62, 0, 0),
            (900, 1_800, 6, 255, 10, 5),  // 800 steps; heart rate invalid; 15 intensity minutes
            (1_800, 1_800, 6, 0, 0, 0),  // no steps; a heart rate of 0 is none
            (2_700, 2_500, 6, 71, 0, 0),  // 700 steps
        ]
        for (offset, steps, activity, rate, moderate, vigorous) in rows {
            builder.data(local: 1, Builder.le32(Self.start + offset) + Builder.le32(steps) + [activity, rate] + Builder.le16(moderate) + Builder.le16(vigorous))
        }
        // sleep levels: awake, light 20 min, deep 30 min, rem 10 min, awake
        builder.define(local: 2, global: 275, [(253, 4, 0x86), (0, 1, 0x00)])
        let night = Self.start + 40_000
        for (minutes, level) in [(0, 1), (5, 2), (25, 3), (55, 4), (65, 1)] as [(UInt32, UInt8)] {
            builder.data(local: 2, Builder.le32(night + minutes * 60) + [level])
        }
        let imported = try FITImport.read(builder.file(), catalog: FITImportTests.catalog)
        #expect(imported.workouts.isEmpty && imported.stop == nil)
        #expect(imported.source.appID == "fit.garmin-2697")
        func of(_ type: String) -> [Sample] { imported.samples.filter { $0.type.rawValue == type } }
        let steps = of("HKQuantityTypeIdentifierStepCount")
        #expect(steps.map(\.value) == [.quantity(Quantity(value: 800, unit: .count)), .quantity(Quantity(value: 700, unit: .count))])
        #expect(steps.map(\.startDate) == [Self.date(Self.start), Self.date(Self.start + 1_800)])
        #expect(steps.map(\.endDate) == [Self.date(Self.start + 900), Self.date(Self.start + 2_700)])
        let rates = of("HKQuantityTypeIdentifierHeartRate")
        #expect(rates.map(\.value) == [.quantity(Quantity(value: 62, unit: .countPerMinute)), .quantity(Quantity(value: 71, unit: .countPerMinute))])
        let minutes = of("HKQuantityTypeIdentifierAppleExerciseTime")
        #expect(minutes.map(\.value) == [.quantity(Quantity(value: 15, unit: .minute))])
        #expect(minutes.first?.endDate == Self.date(Self.start + 900))
        let sleep = of("HKCategoryTypeIdentifierSleepAnalysis")
        // awake 2, asleepCore 3, asleepDeep 4, asleepREM 5; the last level has no end and is left out
        #expect(sleep.map(\.value) == [.category(2), .category(3), .category(4), .category(5)])
        #expect(sleep.map(\.startDate) == [0, 5, 25, 55].map { Self.date(night + $0 * 60) })
        #expect(sleep.map(\.endDate) == [5, 25, 55, 65].map { Self.date(night + $0 * 60) })
        for sample in imported.samples {
            #expect(FITImportTests.catalog.prepareForSaving(sample, at: "sample", allowReadOnly: true).errors.isEmpty, "\(sample)")
        }
        // Every sample is named by the file and its time, so a second import adds nothing.
        #expect(Set(imported.samples.map { "\($0.type.rawValue) \($0.syncIdentifier ?? "")" }).count == imported.samples.count)
    }

    @Test("a file holding nothing Salus imports (a settings file) is refused naming its type")
    func nothingToImport() {
        var builder = Builder()
        builder.define(local: 0, global: 0, [(0, 1, 0x00), (1, 2, 0x84), (4, 4, 0x86)])
        builder.data(local: 0, [2] + Builder.le16(1) + Builder.le32(Self.start))
        #expect(throws: FileProblem.self) { try FITImport.read(builder.file(), catalog: FITImportTests.catalog) }
    }
}
