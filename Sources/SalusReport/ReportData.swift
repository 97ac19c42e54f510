import Foundation

/// What `salusctl report` shows, gathered from the store: the period, the person's wheelchair use,
/// and one list per section. Days are "YYYY-MM-DD" in ``timeZone``.
public struct ReportData: Sendable {
    /// The first day shown and the day after the last, as instants.
    public var from: Date
    public var to: Date
    public var timeZone: TimeZone
    /// When the report was made.
    public var generated: Date
    /// HKWheelchairUse yes: pushes and roll hours where others see steps and stand hours.
    public var wheelchairUse: Bool

    public var nights: [Night] = []
    /// Merged daily totals of steps (pushes for wheelchair users), one per day of the period.
    public var steps: [DayValue] = []
    public var stepGoal: Double
    public var heartRate: [HeartRateDay] = []
    /// Hours with a stand (roll) from the daily activity summaries.
    public var standHours: [StandDay] = []
    public var cycle: [CycleDay] = []
    /// The unit basal body temperatures are shown in ("degC").
    public var temperatureUnit: String = "degC"
    public var workouts: [WorkoutEntry] = []

    public init(from: Date, to: Date, timeZone: TimeZone, generated: Date, wheelchairUse: Bool, stepGoal: Double) {
        self.from = from
        self.to = to
        self.timeZone = timeZone
        self.generated = generated
        self.wheelchairUse = wheelchairUse
        self.stepGoal = stepGoal
    }

    /// The days of the period, "YYYY-MM-DD", in order.
    public var days: [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var result: [String] = []
        var day = calendar.startOfDay(for: from)
        while day < to {
            result.append(Nights.day(of: day, timeZone: timeZone))
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            day = next
        }
        return result
    }
}

public struct DayValue: Sendable, Equatable {
    public var day: String
    public var value: Double?

    public init(day: String, value: Double?) {
        self.day = day
        self.value = value
    }
}

public struct HeartRateDay: Sendable, Equatable {
    public var day: String
    public var minimum: Double?
    public var maximum: Double?
    public var resting: Double?

    public init(day: String, minimum: Double?, maximum: Double?, resting: Double?) {
        self.day = day
        self.minimum = minimum
        self.maximum = maximum
        self.resting = resting
    }
}

public struct StandDay: Sendable, Equatable {
    public var day: String
    public var hours: Int
    public var goal: Double

    public init(day: String, hours: Int, goal: Double) {
        self.day = day
        self.hours = hours
        self.goal = goal
    }
}

/// A day of the cycle-tracking calendar.
public struct CycleDay: Sendable, Equatable {
    public var day: String
    /// HKCategoryValueVaginalBleeding: 1 unspecified, 2 light, 3 medium, 4 heavy, 5 none.
    public var flow: Int?
    /// Intermenstrual bleeding recorded.
    public var spotting: Bool
    /// HKCategoryValueOvulationTestResult: 1 negative, 2 LH surge, 3 indeterminate, 4 estrogen surge.
    public var ovulationTest: Int?
    public var basalBodyTemperature: Double?

    public init(day: String, flow: Int? = nil, spotting: Bool = false, ovulationTest: Int? = nil, basalBodyTemperature: Double? = nil) {
        self.day = day
        self.flow = flow
        self.spotting = spotting
        self.ovulationTest = ovulationTest
        self.basalBodyTemperature = basalBodyTemperature
    }

    public var isEmpty: Bool { flow == nil && !spotting && ovulationTest == nil && basalBodyTemperature == nil }

    public static func flowName(_ raw: Int) -> String {
        switch raw {
        case 2: "light"
        case 3: "medium"
        case 4: "heavy"
        case 5: "none"
        default: "flow"
        }
    }

    public static func ovulationName(_ raw: Int) -> String {
        switch raw {
        case 1: "negative"
        case 2: "LH surge"
        case 3: "indeterminate"
        case 4: "estrogen surge"
        default: "test \(raw)"
        }
    }
}

/// One workout of the list.
public struct WorkoutEntry: Sendable, Equatable {
    public var start: Date
    public var end: Date
    /// "running".
    public var activity: String
    /// Seconds, pauses excluded.
    public var duration: TimeInterval
    /// "5.10 km", "310 kcal", "avg 148 bpm".
    public var figures: [String]
    /// For a multisport workout: each activity's name, duration and figures.
    public var activities: [WorkoutActivityEntry]
    /// The route, [latitude, longitude] per location, thinned to at most ``WorkoutEntry/maximumRoutePoints``.
    public var route: [[Double]]
    /// The route's length in meters.
    public var routeMeters: Double?

    public static let maximumRoutePoints = 400

    /// A route smaller than this across (a watch that stood still) is not drawn: its map would
    /// be a dot in an empty frame.
    public static let minimumDrawnExtentMeters = 20.0

    /// Whether the route is drawn: two locations at least, spread over
    /// ``minimumDrawnExtentMeters`` or more (the diagonal of their bounding box).
    public var drawsRoute: Bool {
        guard route.count >= 2 else { return false }
        let latitudes = route.compactMap(\.first), longitudes = route.compactMap { $0.dropFirst().first }
        guard let south = latitudes.min(), let north = latitudes.max(), let west = longitudes.min(), let east = longitudes.max() else { return false }
        let metersPerDegree = 111_320.0
        let height = (north - south) * metersPerDegree
        let width = (east - west) * metersPerDegree * cos((north + south) / 2 * .pi / 180)
        return (height * height + width * width).squareRoot() >= Self.minimumDrawnExtentMeters
    }

    public init(
        start: Date, end: Date, activity: String, duration: TimeInterval, figures: [String],
        activities: [WorkoutActivityEntry] = [], route: [[Double]] = [], routeMeters: Double? = nil
    ) {
        self.start = start
        self.end = end
        self.activity = activity
        self.duration = duration
        self.figures = figures
        self.activities = activities
        self.route = WorkoutEntry.thinned(route)
        self.routeMeters = routeMeters
    }

    /// At most ``maximumRoutePoints`` evenly spaced points, the first and the last kept.
    public static func thinned(_ points: [[Double]]) -> [[Double]] {
        guard points.count > maximumRoutePoints else { return points }
        let step = Double(points.count - 1) / Double(maximumRoutePoints - 1)
        return (0..<maximumRoutePoints).map { points[Int((Double($0) * step).rounded())] }
    }
}

public struct WorkoutActivityEntry: Sendable, Equatable {
    public var activity: String
    public var duration: TimeInterval
    public var figures: [String]

    public init(activity: String, duration: TimeInterval, figures: [String]) {
        self.activity = activity
        self.duration = duration
        self.figures = figures
    }
}
