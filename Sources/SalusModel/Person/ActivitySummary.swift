import Foundation

/// The goals of the activity rings, from a day on.
public struct ActivityGoals: Hashable, Sendable, Codable {
    /// The first day these goals apply to (in the person's time zone).
    public var from: CalendarDate
    /// Kilocalories of active energy a day (move mode activeEnergy).
    public var activeEnergyBurned: Double
    /// Minutes of move time a day (move mode appleMoveTime).
    public var appleMoveTime: Double
    /// Minutes of exercise a day.
    public var appleExerciseTime: Double
    /// Hours with a stand (wheelchair users: a roll) a day.
    public var appleStandHours: Double

    /// Goals from `from` on.
    public init(from: CalendarDate, activeEnergyBurned: Double, appleMoveTime: Double, appleExerciseTime: Double, appleStandHours: Double) {
        self.from = from
        self.activeEnergyBurned = activeEnergyBurned
        self.appleMoveTime = appleMoveTime
        self.appleExerciseTime = appleExerciseTime
        self.appleStandHours = appleStandHours
    }

    /// The goals before the owner sets any: 400 kcal, 30 minutes of move time, 30 minutes of
    /// exercise, 12 stand hours. `from` is the earliest representable day.
    public static let defaults = ActivityGoals(
        from: CalendarDate(year: 1, month: 1, day: 1), activeEnergyBurned: 400, appleMoveTime: 30,
        appleExerciseTime: 30, appleStandHours: 12)

    /// The goal fields with their names, for checks and messages.
    package var fields: [(name: String, value: Double)] {
        [("activeEnergyBurned", activeEnergyBurned), ("appleMoveTime", appleMoveTime),
         ("appleExerciseTime", appleExerciseTime), ("appleStandHours", appleStandHours)]
    }

    /// The move goals that may be 0: HealthKit's "not set" for the one the person's move mode does
    /// not use (exports write `appleMoveTimeGoal="0"` for a move ring counting kilocalories).
    package static let unsetMoveGoals: Set<String> = ["activeEnergyBurned", "appleMoveTime"]

    /// The first goal that breaks a rule: each goal is finite and positive, except that a move
    /// goal may be 0 (`unsetMoveGoals`); stand hours at most 24; `field` prefixes the paths
    /// (`goals`).
    package func validationError(field: String) -> ValidationError? {
        guard from.isValid else {
            return ValidationError(reason: .invalidValue, field: "\(field).from", value: "\(from)", expected: "a day that exists")
        }
        for (name, value) in fields where !(value.isFinite && (value > 0 || (value == 0 && Self.unsetMoveGoals.contains(name)))) {
            let zeroAllowed = Self.unsetMoveGoals.contains(name)
            return ValidationError(
                reason: value.isFinite ? .valueOutOfRange : .nonFiniteValue, field: "\(field).\(name)",
                value: "\(value)", expected: zeroAllowed ? "a positive number, or 0 for a move goal not set" : "a positive number")
        }
        if appleStandHours > 24 {
            return ValidationError(
                reason: .valueOutOfRange, field: "\(field).appleStandHours", value: "\(appleStandHours)",
                expected: "at most 24 hours")
        }
        return nil
    }
}

/// HealthKit's `HKActivitySummary`: one day's activity rings, computed from the samples of that
/// day in the person's time zone and the goals that apply to it.
///
/// - Move: `activeEnergyBurned` (kcal, from HKQuantityTypeIdentifierActiveEnergyBurned) for move
///   mode activeEnergy, `appleMoveTime` (minutes, from HKQuantityTypeIdentifierAppleMoveTime) for
///   move mode appleMoveTime; both are always computed, the mode says which ring shows.
/// - Exercise: `appleExerciseTime`, minutes from HKQuantityTypeIdentifierAppleExerciseTime.
/// - Stand: `appleStandHours`, the hours of the day in which a HKCategoryTypeIdentifierAppleStandHour
///   sample marks `stood`. For a wheelchair user the ring counts roll hours: an hour also counts
///   when a HKQuantityTypeIdentifierPushCount sample with pushes starts in it.
/// Sums merge sources by the owner's source priority and pro-rate samples that cross midnight,
/// as statistics do.
public struct ActivitySummary: Hashable, Sendable {
    /// The day.
    public var date: CalendarDate
    /// The day's interval (23 or 25 hours on a daylight-saving change).
    public var interval: DateInterval
    /// The time zone the day was computed in.
    public var timeZone: TimeZone
    /// HKActivityMoveMode raw value: activeEnergy 1, appleMoveTime 2.
    public var activityMoveMode: Int64
    /// Whether the hour ring counts roll hours.
    public var wheelchairUse: Bool
    /// Kilocalories.
    public var activeEnergyBurned: Double
    /// Minutes.
    public var appleMoveTime: Double
    /// Minutes.
    public var appleExerciseTime: Double
    /// Hours.
    public var appleStandHours: Int
    /// The goals that apply to the day.
    public var goals: ActivityGoals

    /// A summary.
    public init(
        date: CalendarDate, interval: DateInterval, timeZone: TimeZone, activityMoveMode: Int64, wheelchairUse: Bool,
        activeEnergyBurned: Double, appleMoveTime: Double, appleExerciseTime: Double, appleStandHours: Int, goals: ActivityGoals
    ) {
        self.date = date
        self.interval = interval
        self.timeZone = timeZone
        self.activityMoveMode = activityMoveMode
        self.wheelchairUse = wheelchairUse
        self.activeEnergyBurned = activeEnergyBurned
        self.appleMoveTime = appleMoveTime
        self.appleExerciseTime = appleExerciseTime
        self.appleStandHours = appleStandHours
        self.goals = goals
    }
}

/// HKActivityMoveMode raw values.
public enum ActivityMoveMode {
    /// Move in kilocalories of active energy (the default).
    public static let activeEnergy: Int64 = 1
    /// Move in minutes of move time.
    public static let appleMoveTime: Int64 = 2
}

/// HKWheelchairUse raw values.
public enum WheelchairUse {
    /// Not set.
    public static let notSet: Int64 = 0
    /// Does not use a wheelchair.
    public static let no: Int64 = 1
    /// Uses a wheelchair.
    public static let yes: Int64 = 2
}
