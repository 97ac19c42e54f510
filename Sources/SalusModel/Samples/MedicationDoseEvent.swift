import Foundation

/// A medication dose event's value, as HealthKit's `HKMedicationDoseEvent`: what the person
/// logged for one dose of one medication.
///
/// A scheduled dose (`scheduleType` `.schedule`) has a scheduled date and a scheduled dose
/// quantity; a dose taken as needed has neither (HealthKit documents both as "always non-null"
/// and "always null" respectively). Quantities are in `unit`.
public struct MedicationDoseEvent: Hashable, Sendable {
    /// What the person logged; raw values are HealthKit's `HKMedicationDoseEventLogStatus`.
    public enum LogStatus: Int, CaseIterable, Hashable, Sendable {
        /// The person did not answer the reminder (1).
        case notInteracted = 1
        /// The reminder could not be delivered (2).
        case notificationNotSent = 2
        /// The person snoozed the reminder (3).
        case snoozed = 3
        /// The person took the dose (4).
        case taken = 4
        /// The person skipped the dose (5).
        case skipped = 5
        /// The person undid an earlier log (6).
        case notLogged = 6
    }

    /// Whether the dose was scheduled; raw values are HealthKit's
    /// `HKMedicationDoseEventScheduleType`.
    public enum ScheduleType: Int, CaseIterable, Hashable, Sendable {
        /// Logged as needed, outside any reminder (1).
        case asNeeded = 1
        /// Logged from a scheduled reminder (2).
        case schedule = 2
    }

    /// What the person logged.
    public var logStatus: LogStatus
    /// Scheduled or as needed.
    public var scheduleType: ScheduleType
    /// The medication concept this dose is of. HealthKit's `HKHealthConceptIdentifier` exposes
    /// only its domain publicly; this is the identifier as the exporting system wrote it, kept
    /// opaque.
    public var medicationConceptIdentifier: String
    /// When the dose was due; scheduled doses only.
    public var scheduledDate: Date?
    /// How much was due, in `unit`; scheduled doses only.
    public var scheduledDoseQuantity: Double?
    /// How much the person reports having taken, in `unit`.
    public var doseQuantity: Double?
    /// The unit of the dose quantities.
    public var unit: SalusUnit

    /// Creates a dose event value.
    public init(
        logStatus: LogStatus,
        scheduleType: ScheduleType,
        medicationConceptIdentifier: String,
        scheduledDate: Date? = nil,
        scheduledDoseQuantity: Double? = nil,
        doseQuantity: Double? = nil,
        unit: SalusUnit = .count
    ) {
        self.logStatus = logStatus
        self.scheduleType = scheduleType
        self.medicationConceptIdentifier = medicationConceptIdentifier
        self.scheduledDate = scheduledDate
        self.scheduledDoseQuantity = scheduledDoseQuantity
        self.doseQuantity = doseQuantity
        self.unit = unit
    }
}
