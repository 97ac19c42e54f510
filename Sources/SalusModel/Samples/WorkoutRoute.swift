import Foundation

/// One location of a workout route, as CoreLocation's `CLLocation` that HealthKit's
/// `HKWorkoutRoute` holds.
public struct RouteLocation: Hashable, Sendable {
    /// When the location was recorded.
    public var timestamp: Date
    /// Degrees north, -90...90 (WGS 84).
    public var latitude: Double
    /// Degrees east, -180...180 (WGS 84).
    public var longitude: Double
    /// Meters above sea level.
    public var altitude: Double?
    /// The radius of uncertainty of latitude and longitude, in meters (not negative).
    public var horizontalAccuracy: Double?
    /// The uncertainty of the altitude, in meters (not negative).
    public var verticalAccuracy: Double?
    /// The direction of travel in degrees from true north, 0..<360.
    public var course: Double?
    /// The speed in meters per second (not negative).
    public var speed: Double?

    /// Creates a location.
    public init(
        timestamp: Date, latitude: Double, longitude: Double, altitude: Double? = nil, horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil, course: Double? = nil, speed: Double? = nil
    ) {
        self.timestamp = timestamp
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.course = course
        self.speed = speed
    }
}

/// A workout route: the locations of a workout in time order, as HealthKit's `HKWorkoutRoute`
/// (`HKWorkoutRouteTypeIdentifier`, a series type). A marathon at one location a second is about
/// 15,000 locations.
public struct WorkoutRoute: Hashable, Sendable {
    /// The locations, timestamps ascending (equal timestamps allowed).
    public var locations: [RouteLocation]

    /// Creates a route.
    public init(locations: [RouteLocation]) {
        self.locations = locations
    }

    /// The locations recorded in `start`...`end`, found by binary search on the ascending
    /// timestamps.
    public func locations(from start: Date, to end: Date) -> ArraySlice<RouteLocation> {
        func firstIndex(where predicate: (RouteLocation) -> Bool) -> Int {
            var low = 0
            var high = locations.count
            while low < high {
                let middle = (low + high) / 2
                if predicate(locations[middle]) { high = middle } else { low = middle + 1 }
            }
            return low
        }
        let lower = firstIndex { $0.timestamp >= start }
        let upper = firstIndex { $0.timestamp > end }
        return lower < upper ? locations[lower..<upper] : []
    }

    /// The length of the path in meters: the sum of great-circle distances (haversine, mean
    /// Earth radius 6,371,008.8 m) between consecutive locations.
    public var length: Double {
        zip(locations, locations.dropFirst()).reduce(0) { total, pair in
            total + Self.distance(pair.0, pair.1)
        }
    }

    /// The great-circle distance between two locations in meters.
    static func distance(_ a: RouteLocation, _ b: RouteLocation) -> Double {
        let radians = Double.pi / 180
        let dLatitude = (b.latitude - a.latitude) * radians
        let dLongitude = (b.longitude - a.longitude) * radians
        let h = sin(dLatitude / 2) * sin(dLatitude / 2)
            + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLongitude / 2) * sin(dLongitude / 2)
        return 2 * 6_371_008.8 * asin(min(1, sqrt(h)))
    }

    /// Every rule the locations break, under `path` ("route.locations[3].latitude"): finite
    /// coordinates in range, accuracies and speed not negative, a course in 0..<360,
    /// timestamps finite and never decreasing (two fixes in the same second are common: Apple's
    /// own exports have them). Empty when the route is valid.
    package func validationErrors(at path: String = "route") -> [ValidationError] {
        var errors: [ValidationError] = []
        var previous: (index: Int, time: Date)?
        for (index, location) in locations.enumerated() {
            let field = "\(path).locations[\(index)]"
            func check(_ value: Double?, _ name: String, _ range: ClosedRange<Double>?, _ expected: String) {
                guard let value else { return }
                if !value.isFinite || !(range?.contains(value) ?? true) {
                    errors.append(ValidationError(
                        reason: value.isFinite ? .valueOutOfRange : .nonFiniteValue, field: "\(field).\(name)",
                        value: "\(value)", expected: expected))
                }
            }
            check(location.latitude, "latitude", -90...90, "degrees north in -90...90")
            check(location.longitude, "longitude", -180...180, "degrees east in -180...180")
            check(location.altitude, "altitude", nil, "a finite number of meters")
            check(location.horizontalAccuracy, "horizontalAccuracy", 0...Double.greatestFiniteMagnitude, "meters, not negative")
            check(location.verticalAccuracy, "verticalAccuracy", 0...Double.greatestFiniteMagnitude, "meters, not negative")
            check(location.course, "course", 0...359.999999, "degrees from true north in 0..<360")
            check(location.speed, "speed", 0...Double.greatestFiniteMagnitude, "meters per second, not negative")
            if !location.timestamp.timeIntervalSinceReferenceDate.isFinite {
                errors.append(ValidationError(
                    reason: .nonFiniteValue, field: "\(field).timestamp", value: Validation.render(location.timestamp),
                    expected: "a finite date"))
                continue
            }
            if let previous, location.timestamp < previous.time {
                errors.append(ValidationError(
                    reason: .invalidValue, field: "\(field).timestamp", value: Validation.render(location.timestamp),
                    expected: "a time not before locations[\(previous.index)] (\(Validation.render(previous.time))): locations ascend"))
            }
            previous = (index, location.timestamp)
        }
        return errors
    }
}

