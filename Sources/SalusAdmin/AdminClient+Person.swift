import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusWire

/// The activity rings' goals and the time zone the person's days are counted in
/// (salus.v1.Person/GetActivitySettings).
public struct ActivitySettings: Sendable, Hashable {
    /// The person's IANA time zone (`Europe/Paris`).
    public var timeZone: String
    /// The goals that apply before any entry of `goals`.
    public var defaultGoals: ActivityGoals
    /// The goal history, oldest first, each from its `from` day on.
    public var goals: [ActivityGoals]

    /// The goals that apply from the last change on: the last entry, else the defaults.
    public var currentGoals: ActivityGoals { goals.last ?? defaultGoals }
}

/// New goals of the activity rings, from a day on.
public struct NewActivityGoals: Sendable, Hashable {
    /// The first day they apply to; nil: today, in the person's time zone.
    public var from: CalendarDate?
    /// Kilocalories of active energy a day.
    public var activeEnergyBurned: Double
    /// Minutes of move time a day.
    public var appleMoveTime: Double
    /// Minutes of exercise a day.
    public var appleExerciseTime: Double
    /// Stand (roll) hours a day.
    public var appleStandHours: Double

    public init(from: CalendarDate? = nil, activeEnergyBurned: Double, appleMoveTime: Double, appleExerciseTime: Double, appleStandHours: Double) {
        self.from = from
        self.activeEnergyBurned = activeEnergyBurned
        self.appleMoveTime = appleMoveTime
        self.appleExerciseTime = appleExerciseTime
        self.appleStandHours = appleStandHours
    }
}

/// The person (salus.v1.Person): characteristics, activity goals and summaries, as the owner
/// sees and sets them.
extension AdminClient {
    /// The characteristics `types` (identifiers; none: every registered characteristic), each
    /// with its value or nil when not set, in the daemon's order.
    public func characteristics(_ types: [String] = []) async throws -> [Characteristic] {
        var request = Salus_V1_CharacteristicsRequest()
        request.types = types
        return try await call(SalusMethods.Person.getCharacteristics, request).characteristics.map(Characteristic.init(shown:))
    }

    /// Sets the characteristic `type` to `value` and returns every characteristic after the
    /// change. Throws ``SalusError`` (``SalusError/Code/invalidArgument``, naming `set[0]...`) for
    /// an unknown type, a raw value not of its enumeration, or a day that does not exist or lies
    /// in the future.
    @discardableResult
    public func setCharacteristic(_ type: String, to value: Characteristic.Value) async throws -> [Characteristic] {
        var request = Salus_V1_SetCharacteristicsRequest()
        request.set = [Characteristic(type: TypeIdentifier(type), value: value).wire]
        return try await call(SalusMethods.Person.setCharacteristics, request).characteristics.map(Characteristic.init(shown:))
    }

    /// Clears the characteristic `type` (back to not set) and returns every characteristic after
    /// the change.
    @discardableResult
    public func clearCharacteristic(_ type: String) async throws -> [Characteristic] {
        var request = Salus_V1_SetCharacteristicsRequest()
        request.clear = [type]
        return try await call(SalusMethods.Person.setCharacteristics, request).characteristics.map(Characteristic.init(shown:))
    }

    /// The goal history and the person's time zone.
    public func activitySettings() async throws -> ActivitySettings {
        ActivitySettings(try await call(SalusMethods.Person.getActivitySettings, Salus_V1_ActivitySettingsRequest()))
    }

    /// Records `goals` from their day on (replacing an entry of the same day) and/or a new time
    /// zone (nil: unchanged); returns the settings after the change. Throws ``SalusError``
    /// (``SalusError/Code/invalidArgument``, naming `goals.FIELD` or `time_zone`) for a goal that
    /// is not a positive number, a day that does not exist, an unknown time zone.
    @discardableResult
    public func setActivitySettings(goals: NewActivityGoals? = nil, timeZone: String? = nil) async throws -> ActivitySettings {
        var request = Salus_V1_SetActivitySettingsRequest()
        request.timeZone = timeZone ?? ""
        if let goals {
            var wire = Salus_V1_ActivityGoals()
            if let from = goals.from { wire.from = from.wire }
            wire.activeEnergyBurned = goals.activeEnergyBurned
            wire.appleMoveTime = goals.appleMoveTime
            wire.appleExerciseTime = goals.appleExerciseTime
            wire.appleStandHours = goals.appleStandHours
            request.goals = wire
        }
        return ActivitySettings(try await call(SalusMethods.Person.setActivitySettings, request))
    }

    /// The activity summary of each day from `first` to `last` (inclusive), counted in
    /// `timeZone` (nil: the person's), in order: the rings from every app's samples, merged by
    /// source priority, and the goals of each day.
    public func activitySummaries(from first: CalendarDate, to last: CalendarDate, timeZone: TimeZone? = nil) async throws -> [ActivitySummary] {
        try await ActivitySummaryQueryDescriptor(first: first, last: last, timeZone: timeZone).result(for: store)
    }
}

extension Characteristic {
    /// A characteristic as the daemon answered it; a date is kept as given.
    init(shown wire: Salus_V1_Characteristic) {
        let value: Value? = switch wire.value {
        case .enumValue(let raw)?: .enumeration(raw)
        case .dateValue(let date)?: .date(CalendarDate(year: Int(date.year), month: Int(date.month), day: Int(date.day)))
        case nil: nil
        }
        self.init(type: TypeIdentifier(wire.type), value: value)
    }
}

extension ActivitySettings {
    init(_ wire: Salus_V1_ActivitySettings) {
        func goals(_ goals: Salus_V1_ActivityGoals) -> ActivityGoals {
            ActivityGoals(
                from: CalendarDate(year: Int(goals.from.year), month: Int(goals.from.month), day: Int(goals.from.day)),
                activeEnergyBurned: goals.activeEnergyBurned, appleMoveTime: goals.appleMoveTime,
                appleExerciseTime: goals.appleExerciseTime, appleStandHours: goals.appleStandHours)
        }
        self.init(timeZone: wire.timeZone, defaultGoals: goals(wire.defaultGoals), goals: wire.goals.map(goals))
    }
}
