import Foundation
import SalusModel
import SalusProto
import SalusWire

/// One sample of every kind, with metadata of every value type, as the model path sends them.
enum EveryKind {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    static func at(_ seconds: Double) -> Date { base.addingTimeInterval(seconds) }

    static let app = SourceRevision(
        appID: "org.example.diary", name: "Diary", version: "1.0", productType: "x86_64", osVersion: "6.1.0")

    /// Long enough that its length takes two bytes, and a message holding it three.
    static let long = String(repeating: "Ω long text ", count: 2_000)

    /// Every `salus.v1.MetadataValue` case, at its default and not, short and long.
    static let metadata: [String: MetadataValue] = [
        "org.example.note": .string("after lunch"),
        "org.example.empty": .string(""),
        "org.example.long": .string(long),
        "org.example.count": .number(-2.5),
        "org.example.zero": .number(0),
        "org.example.flag": .bool(true),
        "org.example.off": .bool(false),
        "org.example.when": .date(Date(timeIntervalSince1970: 1_700_000_123.456789)),
        "org.example.before": .date(Date(timeIntervalSince1970: -86_400)),
        "org.example.dose": .quantity(Quantity(value: 2.5, unit: .kilogram)),
        "org.example.nothing": .quantity(Quantity(value: 0, unit: .meter)),
        "HKMetadataKeyTimeZone": .string("Europe/Paris"),
    ]

    static let device = Device(
        name: "Apple Watch", manufacturer: "Apple Inc.", model: "Watch", hardwareVersion: "Watch6,2",
        firmwareVersion: "1.2", softwareVersion: "10.1", localIdentifier: "", udiDeviceIdentifier: "(01)00888")

    static func sample(
        _ type: String, _ value: SampleValue, start: Double = 0, end: Double = 0, metadata: [String: MetadataValue] = [:],
        device: Device? = nil
    ) -> Sample {
        Sample(
            type: TypeIdentifier(rawValue: type), startDate: at(start), endDate: at(end), value: value, sourceRevision: app,
            device: device, metadata: metadata)
    }

    static func quantity(_ type: String, _ value: Double, _ unit: String, start: Double = 0) -> Sample {
        sample(type, .quantity(Quantity(value: value, unit: try! SalusUnit(parsing: unit))), start: start, end: start)
    }

