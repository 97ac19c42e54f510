import SalusModel

/// A sample type to save, query or observe, as HealthKit's `HKSampleType`.
///
/// ```swift
/// let steps = SampleType.quantity(.stepCount)
/// let sleep = SampleType.category(.sleepAnalysis)
/// let custom = SampleType("org.example.migraine.severity")
/// ```
///
/// Any identifier string makes a type; whether the daemon knows it is the daemon's business (an
/// unknown type fails with ``SalusError/Code/invalidArgument`` naming the field).
public struct SampleType: Hashable, Sendable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The type identifier ("HKQuantityTypeIdentifierStepCount").
    public var identifier: TypeIdentifier

    /// The type with this identifier.
    public init(_ identifier: TypeIdentifier) {
        self.identifier = identifier
    }

    /// The type with this identifier string.
    public init(_ identifier: String) {
        self.identifier = TypeIdentifier(rawValue: identifier)
    }

    /// The type with this literal identifier string.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// A quantity type.
    public static func quantity(_ identifier: QuantityTypeIdentifier) -> SampleType {
        SampleType(identifier.rawValue)
    }

    /// A category type.
    public static func category(_ identifier: CategoryTypeIdentifier) -> SampleType {
        SampleType(identifier.rawValue)
    }

    /// Workouts (`HKWorkoutTypeIdentifier`).
    public static let workout = SampleType("HKWorkoutTypeIdentifier")

    /// Vision prescriptions (`HKVisionPrescriptionTypeIdentifier`).
    public static let visionPrescription = SampleType("HKVisionPrescriptionTypeIdentifier")

    /// Electrocardiograms (`HKDataTypeIdentifierElectrocardiogram`).
    public static let electrocardiogram = SampleType("HKDataTypeIdentifierElectrocardiogram")

    /// Audiograms (`HKDataTypeIdentifierAudiogram`).
    public static let audiogram = SampleType("HKDataTypeIdentifierAudiogram")

    /// Heartbeat series (`HKDataTypeIdentifierHeartbeatSeries`).
    public static let heartbeatSeries = SampleType("HKDataTypeIdentifierHeartbeatSeries")

    /// States of mind: HealthKit's constant `HKDataTypeIdentifierStateOfMind`, whose string is
    /// `HKDataTypeStateOfMind`.
    public static let stateOfMind = SampleType("HKDataTypeStateOfMind")

    /// Medication dose events (`HKMedicationDoseEventTypeIdentifierMedicationDoseEvent`).
    public static let medicationDoseEvent = SampleType("HKMedicationDoseEventTypeIdentifierMedicationDoseEvent")

    /// Medications the person added, with their annotations: HealthKit's constant
    /// `HKDataTypeIdentifierUserAnnotatedMedicationConcept`, whose string is
    /// `HKDataTypeUserAnnotatedMedicationConcept`. A medication's dose events are the
    /// ``medicationDoseEvent`` samples of its concept identifier.
    public static let userAnnotatedMedication = SampleType("HKDataTypeUserAnnotatedMedicationConcept")

    /// GAD-7 assessments (`HKScoredAssessmentTypeIdentifierGAD7`).
    public static let gad7Assessment = SampleType(ScoredAssessment.Instrument.gad7.typeIdentifier)

    /// PHQ-9 assessments (`HKScoredAssessmentTypeIdentifierPHQ9`).
    public static let phq9Assessment = SampleType(ScoredAssessment.Instrument.phq9.typeIdentifier)

    /// The identifier string.
    public var description: String { identifier.rawValue }

    /// Encodes as the bare identifier string.
    public func encode(to encoder: any Encoder) throws {
        try identifier.encode(to: encoder)
    }

    /// Decodes from a bare identifier string.
    public init(from decoder: any Decoder) throws {
        identifier = try TypeIdentifier(from: decoder)
    }
}

/// A quantity type identifier, HealthKit's `HKQuantityTypeIdentifier`; any string is accepted.
public struct QuantityTypeIdentifier: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The identifier string ("HKQuantityTypeIdentifierStepCount").
    public var rawValue: String

    /// Wraps an identifier string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps a literal identifier string.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// Steps (count, cumulative).
    public static let stepCount: Self = "HKQuantityTypeIdentifierStepCount"
    /// Walking and running distance (m, cumulative).
    public static let distanceWalkingRunning: Self = "HKQuantityTypeIdentifierDistanceWalkingRunning"
    /// Active energy burned (kcal, cumulative).
    public static let activeEnergyBurned: Self = "HKQuantityTypeIdentifierActiveEnergyBurned"
    /// Basal energy burned (kcal, cumulative).
    public static let basalEnergyBurned: Self = "HKQuantityTypeIdentifierBasalEnergyBurned"
    /// Flights climbed (count, cumulative).
    public static let flightsClimbed: Self = "HKQuantityTypeIdentifierFlightsClimbed"
    /// Heart rate (count/min).
    public static let heartRate: Self = "HKQuantityTypeIdentifierHeartRate"
    /// Resting heart rate (count/min).
    public static let restingHeartRate: Self = "HKQuantityTypeIdentifierRestingHeartRate"
    /// Heart rate variability, SDNN (ms).
    public static let heartRateVariabilitySDNN: Self = "HKQuantityTypeIdentifierHeartRateVariabilitySDNN"
    /// Body mass (kg).
    public static let bodyMass: Self = "HKQuantityTypeIdentifierBodyMass"
    /// Height (m).
    public static let height: Self = "HKQuantityTypeIdentifierHeight"
    /// Body temperature (degC).
    public static let bodyTemperature: Self = "HKQuantityTypeIdentifierBodyTemperature"
    /// Dietary water (mL, cumulative).
    public static let dietaryWater: Self = "HKQuantityTypeIdentifierDietaryWater"
    /// Sleeping wrist temperature (degC).
    public static let appleSleepingWristTemperature: Self = "HKQuantityTypeIdentifierAppleSleepingWristTemperature"
    /// Wheelchair pushes (count, cumulative).
    public static let pushCount: Self = "HKQuantityTypeIdentifierPushCount"
    /// Wheelchair distance (m, cumulative).
    public static let distanceWheelchair: Self = "HKQuantityTypeIdentifierDistanceWheelchair"
}

/// A category type identifier, HealthKit's `HKCategoryTypeIdentifier`; any string is accepted.
public struct CategoryTypeIdentifier: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The identifier string ("HKCategoryTypeIdentifierSleepAnalysis").
    public var rawValue: String

    /// Wraps an identifier string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps a literal identifier string.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// Sleep analysis; values are ``CategoryValueSleepAnalysis`` raw values.
    public static let sleepAnalysis: Self = "HKCategoryTypeIdentifierSleepAnalysis"
    /// Menstrual flow.
    public static let menstrualFlow: Self = "HKCategoryTypeIdentifierMenstrualFlow"
    /// Stand hours.
    public static let appleStandHour: Self = "HKCategoryTypeIdentifierAppleStandHour"
}
