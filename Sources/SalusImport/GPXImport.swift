import Foundation
import SalusModel

/// GPX 1.0 and 1.1 activity files (Strava, Garmin Connect, Apple Watch, handhelds) as tracks:
/// each `trk` is a workout, each `trkseg` a stretch between pauses, each `trkpt` a point.
///
/// **Rules.**
/// - GPX's own elements are matched in GPX's namespace (1.1 or 1.0) or in none (RideWithGPS
///   writes no namespace); extensions by their **namespace URI, never their prefix**: heart rate,
///   cadence, speed and course are the `hr`, `cad`, `speed` and `course` of Garmin's
///   TrackPointExtension (`http://www.garmin.com/xmlschemas/TrackPointExtension/v1` or `v2`, written
///   `gpxtpx:`, `ns3:` or anything else), power a `PowerInWatts` in any Garmin namespace. Several
///   `<extensions>` per point (Apple Watch) are all read.
/// - Every point of a track needs a `time`: a track without any is a planned route (Strava's
///   route export), not a workout, and the file is refused saying so; a track where some points
///   have one and others none is refused naming the first point without. `lat` and `lon` must be
///   numbers within ±90 and ±180; an empty `<ele/>` is no elevation; any figure that is not a
///   number refuses the file naming the element and its line. Nothing of a refused file is kept.
/// - `rte` and `wpt` are plans and places, not recordings: skipped.
enum GPXImport {
    static let namespaces: Set<String> = ["", "http://www.topografix.com/GPX/1/1", "http://www.topografix.com/GPX/1/0"]
    static let trackPointExtension = "http://www.garmin.com/xmlschemas/TrackPointExtension/"
    static let garmin = "http://www.garmin.com/xmlschemas/"

    struct PendingPoint {
        var line: Int
        var time: Date?
        var point: ActivityPoint
    }

