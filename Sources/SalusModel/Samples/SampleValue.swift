/// What a sample holds, by object kind.
///
/// The kinds whose values are large (a vision prescription is 464 bytes) are `indirect`: stored
/// in a box, so a sample of the common kinds (a quantity, a category) is not as large as the
/// largest kind. With its source and device boxed too (one pointer each), a `Sample` is 120
/// bytes instead of 736, which every array of samples and every copy pays.
public enum SampleValue: Hashable, Sendable {
    /// A number with a unit.
    case quantity(Quantity)
    /// A raw value from the type's enumeration (sleep analysis asleepREM is 5).
    case category(Int)
    /// A workout.
    indirect case workout(Workout)
    /// A glasses or contacts prescription.
    indirect case visionPrescription(VisionPrescription)
    /// A clinical document.
    indirect case document(ClinicalDocument)
    /// An electrocardiogram (its voltages only when saving).
    indirect case electrocardiogram(Electrocardiogram)
    /// An audiogram.
    case audiogram(Audiogram)
    /// A heartbeat series.
    case heartbeatSeries(HeartbeatSeries)
    /// A state of mind.
    case stateOfMind(StateOfMind)
    /// A medication dose event.
    indirect case medicationDoseEvent(MedicationDoseEvent)
    /// A GAD-7 or PHQ-9 assessment.
    case scoredAssessment(ScoredAssessment)
    /// Quantity and category samples saved, queried and deleted as one (blood pressure, food).
    case correlation(Correlation)
    /// A FHIR resource from a provider.
    indirect case clinicalRecord(ClinicalRecord)
    /// A workout route (its locations only when saving).
    case workoutRoute(WorkoutRouteValue)
    /// A medication the person added, with their annotations.
    indirect case userAnnotatedMedication(UserAnnotatedMedication)

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
        case .userAnnotatedMedication: .userAnnotatedMedication
        }
    }

    /// The value as its kind's rules see it (`SampleKindRules`); nil for a quantity and a
    /// category, whose rules are their type's (`TypeCatalog.check`).
    package var kindRules: (any SampleKindRules)? {
        switch self {
        case .quantity, .category: nil
        case .workout(let value): value
        case .visionPrescription(let value): value
        case .document(let value): value
        case .electrocardiogram(let value): value
        case .audiogram(let value): value
        case .heartbeatSeries(let value): value
        case .stateOfMind(let value): value
        case .medicationDoseEvent(let value): value
        case .scoredAssessment(let value): value
        case .correlation(let value): value
        case .clinicalRecord(let value): value
        case .workoutRoute(let value): value
        case .userAnnotatedMedication(let value): value
        }
    }
}
