import Foundation
import SalusModel

/// The JSON the store keeps in `samples.payload` for every kind but quantities and categories.
///
/// These mirror the model's values field for field, enumerations as HealthKit's raw values;
/// dates are encoded as Foundation encodes them by default (seconds since 2001 as a double),
/// which round-trips exactly. An electrocardiogram's payload leaves out its voltages, which live
/// in `electrocardiogram_voltages` (`VoltageBlocks`); a route's, its locations, which live in
/// `route_locations` (`RouteBlocks`).
enum Payloads {
    struct QuantityPayload: Codable {
        var value: Double
        var unit: String
    }

    enum MetadataPayload: Codable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case date(Date)
        case quantity(QuantityPayload)
    }

    struct EventPayload: Codable {
        var type: Int
        var startDate: Date
        var endDate: Date
        var metadata: [String: MetadataPayload]
    }

    /// A workout's or activity's configuration; absent from payloads written before it existed
    /// (read as unknown).
    struct ConfigurationPayload: Codable {
        var locationType: Int
        var swimmingLocationType: Int
        var lapLength: QuantityPayload?
    }

    /// Every figure a save gave for one type (an imported workout's minimum and maximum).
    struct StatisticsPayload: Codable {
        var sum: QuantityPayload?
        var average: QuantityPayload?
        var minimum: QuantityPayload?
        var maximum: QuantityPayload?
    }

    /// An activity; `allStatistics` is absent when the save gave none (and from payloads written
    /// before it existed).
    struct ActivityPayload: Codable {
        var uuid: UUID
        var activityType: UInt
        var configuration: ConfigurationPayload?
        var startDate: Date
        var endDate: Date?
        var metadata: [String: MetadataPayload]
        var statistics: [String: QuantityPayload]
        var allStatistics: [String: StatisticsPayload]?
    }

    /// A workout; `allStatistics` and `recordedDuration` are absent when the save gave none (and
    /// from payloads written before they existed).
    struct WorkoutPayload: Codable {
        var activityType: UInt
        var configuration: ConfigurationPayload?
        var events: [EventPayload]
        var activities: [ActivityPayload]
        var statistics: [String: QuantityPayload]
        var allStatistics: [String: StatisticsPayload]?
        var recordedDuration: Double?
    }

    struct PrismPayload: Codable {
        var amount: Double
        var angle: Double
        var verticalAmount: Double
        var verticalBase: Int
        var horizontalAmount: Double
        var horizontalBase: Int
        var eye: Int
    }

    struct LensPayload: Codable {
        var sphere: Double?
        var cylinder: Double?
        var axis: Double?
        var addPower: Double?
        var vertexDistance: Double?
        var prism: PrismPayload?
        var farPupillaryDistance: Double?
        var nearPupillaryDistance: Double?
        var baseCurve: Double?
        var diameter: Double?
    }

    struct PrescriptionPayload: Codable {
        var prescriptionType: Int
        var dateIssued: Date
        var expirationDate: Date?
        var rightEye: LensPayload?
        var leftEye: LensPayload?
        var brand: String?
    }

    /// A document's payload; the extracted fields are optional, so documents stored before
    /// they were extracted still decode.
    struct DocumentPayload: Codable {
        var contentType: String
        var data: Data
        var title: String?
        var patientName: String?
        var authorName: String?
        var custodianName: String?
        var effectiveTime: Date?
    }

    /// A clinical record's payload: the FHIR JSON verbatim (base64 in the payload's JSON) and
    /// where it came from; the resource type and id are read from the resource again.
    struct ClinicalRecordPayload: Codable {
        var fhirData: Data
        var fhirVersion: String
        var displayName: String
        var sourceName: String
        var sourceURL: String?
        var receivedDate: Date
    }

    /// A workout route's payload: its workout and location count; the locations live in
    /// `route_locations` (`RouteBlocks`).
    struct WorkoutRoutePayload: Codable {
        var workout: UUID
        var locationCount: Int
    }

    struct ElectrocardiogramPayload: Codable {
        var classification: Int
        var symptomsStatus: Int
        var averageHeartRate: Double?
        var samplingFrequency: Double?
        var numberOfVoltageMeasurements: Int
    }

    struct ClampingRangePayload: Codable {
        var lowerBound: Double?
        var upperBound: Double?
    }

    struct SensitivityTestPayload: Codable {
        var sensitivity: Double
        var conductionType: Int
        var masked: Bool
        var side: Int
        var clampingRange: ClampingRangePayload?
    }

    struct SensitivityPointPayload: Codable {
        var frequency: Double
        var tests: [SensitivityTestPayload]
    }

    struct AudiogramPayload: Codable {
        var sensitivityPoints: [SensitivityPointPayload]
    }

    struct HeartbeatPayload: Codable {
        var timeSinceSeriesStart: Double
        var precededByGap: Bool
    }

    struct HeartbeatSeriesPayload: Codable {
        var beats: [HeartbeatPayload]
    }

    struct StateOfMindPayload: Codable {
        var kind: Int
        var valence: Double
        var labels: [Int]
        var associations: [Int]
    }

    struct MedicationDoseEventPayload: Codable {
        var logStatus: Int
        var scheduleType: Int
        var medicationConceptIdentifier: String
        var scheduledDate: Date?
        var scheduledDoseQuantity: Double?
        var doseQuantity: Double?
        var unit: String
    }

    struct ScoredAssessmentPayload: Codable {
        var instrument: String
        var answers: [Int]
    }

    struct CodingPayload: Codable {
        var system: String
        var version: String?
        var code: String
    }

    struct UserAnnotatedMedicationPayload: Codable {
        var conceptIdentifier: String
        var displayText: String
        var generalForm: String
        var relatedCodings: [CodingPayload]
        var nickname: String?
        var isArchived: Bool
        var hasSchedule: Bool
    }

    // MARK: Encoding

    static func encode(_ value: SampleValue) throws -> [UInt8]? {
        if case .quantity = value { return nil }
        if case .category = value { return nil }
        if case .correlation = value { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        switch value {
        case .quantity, .category, .correlation:
            return nil
        case .workout(let workout):
            return Array(try encoder.encode(payload(workout)))
        case .visionPrescription(let prescription):
            return Array(try encoder.encode(payload(prescription)))
        case .document(let document):
            return Array(
                try encoder.encode(
                    DocumentPayload(
                        contentType: document.contentType, data: document.data, title: document.title,
                        patientName: document.patientName, authorName: document.authorName,
                        custodianName: document.custodianName, effectiveTime: document.effectiveTime)))
        case .clinicalRecord(let record):
            return Array(
                try encoder.encode(
                    ClinicalRecordPayload(
                        fhirData: record.fhirData, fhirVersion: record.fhirVersion, displayName: record.displayName,
                        sourceName: record.sourceName, sourceURL: record.sourceURL, receivedDate: record.receivedDate)))
        case .electrocardiogram(let electrocardiogram):
            return Array(try encoder.encode(payload(electrocardiogram)))
        case .workoutRoute(let route):
            return Array(
                try encoder.encode(WorkoutRoutePayload(workout: route.workoutUUID, locationCount: route.locationCount)))
        case .audiogram(let audiogram):
            return Array(try encoder.encode(payload(audiogram)))
        case .heartbeatSeries(let series):
            return Array(
                try encoder.encode(
                    HeartbeatSeriesPayload(
                        beats: series.beats.map {
                            HeartbeatPayload(timeSinceSeriesStart: $0.timeSinceSeriesStart, precededByGap: $0.precededByGap)
                        })))
        case .stateOfMind(let state):
            return Array(
                try encoder.encode(
                    StateOfMindPayload(
                        kind: state.kind.rawValue, valence: state.valence, labels: state.labels.map(\.rawValue),
                        associations: state.associations.map(\.rawValue))))
        case .medicationDoseEvent(let event):
            return Array(
                try encoder.encode(
                    MedicationDoseEventPayload(
                        logStatus: event.logStatus.rawValue, scheduleType: event.scheduleType.rawValue,
                        medicationConceptIdentifier: event.medicationConceptIdentifier, scheduledDate: event.scheduledDate,
                        scheduledDoseQuantity: event.scheduledDoseQuantity, doseQuantity: event.doseQuantity,
                        unit: event.unit.description)))
        case .scoredAssessment(let assessment):
            return Array(
                try encoder.encode(
                    ScoredAssessmentPayload(
                        instrument: assessment.instrument.rawValue, answers: assessment.answers.map(\.rawValue))))
        case .userAnnotatedMedication(let medication):
            return Array(
                try encoder.encode(
                    UserAnnotatedMedicationPayload(
                        conceptIdentifier: medication.conceptIdentifier, displayText: medication.displayText,
                        generalForm: medication.generalForm,
                        relatedCodings: medication.relatedCodings.sorted().map {
                            CodingPayload(system: $0.system, version: $0.version, code: $0.code)
                        },
                        nickname: medication.nickname, isArchived: medication.isArchived, hasSchedule: medication.hasSchedule)))
        }
    }

    /// An electrocardiogram's payload: everything but the voltages.
    static func payload(_ electrocardiogram: Electrocardiogram) -> ElectrocardiogramPayload {
        ElectrocardiogramPayload(
            classification: electrocardiogram.classification.rawValue,
            symptomsStatus: electrocardiogram.symptomsStatus.rawValue,
            averageHeartRate: electrocardiogram.averageHeartRate, samplingFrequency: electrocardiogram.samplingFrequency,
            numberOfVoltageMeasurements: electrocardiogram.numberOfVoltageMeasurements)
    }

    static func payload(_ audiogram: Audiogram) -> AudiogramPayload {
        AudiogramPayload(
            sensitivityPoints: audiogram.sensitivityPoints.map { point in
                SensitivityPointPayload(
                    frequency: point.frequency,
                    tests: point.tests.map { test in
                        SensitivityTestPayload(
                            sensitivity: test.sensitivity, conductionType: test.conductionType.rawValue,
                            masked: test.masked, side: test.side.rawValue,
                            clampingRange: test.clampingRange.map {
                                ClampingRangePayload(lowerBound: $0.lowerBound, upperBound: $0.upperBound)
                            })
                    })
            })
    }

    static func payload(_ quantity: Quantity) -> QuantityPayload {
        QuantityPayload(value: quantity.value, unit: quantity.unit.description)
    }

    static func payload(_ value: MetadataValue) -> MetadataPayload {
        switch value {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .date(let date): .date(date)
        case .quantity(let quantity): .quantity(payload(quantity))
        }
    }

    static func payload(_ metadata: [String: MetadataValue]) -> [String: MetadataPayload] {
        metadata.mapValues { payload($0) }
    }

    static func payload(_ statistics: [TypeIdentifier: Quantity]) -> [String: QuantityPayload] {
        Dictionary(uniqueKeysWithValues: statistics.map { ($0.key.rawValue, payload($0.value)) })
    }

    static func payload(_ configuration: WorkoutConfiguration) -> ConfigurationPayload? {
        guard configuration != WorkoutConfiguration() else { return nil }
        return ConfigurationPayload(
            locationType: configuration.locationType.rawValue,
            swimmingLocationType: configuration.swimmingLocationType.rawValue,
            lapLength: configuration.lapLength.map(payload))
    }

    static func configuration(_ payload: ConfigurationPayload?) throws -> WorkoutConfiguration {
        guard let payload else { return WorkoutConfiguration() }
        return WorkoutConfiguration(
            locationType: WorkoutLocationType(rawValue: payload.locationType) ?? .unknown,
            swimmingLocationType: WorkoutSwimmingLocationType(rawValue: payload.swimmingLocationType) ?? .unknown,
            lapLength: try payload.lapLength.map(quantity))
    }

    static func payload(_ workout: Workout) -> WorkoutPayload {
        WorkoutPayload(
            activityType: workout.activityType,
            configuration: payload(workout.configuration),
            events: workout.events.map {
                EventPayload(type: $0.type, startDate: $0.startDate, endDate: $0.endDate, metadata: payload($0.metadata))
            },
            activities: workout.activities.map {
                ActivityPayload(
                    uuid: $0.uuid, activityType: $0.activityType, configuration: payload($0.configuration),
                    startDate: $0.startDate, endDate: $0.endDate,
                    metadata: payload($0.metadata), statistics: payload($0.statistics),
                    allStatistics: payload($0.allStatistics))
            },
            statistics: payload(workout.statistics), allStatistics: payload(workout.allStatistics),
            recordedDuration: workout.recordedDuration)
    }

    /// Every figure per type, or nil when there is none (the payload then reads as before).
    static func payload(_ all: [TypeIdentifier: WorkoutStatistics]) -> [String: StatisticsPayload]? {
        guard !all.isEmpty else { return nil }
        return Dictionary(uniqueKeysWithValues: all.map { type, figures in
            (type.rawValue, StatisticsPayload(
                sum: figures.sum.map { payload($0) }, average: figures.average.map { payload($0) },
                minimum: figures.minimum.map { payload($0) }, maximum: figures.maximum.map { payload($0) }))
        })
    }

    static func payload(_ lens: LensSpecification) -> LensPayload {
        LensPayload(
            sphere: lens.sphere, cylinder: lens.cylinder, axis: lens.axis, addPower: lens.addPower,
            vertexDistance: lens.vertexDistance,
            prism: lens.prism.map {
                PrismPayload(
                    amount: $0.amount, angle: $0.angle, verticalAmount: $0.verticalAmount,
                    verticalBase: $0.verticalBase, horizontalAmount: $0.horizontalAmount,
                    horizontalBase: $0.horizontalBase, eye: $0.eye)
            },
            farPupillaryDistance: lens.farPupillaryDistance, nearPupillaryDistance: lens.nearPupillaryDistance,
            baseCurve: lens.baseCurve, diameter: lens.diameter)
    }

    static func payload(_ prescription: VisionPrescription) -> PrescriptionPayload {
        PrescriptionPayload(
            prescriptionType: prescription.prescriptionType.rawValue, dateIssued: prescription.dateIssued,
            expirationDate: prescription.expirationDate, rightEye: prescription.rightEye.map { payload($0) },
            leftEye: prescription.leftEye.map { payload($0) }, brand: prescription.brand)
    }

    // MARK: Decoding

    static func quantity(_ payload: QuantityPayload) throws -> Quantity {
        Quantity(value: payload.value, unit: try SalusUnit(parsing: payload.unit))
    }

    static func metadata(_ payload: [String: MetadataPayload]) throws -> [String: MetadataValue] {
        try payload.mapValues { value in
            switch value {
            case .string(let text): .string(text)
            case .number(let number): .number(number)
            case .bool(let flag): .bool(flag)
            case .date(let date): .date(date)
            case .quantity(let quantity): .quantity(try self.quantity(quantity))
            }
        }
    }

    static func statistics(_ payload: [String: QuantityPayload]) throws -> [TypeIdentifier: Quantity] {
        Dictionary(uniqueKeysWithValues: try payload.map { (TypeIdentifier($0.key), try quantity($0.value)) })
    }

    static func allStatistics(_ payload: [String: StatisticsPayload]?) throws -> [TypeIdentifier: WorkoutStatistics] {
        Dictionary(uniqueKeysWithValues: try (payload ?? [:]).map { type, figures in
            (TypeIdentifier(type), WorkoutStatistics(
                sum: try figures.sum.map(quantity), average: try figures.average.map(quantity),
                minimum: try figures.minimum.map(quantity), maximum: try figures.maximum.map(quantity)))
        })
    }

    static func decode(kind: ObjectKind, bytes: [UInt8]) throws -> SampleValue {
        let decoder = JSONDecoder()
        let data = Data(bytes)
        switch kind {
        case .workout:
            let payload = try decoder.decode(WorkoutPayload.self, from: data)
            var workout = Workout(
                activityType: payload.activityType,
                configuration: try configuration(payload.configuration),
                events: try payload.events.map {
                    WorkoutEvent(
                        type: $0.type, startDate: $0.startDate, endDate: $0.endDate,
                        metadata: try metadata($0.metadata))
                },
                activities: try payload.activities.map {
                    var activity = WorkoutActivity(
                        uuid: $0.uuid, activityType: $0.activityType,
                        configuration: try configuration($0.configuration), startDate: $0.startDate,
                        endDate: $0.endDate, metadata: try metadata($0.metadata),
                        statistics: try statistics($0.statistics))
                    activity.allStatistics = try allStatistics($0.allStatistics)
                    return activity
                },
                statistics: try statistics(payload.statistics))
            workout.allStatistics = try allStatistics(payload.allStatistics)
            workout.recordedDuration = payload.recordedDuration
            return .workout(workout)
        case .visionPrescription:
            let payload = try decoder.decode(PrescriptionPayload.self, from: data)
            func lens(_ lens: LensPayload?) -> LensSpecification? {
                guard let lens else { return nil }
                return LensSpecification(
                    sphere: lens.sphere, cylinder: lens.cylinder, axis: lens.axis, addPower: lens.addPower,
                    vertexDistance: lens.vertexDistance,
                    prism: lens.prism.map {
                        VisionPrism(
                            amount: $0.amount, angle: $0.angle, verticalAmount: $0.verticalAmount,
                            verticalBase: $0.verticalBase, horizontalAmount: $0.horizontalAmount,
                            horizontalBase: $0.horizontalBase, eye: $0.eye)
                    },
                    farPupillaryDistance: lens.farPupillaryDistance,
                    nearPupillaryDistance: lens.nearPupillaryDistance, baseCurve: lens.baseCurve,
                    diameter: lens.diameter)
            }
            return .visionPrescription(
                VisionPrescription(
                    prescriptionType: VisionPrescription.PrescriptionType(rawValue: payload.prescriptionType)
                        ?? .glasses,
                    dateIssued: payload.dateIssued, expirationDate: payload.expirationDate,
                    rightEye: lens(payload.rightEye), leftEye: lens(payload.leftEye), brand: payload.brand))
        case .document:
            let payload = try decoder.decode(DocumentPayload.self, from: data)
            return .document(
                ClinicalDocument(
                    contentType: payload.contentType, data: payload.data, title: payload.title,
                    patientName: payload.patientName, authorName: payload.authorName, custodianName: payload.custodianName,
                    effectiveTime: payload.effectiveTime))
        case .clinicalRecord:
            let payload = try decoder.decode(ClinicalRecordPayload.self, from: data)
            return .clinicalRecord(
                ClinicalRecord(
                    fhirData: payload.fhirData, fhirVersion: payload.fhirVersion, displayName: payload.displayName,
                    sourceName: payload.sourceName, sourceURL: payload.sourceURL, receivedDate: payload.receivedDate))
        case .workoutRoute:
            let payload = try decoder.decode(WorkoutRoutePayload.self, from: data)
            return .workoutRoute(WorkoutRouteValue(workoutUUID: payload.workout, locationCount: payload.locationCount))
        case .electrocardiogram:
            let payload = try decoder.decode(ElectrocardiogramPayload.self, from: data)
            return .electrocardiogram(
                Electrocardiogram(
                    classification: try known(payload.classification, "electrocardiogram classification"),
                    symptomsStatus: try known(payload.symptomsStatus, "electrocardiogram symptoms status"),
                    averageHeartRate: payload.averageHeartRate, samplingFrequency: payload.samplingFrequency,
                    numberOfVoltageMeasurements: payload.numberOfVoltageMeasurements))
        case .audiogram:
            let payload = try decoder.decode(AudiogramPayload.self, from: data)
            return .audiogram(
                Audiogram(
                    sensitivityPoints: try payload.sensitivityPoints.map { point in
                        AudiogramSensitivityPoint(
                            frequency: point.frequency,
                            tests: try point.tests.map { test in
                                AudiogramSensitivityTest(
                                    sensitivity: test.sensitivity,
                                    conductionType: try known(test.conductionType, "audiogram conduction type"),
                                    masked: test.masked, side: try known(test.side, "audiogram test side"),
                                    clampingRange: test.clampingRange.map {
                                        AudiogramClampingRange(lowerBound: $0.lowerBound, upperBound: $0.upperBound)
                                    })
                            })
                    }))
        case .heartbeatSeries:
            let payload = try decoder.decode(HeartbeatSeriesPayload.self, from: data)
            return .heartbeatSeries(
                HeartbeatSeries(
                    beats: payload.beats.map {
                        Heartbeat(timeSinceSeriesStart: $0.timeSinceSeriesStart, precededByGap: $0.precededByGap)
                    }))
        case .stateOfMind:
            let payload = try decoder.decode(StateOfMindPayload.self, from: data)
            return .stateOfMind(
                StateOfMind(
                    kind: try known(payload.kind, "state of mind kind"), valence: payload.valence,
                    labels: try payload.labels.map { try known($0, "state of mind label") },
                    associations: try payload.associations.map { try known($0, "state of mind association") }))
        case .medicationDoseEvent:
            let payload = try decoder.decode(MedicationDoseEventPayload.self, from: data)
            return .medicationDoseEvent(
                MedicationDoseEvent(
                    logStatus: try known(payload.logStatus, "medication dose log status"),
                    scheduleType: try known(payload.scheduleType, "medication dose schedule type"),
                    medicationConceptIdentifier: payload.medicationConceptIdentifier,
                    scheduledDate: payload.scheduledDate, scheduledDoseQuantity: payload.scheduledDoseQuantity,
                    doseQuantity: payload.doseQuantity, unit: try SalusUnit(parsing: payload.unit)))
        case .scoredAssessment:
            let payload = try decoder.decode(ScoredAssessmentPayload.self, from: data)
            guard let instrument = ScoredAssessment.Instrument(rawValue: payload.instrument) else {
                throw StoreError(code: .database, message: "a stored scored assessment has unknown instrument \(payload.instrument)")
            }
            return .scoredAssessment(
                ScoredAssessment(
                    instrument: instrument, answers: try payload.answers.map { try known($0, "assessment answer") }))
        case .userAnnotatedMedication:
            let payload = try decoder.decode(UserAnnotatedMedicationPayload.self, from: data)
            return .userAnnotatedMedication(
                UserAnnotatedMedication(
                    conceptIdentifier: payload.conceptIdentifier, displayText: payload.displayText,
                    generalForm: payload.generalForm,
                    relatedCodings: Set(
                        payload.relatedCodings.map {
                            UserAnnotatedMedication.Coding(system: $0.system, version: $0.version, code: $0.code)
                        }),
                    nickname: payload.nickname, isArchived: payload.isArchived, hasSchedule: payload.hasSchedule))
        case .quantity, .category, .characteristic, .activitySummary, .correlation:
            throw StoreError(code: .database, message: "a \(kind.rawValue) sample has no payload")
        }
    }

    /// The case of a stored raw value; an unknown one is a damaged database.
    static func known<E: RawRepresentable>(_ raw: Int, _ what: String) throws -> E where E.RawValue == Int {
        guard let value = E(rawValue: raw) else {
            throw StoreError(code: .database, message: "a stored \(what) has unknown raw value \(raw)")
        }
        return value
    }
}

