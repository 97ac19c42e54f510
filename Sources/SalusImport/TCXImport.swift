import Foundation
import SalusModel

/// Garmin's Training Center XML (TCX v2: Garmin Connect, Fitbit, MapMyRide, Forerunners) as
/// tracks: each `Activity` is a workout of its `Sport`, each `Lap` a lap event, each `Track` a
/// stretch (a second `Track` inside one lap follows a pause), each `Trackpoint` a point.
///
/// **Rules.**
/// - TCX's elements are matched in its namespace
///   (`http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2`, or none); the `TPX`
///   extension's `Speed`, `Watts` and `RunCadence` in Garmin's ActivityExtension namespace
///   (`…/ActivityExtension/v2`) by URI, whatever its prefix (`ns3:`, `ax:`).
/// - Every `Trackpoint` needs a `Time` (the schema requires one); a `Course` (a planned route)
///   is not an activity and refuses a file that holds nothing else. A point may lack a
///   position (kept for its heart rate, left out of the route), and may hold only a time.
/// - A figure that is not a number refuses the file naming the element and its line; nothing
///   of a refused file is kept.
enum TCXImport {
    static let namespaces: Set<String> = ["", "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"]
    static let activityExtension = "http://www.garmin.com/xmlschemas/ActivityExtension/"

