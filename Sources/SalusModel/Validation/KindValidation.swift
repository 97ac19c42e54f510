import Foundation

/// The model's rules for electrocardiograms, workout routes, audiograms, heartbeat series, states
/// of mind, medication dose events and scored assessments; `Sample.validationErrors(at:)` applies
/// them through each kind's `SampleKindRules` conformance (at the end of this file). A kind added
/// since keeps its rules in its own file.
extension Validation {
    /// How far past the sample's end a time offset may reach: the store keeps dates to the
    /// microsecond, so an offset equal to the duration may exceed it by rounding.
    static let offsetTolerance = 1e-6

    /// The sample's duration in seconds, nil when its dates are not a valid range (that is
    /// reported on its own, and offsets are then not checked against it).
    static func duration(start: Date, end: Date) -> Double? {
        let duration = end.timeIntervalSince(start)
        return duration.isFinite && duration >= 0 ? duration : nil
    }

    /// A time offset into the sample: finite, not negative, not past the end.
    static func offset(_ seconds: Double, duration: Double?, at field: String) -> [ValidationError] {
        guard seconds.isFinite else { return finite(seconds, at: field) }
        if seconds < 0 || duration.map({ seconds > $0 + offsetTolerance }) == true {
            return [
                ValidationError(
                    reason: .invalidValue, field: field, value: "\(seconds) s",
                    expected: "an offset inside the sample's interval, 0...\(duration.map { "\($0)" } ?? "∞") s")
            ]
        }
        return []
    }

    /// An optional number that must be finite and at least (or above) `minimum`.
    static func number(
        _ value: Double?, at field: String, minimum: Double, inclusive: Bool, unit: String
    ) -> [ValidationError] {
        guard let value else { return [] }
        guard value.isFinite else { return finite(value, at: field) }
        if inclusive ? value < minimum : value <= minimum {
            return [
                ValidationError(
                    reason: .invalidValue, field: field, value: "\(value) \(unit)",
                    expected: "a number \(inclusive ? "at least" : "above") \(TypeRules.Bounds.format(minimum)) \(unit)")
            ]
        }
        return []
    }

    /// An electrocardiogram: heart rate and frequency, the count against the voltages, each voltage
    /// (the first one out of range is reported).
    static func electrocardiogram(_ value: Electrocardiogram, duration: Double?, at path: String) -> [ValidationError] {
        var errors = number(value.averageHeartRate, at: "\(path).averageHeartRate", minimum: 0, inclusive: true, unit: "count/min")
        let frequencyErrors = number(value.samplingFrequency, at: "\(path).samplingFrequency", minimum: 0, inclusive: false, unit: "Hz")
        errors += frequencyErrors
        if frequencyErrors.isEmpty, let frequency = value.samplingFrequency, !Electrocardiogram.samplingFrequencies.contains(frequency) {
            errors.append(
                ValidationError(
                    reason: .valueOutOfRange, field: "\(path).samplingFrequency", value: "\(frequency) Hz",
                    expected: "a sampling frequency of \(TypeRules.Bounds.format(Electrocardiogram.samplingFrequencies.lowerBound)) to "
                        + "\(TypeRules.Bounds.format(Electrocardiogram.samplingFrequencies.upperBound)) Hz"))
        }
        if value.voltages.count > Electrocardiogram.maximumVoltageCount {
            errors.append(
                ValidationError(
                    reason: .valueOutOfRange, field: "\(path).voltages", value: "\(value.voltages.count) voltages",
                    expected: "at most \(Electrocardiogram.maximumVoltageCount) voltages (ten minutes at 1,024 Hz)"))
            return errors
        }
        if value.numberOfVoltageMeasurements != value.voltages.count {
            errors.append(
                ValidationError(
                    reason: .invalidValue, field: "\(path).numberOfVoltageMeasurements",
                    value: "\(value.numberOfVoltageMeasurements)",
                    expected: "the number of voltages saved with it, \(value.voltages.count)"))
        }
        for (index, voltage) in value.voltages.enumerated() {
            let field = "\(path).voltages[\(index)]"
            var voltageErrors = offset(voltage.timeSinceSampleStart, duration: duration, at: "\(field).timeSinceSampleStart")
            voltageErrors += finite(voltage.microvolts, at: "\(field).microvolts")
            if voltage.microvolts.isFinite, !Electrocardiogram.microvolts.contains(voltage.microvolts) {
                voltageErrors.append(
                    ValidationError(
                        reason: .valueOutOfRange, field: "\(field).microvolts", value: "\(voltage.microvolts) µV",
                        expected: "a voltage of \(TypeRules.Bounds.format(Electrocardiogram.microvolts.lowerBound)) to "
                            + "\(TypeRules.Bounds.format(Electrocardiogram.microvolts.upperBound)) µV (±1 V)"))
            }
            if !voltageErrors.isEmpty {
                // One voltage is enough to refuse the recording; a million messages are not.
                errors += voltageErrors
                break
            }
        }
        return errors
    }

