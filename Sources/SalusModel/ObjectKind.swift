/// The kind of object a type identifier names, which decides what value its samples carry.
public enum ObjectKind: String, CaseIterable, Hashable, Sendable, Codable {
    /// A number with a unit (steps, heart rate); the value is a `Quantity`.
    case quantity
    /// A raw integer from the type's enumeration (sleep analysis, menstrual flow).
    case category
    /// One value per person (biological sex, wheelchair use); not a sample.
    case characteristic
    /// A workout with its activity type, events and activities.
    case workout
    /// A glasses or contacts prescription; read access is granted per object.
    case visionPrescription
    /// A clinical document (CDA); read access is granted per object.
    case document
    /// A sample that groups quantity and category samples (blood pressure, food); the value is a
    /// `Correlation`.
    case correlation
    /// An electrocardiogram; its voltages are read with their own streamed query.
    case electrocardiogram
    /// An audiogram: hearing sensitivity per frequency.
    case audiogram
    /// A heartbeat series: the time of each beat.
    case heartbeatSeries
    /// A state of mind: an emotion or mood with its valence, labels and associations.
    case stateOfMind
    /// A medication dose event.
    case medicationDoseEvent
    /// A scored questionnaire (GAD-7, PHQ-9).
    case scoredAssessment
    /// Daily activity summaries (HKActivitySummaryTypeIdentifier): computed from samples and
    /// goals, never saved; read-only for apps.
    case activitySummary
    /// A FHIR R4 resource (an allergy, a lab result, ...); the value is a `ClinicalRecord`.
    case clinicalRecord
    /// A workout route (HKWorkoutRouteTypeIdentifier): locations attached to one workout; the
    /// value is a `WorkoutRouteValue`, the locations are read with their own streamed query.
    case workoutRoute
    /// A medication the person added, with their annotations
    /// (HKDataTypeIdentifierUserAnnotatedMedicationConcept); the value is a
    /// `UserAnnotatedMedication`.
    case userAnnotatedMedication
}
