import Foundation
import Testing

@testable import SalusModel

/// The model's rules for electrocardiograms, audiograms, heartbeat series, states of mind,
/// medication dose events and scored assessments, through the catalog's one check, and the values
/// the model derives (valence classification, score, risk).
@Suite("Other sample kinds: rules and derived values")
struct OtherKindsValidationTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// Each new kind's HealthKit type, declared as a plugin would.
    static let catalog = TypeCatalog(types: [
        TypeRules(identifier: "HKDataTypeIdentifierElectrocardiogram", kind: .electrocardiogram),
        TypeRules(identifier: "HKDataTypeIdentifierAudiogram", kind: .audiogram),
        TypeRules(identifier: "HKDataTypeIdentifierHeartbeatSeries", kind: .heartbeatSeries),
        TypeRules(identifier: "HKDataTypeStateOfMind", kind: .stateOfMind),
        TypeRules(identifier: "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent", kind: .medicationDoseEvent),
        TypeRules(identifier: "HKScoredAssessmentTypeIdentifierGAD7", kind: .scoredAssessment),
        TypeRules(identifier: "HKScoredAssessmentTypeIdentifierPHQ9", kind: .scoredAssessment),
    ])

    static func sample(_ type: TypeIdentifier, _ value: SampleValue, seconds: TimeInterval = 30) -> Sample {
        Sample(
            type: type, startDate: start, endDate: start.addingTimeInterval(seconds), value: value,
            sourceRevision: SourceRevision(appID: "org.example.health", name: "Health"))
    }

    /// The errors of `sample` under the catalog's one check.
    static func errors(_ sample: Sample) -> [ValidationError] {
        catalog.validationErrors(of: sample)
    }

    static let ecgVoltages = (0..<512).map {
        ElectrocardiogramVoltage(timeSinceSampleStart: Double($0) / 512, microvolts: sin(Double($0) / 20) * 400)
    }

    /// One valid sample of each kind.
    static let valid: [Sample] = [
        sample(
            "HKDataTypeIdentifierElectrocardiogram",
            .electrocardiogram(
                Electrocardiogram(
                    classification: .sinusRhythm, symptomsStatus: .none, averageHeartRate: 64, samplingFrequency: 512,
                    voltages: ecgVoltages))),
        sample(
            "HKDataTypeIdentifierAudiogram",
            .audiogram(
                Audiogram(sensitivityPoints: [
                    AudiogramSensitivityPoint(frequency: 500, leftEar: 10, rightEar: 15),
                    AudiogramSensitivityPoint(
                        frequency: 1000,
                        tests: [
                            AudiogramSensitivityTest(
                                sensitivity: 20, masked: true, side: .left,
                                clampingRange: AudiogramClampingRange(lowerBound: 0, upperBound: 75))
                        ]),
                ]))),
        sample(
            "HKDataTypeIdentifierHeartbeatSeries",
            .heartbeatSeries(
                HeartbeatSeries(beats: [
                    Heartbeat(timeSinceSeriesStart: 0), Heartbeat(timeSinceSeriesStart: 0.82),
                    Heartbeat(timeSinceSeriesStart: 5.1, precededByGap: true), Heartbeat(timeSinceSeriesStart: 30),
                ]))),
        sample(
            "HKDataTypeStateOfMind",
            .stateOfMind(StateOfMind(kind: .dailyMood, valence: -1, labels: [.stressed, .drained], associations: [.work])),
            seconds: 0),
        sample(
            "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent",
            .medicationDoseEvent(
                MedicationDoseEvent(
                    logStatus: .taken, scheduleType: .schedule, medicationConceptIdentifier: "ibuprofen-200",
                    scheduledDate: start, scheduledDoseQuantity: 1, doseQuantity: 2))),
        sample(
            "HKScoredAssessmentTypeIdentifierGAD7",
            .scoredAssessment(ScoredAssessment(instrument: .gad7, answers: Array(repeating: .nearlyEveryDay, count: 7))),
            seconds: 0),
        sample(
            "HKScoredAssessmentTypeIdentifierPHQ9",
            .scoredAssessment(
                ScoredAssessment(instrument: .phq9, answers: Array(repeating: .severalDays, count: 8) + [.preferNotToAnswer])),
            seconds: 0),
    ]

    @Test("a well-formed sample of each kind passes the one check")
    func validSamples() throws {
        for sample in Self.valid {
            #expect(Self.errors(sample).isEmpty, "\(sample.type): \(Self.errors(sample))")
        }
        try Self.catalog.check(Self.valid)
    }

    @Test("a value of a new kind for a type of another kind is refused")
    func wrongKind() {
        var sample = Self.valid[3]
        sample.type = "HKDataTypeIdentifierAudiogram"
        let error = Self.errors(sample).first
        #expect(error?.reason == .wrongKind)
        #expect(error?.field == "sample.value")
        #expect(error?.value == "a state of mind value")
    }

    // MARK: Electrocardiograms

    static func ecg(_ change: (inout Electrocardiogram) -> Void) -> Sample {
        var value = Electrocardiogram(classification: .atrialFibrillation, voltages: ecgVoltages)
        change(&value)
        return sample("HKDataTypeIdentifierElectrocardiogram", .electrocardiogram(value))
    }

    @Test(
        "electrocardiogram rules name the field and the value",
        arguments: [
            ("nan microvolts", "sample.electrocardiogram.voltages[3].microvolts", "nan", ValidationError.Reason.nonFiniteValue),
            ("infinite time", "sample.electrocardiogram.voltages[7].timeSinceSampleStart", "inf", .nonFiniteValue),
            ("negative time", "sample.electrocardiogram.voltages[0].timeSinceSampleStart", "-0.5 s", .invalidValue),
            ("after the end", "sample.electrocardiogram.voltages[511].timeSinceSampleStart", "31.0 s", .invalidValue),
            ("count", "sample.electrocardiogram.numberOfVoltageMeasurements", "15360", .invalidValue),
            ("heart rate", "sample.electrocardiogram.averageHeartRate", "-3.0 count/min", .invalidValue),
            ("frequency", "sample.electrocardiogram.samplingFrequency", "0.0 Hz", .invalidValue),
        ])
    func electrocardiogramRules(rule: String, field: String, value: String, reason: ValidationError.Reason) {
        let sample = Self.ecg { ecg in
            switch rule {
            case "nan microvolts": ecg.voltages[3].microvolts = .nan
            case "infinite time": ecg.voltages[7].timeSinceSampleStart = .infinity
            case "negative time": ecg.voltages[0].timeSinceSampleStart = -0.5
            case "after the end": ecg.voltages[511].timeSinceSampleStart = 31
            case "count": ecg.numberOfVoltageMeasurements = 15_360
            case "heart rate": ecg.averageHeartRate = -3
            default: ecg.samplingFrequency = 0
            }
        }
        let errors = Self.errors(sample)
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.field == field)
        #expect(errors.first?.value == value)
        #expect(errors.first?.reason == reason)
    }

    @Test("an electrocardiogram's count must match the voltages it carries, even without voltages")
    func electrocardiogramCount() {
        let summaryOnly = Self.ecg { $0 = $0.withoutVoltages }
        let error = Self.errors(summaryOnly).first
        #expect(error?.field == "sample.electrocardiogram.numberOfVoltageMeasurements")
        #expect(error?.value == "512")
        #expect(error?.expected == "the number of voltages saved with it, 0")
        #expect(Self.errors(Self.ecg { $0 = Electrocardiogram(classification: .notSet) }).isEmpty)
    }

    // MARK: Audiograms

    @Test("audiogram frequencies are positive and distinct")
    func audiogramFrequencies() {
        let audiogram = Audiogram(sensitivityPoints: [
            AudiogramSensitivityPoint(frequency: 250, leftEar: 5),
            AudiogramSensitivityPoint(frequency: 500, leftEar: 5),
            AudiogramSensitivityPoint(frequency: -1000, leftEar: 5),
            AudiogramSensitivityPoint(frequency: 250, rightEar: 5),
            AudiogramSensitivityPoint(frequency: .nan, rightEar: 5),
        ])
        let errors = Self.errors(Self.sample("HKDataTypeIdentifierAudiogram", .audiogram(audiogram)))
        #expect(errors.map(\.field) == [
            "sample.audiogram.sensitivityPoints[2].frequency", "sample.audiogram.sensitivityPoints[3].frequency",
            "sample.audiogram.sensitivityPoints[4].frequency",
        ])
        #expect(errors.map(\.value) == ["-1000.0 Hz", "250.0 Hz", "nan"])
        #expect(errors[1].expected == "a frequency not tested already; sensitivityPoints[0] has it")
    }

    @Test(
        "audiogram sensitivities are finite and clamping ranges have a bound, lower below upper",
        arguments: [
            (AudiogramSensitivityTest(sensitivity: .infinity, side: .right), "tests[0].sensitivity", "inf"),
            (
                AudiogramSensitivityTest(sensitivity: 30, side: .left, clampingRange: AudiogramClampingRange()),
                "tests[0].clampingRange", "no bounds"
            ),
            (
                AudiogramSensitivityTest(
                    sensitivity: 30, side: .left, clampingRange: AudiogramClampingRange(lowerBound: 40, upperBound: 40)),
                "tests[0].clampingRange.upperBound", "40.0 dBHL"
            ),
            (
                AudiogramSensitivityTest(
                    sensitivity: 30, side: .left, clampingRange: AudiogramClampingRange(lowerBound: .nan)),
                "tests[0].clampingRange.lowerBound", "nan"
            ),
        ])
    func audiogramTests(test: AudiogramSensitivityTest, field: String, value: String) {
        let audiogram = Audiogram(sensitivityPoints: [AudiogramSensitivityPoint(frequency: 4000, tests: [test])])
        let errors = Self.errors(Self.sample("HKDataTypeIdentifierAudiogram", .audiogram(audiogram)))
        #expect(errors.map(\.field) == ["sample.audiogram.sensitivityPoints[0].\(field)"])
        #expect(errors.map(\.value) == [value])
    }

    // MARK: Heartbeat series

    @Test(
        "heartbeats ascend strictly inside the sample's interval",
        arguments: [
            ([0.5, 0.5], "beats[1].timeSinceSeriesStart", "0.5 s", "a time after beats[0] (0.5 s): beats ascend"),
            ([1, 0.2], "beats[1].timeSinceSeriesStart", "0.2 s", "a time after beats[0] (1.0 s): beats ascend"),
            ([-0.1], "beats[0].timeSinceSeriesStart", "-0.1 s", "an offset inside the sample's interval, 0...30.0 s"),
            ([1, 30.5], "beats[1].timeSinceSeriesStart", "30.5 s", "an offset inside the sample's interval, 0...30.0 s"),
            ([1, .nan], "beats[1].timeSinceSeriesStart", "nan", "a finite number"),
        ])
    func heartbeatRules(times: [Double], field: String, value: String, expected: String) {
        let series = HeartbeatSeries(beats: times.map { Heartbeat(timeSinceSeriesStart: $0) })
        let errors = Self.errors(Self.sample("HKDataTypeIdentifierHeartbeatSeries", .heartbeatSeries(series)))
        #expect(errors.map(\.field) == ["sample.heartbeatSeries.\(field)"])
        #expect(errors.map(\.value) == [value])
        #expect(errors.map(\.expected) == [expected])
    }

    // MARK: States of mind

    @Test("a valence outside -1...1 is refused", arguments: [1.01, -1.5, Double.nan])
    func valenceRange(valence: Double) {
        let state = StateOfMind(kind: .momentaryEmotion, valence: valence, labels: [.happy])
        let errors = Self.errors(Self.sample("HKDataTypeStateOfMind", .stateOfMind(state), seconds: 0))
        #expect(errors.map(\.field) == ["sample.stateOfMind.valence"])
        #expect(errors.map(\.value) == ["\(valence)"])
        #expect(errors.map(\.reason) == [valence.isNaN ? .nonFiniteValue : .valueOutOfRange])
    }

    /// The `index`th of the six boundaries between the seven valence bands (-5/7 … 5/7).
    static func boundary(_ index: Double) -> Double { -1 + index * (2.0 / 7) }

    @Test(
        "the valence classification splits -1...1 into seven bands, boundaries toward neutral",
        arguments: [
            (-1.0, StateOfMind.ValenceClassification.veryUnpleasant), (-0.72, .veryUnpleasant), (boundary(1), .unpleasant),
            (-0.5, .unpleasant), (boundary(2), .slightlyUnpleasant), (-0.2, .slightlyUnpleasant), (boundary(3), .neutral),
            (0, .neutral), (boundary(4), .neutral), (0.15, .slightlyPleasant), (boundary(5), .slightlyPleasant),
            (0.5, .pleasant), (boundary(6), .pleasant), (0.72, .veryPleasant), (1, .veryPleasant),
        ])
    func valenceClassification(valence: Double, expected: StateOfMind.ValenceClassification) {
        #expect(StateOfMind(kind: .momentaryEmotion, valence: valence).valenceClassification == expected)
    }

    @Test("no classification outside -1...1")
    func valenceClassificationOutside() {
        #expect(StateOfMind.ValenceClassification(valence: 1.0001) == nil)
        #expect(StateOfMind.ValenceClassification(valence: .nan) == nil)
    }

    @Test("HealthKit's raw values: labels 1...38, associations 1...18, kinds 1 and 2")
    func stateOfMindRawValues() {
        #expect(StateOfMind.Label.allCases.map(\.rawValue) == Array(1...38))
        #expect(StateOfMind.Label.satisfied.rawValue == 38)
        #expect(StateOfMind.Label.happy.rawValue == 17)
        #expect(StateOfMind.Association.allCases.map(\.rawValue) == Array(1...18))
        #expect(StateOfMind.Association.selfCare.rawValue == 13)
        #expect(StateOfMind.Kind.dailyMood.rawValue == 2)
    }

    // MARK: Medication dose events

    static func dose(_ change: (inout MedicationDoseEvent) -> Void) -> [ValidationError] {
        var value = MedicationDoseEvent(
            logStatus: .taken, scheduleType: .schedule, medicationConceptIdentifier: "metformin-500",
            scheduledDate: start, scheduledDoseQuantity: 1, doseQuantity: 1)
        change(&value)
        return errors(sample("HKMedicationDoseEventTypeIdentifierMedicationDoseEvent", .medicationDoseEvent(value), seconds: 0))
    }

    @Test("a scheduled dose has its scheduled date and dose; one taken as needed has neither")
    func doseSchedule() {
        let missing = Self.dose {
            $0.scheduledDate = nil
            $0.scheduledDoseQuantity = nil
        }
        #expect(missing.map(\.field) == [
            "sample.medicationDoseEvent.scheduledDate", "sample.medicationDoseEvent.scheduledDoseQuantity",
        ])
        #expect(missing.map(\.reason) == [.missingValue, .missingValue])
        let asNeeded = Self.dose { $0.scheduleType = .asNeeded }
        #expect(asNeeded.map(\.field) == [
            "sample.medicationDoseEvent.scheduledDate", "sample.medicationDoseEvent.scheduledDoseQuantity",
        ])
        #expect(asNeeded.map(\.value) == ["2023-11-14T22:13:20.000Z", "1.0 count"])
        #expect(asNeeded.first?.expected == "no scheduled date: the dose's scheduleType is asNeeded (1)")
        let fine = Self.dose {
            $0.scheduleType = .asNeeded
            $0.scheduledDate = nil
            $0.scheduledDoseQuantity = nil
        }
        #expect(fine.isEmpty)
    }

    @Test("a dose names its medication and has finite, non-negative quantities")
    func doseQuantities() {
        let errors = Self.dose {
            $0.medicationConceptIdentifier = ""
            $0.doseQuantity = -2
            $0.scheduledDoseQuantity = .infinity
            $0.unit = .milliliter
        }
        #expect(errors.map(\.field) == [
            "sample.medicationDoseEvent.medicationConceptIdentifier", "sample.medicationDoseEvent.scheduledDoseQuantity",
            "sample.medicationDoseEvent.doseQuantity",
        ])
        #expect(errors.map(\.value) == ["\"\"", "inf", "-2.0 mL"])
    }

    // MARK: Scored assessments

    @Test("an assessment has one answer per question of its instrument", arguments: [
        (ScoredAssessment.Instrument.gad7, 9, "7 answers, one per gad7 question"),
        (.phq9, 7, "9 answers, one per phq9 question"),
        (.gad7, 0, "7 answers, one per gad7 question"),
    ])
    func answerCount(instrument: ScoredAssessment.Instrument, count: Int, expected: String) {
        let value = ScoredAssessment(instrument: instrument, answers: Array(repeating: .severalDays, count: count))
        let errors = Self.errors(Self.sample(instrument.typeIdentifier, .scoredAssessment(value), seconds: 0))
        #expect(errors.map(\.field) == ["sample.scoredAssessment.answers"])
        #expect(errors.map(\.value) == ["\(count) answers"])
        #expect(errors.map(\.expected) == [expected])
    }

    @Test("preferNotToAnswer is only for PHQ-9's ninth question")
    func preferNotToAnswer() {
        var gad7 = Array(repeating: ScoredAssessment.Answer.notAtAll, count: 7)
        gad7[6] = .preferNotToAnswer
        let gad7Errors = Self.errors(
            Self.sample("HKScoredAssessmentTypeIdentifierGAD7", .scoredAssessment(ScoredAssessment(instrument: .gad7, answers: gad7)), seconds: 0))
        #expect(gad7Errors.map(\.field) == ["sample.scoredAssessment.answers[6]"])
        #expect(gad7Errors.map(\.value) == ["4 (preferNotToAnswer)"])
        var phq9 = Array(repeating: ScoredAssessment.Answer.notAtAll, count: 9)
        phq9[2] = .preferNotToAnswer
        let phq9Errors = Self.errors(
            Self.sample("HKScoredAssessmentTypeIdentifierPHQ9", .scoredAssessment(ScoredAssessment(instrument: .phq9, answers: phq9)), seconds: 0))
        #expect(phq9Errors.map(\.field) == ["sample.scoredAssessment.answers[2]"])
    }

    @Test("an assessment's instrument must be its HealthKit type's")
    func instrumentMatchesType() {
        let value = ScoredAssessment(instrument: .gad7, answers: Array(repeating: .notAtAll, count: 7))
        let errors = Self.errors(Self.sample("HKScoredAssessmentTypeIdentifierPHQ9", .scoredAssessment(value), seconds: 0))
        #expect(errors.first?.field == "sample.scoredAssessment.instrument")
        #expect(errors.first?.value == "gad7")
        #expect(errors.first?.expected == "phq9, the instrument of HKScoredAssessmentTypeIdentifierPHQ9")
    }

    @Test(
        "score and risk follow the instruments' bands",
        arguments: [
            (ScoredAssessment.Instrument.gad7, [0, 0, 0, 0, 0, 0, 0], 0, ScoredAssessment.Risk.noneToMinimal, 1),
            (.gad7, [1, 1, 1, 1, 0, 0, 0], 4, .noneToMinimal, 1),
            (.gad7, [1, 1, 1, 1, 1, 0, 0], 5, .mild, 2),
            (.gad7, [3, 3, 3, 1, 0, 0, 0], 10, .moderate, 3),
            (.gad7, [3, 3, 3, 3, 2, 1, 0], 15, .severe, 4),
            (.gad7, [3, 3, 3, 3, 3, 3, 3], 21, .severe, 4),
            (.phq9, [1, 1, 1, 1, 1, 1, 1, 1, 1], 9, .mild, 2),
            (.phq9, [2, 2, 2, 2, 2, 2, 2, 0, 4], 14, .moderate, 3),
            (.phq9, [2, 2, 2, 2, 2, 2, 2, 1, 0], 15, .moderatelySevere, 4),
            (.phq9, [3, 3, 3, 3, 3, 3, 1, 0, 0], 19, .moderatelySevere, 4),
            (.phq9, [3, 3, 3, 3, 3, 3, 2, 0, 0], 20, .severe, 5),
            (.phq9, [3, 3, 3, 3, 3, 3, 3, 3, 3], 27, .severe, 5),
        ])
    func scoreAndRisk(
        instrument: ScoredAssessment.Instrument, answers: [Int], score: Int, risk: ScoredAssessment.Risk, rawRisk: Int
    ) {
        let value = ScoredAssessment(instrument: instrument, answers: answers.compactMap(ScoredAssessment.Answer.init(rawValue:)))
        #expect(value.score == score)
        #expect(value.risk == risk)
        #expect(value.risk.rawValue(for: instrument) == rawRisk)
    }
}
