import Foundation

/// A workout's value: its activity type, configuration, events and activities, as HealthKit's
/// `HKWorkout`. The sample's start and end are the workout's.
///
/// Every saved workout has at least one activity: `Workout.withDefaultActivity(start:end:)` adds
/// one spanning the workout, of the workout's type and configuration, when none is given (as
/// HealthKit does), and the save path applies it before the sample is checked. The rules a
/// workout must keep are listed on `Sample.validationErrors(at:)` and in docs/workouts.md.
public struct Workout: Hashable, Sendable {
    /// The `HKWorkoutActivityType` raw value (running 37, swimBikeRun 82, other 3000).
    public var activityType: UInt
    /// Where the workout took place, its pool and lap length.
    public var configuration: WorkoutConfiguration
    /// Pauses, laps, markers and segments, in time order.
    public var events: [WorkoutEvent]
    /// The activities that divide the workout (legs of a triathlon, intervals).
    public var activities: [WorkoutActivity]
    /// Totals and averages per quantity type, in each type's canonical unit: the sum for
    /// cumulative types, the average for discrete ones. Computed from the associated samples
    /// when the workout is read; what a save gives stands only for types with no associated
    /// samples (an imported workout's totals).
    public var statistics: [TypeIdentifier: Quantity]
    /// Every statistic the type's aggregation allows (sum; or average, minimum and maximum) per
    /// associated quantity type, computed from the associated samples when the workout is served
    /// (docs/workouts.md, "Statistics"). What a save gives stands, as `statistics` does, only for
    /// types with no associated samples: an imported workout's minimum and maximum heart rate.
    public var allStatistics: [TypeIdentifier: WorkoutStatistics] = [:]
    /// The duration the recording device gave, in seconds, when it is known (an Apple Health
    /// export's `duration`, which counts pauses as Apple does): the workout's duration, in place
    /// of the one `activeDuration(from:to:)` computes from the events. Nil for what apps save
    /// without one. At most `recordedDurationSlack` longer than the workout's interval.
    public var recordedDuration: TimeInterval?

    /// How much a recorded duration may pass the workout's interval: exports write dates in
    /// whole seconds and the duration with its fraction (a run of 311 s by its dates lasted
    /// 311.65 s by Apple's figure).
    package static let recordedDurationSlack: TimeInterval = 1

    /// The workout's duration from `start` to `end`: the recorded one when there is one, else the
    /// time not paused (`activeDuration(from:to:)`).
    public func duration(from start: Date, to end: Date) -> TimeInterval {
        recordedDuration ?? activeDuration(from: start, to: end)
    }

    /// Creates a workout value.
    public init(
        activityType: UInt,
        configuration: WorkoutConfiguration = WorkoutConfiguration(),
        events: [WorkoutEvent] = [],
        activities: [WorkoutActivity] = [],
        statistics: [TypeIdentifier: Quantity] = [:]
    ) {
        self.activityType = activityType
        self.configuration = configuration
        self.events = events
        self.activities = activities
        self.statistics = statistics
    }

    /// This workout with one activity spanning `start`...`end`, of the workout's type and
    /// configuration, when it has none; unchanged otherwise.
    package func withDefaultActivity(start: Date, end: Date) -> Workout {
        guard activities.isEmpty else { return self }
        var workout = self
        workout.activities = [
            WorkoutActivity(activityType: activityType, configuration: configuration, startDate: start, endDate: end)
        ]
        return workout
    }

