import Foundation
import SalusModel
import SalusProto

/// HealthKit raw values on the wire (`int32` fields) and the model's enumerations.
enum WireRawValue {
    /// The case of `E` with raw value `raw`, refused naming `field` and every allowed value.
    static func decode<E: RawRepresentable & CaseIterable>(_ raw: Int32, at field: String) throws(ValidationError) -> E
    where E.RawValue == Int {
        guard let value = E(rawValue: Int(raw)) else {
            let allowed = E.allCases.map { "\($0.rawValue) \($0)" }.joined(separator: ", ")
            throw ValidationError(reason: .invalidValue, field: field, value: "\(raw)", expected: "one of \(allowed)")
        }
        return value
    }

    /// The raw value of a case, as the wire carries it.
    static func encode<E: RawRepresentable>(_ value: E) -> Int32 where E.RawValue == Int {
        Int32(clamping: value.rawValue)
    }
}

extension Electrocardiogram: WireConvertibleValue {
    /// The model value of `wire`; unknown raw values are refused naming the field under `path`.
    package init(wire: Salus_V1_Electrocardiogram, path: String) throws(ValidationError) {
        var voltages: [ElectrocardiogramVoltage] = []
        voltages.reserveCapacity(wire.voltages.count)
        for (index, voltage) in wire.voltages.enumerated() {
            voltages.append(try ElectrocardiogramVoltage(wire: voltage, path: "\(path).voltages[\(index)]"))
        }
        guard let count = Int(exactly: wire.numberOfVoltageMeasurements) else {
            throw ValidationError(
                reason: .invalidValue, field: "\(path).numberOfVoltageMeasurements",
                value: "\(wire.numberOfVoltageMeasurements)", expected: "a count that fits an Int")
        }
        self.init(
            classification: try WireRawValue.decode(wire.classification, at: "\(path).classification"),
            symptomsStatus: try WireRawValue.decode(wire.symptomsStatus, at: "\(path).symptomsStatus"),
            averageHeartRate: wire.optionalAverageHeartRate != nil ? wire.averageHeartRate : nil,
            samplingFrequency: wire.optionalSamplingFrequency != nil ? wire.samplingFrequency : nil,
            voltages: voltages,
            numberOfVoltageMeasurements: count)
    }

    /// The wire form, voltages included when the value carries them.
    package var wire: Salus_V1_Electrocardiogram {
        var wire = Salus_V1_Electrocardiogram()
        wire.classification = WireRawValue.encode(classification)
        wire.symptomsStatus = WireRawValue.encode(symptomsStatus)
        if let averageHeartRate { wire.averageHeartRate = averageHeartRate }
        if let samplingFrequency { wire.samplingFrequency = samplingFrequency }
        wire.numberOfVoltageMeasurements = UInt64(max(0, numberOfVoltageMeasurements))
        wire.voltages = voltages.map(\.wire)
        return wire
    }
}

extension ElectrocardiogramVoltage {
    /// The model measurement of `wire`; an unknown lead is refused naming `path.lead`.
    package init(wire: Salus_V1_ElectrocardiogramVoltage, path: String) throws(ValidationError) {
        self.init(
            timeSinceSampleStart: wire.timeSinceSampleStart, microvolts: wire.microvolts,
            lead: try WireRawValue.decode(wire.lead, at: "\(path).lead"))
    }

    /// The wire form.
    package var wire: Salus_V1_ElectrocardiogramVoltage {
        var wire = Salus_V1_ElectrocardiogramVoltage()
        wire.timeSinceSampleStart = timeSinceSampleStart
        wire.microvolts = microvolts
        wire.lead = WireRawValue.encode(lead)
        return wire
    }
}

extension Audiogram: WireConvertibleValue {
    /// The model value of `wire`; unknown raw values are refused naming the field under `path`.
    package init(wire: Salus_V1_Audiogram, path: String) throws(ValidationError) {
        var points: [AudiogramSensitivityPoint] = []
        for (index, point) in wire.sensitivityPoints.enumerated() {
            let pointPath = "\(path).sensitivityPoints[\(index)]"
            var tests: [AudiogramSensitivityTest] = []
            for (testIndex, test) in point.tests.enumerated() {
                let testPath = "\(pointPath).tests[\(testIndex)]"
                tests.append(
                    AudiogramSensitivityTest(
                        sensitivity: test.sensitivity,
                        conductionType: try WireRawValue.decode(test.conductionType, at: "\(testPath).conductionType"),
                        masked: test.masked,
                        side: try WireRawValue.decode(test.side, at: "\(testPath).side"),
                        clampingRange: test.hasClampingRange
                            ? AudiogramClampingRange(
                                lowerBound: test.clampingRange.optionalLowerBound != nil ? test.clampingRange.lowerBound : nil,
                                upperBound: test.clampingRange.optionalUpperBound != nil ? test.clampingRange.upperBound : nil)
                            : nil))
            }
            points.append(AudiogramSensitivityPoint(frequency: point.frequency, tests: tests))
        }
        self.init(sensitivityPoints: points)
    }