    /// A workout route: 1 to `WorkoutRouteValue.maximumLocationCount` locations, as many as it
    /// says, each valid and in time order.
    static func workoutRoute(_ value: WorkoutRouteValue, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        if value.locations.isEmpty || value.locations.count > WorkoutRouteValue.maximumLocationCount {
            errors.append(
                ValidationError(
                    reason: .valueOutOfRange, field: "\(path).locations", value: "\(value.locations.count) locations",
                    expected: "1 to \(WorkoutRouteValue.maximumLocationCount) locations"))
        } else if value.locationCount != value.locations.count {
            errors.append(
                ValidationError(
                    reason: .invalidValue, field: "\(path).locationCount", value: "\(value.locationCount)",
                    expected: "the number of locations saved with it, \(value.locations.count)"))
        }
        errors += value.route.validationErrors(at: path)
        return errors
    }

    /// An audiogram: frequencies positive and distinct, sensitivities finite, clamping ranges.
    static func audiogram(_ value: Audiogram, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        var seen: [Double: Int] = [:]
        for (index, point) in value.sensitivityPoints.enumerated() {
            let field = "\(path).sensitivityPoints[\(index)]"
            let frequencyErrors = number(point.frequency, at: "\(field).frequency", minimum: 0, inclusive: false, unit: "Hz")
            errors += frequencyErrors
            if frequencyErrors.isEmpty {
                if let first = seen[point.frequency] {
                    errors.append(
                        ValidationError(
                            reason: .invalidValue, field: "\(field).frequency", value: "\(point.frequency) Hz",
                            expected: "a frequency not tested already; sensitivityPoints[\(first)] has it"))
                } else {
                    seen[point.frequency] = index
                }
            }
            for (testIndex, test) in point.tests.enumerated() {
                let testField = "\(field).tests[\(testIndex)]"
                errors += finite(test.sensitivity, at: "\(testField).sensitivity")
                if let range = test.clampingRange {
                    errors += clampingRange(range, at: "\(testField).clampingRange")
                }
            }
        }
        return errors
    }

    /// A clamping range: at least one bound, finite, lower below upper.
    static func clampingRange(_ range: AudiogramClampingRange, at path: String) -> [ValidationError] {
        guard range.lowerBound != nil || range.upperBound != nil else {
            return [
                ValidationError(
                    reason: .missingValue, field: path, value: "no bounds",
                    expected: "a lower bound, an upper bound or both, in dBHL")
            ]
        }
        var errors: [ValidationError] = []
        if let lower = range.lowerBound { errors += finite(lower, at: "\(path).lowerBound") }
        if let upper = range.upperBound { errors += finite(upper, at: "\(path).upperBound") }
        if errors.isEmpty, let lower = range.lowerBound, let upper = range.upperBound, lower >= upper {
            errors.append(
                ValidationError(
                    reason: .invalidValue, field: "\(path).upperBound", value: "\(upper) dBHL",
                    expected: "a bound above the lower bound \(lower) dBHL"))
        }
        return errors
    }

    /// A heartbeat series: each beat inside the interval and after the one before.
    static func heartbeats(_ value: HeartbeatSeries, duration: Double?, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        var previous: (index: Int, time: Double)?
        for (index, beat) in value.beats.enumerated() {
            let field = "\(path).beats[\(index)].timeSinceSeriesStart"
            let beatErrors = offset(beat.timeSinceSeriesStart, duration: duration, at: field)
            errors += beatErrors
            guard beatErrors.isEmpty else { continue }
            if let previous, beat.timeSinceSeriesStart <= previous.time {
                errors.append(
                    ValidationError(
                        reason: .invalidValue, field: field, value: "\(beat.timeSinceSeriesStart) s",
                        expected: "a time after beats[\(previous.index)] (\(previous.time) s): beats ascend"))
            }
            previous = (index, beat.timeSinceSeriesStart)
        }
        return errors
    }

    /// A state of mind: a finite valence in -1...1.
    static func stateOfMind(_ value: StateOfMind, at path: String) -> [ValidationError] {
        let field = "\(path).valence"
        guard value.valence.isFinite else { return finite(value.valence, at: field) }
        guard (-1.0...1.0).contains(value.valence) else {
            return [
                ValidationError(
                    reason: .valueOutOfRange, field: field, value: "\(value.valence)",
                    expected: "a valence in -1...1 (very unpleasant to very pleasant)")
            ]
        }
        return []
    }