    /// Every kind of value, each named by its kind.
    static let samples: [(kind: String, sample: Sample)] = {
        let workout = Workout(
            activityType: 82,
            events: [
                WorkoutEvent(type: 1, startDate: at(600), metadata: ["org.example.why": .string("traffic light")]),
                WorkoutEvent(type: 2, startDate: at(660)),
            ],
            activities: [
                WorkoutActivity(
                    activityType: 46, startDate: at(0), endDate: at(900), metadata: ["HKIndoorWorkout": .bool(false)],
                    statistics: ["HKQuantityTypeIdentifierDistanceWalkingRunning": Quantity(value: 750, unit: .meter)]),
                WorkoutActivity(activityType: 37, startDate: at(900), endDate: nil),
            ],
            statistics: ["HKQuantityTypeIdentifierDistanceWalkingRunning": Quantity(value: 12, unit: .kilometer)])
        let prescription = VisionPrescription(
            prescriptionType: .glasses, dateIssued: at(0), expirationDate: at(86_400),
            rightEye: LensSpecification(sphere: -1.25, cylinder: -0.5, axis: 90, prism: VisionPrism(amount: 1, angle: 90, eye: 2)),
            leftEye: LensSpecification(sphere: -1))
        let voltages = (0..<600).map { index in
            ElectrocardiogramVoltage(timeSinceSampleStart: Double(index) / 512, microvolts: sin(Double(index) / 40) * 900 + 0.125)
        }
        let route = WorkoutRouteValue(
            workoutUUID: UUID(uuidString: "0190F3A0-0000-7000-8000-000000000001")!,
            locations: [
                RouteLocation(timestamp: at(0), latitude: 48.85, longitude: 2.35, altitude: 35, horizontalAccuracy: 5),
                RouteLocation(timestamp: at(1), latitude: 48.8501, longitude: 2.3502, course: 90, speed: 3.2),
            ])
        return [
            ("quantity", sample(
                "HKQuantityTypeIdentifierStepCount", .quantity(Quantity(value: 72, unit: try! SalusUnit(parsing: "count"))),
                start: 10, end: 70, metadata: metadata, device: device)),
            ("quantity at zero, before 1970", sample(
                "HKQuantityTypeIdentifierStepCount", .quantity(Quantity(value: 0, unit: try! SalusUnit(parsing: "count"))),
                start: -1_700_000_100, end: -1_700_000_100, device: Device(name: long))),
            ("category", sample("HKCategoryTypeIdentifierSleepAnalysis", .category(5), start: 60, end: 120)),
            ("category 0", sample("HKCategoryTypeIdentifierSleepAnalysis", .category(0), start: 0, end: 60)),
            ("correlation", sample(
                "HKCorrelationTypeIdentifierBloodPressure",
                .correlation(Correlation(objects: [
                    quantity("HKQuantityTypeIdentifierBloodPressureSystolic", 120, "mmHg"),
                    quantity("HKQuantityTypeIdentifierBloodPressureDiastolic", 80, "mmHg"),
                ])), metadata: ["org.example.arm": .string("left")])),
            ("workout", sample("HKWorkoutTypeIdentifier", .workout(workout), end: 3600, metadata: ["HKIndoorWorkout": .bool(false)], device: device)),
            ("vision prescription", sample("HKVisionPrescriptionTypeIdentifier", .visionPrescription(prescription))),
            ("document", sample(
                "HKDocumentTypeIdentifierCDA",
                .document(ClinicalDocument(
                    data: Data("<ClinicalDocument xmlns=\"urn:hl7-org:v3\"><title>Note</title></ClinicalDocument>".utf8),
                    title: "Note", patientName: "Eve Betterhalf", authorName: "Henry Seven", custodianName: "Community Health",
                    effectiveTime: at(400))), start: 400, end: 400)),
            ("electrocardiogram", sample(
                "HKDataTypeIdentifierElectrocardiogram",
                .electrocardiogram(Electrocardiogram(
                    classification: .sinusRhythm, symptomsStatus: .none, averageHeartRate: 68, samplingFrequency: 512,
                    voltages: voltages)), end: 30, metadata: ["org.example.lead": .string("I")])),
            ("audiogram", sample(
                "HKDataTypeIdentifierAudiogram",
                .audiogram(Audiogram(sensitivityPoints: [
                    AudiogramSensitivityPoint(frequency: 1000, leftEar: 15, rightEar: 20),
                    AudiogramSensitivityPoint(
                        frequency: 2000,
                        tests: [
                            AudiogramSensitivityTest(
                                sensitivity: 45, masked: true, side: .left, clampingRange: AudiogramClampingRange(lowerBound: 40))
                        ]),
                ])), end: 600)),
            ("heartbeat series", sample(
                "HKDataTypeIdentifierHeartbeatSeries",
                .heartbeatSeries(HeartbeatSeries(beats: [
                    Heartbeat(timeSinceSeriesStart: 0.25), Heartbeat(timeSinceSeriesStart: 1.05),
                    Heartbeat(timeSinceSeriesStart: 9.5, precededByGap: true),
                ])), end: 60)),
            ("state of mind", sample(
                "HKDataTypeStateOfMind",
                .stateOfMind(StateOfMind(kind: .momentaryEmotion, valence: 0.4, labels: [.calm, .hopeful], associations: [.fitness])),
                start: 100, end: 100)),
            ("medication dose event", sample(
                "HKMedicationDoseEventTypeIdentifierMedicationDoseEvent",
                .medicationDoseEvent(MedicationDoseEvent(
                    logStatus: .taken, scheduleType: .schedule, medicationConceptIdentifier: "levothyroxine-50",
                    scheduledDate: at(180), scheduledDoseQuantity: 1, doseQuantity: 1)), start: 200, end: 200)),
            ("user-annotated medication", sample(
                "HKDataTypeUserAnnotatedMedicationConcept",
                .userAnnotatedMedication(UserAnnotatedMedication(
                    conceptIdentifier: "levothyroxine-50", displayText: "Levothyroxine 50 mcg Oral Tablet", generalForm: "tablet",
                    relatedCodings: [
                        .init(system: "http://www.nlm.nih.gov/research/umls/rxnorm", code: "966224"),
                        .init(system: "http://snomed.info/sct", version: "2024-09", code: "126202002"),
                    ],
                    nickname: "Thyroid", isArchived: false, hasSchedule: true)), start: 150, end: 150)),
            ("scored assessment", sample(
                "HKScoredAssessmentTypeIdentifierGAD7",
                .scoredAssessment(ScoredAssessment(
                    instrument: .gad7,
                    answers: [.severalDays, .severalDays, .notAtAll, .moreThanHalfTheDays, .notAtAll, .severalDays, .nearlyEveryDay])),
                start: 300, end: 300)),
            ("clinical record", sample(
                "HKClinicalTypeIdentifierAllergyRecord",
                .clinicalRecord(ClinicalRecord(
                    fhirData: Data(#"{"resourceType":"AllergyIntolerance","id":"a-1","code":{"text":"Penicillin"}}"#.utf8),
                    fhirVersion: "4.0.1", displayName: "Penicillin", sourceName: "Community Health",
                    sourceURL: "https://fhir.example.org/r4", receivedDate: at(450))), start: 500, end: 500)),
            ("workout route", sample("HKWorkoutRouteTypeIdentifier", .workoutRoute(route), end: 1)),
        ]
    }()

    /// One sample per metadata value type, each holding only that entry.
    static let metadataSamples: [(key: String, sample: Sample)] = metadata.sorted { $0.key < $1.key }.map { key, value in
        (key, sample("HKQuantityTypeIdentifierStepCount", .quantity(Quantity(value: 1, unit: try! SalusUnit(parsing: "count"))),
                     metadata: [key: value]))
    }
}