    /// The wire form.
    package var wire: Salus_V1_Audiogram {
        var wire = Salus_V1_Audiogram()
        wire.sensitivityPoints = sensitivityPoints.map { point in
            var wirePoint = Salus_V1_AudiogramSensitivityPoint()
            wirePoint.frequency = point.frequency
            wirePoint.tests = point.tests.map { test in
                var wireTest = Salus_V1_AudiogramSensitivityTest()
                wireTest.sensitivity = test.sensitivity
                wireTest.conductionType = WireRawValue.encode(test.conductionType)
                wireTest.masked = test.masked
                wireTest.side = WireRawValue.encode(test.side)
                if let range = test.clampingRange {
                    var wireRange = Salus_V1_AudiogramClampingRange()
                    if let lower = range.lowerBound { wireRange.lowerBound = lower }
                    if let upper = range.upperBound { wireRange.upperBound = upper }
                    wireTest.clampingRange = wireRange
                }
                return wireTest
            }
            return wirePoint
        }
        return wire
    }
}

extension HeartbeatSeries: WireConvertibleValue {
    /// The model value of `wire` (nothing in it is refused here: the beats are the model's to check).
    package init(wire: Salus_V1_HeartbeatSeries, path _: String = "heartbeatSeries") {
        self.init(beats: wire.beats.map { Heartbeat(timeSinceSeriesStart: $0.timeSinceSeriesStart, precededByGap: $0.precededByGap) })
    }

    /// The wire form.
    package var wire: Salus_V1_HeartbeatSeries {
        var wire = Salus_V1_HeartbeatSeries()
        wire.beats = beats.map { beat in
            var wireBeat = Salus_V1_Heartbeat()
            wireBeat.timeSinceSeriesStart = beat.timeSinceSeriesStart
            wireBeat.precededByGap = beat.precededByGap
            return wireBeat
        }
        return wire
    }
}

extension StateOfMind: WireConvertibleValue {
    /// The model value of `wire`; the valence classification it carries is ignored (the model
    /// derives it), unknown raw values are refused naming the field under `path`.
    package init(wire: Salus_V1_StateOfMind, path: String) throws(ValidationError) {
        var labels: [Label] = []
        for (index, raw) in wire.labels.enumerated() {
            labels.append(try WireRawValue.decode(raw, at: "\(path).labels[\(index)]"))
        }
        var associations: [Association] = []
        for (index, raw) in wire.associations.enumerated() {
            associations.append(try WireRawValue.decode(raw, at: "\(path).associations[\(index)]"))
        }
        self.init(
            kind: try WireRawValue.decode(wire.kind, at: "\(path).kind"), valence: wire.valence, labels: labels,
            associations: associations)
    }

    /// The wire form, with the derived valence classification (0 when the valence has none).
    package var wire: Salus_V1_StateOfMind {
        var wire = Salus_V1_StateOfMind()
        wire.kind = WireRawValue.encode(kind)
        wire.valence = valence
        wire.valenceClassification = valenceClassification.map(WireRawValue.encode) ?? 0
        wire.labels = labels.map(WireRawValue.encode)
        wire.associations = associations.map(WireRawValue.encode)
        return wire
    }
}