/// The integer codes the schema uses for object kinds.
///
/// **Rule: a stored code never changes.** Rows keep their kind's code for the life of the
/// database, so the six kinds stored before kinds had wire numbers keep the codes they were
/// given (quantity 0 … characteristic 5, below); every other kind's code is its number in
/// `salus.v1.ObjectKind` (`ObjectKind.wireNumber`: correlation 7, electrocardiogram 8 …
/// user-annotated medication 17). The two never meet: those six kinds hold wire numbers 1 to 6,
/// and a kind added to the enum takes a number after the last (17 now), so it has a code of its
/// own without a line here. Code 6 is unused.
enum StoredCodes {
    static func kind(_ kind: ObjectKind) -> Int64 {
        switch kind {
        case .quantity: 0
        case .category: 1
        case .workout: 2
        case .visionPrescription: 3
        case .document: 4
        case .characteristic: 5
        default: Int64(kind.wireNumber)
        }
    }

    /// The kind stored as `code`; nil for a code no kind of this build has (a damaged database).
    static func kind(code: Int64) -> ObjectKind? {
        switch code {
        case 0: .quantity
        case 1: .category
        case 2: .workout
        case 3: .visionPrescription
        case 4: .document
        case 5: .characteristic
        // A wire number above 6 is never one of the six kinds above (theirs are 1 to 6).
        case 7...Int64(Int32.max): ObjectKind(wireNumber: Int(code))
        default: nil
        }
    }
}
