import CLibXML2
import Foundation
import SalusModel

/// A GPX or TCX file that cannot be imported, with where and why. Nothing of the file is
/// imported then: a file is refused whole, never half (docs/import.md, "GPX and TCX").
package struct ActivityFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file's line, 0 when the error is about the whole file.
    package var line: Int
    /// The column of the line, when libxml2 gives one (XML errors).
    package var column: Int?
    /// The element or attribute at fault (`trkpt.lat`, `Trackpoint.HeartRateBpm.Value`), or
    /// `XML` for a document that is not well-formed.
    package var element: String
    /// The value found, when there is one.
    package var value: String
    /// What is wrong or what was expected.
    package var message: String

    /// An error at `line` of `element`.
    package init(line: Int, column: Int? = nil, element: String, value: String = "", message: String) {
        self.line = line
        self.column = column
        self.element = element
        self.value = value
        self.message = message
    }

    /// Where the error is: "line 12, column 7", or "the file".
    package var place: String {
        var place = line > 0 ? "line \(line)" : "the file"
        if let column { place += ", column \(column)" }
        return place
    }

    package var description: String {
        "\(place): \(element)" + (value.isEmpty ? "" : " \"\(value)\"") + ": \(message)"
    }
}

/// One track point of a GPX or TCX file, as the file gives it.
package struct ActivityPoint: Sendable, Equatable {
    /// The file's line of the point.
    package var line: Int
    /// When the point was recorded (required: a point without one refuses the file).
    package var time: Date
    /// Degrees north and east, when the point has a position (TCX points may have none).
    package var latitude: Double?
    package var longitude: Double?
    /// Metres above sea level.
    package var elevation: Double?
    /// Beats per minute.
    package var heartRate: Double?
    /// Revolutions (cycling) or strides (running) per minute, as the file writes it.
    package var cadence: Double?
    /// Watts.
    package var power: Double?
    /// Metres per second.
    package var speed: Double?
    /// Degrees clockwise from north.
    package var course: Double?
    /// The device's own cumulative distance in metres (TCX `DistanceMeters`).
    package var distance: Double?
}

/// A TCX lap: an event of the workout.
package struct ActivityLap: Sendable, Equatable {
    package var line: Int
    package var start: Date
    /// `TotalTimeSeconds`: the time the lap ran (pauses left out by the device).
    package var totalTime: Double?
    package var distance: Double?
    /// Kilocalories.
    package var calories: Double?
    package var averageHeartRate: Double?
    package var maximumHeartRate: Double?
}

/// What a GPX track or a TCX activity holds, before it becomes model values.
package struct ActivityTrack: Sendable {
    /// "GPX" or "TCX".
    package var format: String
    /// The line the track (`trk`) or activity (`Activity`) starts on.
    package var line: Int
    /// GPX `<type>` or TCX `Sport`, as written.
    package var sport: String?
    /// The track's name (GPX `<name>`).
    package var name: String?
    /// The program or device that wrote the file (GPX `creator`, TCX `Creator/Name`).
    package var creator: String?
    /// The recording device, when the file names one (TCX `Creator`).
    package var device: Device?
    /// The segments (`trkseg`, TCX `Track`), each its points in document order.
    package var segments: [[ActivityPoint]]
    /// For each segment, whether it continues the previous one without a pause (TCX: the first
    /// `Track` of a new `Lap`).
    package var continuesPrevious: [Bool]
    /// TCX laps.
    package var laps: [ActivityLap]
    /// The legs of a TCX `MultiSportSession`, in document order; empty for any other track. The
    /// session's own segments and laps are then its legs' and transitions', in that order.
    package var legs: [ActivityLeg] = []
    /// Points the file holds in this track, with or without a position.
    package var points: [ActivityPoint] { segments.flatMap { $0 } }
}

/// One leg of a TCX `MultiSportSession`: the `Activity` of a `FirstSport` or `NextSport`, and
/// the `Transition` lap before it (a `NextSport`'s), its points as a track's.
package struct ActivityLeg: Sendable {
    /// The leg's element, for errors: `MultiSportSession.FirstSport`, `MultiSportSession.NextSport[0]`.
    package var element: String
    package var activity: ActivityTrack
    /// The transition before the leg, its lap in `laps[0]`; nil when the file gives none.
    package var transition: ActivityTrack?
}