extension MedicationDoseEvent: WireConvertibleValue {
    /// The model value of `wire`; an empty unit is `count`, unknown raw values and units that do
    /// not parse are refused naming the field under `path`.
    package init(wire: Salus_V1_MedicationDoseEvent, path: String) throws(ValidationError) {
        var unit = SalusUnit.count
        if !wire.unit.isEmpty {
            do {
                unit = try SalusUnit(parsing: wire.unit)
            } catch {
                throw ValidationError(
                    reason: .invalidUnit, field: "\(path).unit", value: wire.unit, expected: "a unit string (\(error.message))")
            }
        }
        self.init(
            logStatus: try WireRawValue.decode(wire.logStatus, at: "\(path).logStatus"),
            scheduleType: try WireRawValue.decode(wire.scheduleType, at: "\(path).scheduleType"),
            medicationConceptIdentifier: wire.medicationConceptIdentifier,
            scheduledDate: wire.optionalScheduledDate != nil ? WireDate.date(wire.scheduledDate) : nil,
            scheduledDoseQuantity: wire.optionalScheduledDoseQuantity != nil ? wire.scheduledDoseQuantity : nil,
            doseQuantity: wire.optionalDoseQuantity != nil ? wire.doseQuantity : nil,
            unit: unit)
    }

    /// The wire form.
    package var wire: Salus_V1_MedicationDoseEvent {
        var wire = Salus_V1_MedicationDoseEvent()
        wire.logStatus = WireRawValue.encode(logStatus)
        wire.scheduleType = WireRawValue.encode(scheduleType)
        wire.medicationConceptIdentifier = medicationConceptIdentifier
        if let scheduledDate { wire.scheduledDate = WireDate.microseconds(scheduledDate) }
        if let scheduledDoseQuantity { wire.scheduledDoseQuantity = scheduledDoseQuantity }
        if let doseQuantity { wire.doseQuantity = doseQuantity }
        wire.unit = unit.description
        return wire
    }
}

extension UserAnnotatedMedication: WireConvertibleValue {
    /// The model value of `wire`: the codings as a set, an unset nickname nil. The texts are
    /// checked by the model's validation, not here.
    package init(wire: Salus_V1_UserAnnotatedMedication, path _: String = "userAnnotatedMedication") {
        self.init(
            conceptIdentifier: wire.conceptIdentifier,
            displayText: wire.displayText,
            generalForm: wire.generalForm,
            relatedCodings: Set(
                wire.relatedCodings.map {
                    Coding(system: $0.system, version: $0.optionalVersion != nil ? $0.version : nil, code: $0.code)
                }),
            nickname: wire.optionalNickname != nil ? wire.nickname : nil,
            isArchived: wire.isArchived,
            hasSchedule: wire.hasSchedule_p)
    }

    /// The wire form; the codings ordered by system, code and version.
    package var wire: Salus_V1_UserAnnotatedMedication {
        var wire = Salus_V1_UserAnnotatedMedication()
        wire.conceptIdentifier = conceptIdentifier
        wire.displayText = displayText
        wire.generalForm = generalForm
        wire.relatedCodings = relatedCodings.sorted().map { coding in
            var wireCoding = Salus_V1_ClinicalCoding()
            wireCoding.system = coding.system
            if let version = coding.version { wireCoding.version = version }
            wireCoding.code = coding.code
            return wireCoding
        }
        if let nickname { wire.nickname = nickname }
        wire.isArchived = isArchived
        wire.hasSchedule_p = hasSchedule
        return wire
    }
}

extension ScoredAssessment: WireConvertibleValue {
    /// The model value of `wire`; the score and risk it carries are ignored (the model derives
    /// them), an unset instrument and unknown answers are refused naming the field under `path`.
    package init(wire: Salus_V1_ScoredAssessment, path: String) throws(ValidationError) {
        let instrument: Instrument
        switch wire.instrument {
        case .gad7: instrument = .gad7
        case .phq9: instrument = .phq9
        case .unspecified, .UNRECOGNIZED:
            throw ValidationError(
                reason: .invalidValue, field: "\(path).instrument", value: "\(wire.instrument.rawValue)",
                expected: "1 (GAD7) or 2 (PHQ9)")
        }
        var answers: [Answer] = []
        for (index, raw) in wire.answers.enumerated() {
            answers.append(try WireRawValue.decode(raw, at: "\(path).answers[\(index)]"))
        }
        self.init(instrument: instrument, answers: answers)
    }

    /// The wire form, with the derived score and risk.
    package var wire: Salus_V1_ScoredAssessment {
        var wire = Salus_V1_ScoredAssessment()
        wire.instrument = instrument == .gad7 ? .gad7 : .phq9
        wire.answers = answers.map(WireRawValue.encode)
        wire.score = Int32(clamping: score)
        wire.risk = Int32(risk.rawValue(for: instrument) ?? 0)
        return wire
    }
}
