import Foundation
import SalusModel
import SalusProto

extension CalendarDate {
    /// The wire form.
    package var wire: Salus_V1_CalendarDate {
        Salus_V1_CalendarDate.with {
            $0.year = Int32(clamping: year)
            $0.month = Int32(clamping: month)
            $0.day = Int32(clamping: day)
        }
    }

    /// The day of a request; a day that does not exist is refused naming `path`.
    package init(wire: Salus_V1_CalendarDate, path: String) throws(ValidationError) {
        self.init(year: Int(wire.year), month: Int(wire.month), day: Int(wire.day))
        guard isValid else {
            throw ValidationError(
                reason: .invalidValue, field: path, value: "\(wire.year)-\(wire.month)-\(wire.day)",
                expected: "a day that exists (year 1–9999, month 1–12, day within the month)")
        }
    }
}

extension Characteristic {
    /// The wire form; a nil value is left unset.
    package var wire: Salus_V1_Characteristic {
        Salus_V1_Characteristic.with {
            $0.type = type.rawValue
            switch value {
            case .enumeration(let raw)?: $0.enumValue = raw
            case .date(let date)?: $0.dateValue = date.wire
            case nil: break
            }
        }
    }

    /// The characteristic of a request; an impossible date is refused naming `path.dateValue`.
    package init(wire: Salus_V1_Characteristic, path: String) throws(ValidationError) {
        let value: Value?
        switch wire.value {
        case .enumValue(let raw)?: value = .enumeration(raw)
        case .dateValue(let date)?: value = .date(try CalendarDate(wire: date, path: "\(path).dateValue"))
        case nil: value = nil
        }
        self.init(type: TypeIdentifier(wire.type), value: value)
    }
}

extension ActivityGoals {
    /// The wire form.
    package var wire: Salus_V1_ActivityGoals {
        Salus_V1_ActivityGoals.with {
            $0.from = from.wire
            $0.activeEnergyBurned = activeEnergyBurned
            $0.appleMoveTime = appleMoveTime
            $0.appleExerciseTime = appleExerciseTime
            $0.appleStandHours = appleStandHours
        }
    }

    /// The goals of a request, starting `today` when `from` is unset; refused naming
    /// `path.FIELD` when a goal is not a positive number or the day does not exist.
    package init(wire: Salus_V1_ActivityGoals, path: String, today: CalendarDate) throws(ValidationError) {
        let from = wire.hasFrom ? try CalendarDate(wire: wire.from, path: "\(path).from") : today
        self.init(
            from: from, activeEnergyBurned: wire.activeEnergyBurned, appleMoveTime: wire.appleMoveTime,
            appleExerciseTime: wire.appleExerciseTime, appleStandHours: wire.appleStandHours)
        if let error = validationError(field: path) { throw error }
    }
}

extension ActivitySummary {
    /// The wire form.
    package var wire: Salus_V1_ActivitySummary {
        Salus_V1_ActivitySummary.with {
            $0.date = date.wire
            $0.activityMoveMode = Int32(clamping: activityMoveMode)
            $0.wheelchairUse = wheelchairUse
            $0.activeEnergyBurned = activeEnergyBurned
            $0.activeEnergyBurnedGoal = goals.activeEnergyBurned
            $0.appleMoveTime = appleMoveTime
            $0.appleMoveTimeGoal = goals.appleMoveTime
            $0.appleExerciseTime = appleExerciseTime
            $0.appleExerciseTimeGoal = goals.appleExerciseTime
            $0.appleStandHours = Int32(clamping: appleStandHours)
            $0.appleStandHoursGoal = goals.appleStandHours
            $0.timeZone = timeZone.identifier
            $0.startDate = WireDate.microseconds(interval.start)
            $0.endDate = WireDate.microseconds(interval.end)
        }
    }

    /// A summary read from the wire (clients).
    package init(wire: Salus_V1_ActivitySummary) {
        let date = CalendarDate(year: Int(wire.date.year), month: Int(wire.date.month), day: Int(wire.date.day))
        self.init(
            date: date,
            interval: DateInterval(start: WireDate.date(wire.startDate), end: WireDate.date(max(wire.endDate, wire.startDate))),
            timeZone: TimeZone(identifier: wire.timeZone) ?? TimeZone(identifier: "UTC")!,
            activityMoveMode: Int64(wire.activityMoveMode), wheelchairUse: wire.wheelchairUse,
            activeEnergyBurned: wire.activeEnergyBurned, appleMoveTime: wire.appleMoveTime,
            appleExerciseTime: wire.appleExerciseTime, appleStandHours: Int(wire.appleStandHours),
            goals: ActivityGoals(
                from: date, activeEnergyBurned: wire.activeEnergyBurnedGoal, appleMoveTime: wire.appleMoveTimeGoal,
                appleExerciseTime: wire.appleExerciseTimeGoal, appleStandHours: wire.appleStandHoursGoal))
    }
}