/// A track or activity of a GPX or TCX file as the values the Apple Health importer makes: a
/// workout sample, its route (inline locations, attached once the workout is saved) and its
/// heart rate, cadence and power samples, all with their sync identifiers and the file's source.
package struct ImportedActivity: Sendable {
    /// What the file held.
    package var track: ActivityTrack
    /// The workout (`HKWorkoutTypeIdentifier`), named by its content.
    package var workout: Sample
    /// The route: every point with a position, in order; empty when none has one.
    package var route: [RouteLocation]
    /// The route's sync identifier, named by its content.
    package var routeSyncIdentifier: String
    /// Heart rate, cadence and power samples, one per point that has the figure.
    package var samples: [Sample]
    /// The haversine length of the route in metres, summed inside each segment.
    package var routeDistance: Double
    /// The workout's start and end.
    package var start: Date { workout.startDate }
    package var end: Date { workout.endDate }
}

/// What GPX and TCX share: the reader (libxml2's `xmlTextReader`, held to ``ImportLimits``),
/// dates, numbers and the mapping to model values.
package enum ActivityFile {
    /// The start of the sync identifiers of what GPX and TCX files give.
    package static let identityPrefix = "activityfile:v1|"
    /// The mean Earth radius in metres (IUGG), for route lengths.
    static let earthRadius = 6_371_008.8

    /// The tracks of a GPX or TCX document, found by its root element, as workouts with routes
    /// and samples. `catalog` is the running catalogue (types and activity names).
    package static func read(_ data: Data, catalog: TypeCatalog, limits: ImportLimits = .standard) throws(ActivityFileError) -> [ImportedActivity] {
        let tracks: [ActivityTrack]
        switch SourceFormat.detect(data) {
        case .gpx: tracks = try GPXImport.tracks(data, limits: limits)
        case .tcx: tracks = try TCXImport.tracks(data, limits: limits)
        default:
            throw ActivityFileError(line: 0, element: "root", message: "neither GPX (<gpx>) nor TCX (<TrainingCenterDatabase>)")
        }
        var activities: [ImportedActivity] = []
        for track in tracks {
            if track.legs.isEmpty {
                activities.append(try activity(track, catalog: catalog))
            } else {
                activities += try multisport(track, catalog: catalog)
            }
        }
        return activities
    }

    // MARK: Dates and numbers

    /// An xsd:dateTime: `2012-10-24T23:29:40Z`, with any fraction (`.8498`, `.849800`) and an
    /// offset `Z`, `+01:00` or `+0100`; none is UTC (GPX's rule). Nil for anything else.
    package static func date(_ text: Substring) -> Date? {
        let bytes = Array(text.utf8)
        func digits(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 19, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 32, bytes[13] == 58, bytes[16] == 58,
              let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
              let minute = digits(14, 2), let second = digits(17, 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 46 {
            index += 1
            var scale = 0.1
            let first = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > first else { return nil }
        }
        var offset = 0
        if index < bytes.count {
            switch bytes[index] {
            case 90 where index + 1 == bytes.count:  // Z
                break
            case 43, 45:  // + -
                let sign = bytes[index] == 43 ? 1 : -1
                guard let hours = digits(index + 1, 2) else { return nil }
                var rest = index + 3
                if rest < bytes.count, bytes[rest] == 58 { rest += 1 }
                guard let minutes = digits(rest, 2), rest + 2 == bytes.count, hours <= 14, minutes < 60 else { return nil }
                offset = sign * (hours * 3600 + minutes * 60)
            default:
                return nil
            }
        }
        // Days from 1970-01-01 in the proleptic Gregorian calendar.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// A finite decimal number, surrounding white space allowed; nil otherwise (`NaN`, `inf`,
    /// `12abc` and empty text are not numbers).
    package static func number(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 43 || $0 == 101 || $0 == 69 }),
              let value = Double(trimmed), value.isFinite
        else { return nil }
        return value
    }

    /// The great-circle distance between two positions in metres (haversine, mean Earth radius).
    package static func haversine(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let toRadians = Double.pi / 180
        let phi1 = a.0 * toRadians
        let phi2 = b.0 * toRadians
        let dPhi = (b.0 - a.0) * toRadians
        let dLambda = (b.1 - a.1) * toRadians
        let h = sin(dPhi / 2) * sin(dPhi / 2) + cos(phi1) * cos(phi2) * sin(dLambda / 2) * sin(dLambda / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    /// The length of `segments` in metres: consecutive points with a position, inside each
    /// segment, never across a break.
    package static func length(of segments: [[ActivityPoint]]) -> Double {
        var total = 0.0
        for segment in segments {
            var previous: (Double, Double)?
            for point in segment {
                guard let latitude = point.latitude, let longitude = point.longitude else { continue }
                if let previous { total += haversine(previous, (latitude, longitude)) }
                previous = (latitude, longitude)
            }
        }
        return total
    }

    // MARK: Mapping

    /// HealthKit activity names for the sport words GPX `<type>` (Strava, Garmin Connect, Apple
    /// Watch) and TCX `Sport` write, lower-cased.
    static let sports: [String: String] = [
        "running": "running", "run": "running", "trail_running": "running", "trailrun": "running", "treadmill_running": "running",
        "biking": "cycling", "cycling": "cycling", "ride": "cycling", "road_biking": "cycling", "mountain_biking": "cycling",
        "virtualride": "cycling", "ebikeride": "cycling",
        "walking": "walking", "walk": "walking", "hiking": "hiking", "hike": "hiking",
        "swimming": "swimming", "swim": "swimming", "open_water_swimming": "swimming",
        "rowing": "rowing", "kayaking": "paddleSports", "canoeing": "paddleSports", "stand_up_paddleboarding": "paddleSports",
        "standuppaddling": "paddleSports", "alpineski": "downhillSkiing", "nordicski": "crossCountrySkiing",
        "other": "other",
    ]

    /// The activity of `track`: the workout with its laps and pauses, its totals, its route and
    /// its samples. Fails when no point has a time (a planned route) or the sport is not a
    /// registered activity type.
    package static func activity(_ track: ActivityTrack, catalog: TypeCatalog) throws(ActivityFileError) -> ImportedActivity {
        let element = track.format == "GPX" ? "trk" : "Activity"
        let points = track.points
        // A multisport leg may hold laps only (a swim without points): they place it in time.
        guard let first = points.first?.time ?? track.laps.first?.start, let last = points.last?.time ?? track.laps.last?.start else {
            throw ActivityFileError(line: track.line, element: element, message: "no track points; a workout needs the points it recorded")
        }
        guard let rules = catalog.rules(for: "HKWorkoutTypeIdentifier") else {
            throw ActivityFileError(line: track.line, element: element, message: "the workout type is not registered by a loaded plugin")
        }
        let name = sportName(track.sport)
        guard let activityType = catalog.workoutActivityType(named: name) else {
            throw ActivityFileError(line: track.line, element: element, message: "the activity type \(name) is not registered by a loaded plugin")
        }
        // The workout spans its points and its laps (an excerpt's lap may start before them).
        var start = points.map(\.time).min() ?? first
        var end = points.map(\.time).max() ?? last
        for lap in track.laps {
            start = min(start, lap.start)
            if let total = lap.totalTime { end = max(end, lap.start.addingTimeInterval(total)) }
        }
        // Laps are lap events; a new segment inside a lap (a GPX trkseg, a TCX Track) is a pause
        // and a resume, from the last point before it to the first after it.
        var events: [WorkoutEvent] = []
        for lap in track.laps {
            let lapEnd = min(end, lap.start.addingTimeInterval(lap.totalTime ?? 0))
            events.append(WorkoutEvent(type: WorkoutEventType.lap.rawValue, startDate: lap.start, endDate: max(lap.start, lapEnd)))
        }
        for index in track.segments.indices.dropFirst() where !track.continuesPrevious[index] {
            guard let before = track.segments[..<index].last(where: { !$0.isEmpty })?.last, let after = track.segments[index].first,
                  after.time >= before.time
            else { continue }
            events.append(WorkoutEvent(type: WorkoutEventType.pause.rawValue, startDate: before.time, endDate: before.time))
            events.append(WorkoutEvent(type: WorkoutEventType.resume.rawValue, startDate: after.time, endDate: after.time))
        }
        events.sort { ($0.startDate, $0.type) < ($1.startDate, $1.type) }

        // Totals: the device's distance (the laps' sum, else the last cumulative distance of
        // the points) or, in GPX, the route's length; the laps' energy.
        let routeDistance = length(of: track.segments)
        var statistics: [TypeIdentifier: Quantity] = [:]
        var allStatistics: [TypeIdentifier: WorkoutStatistics] = [:]
        let distanceType = RecordMapper.distanceType(of: name)
        let lapDistances = track.laps.compactMap(\.distance)
        let distance: Double? =
            !lapDistances.isEmpty ? lapDistances.reduce(0, +)
            : points.last(where: { $0.distance != nil })?.distance ?? (points.contains { $0.latitude != nil } ? routeDistance : nil)
        if let distance, catalog.rules(for: distanceType.rawValue)?.kind == .quantity {
            let total = Quantity(value: distance, unit: .meter)
            statistics[distanceType] = total
            allStatistics[distanceType] = WorkoutStatistics(sum: total)
        }
        let calories = track.laps.compactMap(\.calories)
        if !calories.isEmpty, catalog.rules(for: RecordMapper.energyType.rawValue)?.kind == .quantity {
            let total = Quantity(value: calories.reduce(0, +), unit: .kilocalorie)
            statistics[RecordMapper.energyType] = total
            allStatistics[RecordMapper.energyType] = WorkoutStatistics(sum: total)
        }
        let heartRates = points.compactMap(\.heartRate)
        let heartRateType = TypeIdentifier("HKQuantityTypeIdentifierHeartRate")
        if !heartRates.isEmpty {
            let perMinute = SalusUnit.countPerMinute
            let average = Quantity(value: heartRates.reduce(0, +) / Double(heartRates.count), unit: perMinute)
            statistics[heartRateType] = average
            allStatistics[heartRateType] = WorkoutStatistics(
                average: average, minimum: Quantity(value: heartRates.min()!, unit: perMinute),
                maximum: Quantity(value: heartRates.max()!, unit: perMinute))
        }
        var workout = Workout(activityType: UInt(activityType.rawValue), events: events, activities: [], statistics: statistics)
        workout.allStatistics = allStatistics
        let lapTimes = track.laps.compactMap(\.totalTime)
        if !lapTimes.isEmpty {
            let recorded = lapTimes.reduce(0, +)
            if recorded >= 0, recorded <= end.timeIntervalSince(start) + Workout.recordedDurationSlack { workout.recordedDuration = recorded }
        }
        let source = SourceRevision(appID: appID(format: track.format, creator: track.creator), name: track.creator ?? track.format, version: nil)
        // The track's name has no HealthKit key: it is left out (docs/import.md).
        let metadata: [String: MetadataValue] = [:]
        let workoutSample = identified(Sample(
            type: TypeIdentifier(rules.identifier), startDate: start, endDate: end, value: .workout(workout), sourceRevision: source,
            device: track.device, metadata: metadata, creationDate: end))

        // The route: every point with a position, in order.
        let located = points.filter { $0.latitude != nil && $0.longitude != nil }
        let route = located.map { point in
            RouteLocation(
                timestamp: point.time, latitude: point.latitude!, longitude: point.longitude!, altitude: point.elevation,
                course: point.course, speed: point.speed)
        }
        let routeIdentifier = routeSyncIdentifier(located)

        // Samples: heart rate always; cadence, power and speed where the sport has a type.
        var samples: [Sample] = []
        func add(_ type: String, _ value: Double, _ unit: SalusUnit, at time: Date) {
            samples.append(identified(Sample(
                type: TypeIdentifier(type), startDate: time, endDate: time, value: .quantity(Quantity(value: value, unit: unit)),
                sourceRevision: source, device: track.device, creationDate: end)))
        }
        let registered = { (type: String) in catalog.rules(for: type)?.kind == .quantity }
        let cadenceType = name == "cycling" ? "HKQuantityTypeIdentifierCyclingCadence" : nil
        let powerType =
            name == "cycling" ? "HKQuantityTypeIdentifierCyclingPower" : name == "running" ? "HKQuantityTypeIdentifierRunningPower" : nil
        for point in points {
            if let heartRate = point.heartRate, registered(heartRateType.rawValue) {
                add(heartRateType.rawValue, heartRate, SalusUnit.countPerMinute, at: point.time)
            }
            if let cadence = point.cadence, let cadenceType, registered(cadenceType) {
                add(cadenceType, cadence, SalusUnit.countPerMinute, at: point.time)
            }
            if let power = point.power, let powerType, registered(powerType) {
                add(powerType, power, .watt, at: point.time)
            }
        }
        return ImportedActivity(
            track: track, workout: workoutSample, route: route, routeSyncIdentifier: routeIdentifier, samples: samples, routeDistance: routeDistance)
    }

    /// The HealthKit activity name of a GPX `type` or TCX `Sport` (`other` for anything else).
    static func sportName(_ sport: String?) -> String {
        let word = (sport ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return word.isEmpty ? "other" : (sports[word.lowercased()] ?? "other")
    }

    /// The sync identifier of the route through `located` (points with a position): its count
    /// and its first and last locations.
    static func routeSyncIdentifier(_ located: [ActivityPoint]) -> String {
        func describe(_ point: ActivityPoint?) -> String {
            guard let point else { return "" }
            return "\(ImportIdentity.micros(point.time)),\(point.latitude!),\(point.longitude!)"
        }
        return "\(identityPrefix)route|\(located.count)|\(describe(located.first))|\(describe(located.last))"
    }

    /// A TCX `MultiSportSession` (`session.legs`), as FIT's multisport sessions are read: when
    /// every leg's sport is one a swimBikeRun holds (running, cycling, swimming), **one
    /// swimBikeRun workout** with an activity per leg and a transition (83) activity per
    /// `Transition`, in time order, each ending where the next begins; each leg's figures are
    /// its own (its laps' distance of its sport's type and energy, its points' heart rate), a
    /// transition's its lap's energy and its points' heart rate; the workout's are the sums of
    /// the distances and energy, the heart rate of every point, the laps' and transitions' times
    /// as its recorded duration; one route through every leg and transition; the legs' samples
    /// as each leg gives them (power and cadence by its sport) and the transitions' heart rates.
    /// A session holding a leg of another sport (TCX's `Other`) cannot be a swimBikeRun, whose
    /// activities are those sports only, nor another workout, whose activities are of its own
    /// type: each leg is then a workout of its own, as FIT's sessions of other sports are, and
    /// the transitions are left out.
    static func multisport(_ session: ActivityTrack, catalog: TypeCatalog) throws(ActivityFileError) -> [ImportedActivity] {
        // Every leg under the session's creator: the first leg's Creator names the device.
        var legs = session.legs
        for index in legs.indices {
            legs[index].activity.creator = session.creator
            legs[index].activity.device = session.device
        }
        let swimBikeRun = legs.allSatisfy { leg in
            catalog.workoutActivityType(named: sportName(leg.activity.sport)).map {
                WorkoutActivityType.multisportLegs.contains(UInt($0.rawValue)) && UInt($0.rawValue) != WorkoutActivityType.transition
            } ?? false
        }
        var read: [ImportedActivity] = []
        for leg in legs { read.append(try activity(leg.activity, catalog: catalog)) }
        guard swimBikeRun, let rules = catalog.rules(for: "HKWorkoutTypeIdentifier") else { return read }

        /// One activity of the workout before it is made: its type, interval, figures, points.
        struct Part {
            var type: UInt
            var start: Date
            var end: Date
            var statistics: [TypeIdentifier: Quantity]
            var allStatistics: [TypeIdentifier: WorkoutStatistics]
            var points: [ActivityPoint]
        }
        let heartRateType = TypeIdentifier("HKQuantityTypeIdentifierHeartRate")
        let perMinute = SalusUnit.countPerMinute
        let source = SourceRevision(appID: appID(format: session.format, creator: session.creator), name: session.creator ?? session.format, version: nil)
        var parts: [Part] = []
        var samples: [Sample] = []
        var events: [WorkoutEvent] = []
        var recorded: [Double] = []
        for (leg, imported) in zip(legs, read) {
            if let transition = leg.transition, let lap = transition.laps.first {
                let points = transition.points
                let pointsEnd = points.map(\.time).max() ?? lap.start
                let end = lap.totalTime.map { lap.start.addingTimeInterval($0) } ?? max(pointsEnd, lap.start)
                var all: [TypeIdentifier: WorkoutStatistics] = [:]
                if let calories = lap.calories, catalog.rules(for: RecordMapper.energyType.rawValue)?.kind == .quantity {
                    all[RecordMapper.energyType] = WorkoutStatistics(sum: Quantity(value: calories, unit: .kilocalorie))
                }
                let rates = points.compactMap(\.heartRate)
                if !rates.isEmpty {
                    all[heartRateType] = WorkoutStatistics(
                        average: Quantity(value: rates.reduce(0, +) / Double(rates.count), unit: perMinute),
                        minimum: Quantity(value: rates.min()!, unit: perMinute), maximum: Quantity(value: rates.max()!, unit: perMinute))
                }
                if let total = lap.totalTime { recorded.append(total) }
                parts.append(Part(
                    type: WorkoutActivityType.transition, start: min(lap.start, points.map(\.time).min() ?? lap.start), end: end,
                    statistics: all.compactMapValues(\.main), allStatistics: all, points: points))
                if catalog.rules(for: heartRateType.rawValue)?.kind == .quantity {
                    for point in points {
                        guard let rate = point.heartRate else { continue }
                        samples.append(identified(Sample(
                            type: heartRateType, startDate: point.time, endDate: point.time,
                            value: .quantity(Quantity(value: rate, unit: perMinute)), sourceRevision: source, device: session.device,
                            creationDate: end)))
                    }
                }
            }
            guard case .workout(let workout) = imported.workout.value else { continue }
            parts.append(Part(
                type: workout.activityType, start: imported.start, end: imported.end, statistics: workout.statistics,
                allStatistics: workout.allStatistics, points: leg.activity.points))
            events += workout.events
            recorded += leg.activity.laps.compactMap(\.totalTime)
            samples += imported.samples
        }
        // In time order (a stable sort: document order among equal starts); each part ends
        // where the next begins, so activities never overlap.
        parts = parts.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
        guard let start = parts.map(\.start).min(), let latest = parts.map(\.end).max() else { return read }
        let end = max(start, latest)
        let located = parts.flatMap(\.points).filter { $0.latitude != nil && $0.longitude != nil }
        let routeIdentifier = routeSyncIdentifier(located)
        var activities: [WorkoutActivity] = []
        for (index, part) in parts.enumerated() {
            let next = index + 1 < parts.count ? parts[index + 1].start : end
            var activity = WorkoutActivity(
                uuid: FITImport.uuid("\(routeIdentifier)|activity \(ImportIdentity.micros(part.start)) \(part.type)"),
                activityType: part.type, startDate: part.start, endDate: max(part.start, min(part.end, next)), statistics: part.statistics)
            activity.allStatistics = part.allStatistics
            activities.append(activity)
        }
        // The workout's figures: sums added (distance of each sport's type, energy), heart rate
        // over every point.
        var all: [TypeIdentifier: WorkoutStatistics] = [:]
        for part in parts {
            for (type, figures) in part.allStatistics {
                guard let sum = figures.sum else { continue }
                all[type] = WorkoutStatistics(sum: Quantity(value: (all[type]?.sum?.value ?? 0) + sum.value, unit: sum.unit))
            }
        }
        let rates = parts.flatMap(\.points).compactMap(\.heartRate)
        if !rates.isEmpty {
            all[heartRateType] = WorkoutStatistics(
                average: Quantity(value: rates.reduce(0, +) / Double(rates.count), unit: perMinute),
                minimum: Quantity(value: rates.min()!, unit: perMinute), maximum: Quantity(value: rates.max()!, unit: perMinute))
        }
        var workout = Workout(
            activityType: WorkoutActivityType.swimBikeRun, events: events.sorted { ($0.startDate, $0.type) < ($1.startDate, $1.type) },
            activities: activities, statistics: all.compactMapValues(\.main))
        workout.allStatistics = all
        if !recorded.isEmpty {
            let total = recorded.reduce(0, +)
            if total >= 0, total <= end.timeIntervalSince(start) + Workout.recordedDurationSlack { workout.recordedDuration = total }
        }
        let workoutSample = identified(Sample(
            type: TypeIdentifier(rules.identifier), startDate: start, endDate: end, value: .workout(workout), sourceRevision: source,
            device: session.device, metadata: [:], creationDate: end))
        let route = located.map { point in
            RouteLocation(
                timestamp: point.time, latitude: point.latitude!, longitude: point.longitude!, altitude: point.elevation,
                course: point.course, speed: point.speed)
        }
        return [ImportedActivity(
            track: session, workout: workoutSample, route: route, routeSyncIdentifier: routeIdentifier, samples: samples,
            routeDistance: length(of: session.segments))]
    }

    /// The app id a file's samples are saved under: `gpx.` or `tcx.` and the creator as
    /// `applehealth.` ids are made ("StravaGPX" → `gpx.stravagpx`, "Edge 520" → `tcx.edge-520`).
    package static func appID(format: String, creator: String?) -> String {
        let slug = RecordMapper.appID(forSource: creator ?? "").dropFirst("applehealth.".count)
        return format.lowercased() + "." + slug
    }

    /// `sample` named by its content, as `ImportIdentity` names an export's samples, under this
    /// importer's prefix: importing the file again adds nothing.
    static func identified(_ sample: Sample) -> Sample {
        var result = sample
        let text = ImportIdentity.identifier(of: sample)
        result.metadata[MetadataKey.syncIdentifier] = .string(identityPrefix + text.dropFirst(ImportIdentity.prefix.count))
        result.metadata[MetadataKey.syncVersion] = .number(1)
        return result
    }
}

/// libxml2's `xmlTextReader` over a GPX or TCX document, held to ``ImportLimits``: no DTD (a
/// DOCTYPE refuses the file), no entity, no network; elements nested at most
/// `maximumDepth` deep; at most `maximumSideFileBytes` of file. Errors name the line and column.
struct ActivityXMLReader: ~Copyable {
    enum Node {
        /// An element opens: its local name, namespace URI ("" for none), line, whether it is
        /// empty (`<ele/>`) and its attributes by local name.
        case start(name: String, namespace: String, line: Int, empty: Bool, attributes: [String: String])
        case text(String)
        case end(name: String, namespace: String)
    }

    let reader: xmlTextReaderPtr
    let limits: ImportLimits
    let format: String
    /// The document, for the line of a DOCTYPE (its node has none).
    let data: Data

    init(_ data: Data, format: String, limits: ImportLimits) throws(ActivityFileError) {
        guard data.count <= limits.maximumSideFileBytes else {
            throw ActivityFileError(
                line: 0, element: format, value: "\(data.count) bytes", message: "a file of at most \(limits.maximumSideFileBytes) bytes")
        }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        xmlResetLastError()
        let made: xmlTextReaderPtr? = data.withUnsafeBytes { bytes in
            xmlReaderForMemory(bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil, nil, options)
        }
        guard let made else { throw ActivityFileError(line: 0, element: format, message: "libxml2 could not open the document") }
        reader = made
        self.limits = limits
        self.format = format
        self.data = data
    }

    deinit { xmlFreeTextReader(reader) }

    var line: Int { Int(xmlTextReaderGetParserLineNumber(reader)) }

    /// The next node that matters, nil at the end.
    func next() throws(ActivityFileError) -> Node? {
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { return nil }
            guard status == 1 else {
                var line = Int(xmlTextReaderGetParserLineNumber(reader))
                var column: Int? = Int(xmlTextReaderGetParserColumnNumber(reader))
                var message = "not well-formed XML"
                if let error = xmlGetLastError() {
                    if error.pointee.line > 0 {
                        line = Int(error.pointee.line)
                        column = error.pointee.int2 > 0 ? Int(error.pointee.int2) : column
                    }
                    if let text = error.pointee.message {
                        message = String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
                    }
                }
                throw ActivityFileError(line: line, column: column, element: "XML", message: message + "; expected well-formed XML")
            }
            switch Int32(xmlTextReaderNodeType(reader)) {
            case Int32(XML_READER_TYPE_DOCUMENT_TYPE.rawValue):
                let before = data.firstRange(of: Data("<!DOCTYPE".utf8)).map { data[..<$0.lowerBound] } ?? Data()
                throw ActivityFileError(
                    line: before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }, element: "DOCTYPE",
                    message: "a document type declaration; \(format) files have none, and its entities are never read")
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let depth = Int(xmlTextReaderDepth(reader))
                let name = xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
                let node = xmlTextReaderCurrentNode(reader)
                let line = node.map { Int(xmlGetLineNo($0)) } ?? self.line
                guard depth < limits.maximumDepth else {
                    throw ActivityFileError(
                        line: line, element: name, message: "elements nested more than \(limits.maximumDepth) deep")
                }
                let namespace = xmlTextReaderConstNamespaceUri(reader).map { String(cString: $0) } ?? ""
                let empty = xmlTextReaderIsEmptyElement(reader) == 1
                var attributes: [String: String] = [:]
                if xmlTextReaderHasAttributes(reader) == 1 {
                    while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                        guard xmlTextReaderIsNamespaceDecl(reader) != 1 else { continue }
                        let key = xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
                        let value = xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
                        guard value.utf8.count <= limits.maximumAttributeBytes else {
                            throw ActivityFileError(
                                line: line, element: "\(name).\(key)",
                                message: "the attribute is \(value.utf8.count) bytes; at most \(limits.maximumAttributeBytes)")
                        }
                        attributes[key] = value
                    }
                    xmlTextReaderMoveToElement(reader)
                }
                return .start(name: name, namespace: namespace, line: line, empty: empty, attributes: attributes)
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue):
                let text = xmlTextReaderConstValue(reader).map { String(cString: $0) } ?? ""
                guard text.utf8.count <= limits.maximumAttributeBytes else {
                    throw ActivityFileError(
                        line: line, element: "text", message: "a text of \(text.utf8.count) bytes; at most \(limits.maximumAttributeBytes)")
                }
                return .text(text)
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                let name = xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
                let namespace = xmlTextReaderConstNamespaceUri(reader).map { String(cString: $0) } ?? ""
                return .end(name: name, namespace: namespace)
            default:
                continue
            }
        }
    }
}

