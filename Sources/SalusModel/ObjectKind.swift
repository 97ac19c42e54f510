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
}
