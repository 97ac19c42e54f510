/// The kind of object a type describes (`salus.v1.ObjectKind`).
public enum TypeKind: Int64, Sendable, Hashable {
    case quantity = 1
    case category = 2
    case characteristic = 3
    case workout = 4
    case visionPrescription = 5
    case document = 6
    /// An electrocardiogram (`HKElectrocardiogram`).
    case electrocardiogram = 8
    /// An audiogram (`HKAudiogramSample`).
    case audiogram = 9
    /// A heartbeat series (`HKHeartbeatSeriesSample`).
    case heartbeatSeries = 10
    /// A state of mind (`HKStateOfMind`).
    case stateOfMind = 11
    /// A medication dose event (`HKMedicationDoseEvent`).
    case medicationDoseEvent = 12
    /// A GAD-7 or PHQ-9 assessment (`HKScoredAssessment`).
    case scoredAssessment = 13
    /// Daily activity summaries (computed, never saved).
    case activitySummary = 14
    /// A FHIR R4 resource (`HKClinicalRecord`).
    case clinicalRecord = 15
    /// A workout route (`HKWorkoutRoute`): locations attached to one workout.
    case workoutRoute = 16
    /// A medication the person added, with their annotations (`HKUserAnnotatedMedication`).
    case userAnnotatedMedication = 17
    case correlation = 7
}

/// How a quantity type's values combine (`salus.v1.AggregationStyle`). The names are
/// HealthKit's; the wire numbers are the manifest's own.
public enum QuantityAggregation: Int64, Sendable, Hashable {
    case cumulative = 1
    case discreteArithmetic = 2
    case discreteTemporallyWeighted = 3
    case discreteEquivalentContinuousLevel = 4
}

/// The type of a metadata value (`salus.v1.MetadataValueType`).
public enum MetadataValueKind: Int64, Sendable, Hashable {
    case string = 1
    case number = 2
    case bool = 3
    case date = 4
    case quantity = 5
}

/// How a characteristic's value is expressed (`salus.v1.CharacteristicValueType`).
public enum CharacteristicValueKind: Int64, Sendable, Hashable {
    case enumeration = 1
    case date = 2
}
