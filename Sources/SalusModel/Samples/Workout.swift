import Foundation

/// A workout's value: its activity type, events and activities, as HealthKit's `HKWorkout`.
///
/// Every workout has at least one activity; the store adds one spanning the workout, of the
/// workout's type, when none is given. Activities must not overlap.
public struct Workout: Hashable, Sendable {
    /// The `HKWorkoutActivityType` raw value (running 37, swimBikeRun 82, other 3000).
    public var activityType: UInt
    /// Pauses, laps, markers and segments, in time order.
    public var events: [WorkoutEvent]
    /// The activities that divide the workout (legs of a triathlon, intervals).
    public var activities: [WorkoutActivity]
    /// Totals and averages per quantity type, in each type's canonical unit.
    public var statistics: [TypeIdentifier: Quantity]

    /// Creates a workout value.
    public init(
        activityType: UInt,
        events: [WorkoutEvent] = [],
        activities: [WorkoutActivity] = [],
        statistics: [TypeIdentifier: Quantity] = [:]
    ) {
        self.activityType = activityType
        self.events = events
        self.activities = activities
        self.statistics = statistics
    }
}

/// A moment or span within a workout, as HealthKit's `HKWorkoutEvent`.
public struct WorkoutEvent: Hashable, Sendable {
    /// The `HKWorkoutEventType` raw value (pause 1, resume 2, lap 3, marker 4, motionPaused 5,
    /// motionResumed 6, segment 7, pauseOrResumeRequest 8).
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
}

/// One activity within a workout, as HealthKit's `HKWorkoutActivity`.
public struct WorkoutActivity: Hashable, Sendable {
    /// The activity's identifier.
    public var uuid: UUID
    /// The `HKWorkoutActivityType` raw value; in an interval workout it equals the workout's.
    public var activityType: UInt
    /// When the activity starts.
    public var startDate: Date
    /// When it ends; nil while the workout is in progress.
    public var endDate: Date?
    /// Metadata for this activity alone.
    public var metadata: [String: MetadataValue]
    /// Statistics per quantity type over the activity, in each type's canonical unit.
    public var statistics: [TypeIdentifier: Quantity]

    /// Creates an activity.
    public init(
        uuid: UUID = UUID(),
        activityType: UInt,
        startDate: Date,
        endDate: Date? = nil,
        metadata: [String: MetadataValue] = [:],
        statistics: [TypeIdentifier: Quantity] = [:]
    ) {
        self.uuid = uuid
        self.activityType = activityType
        self.startDate = startDate
        self.endDate = endDate
        self.metadata = metadata
        self.statistics = statistics
    }
}