    /// The time between `start` and `end` that the workout was not paused, in seconds.
    ///
    /// A pause (or motionPaused) event stops the clock at its start and a resume (or
    /// motionResumed) restarts it; a pause while paused, or a resume while running, changes
    /// nothing. A pause with no resume lasts to `end`. Events outside `start`...`end` are clipped.
    public func activeDuration(from start: Date, to end: Date) -> TimeInterval {
        let total = end.timeIntervalSince(start)
        guard total > 0 else { return 0 }
        var paused: Date?
        var pausedSeconds: TimeInterval = 0
        for event in events.sorted(by: { $0.startDate < $1.startDate }) {
            let at = min(max(event.startDate, start), end)
            switch WorkoutEventType(rawValue: event.type) {
            case .pause?, .motionPaused?:
                if paused == nil { paused = at }
            case .resume?, .motionResumed?:
                if let since = paused {
                    pausedSeconds += at.timeIntervalSince(since)
                    paused = nil
                }
            default:
                break
            }
        }
        if let since = paused { pausedSeconds += end.timeIntervalSince(since) }
        return max(0, total - pausedSeconds)
    }
}

/// The statistics of one quantity type over a workout or activity, in the type's canonical unit:
/// the sum for cumulative types; the average, minimum and maximum for discrete ones.
public struct WorkoutStatistics: Hashable, Sendable {
    /// The pro-rated total (cumulative types).
    public var sum: Quantity?
    /// The pro-rated mean (discrete types).
    public var average: Quantity?
    /// The smallest value counted (discrete types).
    public var minimum: Quantity?
    /// The largest value counted (discrete types).
    public var maximum: Quantity?
    /// True when computed from the workout's associated samples as it was served; false for
    /// figures a save gave (an import's totals), which stand for types with no associated samples.
    /// Never stored: a save's figures are the save's, whatever this says.
    public var fromSamples = false

    /// Creates statistics; absent ones are nil.
    public init(sum: Quantity? = nil, average: Quantity? = nil, minimum: Quantity? = nil, maximum: Quantity? = nil) {
        self.sum = sum
        self.average = average
        self.minimum = minimum
        self.maximum = maximum
    }

    /// The one figure `Workout.statistics` keeps: the sum, else the average.
    public var main: Quantity? { sum ?? average }
}

/// Named `HKWorkoutActivityType` raw values the rules refer to; every registered raw value is a
/// valid activity type (the plugins' manifests list them).
public enum WorkoutActivityType {
    /// cycling (13).
    public static let cycling: UInt = 13
    /// running (37).
    public static let running: UInt = 37
    /// swimming (46).
    public static let swimming: UInt = 46
    /// wheelchairWalkPace (70).
    public static let wheelchairWalkPace: UInt = 70
    /// wheelchairRunPace (71).
    public static let wheelchairRunPace: UInt = 71
    /// swimBikeRun (82), the multisport workout.
    public static let swimBikeRun: UInt = 82
    /// transition (83), the gap between the legs of a multisport workout.
    public static let transition: UInt = 83
    /// The activity types a swimBikeRun workout's activities may have: swimming, cycling,
    /// running and transition.
    package static let multisportLegs: [UInt] = [swimming, cycling, running, transition]
}

/// Where a workout or activity took place, as HealthKit's `HKWorkoutConfiguration` (its
/// activity type is the workout's or activity's own `activityType`).
public struct WorkoutConfiguration: Hashable, Sendable {
    /// Indoor, outdoor or unknown.
    public var locationType: WorkoutLocationType
    /// For swimming: pool, open water or unknown.
    public var swimmingLocationType: WorkoutSwimmingLocationType
    /// For pool swimming: the length of one pool length (25 m); a length unit.
    public var lapLength: Quantity?

    /// Creates a configuration; every field defaults to unknown.
    public init(
        locationType: WorkoutLocationType = .unknown, swimmingLocationType: WorkoutSwimmingLocationType = .unknown,
        lapLength: Quantity? = nil
    ) {
        self.locationType = locationType
        self.swimmingLocationType = swimmingLocationType
        self.lapLength = lapLength
    }
}

/// `HKWorkoutSessionLocationType`, with HealthKit's raw values.
public enum WorkoutLocationType: Int, CaseIterable, Hashable, Sendable {
    /// Not known (1).
    case unknown = 1
    /// Indoors (2).
    case indoor = 2
    /// Outdoors (3).
    case outdoor = 3
}

