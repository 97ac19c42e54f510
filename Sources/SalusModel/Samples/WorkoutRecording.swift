import Foundation

/// A workout being recorded, as HealthKit's `HKWorkoutBuilder` holds it: the collection's start
/// (and end once ended), the workout's type, configuration, metadata, events and activities. The
/// samples added to it are kept beside it by whoever holds the recording.
///
/// Every change is checked at once against the workout rules (docs/workouts.md) through
/// `checked(with:)`, so a recording never holds what its workout could not save: an activity of a
/// type the workout does not allow is refused when it begins, not when the workout is finished.
public struct WorkoutRecording: Hashable, Sendable {
    /// Where a recording is in its life; a finished or discarded recording no longer exists.
    public enum Phase: Int, Hashable, Sendable {
        /// Samples, events, metadata and activities are accepted (1).
        case collecting = 1
        /// `endCollection` was called: only finishing or discarding remain (2).
        case ended = 2
    }

    /// The recording's identifier (the builder id).
    public var id: UUID
    /// Collecting or ended.
    public var phase: Phase
    /// The workout's `HKWorkoutActivityType` raw value.
    public var activityType: UInt
    /// The workout's configuration.
    public var configuration: WorkoutConfiguration
    /// When collection began: the workout's start.
    public var startDate: Date
    /// When collection ended: the workout's end; nil while collecting.
    public var endDate: Date?
    /// The device that records.
    public var device: Device?
    /// The workout's metadata.
    public var metadata: [String: MetadataValue]
    /// The events added, in the order added.
    public var events: [WorkoutEvent]
    /// The activities; the last one may be open (no end date) while collecting.
    public var activities: [WorkoutActivity]

    /// A recording that begins collecting at `startDate`.
    package init(
        id: UUID = UUIDv7.make(), activityType: UInt, configuration: WorkoutConfiguration = WorkoutConfiguration(),
        startDate: Date, device: Device? = nil
    ) {
        self.id = id
        self.phase = .collecting
        self.activityType = activityType
        self.configuration = configuration
        self.startDate = startDate
        self.endDate = nil
        self.device = device
        self.metadata = [:]
        self.events = []
        self.activities = []
    }

    /// The type identifier of workouts.
    package static let workoutType: TypeIdentifier = "HKWorkoutTypeIdentifier"

    /// The end of the workout so far: the collection's end once ended, else the latest date
    /// the recording holds (the start at least).
    public var latestDate: Date {
        if let endDate { return endDate }
        var latest = startDate
        for event in events { latest = max(latest, event.endDate) }
        for activity in activities { latest = max(latest, activity.endDate ?? activity.startDate) }
        return latest
    }

    /// The workout as recorded so far; the open activity keeps no end date.
    public var workout: Workout {
        var workout = Workout(activityType: activityType, configuration: configuration, events: events, activities: activities)
        workout.events.sort { $0.startDate < $1.startDate }
        return workout
    }

    /// The workout as a sample from `startDate` to `end` (by default `latestDate`), by `source`;
    /// with `closingOpenActivity`, the open activity ends at `end` (a workout without activities
    /// gets one spanning it from the save step, `Sample.preparedForSaving()`).
    package func sample(source: SourceRevision, end: Date? = nil, closingOpenActivity: Bool) -> Sample {
        let end = end ?? latestDate
        var workout = self.workout
        if closingOpenActivity {
            for index in workout.activities.indices where workout.activities[index].endDate == nil {
                workout.activities[index].endDate = max(workout.activities[index].startDate, end)
            }
        }
        return Sample(
            uuid: id, type: Self.workoutType, startDate: startDate, endDate: end, value: .workout(workout),
            sourceRevision: source, device: device, metadata: metadata)
    }

    /// Seconds between the start and `date` (at most the collection's end) that the workout was
    /// not paused; 0 before the start.
    public func elapsedTime(at date: Date) -> TimeInterval {
        let until = min(date, endDate ?? date)
        guard until > startDate else { return 0 }
        return workout.activeDuration(from: startDate, to: until)
    }

    // MARK: Changes

    /// Refuses a change once collection has ended, naming `field`.
    package func requireCollecting(_ field: String) throws(ValidationError) {
        guard phase == .collecting else {
            throw ValidationError(
                reason: .collectionEnded, field: field, value: "builder \(id.uuidString) ended at \(Self.render(endDate))",
                expected: "a builder still collecting: nothing is added after endCollection")
        }
    }