    /// The activities of a TCX document.
    static func tracks(_ data: Data, limits: ImportLimits) throws(ActivityFileError) -> [ActivityTrack] {
        let reader = try ActivityXMLReader(data, format: "TCX", limits: limits)
        var path: [(name: String, namespace: String, line: Int)] = []
        var text = ""
        var tracks: [ActivityTrack] = []
        var track: ActivityTrack?
        var lap: ActivityLap?
        var firstTrackOfLap = false
        var point: (line: Int, time: Date?, value: ActivityPoint)?
        var courses = 0
        var pointCount = 0
        var rootSeen = false
        var creator: (name: String?, major: String?, minor: String?) = (nil, nil, nil)

        /// The names of the TCX elements from `from` levels up to the current one ("HeartRateBpm/Value").
        func tail(_ count: Int) -> String {
            path.suffix(count).map(\.name).joined(separator: "/")
        }
        func figure(_ element: String, line: Int) throws(ActivityFileError) -> Double? {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { return nil }
            guard let value = ActivityFile.number(trimmed) else {
                throw ActivityFileError(line: line, element: element, value: trimmed, message: "not a number; expected a decimal number")
            }
            return value
        }
        func time(_ element: String, _ written: String, line: Int) throws(ActivityFileError) -> Date {
            let trimmed = written.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let date = ActivityFile.date(Substring(trimmed)) else {
                throw ActivityFileError(
                    line: line, element: element,
                    value: trimmed, message: trimmed.isEmpty ? "missing; expected a date such as 2012-12-26T21:29:53Z"
                        : "not a date; expected one such as 2012-12-26T21:29:53Z")
            }
            return date
        }

        func close() throws(ActivityFileError) {
            // Errors name the line the element starts on (the parser reads ahead).
            let (name, namespace, opened) = path[path.count - 1]
            let line = opened
            defer {
                path.removeLast()
                text = ""
            }
            if var current = point {
                if namespace.hasPrefix(activityExtension) {
                    switch name {
                    case "Speed": current.value.speed = try figure("Trackpoint.Extensions.TPX.Speed", line: line)
                    case "Watts": current.value.power = try figure("Trackpoint.Extensions.TPX.Watts", line: line)
                    case "RunCadence": current.value.cadence = try figure("Trackpoint.Extensions.TPX.RunCadence", line: line)
                    default: break
                    }
                } else if namespaces.contains(namespace) {
                    switch tail(2) {
                    case "Trackpoint/Time":
                        current.time = try time("Trackpoint.Time", text, line: line)
                    case "Position/LatitudeDegrees":
                        current.value.latitude = try figure("Trackpoint.Position.LatitudeDegrees", line: line)
                    case "Position/LongitudeDegrees":
                        current.value.longitude = try figure("Trackpoint.Position.LongitudeDegrees", line: line)
                    case "Trackpoint/AltitudeMeters":
                        current.value.elevation = try figure("Trackpoint.AltitudeMeters", line: line)
                    case "Trackpoint/DistanceMeters":
                        current.value.distance = try figure("Trackpoint.DistanceMeters", line: line)
                    case "HeartRateBpm/Value":
                        current.value.heartRate = try figure("Trackpoint.HeartRateBpm.Value", line: line)
                    case "Trackpoint/Cadence":
                        current.value.cadence = try figure("Trackpoint.Cadence", line: line)
                    case "Position":
                        if (current.value.latitude == nil) != (current.value.longitude == nil) {
                            throw ActivityFileError(
                                line: opened, element: "Trackpoint.Position", message: "a latitude without a longitude, or the reverse")
                        }
                        if let latitude = current.value.latitude, let longitude = current.value.longitude,
                           abs(latitude) > 90 || abs(longitude) > 180 {
                            throw ActivityFileError(
                                line: opened, element: "Trackpoint.Position",
                                value: "\(latitude), \(longitude)", message: "expected a position within ±90 and ±180 degrees")
                        }
                    default:
                        break
                    }
                    if name == "Trackpoint" {
                        guard let at = current.time else {
                            throw ActivityFileError(
                                line: current.line, element: "Trackpoint.Time", message: "missing; every Trackpoint needs the time it was recorded")
                        }
                        current.value.time = at
                        point = nil
                        if var owner = track {
                            if owner.segments.isEmpty {
                                owner.segments.append([])
                                owner.continuesPrevious.append(true)
                            }
                            owner.segments[owner.segments.count - 1].append(current.value)
                            track = owner
                        }
                        return
                    }
                }
                point = current
                return
            }
            guard namespaces.contains(namespace) else { return }
            if var current = lap {
                switch tail(2) {
                case "Lap/TotalTimeSeconds": current.totalTime = try figure("Lap.TotalTimeSeconds", line: line)
                case "Lap/DistanceMeters": current.distance = try figure("Lap.DistanceMeters", line: line)
                case "Lap/Calories": current.calories = try figure("Lap.Calories", line: line)
                case "AverageHeartRateBpm/Value": current.averageHeartRate = try figure("Lap.AverageHeartRateBpm.Value", line: line)
                case "MaximumHeartRateBpm/Value": current.maximumHeartRate = try figure("Lap.MaximumHeartRateBpm.Value", line: line)
                default: break
                }
                if name == "Lap" {
                    track?.laps.append(current)
                    lap = nil
                } else {
                    lap = current
                }
                return
            }
            guard track != nil else { return }
            switch tail(3) {
            case "Activity/Creator/Name": creator.name = text.trimmingCharacters(in: .whitespacesAndNewlines)
            case "Creator/Version/VersionMajor": creator.major = text.trimmingCharacters(in: .whitespacesAndNewlines)
            case "Creator/Version/VersionMinor": creator.minor = text.trimmingCharacters(in: .whitespacesAndNewlines)
            default: break
            }
            if name == "Activity", var current = track {
                if let name = creator.name, !name.isEmpty {
                    current.creator = name
                    let version = creator.major.map { major in creator.minor.map { "\(major).\($0)" } ?? major }
                    current.device = Device(name: name, softwareVersion: version)
                }
                if !current.points.isEmpty { tracks.append(current) }
                track = nil
            }
        }

        while let node = try reader.next() {
            switch node {
            case .start(let name, let namespace, let line, let empty, let attributes):
                if !rootSeen {
                    rootSeen = true
                    guard name == "TrainingCenterDatabase", namespaces.contains(namespace) else {
                        throw ActivityFileError(line: line, element: name, message: "the root element is not TrainingCenterDatabase (TCX v2)")
                    }
                }
                path.append((name, namespace, line))
                text = ""
                if namespaces.contains(namespace), point == nil {
                    switch name {
                    case "Activity":
                        track = ActivityTrack(
                            format: "TCX", line: line, sport: attributes["Sport"], segments: [], continuesPrevious: [], laps: [])
                        creator = (nil, nil, nil)
                    case "Lap" where track != nil:
                        lap = ActivityLap(line: line, start: try time("Lap.StartTime", attributes["StartTime"] ?? "", line: line))
                        firstTrackOfLap = true
                    case "Track" where lap != nil:
                        track?.segments.append([])
                        // The first Track of a lap goes on from the last lap; another follows a pause.
                        track?.continuesPrevious.append(firstTrackOfLap)
                        firstTrackOfLap = false
                    case "Trackpoint" where lap != nil:
                        pointCount += 1
                        guard pointCount <= limits.maximumActivityPoints else {
                            throw ActivityFileError(
                                line: line, element: "Trackpoint", value: "point \(pointCount)",
                                message: "a file of at most \(limits.maximumActivityPoints) track points")
                        }
                        point = (line, nil, ActivityPoint(line: line, time: Date(timeIntervalSince1970: 0)))
                    case "Course":
                        courses += 1
                    default:
                        break
                    }
                }
                if empty { try close() }
            case .text(let value):
                text += value
            case .end:
                try close()
            }
        }
        guard rootSeen else { throw ActivityFileError(line: 0, element: "TrainingCenterDatabase", message: "the document holds no element") }
        if tracks.isEmpty {
            throw ActivityFileError(
                line: 0, element: "Activity",
                message: courses > 0
                    ? "no activity, only \(courses) Course: a planned route, not a recorded workout"
                    : "no Activity with track points: nothing recorded to import")
        }
        return tracks
    }
}