/// The value of a route sample (`HKWorkoutRouteTypeIdentifier`), as HealthKit's `HKWorkoutRoute`:
/// the workout it belongs to and how many locations it has. The sample's start and end are the
/// first and last location's timestamps.
///
/// The locations travel with the value only when saving (`locations`); a route read from the
/// store has `locationCount` and no locations, which are read with their own streamed query,
/// whole or by time range (docs/workouts.md, "Routes").
public struct WorkoutRouteValue: Hashable, Sendable {
    /// The most locations a route holds: 200,000, 55 hours at one location a second.
    package static let maximumLocationCount = 200_000

    /// How far a location may lie outside its workout's interval: 60 seconds at each end, for the
    /// fixes a device records while a workout starts and ends.
    package static let workoutSlack: TimeInterval = 60

    /// The workout the route belongs to (HealthKit: `HKWorkoutRouteBuilder.finishRoute(with:)`).
    public var workoutUUID: UUID
    /// How many locations the route has; when saving, the number of `locations`.
    public var locationCount: Int
    /// Saving only: every location, timestamps not decreasing. Empty in what the store returns.
    public var locations: [RouteLocation]

    /// A route of `locations` for the workout `workoutUUID`.
    public init(workoutUUID: UUID, locations: [RouteLocation]) {
        self.workoutUUID = workoutUUID
        self.locationCount = locations.count
        self.locations = locations
    }

    /// A route as the store returns it: its workout and its count, without locations.
    public init(workoutUUID: UUID, locationCount: Int) {
        self.workoutUUID = workoutUUID
        self.locationCount = locationCount
        self.locations = []
    }

    /// The locations as a `WorkoutRoute`, for its length and time slices.
    public var route: WorkoutRoute { WorkoutRoute(locations: locations) }

    /// Every rule the locations break against the workout they belong to, under `path`
    /// ("route.locations[3].timestamp"): each timestamp inside `start`...`end` widened by
    /// `workoutSlack` at both ends. Only the first location outside is reported, with the
    /// count of the others. Empty when every location fits.
    package func errors(insideWorkoutFrom start: Date, to end: Date, at path: String) -> [ValidationError] {
        let earliest = start.addingTimeInterval(-Self.workoutSlack)
        let latest = end.addingTimeInterval(Self.workoutSlack)
        let outside = locations.indices.filter { locations[$0].timestamp < earliest || locations[$0].timestamp > latest }
        guard let first = outside.first else { return [] }
        let others = outside.count > 1 ? " (and \(outside.count - 1) more locations outside it)" : ""
        return [
            ValidationError(
                reason: .valueOutOfRange, field: "\(path).locations[\(first)].timestamp",
                value: Validation.render(locations[first].timestamp),
                expected: "a time inside the workout \(workoutUUID.uuidString), \(Validation.render(start)) to "
                    + "\(Validation.render(end)), give or take \(Int(Self.workoutSlack)) seconds\(others)")
        ]
    }
}

extension Sample {
    /// This sample with its start and end set to the first and last location of its route, when
    /// it is a route with locations; unchanged otherwise. The save paths apply it before the
    /// sample is checked: a route's interval is its locations', whatever the client sent.
    package func withRouteInterval() -> Sample {
        guard case .workoutRoute(let route) = value, let first = route.locations.first, let last = route.locations.last
        else { return self }
        var sample = self
        sample.startDate = first.timestamp
        sample.endDate = max(first.timestamp, last.timestamp)
        return sample
    }
}
