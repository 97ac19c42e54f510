/// What a sample holds, by object kind.
public enum SampleValue: Hashable, Sendable {
    /// A number with a unit.
    case quantity(Quantity)
    /// A raw value from the type's enumeration (sleep analysis asleepREM is 5).
    case category(Int)
    /// A workout.
    case workout(Workout)
    /// A glasses or contacts prescription.
    case visionPrescription(VisionPrescription)
    /// A clinical document.
    case document(ClinicalDocument)
    /// An electrocardiogram (its voltages only when saving).
    case electrocardiogram(Electrocardiogram)
    /// An audiogram.
    case audiogram(Audiogram)
    /// A heartbeat series.
    case heartbeatSeries(HeartbeatSeries)
    /// A state of mind.
    case stateOfMind(StateOfMind)
    /// A medication dose event.
    case medicationDoseEvent(MedicationDoseEvent)
    /// A GAD-7 or PHQ-9 assessment.
    case scoredAssessment(ScoredAssessment)
    /// Quantity and category samples saved, queried and deleted as one (blood pressure, food).
    case correlation(Correlation)
    /// A FHIR resource from a provider.
    case clinicalRecord(ClinicalRecord)
    /// A workout route (its locations only when saving).
    case workoutRoute(WorkoutRouteValue)

    /// The object kind this value belongs to.
    public var kind: ObjectKind {
        switch self {
        case .quantity: .quantity
        case .category: .category
        case .workout: .workout
        case .visionPrescription: .visionPrescription
        case .document: .document
        case .electrocardiogram: .electrocardiogram
        case .audiogram: .audiogram
        case .heartbeatSeries: .heartbeatSeries
        case .stateOfMind: .stateOfMind
        case .medicationDoseEvent: .medicationDoseEvent
        case .scoredAssessment: .scoredAssessment
        case .correlation: .correlation
        case .clinicalRecord: .clinicalRecord
        case .workoutRoute: .workoutRoute
        }
    }
}
