import Foundation
import SalusModel
import SalusProto
import SalusWire
import Testing

/// Electrocardiograms, audiograms, heartbeat series, states of mind, medication dose events and
/// scored assessments between the wire and the model.
@Suite("Other sample kinds between the wire and the model")
struct OtherKindsConversionTests {
    static let source = SourceRevision(appID: "org.example.app", name: "Example")
    static let start = Date(timeIntervalSince1970: 1_700_000_000.25)

    static func sample(_ type: TypeIdentifier, _ value: SampleValue) -> Sample {
        Sample(
            type: type, startDate: start, endDate: start.addingTimeInterval(30), value: value, sourceRevision: source,
            metadata: ["HKTimeZone": .string("Europe/Vilnius")], creationDate: Date(timeIntervalSince1970: 1_700_000_100))
    }

    static let values: [(TypeIdentifier, SampleValue)] = [
        (
            "HKDataTypeIdentifierElectrocardiogram",
            .electrocardiogram(
                Electrocardiogram(
                    classification: .inconclusiveHighHeartRate, symptomsStatus: .present, averageHeartRate: 121.5,
                    samplingFrequency: 512,
                    voltages: (0..<300).map {
                        ElectrocardiogramVoltage(timeSinceSampleStart: Double($0) / 512, microvolts: Double($0 % 17) * -12.25)
                    }))
        ),
        ("HKDataTypeIdentifierElectrocardiogram", .electrocardiogram(Electrocardiogram(classification: .unrecognized))),
        (
            "HKDataTypeIdentifierAudiogram",
            .audiogram(
                Audiogram(sensitivityPoints: [
                    AudiogramSensitivityPoint(frequency: 250, leftEar: -5, rightEar: 12.5),
                    AudiogramSensitivityPoint(
                        frequency: 8000,
                        tests: [
                            AudiogramSensitivityTest(
                                sensitivity: 70, masked: true, side: .right,
                                clampingRange: AudiogramClampingRange(upperBound: 75)),
                            AudiogramSensitivityTest(
                                sensitivity: 65, side: .right, clampingRange: AudiogramClampingRange(lowerBound: -10, upperBound: 90)),
                        ]),
                ]))
        ),
        (
            "HKDataTypeIdentifierHeartbeatSeries",
            .heartbeatSeries(
                HeartbeatSeries(beats: [
                    Heartbeat(timeSinceSeriesStart: 0.004), Heartbeat(timeSinceSeriesStart: 0.79),
                    Heartbeat(timeSinceSeriesStart: 12.5, precededByGap: true),
                ]))
        ),
        (
            "HKDataTypeStateOfMind",
            .stateOfMind(
                StateOfMind(kind: .momentaryEmotion, valence: 0.62, labels: [.grateful, .satisfied, .amazed], associations: [.family, .weather]))
        ),
        (
            "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent",
            .medicationDoseEvent(
                MedicationDoseEvent(
                    logStatus: .skipped, scheduleType: .schedule, medicationConceptIdentifier: "rxnorm:197806",
                    scheduledDate: Date(timeIntervalSince1970: 1_699_999_000.5), scheduledDoseQuantity: 2.5,
                    doseQuantity: 0, unit: try! SalusUnit(parsing: "mL")))
        ),
        (
            "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent",
            .medicationDoseEvent(
                MedicationDoseEvent(logStatus: .taken, scheduleType: .asNeeded, medicationConceptIdentifier: "ibuprofen"))
        ),
        (
            "HKScoredAssessmentTypeIdentifierPHQ9",
            .scoredAssessment(
                ScoredAssessment(
                    instrument: .phq9,
                    answers: [.nearlyEveryDay, .moreThanHalfTheDays, .severalDays, .notAtAll, .nearlyEveryDay, .nearlyEveryDay,
                              .nearlyEveryDay, .moreThanHalfTheDays, .preferNotToAnswer]))
        ),
        (
            "HKDocumentTypeIdentifierCDA",
            .document(
                ClinicalDocument(
                    data: Data("<ClinicalDocument xmlns=\"urn:hl7-org:v3\"/>".utf8), title: "Referral Note",
                    patientName: "Eve Betterhalf", authorName: "Henry Seven", custodianName: "Community Health",
                    effectiveTime: Date(timeIntervalSince1970: 1_379_768_400)))
        ),
        ("HKDocumentTypeIdentifierCDA", .document(ClinicalDocument(data: Data()))),
        (
            "HKClinicalTypeIdentifierAllergyRecord",
            .clinicalRecord(
                ClinicalRecord(
                    fhirData: Data(#"{"resourceType":"AllergyIntolerance","id":"a-1"}"#.utf8), displayName: "Penicillin",
                    sourceName: "Community Health", sourceURL: "https://fhir.example.org/r4",
                    receivedDate: Date(timeIntervalSince1970: 1_700_000_000.5)))
        ),
    ]

    @Test("a clinical record's resource type and id come from the resource, not from what the wire says")
    func clinicalRecordDerivedFields() throws {
        var wire = Self.sample(Self.values[10].0, Self.values[10].1).wire
        #expect(wire.clinicalRecord.resourceType == "AllergyIntolerance")
        #expect(wire.clinicalRecord.resourceID == "a-1")
        #expect(wire.clinicalRecord.fhirVersion == "4.0.1")
        wire.clinicalRecord.resourceType = "Patient"
        wire.clinicalRecord.resourceID = "p-9"
        wire.clinicalRecord.fhirVersion = ""
        let back = try Sample(wire: wire, path: "sample", source: Self.source)
        guard case .clinicalRecord(let record) = back.value else {
            Issue.record("not a clinical record: \(back.value)")
            return
        }
        #expect(record.resourceType == "AllergyIntolerance" && record.resourceID == "a-1")
        #expect(record.fhirVersion == ClinicalRecord.defaultFHIRVersion)
    }

    @Test("every new kind survives the wire unchanged", arguments: values.indices)
    func roundTrips(index: Int) throws {
        let (type, value) = Self.values[index]
        let sample = Self.sample(type, value)
        let back = try Sample(wire: sample.wire, path: "sample", source: sample.sourceRevision, creationDate: sample.creationDate)
        #expect(back == sample)
    }

    @Test("the wire carries the derived valence classification, score and risk")
    func derivedValues() throws {
        let state = Self.sample("HKDataTypeStateOfMind", .stateOfMind(StateOfMind(kind: .dailyMood, valence: -0.9))).wire
        #expect(state.stateOfMind.valenceClassification == 1)
        let phq9 = Self.sample(Self.values[7].0, Self.values[7].1).wire
        #expect(phq9.scoredAssessment.instrument == .phq9)
        #expect(phq9.scoredAssessment.answers == [3, 2, 1, 0, 3, 3, 3, 2, 4])
        #expect(phq9.scoredAssessment.score == 17)
        #expect(phq9.scoredAssessment.risk == 4)
    }

    @Test("derived values a client sends are ignored: the model derives them again")
    func derivedValuesIgnored() throws {
        var wire = Self.sample(Self.values[7].0, Self.values[7].1).wire
        wire.scoredAssessment.score = 0
        wire.scoredAssessment.risk = 1
        let sample = try Sample(wire: wire, path: "samples[0]", source: Self.source)
        #expect(sample.wire.scoredAssessment.score == 17)
        #expect(sample.wire.scoredAssessment.risk == 4)
        var state = Self.sample(Self.values[4].0, Self.values[4].1).wire
        state.stateOfMind.valenceClassification = 1
        let mood = try Sample(wire: state, path: "samples[0]", source: Self.source)
        #expect(mood.wire.stateOfMind.valenceClassification == 6)
    }

    @Test(
        "unknown raw values are refused naming their field path and the allowed values",
        arguments: [
            ("classification", "samples[1].electrocardiogram.classification", "7"),
            ("lead", "samples[1].electrocardiogram.voltages[2].lead", "0"),
            ("side", "samples[1].audiogram.sensitivityPoints[0].tests[1].side", "2"),
            ("conduction", "samples[1].audiogram.sensitivityPoints[0].tests[0].conductionType", "1"),
            ("label", "samples[1].stateOfMind.labels[1]", "39"),
            ("association", "samples[1].stateOfMind.associations[0]", "0"),
            ("kind", "samples[1].stateOfMind.kind", "3"),
            ("log status", "samples[1].medicationDoseEvent.logStatus", "0"),
            ("unit", "samples[1].medicationDoseEvent.unit", "tablets"),
            ("instrument", "samples[1].scoredAssessment.instrument", "0"),
            ("answer", "samples[1].scoredAssessment.answers[3]", "5"),
        ])
    func refusals(kind: String, field: String, value: String) throws {
        var wire = Salus_V1_Sample()
        wire.type = "org.example.any"
        switch kind {
        case "classification":
            wire.electrocardiogram.classification = 7
        case "lead":
            wire.electrocardiogram.voltages = (0..<3).map { index in
                var voltage = Salus_V1_ElectrocardiogramVoltage()
                voltage.lead = index == 2 ? 0 : 1
                return voltage
            }
        case "side", "conduction":
            var test = Salus_V1_AudiogramSensitivityTest()
            test.conductionType = kind == "conduction" ? 1 : 0
            var other = test
            other.side = kind == "side" ? 2 : 0
            var point = Salus_V1_AudiogramSensitivityPoint()
            point.tests = [test, other]
            wire.audiogram.sensitivityPoints = [point]
        case "label":
            wire.stateOfMind.kind = 1
            wire.stateOfMind.labels = [17, 39]
        case "association":
            wire.stateOfMind.kind = 2
            wire.stateOfMind.associations = [0]
        case "kind":
            wire.stateOfMind.kind = 3
        case "log status":
            wire.medicationDoseEvent.scheduleType = 1
        case "unit":
            wire.medicationDoseEvent.logStatus = 4
            wire.medicationDoseEvent.scheduleType = 1
            wire.medicationDoseEvent.unit = "tablets"
        case "instrument":
            wire.scoredAssessment.answers = [0, 0, 0, 0, 0, 0, 0]
        default:
            wire.scoredAssessment.instrument = .gad7
            wire.scoredAssessment.answers = [0, 1, 2, 5, 0, 0, 0]
        }
        let error = try #require(throws: ValidationError.self) {
            _ = try Sample(wire: wire, path: "samples[1]", source: Self.source)
        }
        #expect(error.field == field)
        #expect(error.value == value)
        #expect(!error.expected.isEmpty)
    }

    @Test("an unknown classification is refused with every allowed raw value")
    func allowedValuesListed() throws {
        var wire = Salus_V1_Sample()
        wire.type = "HKDataTypeIdentifierElectrocardiogram"
        wire.electrocardiogram.classification = 99
        let error = try #require(throws: ValidationError.self) {
            _ = try Sample(wire: wire, path: "sample", source: Self.source)
        }
        #expect(
            error.expected == "one of 0 notSet, 1 sinusRhythm, 2 atrialFibrillation, 3 inconclusiveLowHeartRate, "
                + "4 inconclusiveHighHeartRate, 5 inconclusivePoorReading, 6 inconclusiveOther, 100 unrecognized")
    }
}