    /// The tracks of a GPX document.
    static func tracks(_ data: Data, limits: ImportLimits) throws(ActivityFileError) -> [ActivityTrack] {
        let reader = try ActivityXMLReader(data, format: "GPX", limits: limits)
        var path: [(name: String, namespace: String, line: Int)] = []
        var text = ""
        var creator: String?
        var tracks: [ActivityTrack] = []
        var track: ActivityTrack?
        var segments: [[PendingPoint]] = []
        var point: PendingPoint?
        var routePoints = 0
        var pointCount = 0
        var rootSeen = false

        func gpx(_ index: Int) -> String? {
            guard index >= 0, index < path.count, namespaces.contains(path[index].namespace) else { return nil }
            return path[index].name
        }
        func figure(_ element: String, line: Int) throws(ActivityFileError) -> Double? {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { return nil }
            guard let value = ActivityFile.number(trimmed) else {
                throw ActivityFileError(line: line, element: element, value: trimmed, message: "not a number; expected a decimal number")
            }
            return value
        }

        func close(name: String, namespace: String) throws(ActivityFileError) {
            // Errors name the line the element starts on (the parser reads ahead).
            let line = path[path.count - 1].line
            defer {
                path.removeLast()
                text = ""
            }
            let depth = path.count - 1
            if var current = point {
                if namespaces.contains(namespace), gpx(depth - 1) == "trkpt" {
                    switch name {
                    case "time":
                        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
                        if !trimmed.isEmpty {
                            guard let time = ActivityFile.date(Substring(trimmed)) else {
                                throw ActivityFileError(
                                    line: line, element: "trkpt.time", value: trimmed, message: "not a date; expected one such as 2015-01-19T21:24:20Z")
                            }
                            current.time = time
                        }
                    case "ele":
                        current.point.elevation = try figure("trkpt.ele", line: line)
                    default:
                        break
                    }
                } else if namespace.hasPrefix(trackPointExtension) {
                    switch name {
                    case "hr": current.point.heartRate = try figure("trkpt.extensions.TrackPointExtension.hr", line: line)
                    case "cad": current.point.cadence = try figure("trkpt.extensions.TrackPointExtension.cad", line: line)
                    case "speed": current.point.speed = try figure("trkpt.extensions.TrackPointExtension.speed", line: line)
                    case "course": current.point.course = try figure("trkpt.extensions.TrackPointExtension.course", line: line)
                    case "PowerInWatts": current.point.power = try figure("trkpt.extensions.PowerInWatts", line: line)
                    default: break
                    }
                } else if namespace.hasPrefix(garmin), name == "PowerInWatts" {
                    current.point.power = try figure("trkpt.extensions.PowerInWatts", line: line)
                }
                if namespaces.contains(namespace), name == "trkpt", gpx(depth - 1) == "trkseg" {
                    point = nil
                    if segments.isEmpty { segments.append([]) }
                    segments[segments.count - 1].append(current)
                } else {
                    point = current
                }
                return
            }
            guard namespaces.contains(namespace), var current = track else { return }
            switch name {
            case "name" where gpx(depth - 1) == "trk":
                current.name = text.trimmingCharacters(in: .whitespacesAndNewlines)
            case "type" where gpx(depth - 1) == "trk":
                current.sport = text.trimmingCharacters(in: .whitespacesAndNewlines)
            case "trk" where depth == 1:
                let all = segments.flatMap { $0 }
                if !all.isEmpty {
                    guard let timed = all.first(where: { $0.time != nil }) else {
                        throw ActivityFileError(
                            line: current.line, element: "trk",
                            message: "none of its \(all.count) points has a time: a planned route, not a recorded workout; "
                                + "export the activity (its GPX with times) instead of the route")
                    }
                    if let untimed = all.first(where: { $0.time == nil }) {
                        throw ActivityFileError(
                            line: untimed.line, element: "trkpt.time",
                            message: "missing while other points have one (line \(timed.line)); every point of a recorded track needs its time")
                    }
                }
                current.segments = segments.map { $0.map { pending in
                    var point = pending.point
                    point.time = pending.time!
                    return point
                } }
                current.continuesPrevious = current.segments.indices.map { $0 == 0 }
                tracks.append(current)
                track = nil
                return
            default:
                break
            }
            track = current
        }

        while let node = try reader.next() {
            switch node {
            case .start(let name, let namespace, let line, let empty, let attributes):
                if !rootSeen {
                    rootSeen = true
                    guard name == "gpx", namespaces.contains(namespace) else {
                        throw ActivityFileError(line: line, element: name, message: "the root element is not gpx (GPX 1.0 or 1.1)")
                    }
                    creator = attributes["creator"].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
                }
                path.append((name, namespace, line))
                text = ""
                let depth = path.count - 1
                if namespaces.contains(namespace) {
                    switch name {
                    case "trk" where depth == 1:
                        track = ActivityTrack(
                            format: "GPX", line: line, creator: creator, segments: [], continuesPrevious: [], laps: [])
                        segments = []
                    case "trkseg" where track != nil && gpx(depth - 1) == "trk":
                        segments.append([])
                    case "trkpt" where gpx(depth - 1) == "trkseg" && track != nil:
                        pointCount += 1
                        guard pointCount <= limits.maximumActivityPoints else {
                            throw ActivityFileError(
                                line: line, element: "trkpt", value: "point \(pointCount)",
                                message: "a file of at most \(limits.maximumActivityPoints) track points")
                        }
                        func coordinate(_ key: String, _ bound: Double) throws(ActivityFileError) -> Double {
                            guard let written = attributes[key] else {
                                throw ActivityFileError(line: line, element: "trkpt.\(key)", message: "missing; expected degrees")
                            }
                            guard let value = ActivityFile.number(written), abs(value) <= bound else {
                                throw ActivityFileError(
                                    line: line, element: "trkpt.\(key)", value: written, message: "expected a number of degrees within ±\(Int(bound))")
                            }
                            return value
                        }
                        let latitude = try coordinate("lat", 90)
                        let longitude = try coordinate("lon", 180)
                        point = PendingPoint(
                            line: line, time: nil, point: ActivityPoint(line: line, time: Date(timeIntervalSince1970: 0), latitude: latitude, longitude: longitude))
                    case "rtept":
                        routePoints += 1
                    default:
                        break
                    }
                }
                if empty {
                    // `<ele/>`: no value; the element ends here.
                    try close(name: name, namespace: namespace)
                }
            case .text(let value):
                text += value
            case .end(let name, let namespace):
                try close(name: name, namespace: namespace)
            }
        }

        guard rootSeen else { throw ActivityFileError(line: 0, element: "gpx", message: "the document holds no element") }
        if tracks.isEmpty {
            throw ActivityFileError(
                line: 0, element: "trk",
                message: routePoints > 0
                    ? "no track, only a route of \(routePoints) rtept: a planned route, not a recorded workout"
                    : "no track (trk): nothing recorded to import")
        }
        return tracks
    }
}