extension ActivityFile {
    /// A GPX or TCX file as `FileImporters` gives every activity file to the daemon's save path:
    /// one workout per track or activity, with its route and samples, under the file's source
    /// (`gpx.<creator>`, `tcx.<creator>`). A file that cannot be read is refused whole: the
    /// problem names its line (and column, for XML errors), the element and the value.
    package static func fileImport(_ bytes: [UInt8], format: SourceFormat, catalog: TypeCatalog, limits: ImportLimits = .standard)
        throws(FileProblem) -> FileImport
    {
        let activities: [ImportedActivity]
        do {
            activities = try read(Data(bytes), catalog: catalog, limits: limits)
        } catch {
            throw problem(error)
        }
        let first = activities[0]
        var result = FileImport(format: format, source: first.workout.sourceRevision)
        for activity in activities {
            var distance: Double?
            if case .workout(let workout) = activity.workout.value {
                // A multisport's legs each give the distance of their sport's type: their sum.
                let distances = workout.statistics.filter { $0.key.rawValue.hasPrefix("HKQuantityTypeIdentifierDistance") }.map(\.value.value)
                distance = distances.isEmpty ? nil : distances.reduce(0, +)
            }
            result.workouts.append(
                FileWorkout(
                    workout: activity.workout, route: activity.route, routeSyncIdentifier: activity.routeSyncIdentifier,
                    samples: activity.samples,
                    distance: distance))
        }
        return result
    }

    /// `error` as a `FileProblem`: its place and element as the field.
    package static func problem(_ error: ActivityFileError) -> FileProblem {
        // "not a number; expected a decimal number": the value says what was found.
        let expected = error.message.range(of: "expected ", options: .backwards).map { String(error.message[$0.upperBound...]) } ?? error.message
        return FileProblem(offset: nil, field: "\(error.place): \(error.element)", value: error.value, expected: expected)
    }
}
