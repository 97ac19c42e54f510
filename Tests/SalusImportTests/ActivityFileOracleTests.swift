import Foundation
import SalusImport
import SalusModel
import Testing

/// `shared/data/gpx-tcx/oracle.json`: an independent parse (Python's ElementTree, no GPX or
/// TCX library) of each file of `shared/data/gpx-tcx` (see that folder's README.md). The files
/// are read where the workplace keeps them, beside the project (`../shared/data/gpx-tcx`, or
/// `SALUS_SHARED_DATA`/gpx-tcx): their README allows committing them only there.
struct ActivityOracle: Decodable {
    struct Activity: Decodable, Sendable {
        var sport: String?
    }

    struct File: Decodable, Sendable, CustomTestStringConvertible {
        var file: String
        var format: String
        var creator: String?
        var creatorName: String?
        var trackType: String?
        var activities: [Activity]?
        var laps: Int?
        var lapTotalTimeS: Double?
        var lapDistanceM: Double?
        var firstLapStart: String?
        var lapAvgMaxHr: [[Double]]?
        var trackPoints: Int
        var segments: Int
        var pointsWithPosition: Int
        var pointsWithTime: Int
        var firstTime: String?
        var lastTime: String?
        var haversineDistanceM: Double
        var pointsWithHr: Int
        var hrMin: Double?
        var hrAvg: Double?
        var hrMax: Double?
        var firstPosition: [Double]?
        var lastPosition: [Double]?
        var pointsWithCadence: Int?
        var pointsWithPower: Int?
        var pointsWithWatts: Int?
        var lastCumulativeDistanceM: Double?

        var testDescription: String { file }
    }

    var files: [File]

    /// The folder holding the files and oracle.json.
    static let folder: URL = {
        if let shared = ProcessInfo.processInfo.environment["SALUS_SHARED_DATA"] {
            return URL(fileURLWithPath: shared).appendingPathComponent("gpx-tcx")
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/data/gpx-tcx").standardizedFileURL
    }()

    /// The oracle's files; empty when oracle.json cannot be read (`everyFileListed` fails then).
    static let files: [File] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("oracle.json")) else { return [] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return (try? decoder.decode(ActivityOracle.self, from: data).files) ?? []
    }()

    /// An oracle time ("2022-11-12T15:58:25.8498Z"), read by Foundation, not by the importer's parser.
    static func time(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// Every GPX and TCX file of shared/data/gpx-tcx imported and compared with oracle.json, figure
/// by figure, within the oracle's own precision: times to the millisecond Foundation reads
/// (the oracle writes them as the file does), positions exactly (both parse the same decimal
/// text to the nearest double), the haversine length to its 0.1 m, heart-rate means to 0.01.
@Suite("GPX and TCX files against the oracle")
struct ActivityFileOracleTests {
    static let catalog = ExportReaderTests.catalog

    @Test("oracle.json lists every GPX and TCX file of the folder")
    func everyFileListed() throws {
        let listed = Set(ActivityOracle.files.map(\.file))
        let enumerator = try #require(FileManager.default.enumerator(atPath: ActivityOracle.folder.path))
        let present = Set(enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".gpx") || $0.hasSuffix(".tcx") })
        #expect(present.count == 13)
        #expect(listed == present)
    }