    /// This recording with `added` events.
    package func addingEvents(_ added: [WorkoutEvent]) throws(ValidationError) -> WorkoutRecording {
        try requireCollecting("events")
        var next = self
        next.events += added
        return next
    }

    /// This recording with `added` merged into the workout's metadata.
    package func addingMetadata(_ added: [String: MetadataValue]) throws(ValidationError) -> WorkoutRecording {
        try requireCollecting("metadata")
        var next = self
        next.metadata.merge(added) { $1 }
        return next
    }

    /// This recording with `activity` begun (its end date is ignored: it is open); the open
    /// activity ends at the new one's start, as `HKWorkoutSession.beginNewActivity` does.
    package func beginningActivity(_ activity: WorkoutActivity) throws(ValidationError) -> WorkoutRecording {
        try requireCollecting("activity")
        var next = self
        if let open = next.activities.lastIndex(where: { $0.endDate == nil }) {
            next.activities[open].endDate = activity.startDate
        }
        var begun = activity
        begun.endDate = nil
        next.activities.append(begun)
        return next
    }

    /// This recording with its open activity ended at `date`; refused when none is open.
    package func endingActivity(at date: Date) throws(ValidationError) -> WorkoutRecording {
        try requireCollecting("endDate")
        guard let open = activities.lastIndex(where: { $0.endDate == nil }) else {
            throw ValidationError(
                reason: .missingValue, field: "activities", value: "no open activity",
                expected: "an activity begun (BeginActivity) and not yet ended")
        }
        var next = self
        next.activities[open].endDate = date
        return next
    }

    /// This recording ended at `date`: its open activity ends there too.
    package func endingCollection(at date: Date) throws(ValidationError) -> WorkoutRecording {
        try requireCollecting("endDate")
        guard date >= startDate else {
            throw ValidationError(
                reason: .invalidDateRange, field: "endDate", value: Self.render(date),
                expected: "a date at or after the collection's start \(Self.render(startDate))")
        }
        var next = self
        if let open = next.activities.lastIndex(where: { $0.endDate == nil }) {
            next.activities[open].endDate = date
        }
        next.endDate = date
        next.phase = .ended
        return next
    }

    /// Refuses finishing a recording still collecting.
    package func requireEnded() throws(ValidationError) {
        guard phase == .ended else {
            throw ValidationError(
                reason: .collectionNotEnded, field: "phase", value: "collecting since \(Self.render(startDate))",
                expected: "a builder whose collection has ended (EndCollection) before Finish")
        }
    }

    /// This recording, when its workout keeps every workout rule and every rule its type declares
    /// in `catalog`; else the first rule broken, its field named from the workout
    /// (`workout.activities[1].activityType`, `metadata.KEY`).
    ///
    /// An open activity counts as ending at `latestDate`, so rules about ended activities apply
    /// only once collection has ended.
    package func checked(with catalog: TypeCatalog) throws(ValidationError) -> WorkoutRecording {
        var probe = sample(source: SourceRevision(appID: "", name: ""), closingOpenActivity: false)
        if case .workout(var workout) = probe.value {
            for index in workout.activities.indices where workout.activities[index].endDate == nil {
                workout.activities[index].endDate = max(workout.activities[index].startDate, probe.endDate)
            }
            probe.value = .workout(workout)
        }
        // A recording may have no activity yet: finishing adds one spanning the workout.
        let errors = catalog.validationErrors(of: probe, at: "").filter {
            !($0.reason == .missingValue && $0.field == ".workout.activities")
        }
        if var first = errors.first {
            if first.field.hasPrefix(".") { first.field.removeFirst() }
            throw first
        }
        return self
    }

    static func render(_ date: Date?) -> String {
        guard let date else { return "nil" }
        return date.formatted(.iso8601)
    }
}

extension ValidationError.Reason {
    /// Something was added to a workout builder whose collection has ended.
    package static let collectionEnded = ValidationError.Reason(rawValue: "collectionEnded")
    /// A workout builder was finished while still collecting.
    package static let collectionNotEnded = ValidationError.Reason(rawValue: "collectionNotEnded")
}
