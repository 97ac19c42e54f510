import Foundation

/// What `salusctl report` shows, gathered from the store: the period, the person's wheelchair use,
/// and one list per section. Days are "YYYY-MM-DD" in ``timeZone``.
package struct ReportData: Sendable {
    /// The first day shown and the day after the last, as instants.
    package var from: Date
    package var to: Date
    package var timeZone: TimeZone
    /// When the report was made.
    package var generated: Date
    /// HKWheelchairUse yes: pushes and roll hours where others see steps and stand hours.
    package var wheelchairUse: Bool

    package var nights: [Night] = []
    /// Merged daily totals of steps (pushes for wheelchair users), one per day of the period.
    package var steps: [DayValue] = []
    package var stepGoal: Double
    package var heartRate: [HeartRateDay] = []
    /// Hours with a stand (roll) from the daily activity summaries.
    package var standHours: [StandDay] = []
    package var cycle: [CycleDay] = []
    /// The unit basal body temperatures are shown in ("degC").
    package var temperatureUnit: String = "degC"
    package var workouts: [WorkoutEntry] = []
    /// What apps did with the data in the period, a sentence each, newest first (the access log;
    /// `AccessLogText` in SalusAdmin writes them).
    package var accessLines: [String] = []

    package init(from: Date, to: Date, timeZone: TimeZone, generated: Date, wheelchairUse: Bool, stepGoal: Double) {
        self.from = from
        self.to = to
        self.timeZone = timeZone
        self.generated = generated
        self.wheelchairUse = wheelchairUse
        self.stepGoal = stepGoal
    }

    /// The days of the period, "YYYY-MM-DD", in order.
    package var days: [String] {
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

    /// Whether any section has something in its period (a report of none says where the data is).
    package var showsData: Bool {
        !nights.isEmpty || !workouts.isEmpty
            || steps.contains { $0.value != nil }
            || heartRate.contains { $0.minimum != nil || $0.maximum != nil || $0.resting != nil }
            || standHours.contains { $0.hours > 0 }
            || cycle.contains { !$0.isEmpty }
    }
}

package struct DayValue: Sendable, Equatable {
    package var day: String
    package var value: Double?

    package init(day: String, value: Double?) {
        self.day = day
        self.value = value
    }
}

package struct HeartRateDay: Sendable, Equatable {
    package var day: String
    package var minimum: Double?
    package var maximum: Double?
    package var resting: Double?

    package init(day: String, minimum: Double?, maximum: Double?, resting: Double?) {
        self.day = day
        self.minimum = minimum
        self.maximum = maximum
        self.resting = resting
    }
}

package struct StandDay: Sendable, Equatable {
    package var day: String
    package var hours: Int
    package var goal: Double

    package init(day: String, hours: Int, goal: Double) {
        self.day = day
        self.hours = hours
        self.goal = goal
    }
}

/// A day of the cycle-tracking calendar.
package struct CycleDay: Sendable, Equatable {
    package var day: String
    /// HKCategoryValueVaginalBleeding: 1 unspecified, 2 light, 3 medium, 4 heavy, 5 none.
    package var flow: Int?
    /// Intermenstrual bleeding recorded.
    package var spotting: Bool
    /// HKCategoryValueOvulationTestResult: 1 negative, 2 LH surge, 3 indeterminate, 4 estrogen surge.
    package var ovulationTest: Int?
    package var basalBodyTemperature: Double?

    package init(day: String, flow: Int? = nil, spotting: Bool = false, ovulationTest: Int? = nil, basalBodyTemperature: Double? = nil) {
        self.day = day
        self.flow = flow
        self.spotting = spotting
        self.ovulationTest = ovulationTest
        self.basalBodyTemperature = basalBodyTemperature
    }

    package var isEmpty: Bool { flow == nil && !spotting && ovulationTest == nil && basalBodyTemperature == nil }

    package static func flowName(_ raw: Int) -> String {
        switch raw {
        case 2: "light"
        case 3: "medium"
        case 4: "heavy"
        case 5: "none"
        default: "flow"
        }
    }

    package static func ovulationName(_ raw: Int) -> String {
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
package struct WorkoutEntry: Sendable, Equatable {
    package var start: Date
    package var end: Date
    /// "running".
    package var activity: String
    /// Seconds, pauses excluded.
    package var duration: TimeInterval
    /// "5.10 km", "310 kcal", "avg 148 bpm".
    package var figures: [String]
    /// For a multisport workout: each activity's name, duration and figures.
    package var activities: [WorkoutActivityEntry]
    /// The route, [latitude, longitude] per location, thinned to at most ``WorkoutEntry/maximumRoutePoints``.
    package var route: [[Double]]
    /// The route's length in meters.
    package var routeMeters: Double?
    /// The same workout from other sources, kept as alternates of this one, a sentence each:
    /// "also recorded by gpx.stravagpx: 10.21 km, 512 kcal; this one was stored first and is kept".
    package var alternates: [String] = []

    package static let maximumRoutePoints = 400

    /// A route smaller than this across (a watch that stood still) is not drawn: its map would
    /// be a dot in an empty frame.
    package static let minimumDrawnExtentMeters = 20.0

    /// Whether the route is drawn: two locations at least, spread over
    /// ``minimumDrawnExtentMeters`` or more (the diagonal of their bounding box).
    package var drawsRoute: Bool {
        guard route.count >= 2 else { return false }
        let latitudes = route.compactMap(\.first), longitudes = route.compactMap { $0.dropFirst().first }
        guard let south = latitudes.min(), let north = latitudes.max(), let west = longitudes.min(), let east = longitudes.max() else { return false }
        let metersPerDegree = 111_320.0
        let height = (north - south) * metersPerDegree
        let width = (east - west) * metersPerDegree * cos((north + south) / 2 * .pi / 180)
        return (height * height + width * width).squareRoot() >= Self.minimumDrawnExtentMeters
    }

    package init(
        start: Date, end: Date, activity: String, duration: TimeInterval, figures: [String],
        activities: [WorkoutActivityEntry] = [], route: [[Double]] = [], routeMeters: Double? = nil, alternates: [String] = []
    ) {
        self.alternates = alternates
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
    package static func thinned(_ points: [[Double]]) -> [[Double]] {
        guard points.count > maximumRoutePoints else { return points }
        let step = Double(points.count - 1) / Double(maximumRoutePoints - 1)
        return (0..<maximumRoutePoints).map { points[Int((Double($0) * step).rounded())] }
    }
}

package struct WorkoutActivityEntry: Sendable, Equatable {
    package var activity: String
    package var duration: TimeInterval
    package var figures: [String]

    package init(activity: String, duration: TimeInterval, figures: [String]) {
        self.activity = activity
        self.duration = duration
        self.figures = figures
    }
}