    /// A medication dose: its concept, the scheduled fields exactly when scheduled, quantities.
    static func medicationDoseEvent(_ value: MedicationDoseEvent, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        if value.medicationConceptIdentifier.isEmpty {
            errors.append(
                ValidationError(
                    reason: .missingValue, field: "\(path).medicationConceptIdentifier", value: "\"\"",
                    expected: "the identifier of the medication concept the dose is of"))
        }
        let scheduled = value.scheduleType == .schedule
        let schedule = scheduled ? "schedule (2)" : "asNeeded (1)"
        if let date = value.scheduledDate {
            if !date.timeIntervalSinceReferenceDate.isFinite {
                errors.append(
                    ValidationError(
                        reason: .nonFiniteValue, field: "\(path).scheduledDate", value: render(date), expected: "a finite date"))
            } else if !scheduled {
                errors.append(
                    ValidationError(
                        reason: .invalidValue, field: "\(path).scheduledDate", value: render(date),
                        expected: "no scheduled date: the dose's scheduleType is \(schedule)"))
            }
        } else if scheduled {
            errors.append(
                ValidationError(
                    reason: .missingValue, field: "\(path).scheduledDate", value: "nil",
                    expected: "the date the dose was due: the dose's scheduleType is \(schedule)"))
        }
        let unit = value.unit.description
        if let quantity = value.scheduledDoseQuantity {
            let quantityErrors = number(quantity, at: "\(path).scheduledDoseQuantity", minimum: 0, inclusive: true, unit: unit)
            errors += quantityErrors
            if quantityErrors.isEmpty && !scheduled {
                errors.append(
                    ValidationError(
                        reason: .invalidValue, field: "\(path).scheduledDoseQuantity", value: "\(quantity) \(unit)",
                        expected: "no scheduled dose: the dose's scheduleType is \(schedule)"))
            }
        } else if scheduled {
            errors.append(
                ValidationError(
                    reason: .missingValue, field: "\(path).scheduledDoseQuantity", value: "nil",
                    expected: "the dose that was due, in \(unit): the dose's scheduleType is \(schedule)"))
        }
        errors += number(value.doseQuantity, at: "\(path).doseQuantity", minimum: 0, inclusive: true, unit: unit)
        return errors
    }

    /// A scored assessment: its type's instrument, one answer per question, preferNotToAnswer
    /// only for PHQ-9's ninth.
    static func scoredAssessment(_ value: ScoredAssessment, type: TypeIdentifier, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        let instrument = value.instrument
        if let typed = ScoredAssessment.Instrument(typeIdentifier: type), typed != instrument {
            errors.append(
                ValidationError(
                    reason: .invalidValue, field: "\(path).instrument", value: instrument.rawValue,
                    expected: "\(typed.rawValue), the instrument of \(type)"))
        }
        if value.answers.count != instrument.questionCount {
            errors.append(
                ValidationError(
                    reason: .invalidValue, field: "\(path).answers", value: "\(value.answers.count) answers",
                    expected: "\(instrument.questionCount) answers, one per \(instrument.rawValue) question"))
        }
        for (index, answer) in value.answers.enumerated() where answer == .preferNotToAnswer {
            guard instrument != .phq9 || index != 8 else { continue }
            errors.append(
                ValidationError(
                    reason: .invalidValue, field: "\(path).answers[\(index)]", value: "\(answer.rawValue) (preferNotToAnswer)",
                    expected: "0 notAtAll, 1 severalDays, 2 moreThanHalfTheDays or 3 nearlyEveryDay"
                        + " (preferNotToAnswer only for PHQ-9's ninth question)"))
        }
        return errors
    }
}

// The rules of the kinds above, as `Sample.validationErrors(at:)` asks them (`SampleKindRules`).

extension Electrocardiogram: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        let duration = datesValid ? Validation.duration(start: sample.startDate, end: sample.endDate) : nil
        return Validation.electrocardiogram(self, duration: duration, at: path)
    }
}

extension WorkoutRouteValue: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        Validation.workoutRoute(self, at: path)
    }
}

extension Audiogram: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        Validation.audiogram(self, at: path)
    }
}

extension HeartbeatSeries: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        let duration = datesValid ? Validation.duration(start: sample.startDate, end: sample.endDate) : nil
        return Validation.heartbeats(self, duration: duration, at: path)
    }
}

extension StateOfMind: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        Validation.stateOfMind(self, at: path)
    }
}

extension MedicationDoseEvent: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        Validation.medicationDoseEvent(self, at: path)
    }
}

extension ScoredAssessment: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        Validation.scoredAssessment(self, type: sample.type, at: path)
    }
}

extension ClinicalRecord: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        Validation.clinicalRecord(self, type: sample.type, at: path)
    }
}
