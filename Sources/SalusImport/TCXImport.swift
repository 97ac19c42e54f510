import Foundation
import SalusModel

/// Garmin's Training Center XML (TCX v2: Garmin Connect, Fitbit, MapMyRide, Forerunners) as
/// tracks: each `Activity` is a workout of its `Sport`, each `Lap` a lap event, each `Track` a
/// stretch (a second `Track` inside one lap follows a pause), each `Trackpoint` a point. A
/// `MultiSportSession` is one track holding its legs (`ActivityTrack.legs`): the `Activity` of
/// its `FirstSport` and of each `NextSport`, in order, each with the `Transition` lap before it.
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
/// - A `MultiSportSession` needs legs (a `FirstSport`), each `FirstSport` and `NextSport` its
///   `Activity`, each leg's activity a `Lap` or `Trackpoint` to place it in time, and each
///   `Transition` its `StartTime`: else the file is refused naming the element
///   (`MultiSportSession.NextSport[1].Activity`, the next sports counted from 0) and its line.
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
        /// The `MultiSportSession` being read: where it starts, its legs so far, its next sports.
        var session: (line: Int, legs: [ActivityLeg], nextSports: Int)?
        /// The `FirstSport` or `NextSport` being read: its name for errors, its line, the
        /// `Transition` before its leg and its leg's `Activity`.
        var sport: (element: String, line: Int, transition: ActivityTrack?, activity: ActivityTrack?)?

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
                    case "Trackpoint/Position":
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
                // A Transition is a lap between two legs (ActivityLap_t, as a Lap).
                let parent = path.count >= 2 ? path[path.count - 2].name : ""
                let owner = parent == "Transition" ? "\(sport?.element ?? "NextSport").Transition" : "Lap"
                switch (parent == "Lap" || parent == "Transition") ? name : tail(2) {
                case "TotalTimeSeconds": current.totalTime = try figure("\(owner).TotalTimeSeconds", line: line)
                case "DistanceMeters": current.distance = try figure("\(owner).DistanceMeters", line: line)
                case "Calories": current.calories = try figure("\(owner).Calories", line: line)
                case "AverageHeartRateBpm/Value": current.averageHeartRate = try figure("Lap.AverageHeartRateBpm.Value", line: line)
                case "MaximumHeartRateBpm/Value": current.maximumHeartRate = try figure("Lap.MaximumHeartRateBpm.Value", line: line)
                default: break
                }
                if name == "Lap" {
                    track?.laps.append(current)
                    lap = nil
                } else if name == "Transition" {
                    track?.laps.append(current)
                    sport?.transition = track
                    track = nil
                    lap = nil
                } else {
                    lap = current
                }
                return
            }
            if track == nil, let reading = sport, name == "FirstSport" || name == "NextSport" {
                guard let activity = reading.activity else {
                    throw ActivityFileError(
                        line: reading.line, element: "\(reading.element).Activity",
                        message: "missing; every \(name) holds the Activity of its leg")
                }
                session?.legs.append(ActivityLeg(element: reading.element, activity: activity, transition: reading.transition))
                sport = nil
                return
            }
            if track == nil, name == "MultiSportSession", let read = session {
                session = nil
                guard !read.legs.isEmpty else {
                    throw ActivityFileError(
                        line: read.line, element: "MultiSportSession",
                        message: "no leg; expected a FirstSport holding the first leg's Activity and a NextSport for each leg after it")
                }
                var combined = ActivityTrack(format: "TCX", line: read.line, sport: nil, segments: [], continuesPrevious: [], laps: [])
                for leg in read.legs {
                    for part in [leg.transition, leg.activity].compactMap({ $0 }) {
                        combined.segments += part.segments
                        // Every leg and transition starts a stretch of its own.
                        combined.continuesPrevious += part.continuesPrevious.indices.map { $0 == 0 ? true : part.continuesPrevious[$0] }
                    }
                    combined.laps += leg.activity.laps
                }
                let named = read.legs.first { $0.activity.creator != nil }?.activity
                combined.creator = named?.creator
                combined.device = named?.device
                combined.legs = read.legs
                tracks.append(combined)
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
                track = nil
                if var leg = sport {
                    // A leg of a multisport session: placed in time by its laps or points.
                    guard current.points.isEmpty == false || current.laps.isEmpty == false else {
                        throw ActivityFileError(
                            line: current.line, element: "\(leg.element).Activity",
                            message: "no Lap or Trackpoint with a time; every leg of a MultiSportSession needs the times it was recorded")
                    }
                    guard leg.activity == nil else {
                        throw ActivityFileError(
                            line: current.line, element: "\(leg.element).Activity", message: "a second Activity; each leg holds one")
                    }
                    leg.activity = current
                    sport = leg
                } else if !current.points.isEmpty {
                    tracks.append(current)
                }
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
                    case "MultiSportSession" where track == nil:
                        session = (line, [], 0)
                    case "FirstSport" where session != nil && track == nil, "NextSport" where session != nil && track == nil:
                        var element = "MultiSportSession.\(name)"
                        if name == "NextSport" {
                            element += "[\(session!.nextSports)]"
                            session!.nextSports += 1
                        }
                        sport = (element, line, nil, nil)
                    case "Transition" where sport != nil && track == nil:
                        let element = sport!.element
                        track = ActivityTrack(format: "TCX", line: line, sport: nil, segments: [], continuesPrevious: [], laps: [])
                        lap = ActivityLap(line: line, start: try time("\(element).Transition.StartTime", attributes["StartTime"] ?? "", line: line))
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