    @Test("each file: points, segments, times, positions, distance, heart rate, laps, sport", arguments: ActivityOracle.files)
    func file(_ oracle: ActivityOracle.File) throws {
        let data = try Data(contentsOf: ActivityOracle.folder.appendingPathComponent(oracle.file))
        if oracle.pointsWithTime == 0 {
            // Strava's planned route: refused whole, saying why.
            #expect(throws: ActivityFileError.self) { try ActivityFile.read(data, catalog: Self.catalog) }
            do {
                _ = try ActivityFile.read(data, catalog: Self.catalog)
            } catch {
                #expect(error.element == "trk" && error.line > 0)
                #expect(error.message.contains("planned route") && error.message.contains("\(oracle.trackPoints) points"))
            }
            return
        }
        let activities = try ActivityFile.read(data, catalog: Self.catalog)
        try #require(activities.count == 1)
        let activity = activities[0]
        let points = activity.track.points
        #expect(activity.track.format == oracle.format)

        // Counts.
        #expect(points.count == oracle.trackPoints)
        #expect(activity.track.segments.count == oracle.segments)
        #expect(points.filter { $0.latitude != nil }.count == oracle.pointsWithPosition)
        #expect(activity.route.count == oracle.pointsWithPosition)
        #expect(points.filter { $0.heartRate != nil }.count == oracle.pointsWithHr)
        if oracle.format == "GPX" {
            #expect(points.filter { $0.cadence != nil }.count == oracle.pointsWithCadence)
            #expect(points.filter { $0.power != nil }.count == oracle.pointsWithPower)
        } else {
            #expect(points.filter { $0.power != nil }.count == oracle.pointsWithWatts)
        }

        // First and last point: time and position.
        let first = try #require(oracle.firstTime.flatMap(ActivityOracle.time))
        let last = try #require(oracle.lastTime.flatMap(ActivityOracle.time))
        #expect(abs(points.first!.time.timeIntervalSince(first)) < 0.001)
        #expect(abs(points.last!.time.timeIntervalSince(last)) < 0.001)
        let located = points.filter { $0.latitude != nil }
        #expect(located.first.map { [$0.latitude!, $0.longitude!] } == oracle.firstPosition)
        #expect(located.last.map { [$0.latitude!, $0.longitude!] } == oracle.lastPosition)
        #expect(activity.route.first.map { [$0.latitude, $0.longitude] } == oracle.firstPosition)
        #expect(activity.route.last.map { [$0.latitude, $0.longitude] } == oracle.lastPosition)

        // Distance: the route's haversine length to the oracle's 0.1 m.
        #expect(abs(activity.routeDistance - oracle.haversineDistanceM) <= 0.05 + 1e-9)

        // Heart rate: the samples, one per point that has one, and the workout's figures.
        let heartRates = activity.samples.filter { $0.type.rawValue == "HKQuantityTypeIdentifierHeartRate" }
        #expect(heartRates.count == oracle.pointsWithHr)
        let bpm = heartRates.compactMap { sample -> Double? in
            guard case .quantity(let quantity) = sample.value else { return nil }
            return try? quantity.converted(to: .countPerMinute).value
        }
        #expect(bpm.min() == oracle.hrMin && bpm.max() == oracle.hrMax)
        if let average = oracle.hrAvg {
            #expect(abs(bpm.reduce(0, +) / Double(bpm.count) - average) <= 0.005 + 1e-9)
        }
        if let firstBeat = heartRates.first {
            #expect(firstBeat.startDate == points.first { $0.heartRate != nil }!.time)
        }

        // The workout: start, end, elapsed, sport, distance, laps.
        guard case .workout(let workout) = activity.workout.value else {
            Issue.record("not a workout")
            return
        }
        let distanceType = workout.statistics.keys.first { $0.rawValue.hasPrefix("HKQuantityTypeIdentifierDistance") }
        let distance = distanceType.flatMap { workout.statistics[$0]?.value }
        if oracle.format == "GPX" {
            #expect(activity.start == first && activity.end == last)
            #expect(abs(activity.end.timeIntervalSince(activity.start) - last.timeIntervalSince(first)) < 0.001)
            let expected: UInt =
                switch oracle.trackType?.lowercased() {
                case "running"?: 37
                default: 3000
                }
            #expect(workout.activityType == expected)
            #expect(abs((distance ?? -1) - oracle.haversineDistanceM) <= 0.05 + 1e-9)
            #expect(workout.recordedDuration == nil)
            #expect(workout.events.filter { $0.type == WorkoutEventType.pause.rawValue }.count == oracle.segments - 1)
        } else {
            let lapStart = try #require(oracle.firstLapStart.flatMap(ActivityOracle.time))
            let lapTotal = try #require(oracle.lapTotalTimeS)
            // The workout spans its points and its laps: from the first lap's start (an excerpt's
            // lap starts before its points) to the last point or the end of the last lap.
            #expect(activity.start == min(first, lapStart))
            #expect(activity.end.timeIntervalSince(last) > -0.001)
            if oracle.laps == 1 {
                #expect(abs(activity.end.timeIntervalSince(max(last, lapStart.addingTimeInterval(lapTotal)))) < 0.001)
            }
            #expect(abs((workout.recordedDuration ?? -1) - lapTotal) < 1e-6)
            #expect(abs((distance ?? -1) - (oracle.lapDistanceM ?? -2)) < 1e-3)
            let laps = workout.events.filter { $0.type == WorkoutEventType.lap.rawValue }
            #expect(laps.count == oracle.laps)
            #expect(laps.first?.startDate == lapStart)
            let expected: UInt =
                switch oracle.activities?.first?.sport {
                case "Running"?: 37
                case "Biking"?: 13
                default: 3000
                }
            #expect(workout.activityType == expected)
            #expect(activity.workout.device?.name == oracle.creatorName)
            // A second Track inside one lap followed a pause.
            if oracle.file.hasSuffix("sample.tcx") {
                #expect(workout.events.filter { $0.type == WorkoutEventType.pause.rawValue }.count == 2)
            }
        }
        if let creator = oracle.creator ?? oracle.creatorName {
            #expect(activity.workout.sourceRevision.name == creator)
        }

        // Every value passes the rules a save holds it to.
        var prepared = Self.catalog.prepareForSaving(activity.workout, at: "workout", allowReadOnly: true)
        #expect(prepared.1.isEmpty, "\(prepared.1)")
        for sample in activity.samples {
            prepared = Self.catalog.prepareForSaving(sample, at: "sample", allowReadOnly: true)
            #expect(prepared.1.isEmpty, "\(prepared.1)")
        }
        #expect(WorkoutRoute(locations: activity.route).validationErrors().isEmpty)
    }

    @Test("reading a file again gives the same sync identifiers: a re-import adds nothing", arguments: ActivityOracle.files.filter { $0.pointsWithTime > 0 })
    func stableIdentity(_ oracle: ActivityOracle.File) throws {
        let data = try Data(contentsOf: ActivityOracle.folder.appendingPathComponent(oracle.file))
        let once = try ActivityFile.read(data, catalog: Self.catalog)[0]
        let again = try ActivityFile.read(data, catalog: Self.catalog)[0]
        func identifiers(_ activity: ImportedActivity) -> [String] {
            ([activity.workout] + activity.samples).map { sample in
                if case .string(let text)? = sample.metadata[MetadataKey.syncIdentifier] { return text }
                return ""
            }
        }
        #expect(identifiers(once) == identifiers(again))
        #expect(once.routeSyncIdentifier == again.routeSyncIdentifier)
        #expect(identifiers(once).allSatisfy { $0.hasPrefix(ActivityFile.identityPrefix) })
        #expect(once.workout.uuid != again.workout.uuid)
    }
}