/// `HKWorkoutSwimmingLocationType`, with HealthKit's raw values.
public enum WorkoutSwimmingLocationType: Int, CaseIterable, Hashable, Sendable {
    /// Not known (0).
    case unknown = 0
    /// A pool (1).
    case pool = 1
    /// Open water (2).
    case openWater = 2
}

/// `HKWorkoutEventType`, with HealthKit's raw values.
public enum WorkoutEventType: Int, CaseIterable, Hashable, Sendable {
    /// The workout was paused (1).
    case pause = 1
    /// The workout resumed (2).
    case resume = 2
    /// A lap, such as one pool length (3); carries `HKSwimmingStrokeStyle` when swimming.
    case lap = 3
    /// A marker the person set (4).
    case marker = 4
    /// The device detected that motion stopped (5).
    case motionPaused = 5
    /// The device detected that motion resumed (6).
    case motionResumed = 6
    /// A segment, such as a mile split (7).
    case segment = 7
    /// The person asked to pause or resume (8).
    case pauseOrResumeRequest = 8

    /// The allowed values, for error messages: "1 pause, 2 resume, ...".
    static var allowedDescription: String {
        allCases.map { "\($0.rawValue) \($0)" }.joined(separator: ", ")
    }
}

/// A moment or span within a workout, as HealthKit's `HKWorkoutEvent`.
public struct WorkoutEvent: Hashable, Sendable {
    /// The `HKWorkoutEventType` raw value (`WorkoutEventType`); kept as a number so a workout
    /// with an unknown event type can be read and refused with its value.
    public var type: Int
    /// When the event starts.
    public var startDate: Date
    /// When the event ends; equal to `startDate` for instantaneous events.
    public var endDate: Date
    /// Metadata such as `MetadataKey.swimmingStrokeStyle` on laps.
    public var metadata: [String: MetadataValue]

    /// Creates an event; `endDate` defaults to `startDate`.
    public init(type: Int, startDate: Date, endDate: Date? = nil, metadata: [String: MetadataValue] = [:]) {
        self.type = type
        self.startDate = startDate
        self.endDate = endDate ?? startDate
        self.metadata = metadata
    }

    /// Creates an event of a known type; `endDate` defaults to `startDate`.
    public init(
        _ type: WorkoutEventType, startDate: Date, endDate: Date? = nil, metadata: [String: MetadataValue] = [:]
    ) {
        self.init(type: type.rawValue, startDate: startDate, endDate: endDate, metadata: metadata)
    }
}

/// One activity within a workout, as HealthKit's `HKWorkoutActivity`.
public struct WorkoutActivity: Hashable, Sendable {
    /// The activity's identifier.
    public var uuid: UUID
    /// The `HKWorkoutActivityType` raw value; equal to the workout's unless the workout is
    /// swimBikeRun.
    public var activityType: UInt
    /// Where this activity took place, its pool and lap length.
    public var configuration: WorkoutConfiguration
    /// When the activity starts.
    public var startDate: Date
    /// When it ends; nil only while the workout is being recorded (a saved workout's activities
    /// have ended).
    public var endDate: Date?
    /// Metadata for this activity alone.
    public var metadata: [String: MetadataValue]
    /// Statistics per quantity type over the activity, in each type's canonical unit (see
    /// `Workout.statistics`).
    public var statistics: [TypeIdentifier: Quantity]
    /// Every statistic over the activity's interval (see `Workout.allStatistics`).
    public var allStatistics: [TypeIdentifier: WorkoutStatistics] = [:]

    /// Creates an activity.
    public init(
        uuid: UUID = UUID(),
        activityType: UInt,
        configuration: WorkoutConfiguration = WorkoutConfiguration(),
        startDate: Date,
        endDate: Date? = nil,
        metadata: [String: MetadataValue] = [:],
        statistics: [TypeIdentifier: Quantity] = [:]
    ) {
        self.uuid = uuid
        self.activityType = activityType
        self.configuration = configuration
        self.startDate = startDate
        self.endDate = endDate
        self.metadata = metadata
        self.statistics = statistics
    }
}
