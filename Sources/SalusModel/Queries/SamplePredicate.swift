import Foundation

/// A filter over samples of one type, as a tree of plain values: the one predicate vocabulary.
/// Apps build it (SalusKit, with the builders below), SalusWire carries it as
/// `salus.v1.Predicate` node for node, and the store compiles it to SQL with bound parameters.
///
/// `nil` where a predicate is optional means every sample. An empty `and` is true and an empty
/// `or` is false; empty `sources`, `devices`, `uuids` and category sets match nothing. The store
/// refuses a predicate that cannot mean anything for the queried type (a quantity comparison on
/// a category type, a unit of the wrong dimension, an unknown value group, a metadata value
/// of another type than the catalog declares for the key) with an `invalidArgument` error whose
/// field is the node's path: `predicate.and[2].metadata`.
///
/// Deleted objects in anchored queries are filtered by the same predicate. A tombstone keeps the
/// sample's type, source, device, dates, value, category, activity type and sync keys, so every
/// node about those is decided exactly; metadata nodes for other keys and workout statistic
/// nodes cannot be decided on a tombstone and count as "may match", so a deletion is reported
/// rather than lost (a client may see a deletion of a sample it never had; it never misses one).
public indirect enum SamplePredicate: Hashable, Sendable {
    /// All of these (true when empty).
    case and([SamplePredicate])
    /// Any of these (false when empty).
    case or([SamplePredicate])
    /// Not this.
    case not(SamplePredicate)
    /// The sample's dates against a window, as HealthKit's `predicateForSamples(withStart:end:options:)`.
    case dateWindow(DateWindow)
    /// Saved by one of these app ids.
    case sources(Set<String>)
    /// Saved by one of these app versions.
    case sourceRevisions([SourceRevisionMatch])
    /// Measured by one of these devices; every property must match exactly, nil matching nil.
    case devices([Device])
    /// The device's `property` is one of `allowedValues`; an empty set matches samples whose
    /// property is nil (including samples without a device).
    case deviceProperty(DeviceProperty, allowedValues: Set<String>)
    /// One of these UUIDs (at most `SamplePredicate.maximumUUIDs`).
    case uuids(Set<UUID>)
    /// A test on the metadata value under `key`.
    case metadata(key: String, test: MetadataTest)
    /// The quantity compared with `quantity`, converted to the type's canonical unit.
    case quantity(ComparisonOperator, Quantity)
    /// The category raw value is in `values` or in one of the type's named `valueGroups`.
    case categoryValues(Set<Int>, valueGroups: Set<String> = [])
    /// A test on a workout.
    case workout(WorkoutTest)
    /// A test on a vision prescription.
    case prescription(PrescriptionTest)
    /// A medication dose event whose `medicationConceptIdentifier`, or a user-annotated
    /// medication whose `conceptIdentifier`, is one of these (HealthKit's
    /// `predicateForMedicationDoseEvent(medicationConceptIdentifiers:)`); at most
    /// `SamplePredicate.maximumConceptIdentifiers`. Undecidable on a tombstone (it may match).
    case medicationConcepts(Set<String>)

    /// The most identifiers one `medicationConcepts` node may list (each is a bound parameter).
    public static let maximumConceptIdentifiers = 10_000

    /// The most UUIDs one `uuids` node may list (each is a bound parameter).
    public static let maximumUUIDs = 10_000

    /// Matches every sample.
    public static let all = SamplePredicate.and([])
    /// Matches no sample.
    public static let none = SamplePredicate.or([])
}

/// A date window with HealthKit's options; a nil bound is open.
///
/// With `s`/`e` the sample's start and end and `[ws, we)` the window:
/// - no option: the sample's period overlaps the window: `e >= ws && s < we` (HealthKit's own
///   predicate format). So a sample that ends exactly at `ws` matches, one that starts exactly at
///   `we` does not, and a point sample (`s == e`) matches when `ws <= s < we`;
/// - `strictStartDate`: `ws <= s < we`;
/// - `strictEndDate`: `ws <= e < we`;
/// - both: both of the above.
/// A `start` after `end` is an invalid predicate. A zero-length window (`ws == we`) matches,
/// without options, the samples that start before the instant and reach it.
public struct DateWindow: Hashable, Sendable {
    /// The window's start (inclusive), or nil for no lower bound.
    public var start: Date?
    /// The window's end (exclusive), or nil for no upper bound.
    public var end: Date?
    /// The sample must start inside the window.
    public var strictStartDate: Bool
    /// The sample must end inside the window.
    public var strictEndDate: Bool

    /// Creates a window.
    public init(start: Date?, end: Date?, strictStartDate: Bool = false, strictEndDate: Bool = false) {
        self.start = start
        self.end = end
        self.strictStartDate = strictStartDate
        self.strictEndDate = strictEndDate
    }
}

/// An app id with an optional version.
public struct SourceRevisionMatch: Hashable, Sendable {
    /// The app id.
    public var appID: String
    /// The version; nil matches any version.
    public var version: String?

    /// Creates a match.
    public init(appID: String, version: String? = nil) {
        self.appID = appID
        self.version = version
    }
}

/// A device property, as `salus.v1.DeviceProperty`.
public enum DeviceProperty: String, CaseIterable, Hashable, Sendable {
    /// `Device.name`.
    case name
    /// `Device.manufacturer`.
    case manufacturer
    /// `Device.model`.
    case model
    /// `Device.hardwareVersion`.
    case hardwareVersion
    /// `Device.firmwareVersion`.
    case firmwareVersion
    /// `Device.softwareVersion`.
    case softwareVersion
    /// `Device.localIdentifier`.
    case localIdentifier
    /// `Device.udiDeviceIdentifier`.
    case udiDeviceIdentifier
}

/// A comparison, as `salus.v1.ComparisonOperator`.
public enum ComparisonOperator: String, CaseIterable, Hashable, Sendable {
    /// `<`
    case lessThan
    /// `<=`
    case lessThanOrEqual
    /// `==`
    case equal
    /// `>=`
    case greaterThanOrEqual
    /// `>`
    case greaterThan
    /// `!=`
    case notEqual
}

/// A test on one metadata key.
///
/// Values compare within their type: strings by their UTF-8 bytes, numbers and booleans as
/// numbers (HealthKit stores booleans as the numbers 0 and 1, so `true` equals `1`), dates as
/// dates, quantities after converting both sides to the dimension's base unit (a quantity of
/// another dimension never matches). Booleans allow only `equal` and `notEqual`. Every test,
/// `notEqual` included, requires the key to be present; wrap in `.not` for the complement.
public enum MetadataTest: Hashable, Sendable {
    /// The key is present.
    case exists
    /// The key is absent (`.not` of `exists`; the wire's `exists = false`).
    case absent
    /// The value equals one of these (none: nothing matches).
    case allowedValues([MetadataValue])
    /// The value compares with this one.
    case comparison(ComparisonOperator, MetadataValue)
}

/// A test on a workout, as `salus.v1.WorkoutPredicate`.
public enum WorkoutTest: Hashable, Sendable {
    /// The workout's `HKWorkoutActivityType` raw value.
    case activityType(UInt)
    /// The workout's duration (end − start) compared with `seconds`.
    case duration(ComparisonOperator, seconds: Double)
    /// A statistic of the workout for `quantityType` compared with `quantity` (converted to that
    /// type's canonical unit).
    ///
    /// Computed from the workout's associated samples as when it is served (docs/workouts.md,
    /// "Statistics"): the sum for cumulative types; average, minimum and maximum for discrete
    /// ones. With no associated sample of the type, the total the save gave (sum or average)
    /// counts. A statistic the type does not allow matches nothing.
    case statistic(quantityType: TypeIdentifier, WorkoutStatistic, ComparisonOperator, Quantity)
    /// The workout has an activity that passes every part of the test ("a running activity
    /// whose average heart rate is above 150 count/min").
    case activity(WorkoutActivityTest)
}

/// A test on one activity of a workout, as `salus.v1.WorkoutActivityPredicate`: every part given
/// must hold for the same activity; an empty test matches any workout (every workout has an
/// activity).
public struct WorkoutActivityTest: Hashable, Sendable {
    /// The activity's `HKWorkoutActivityType` raw value.
    public var activityType: UInt?
    /// The activity's duration (end − start) compared with seconds.
    public var duration: (comparison: ComparisonOperator, seconds: Double)? {
        get { durationTest.map { ($0.comparison, $0.seconds) } }
        set { durationTest = newValue.map { DurationTest(comparison: $0.comparison, seconds: $0.seconds) } }
    }
    /// A statistic over the activity's interval, computed from the workout's associated samples
    /// pro-rated at its boundaries, compared with a quantity.
    public var statistic: WorkoutStatisticTest?

    private var durationTest: DurationTest?

    private struct DurationTest: Hashable, Sendable {
        var comparison: ComparisonOperator
        var seconds: Double
    }

    /// Creates a test; nil parts are not tested.
    public init(
        activityType: UInt? = nil, duration: (comparison: ComparisonOperator, seconds: Double)? = nil,
        statistic: WorkoutStatisticTest? = nil
    ) {
        self.activityType = activityType
        self.statistic = statistic
        self.duration = duration
    }
}

/// A statistic of a quantity type compared with a quantity (converted to the type's canonical
/// unit).
public struct WorkoutStatisticTest: Hashable, Sendable {
    /// The quantity type.
    public var quantityType: TypeIdentifier
    /// Which statistic.
    public var statistic: WorkoutStatistic
    /// How it compares.
    public var comparison: ComparisonOperator
    /// The quantity compared with.
    public var quantity: Quantity

    /// Creates a statistic test.
    public init(_ quantityType: TypeIdentifier, _ statistic: WorkoutStatistic, _ comparison: ComparisonOperator, _ quantity: Quantity) {
        self.quantityType = quantityType
        self.statistic = statistic
        self.comparison = comparison
        self.quantity = quantity
    }
}

/// A test on a vision prescription, as `salus.v1.PrescriptionPredicate`. Date ranges are
/// half-open, `[start, end)`, a nil bound open.
///
/// On tombstones (anchored queries' deletions) these tests cannot be decided and count as "may
/// match".
public enum PrescriptionTest: Hashable, Sendable {
    /// Glasses or contacts.
    case prescriptionType(VisionPrescription.PrescriptionType)
    /// Issued inside the range.
    case dateIssued(start: Date?, end: Date?)
    /// Expiring inside the range; a prescription without an expiration date never matches.
    case expirationDate(start: Date?, end: Date?)
    /// In force at the date (`VisionPrescription.isValid(at:)`): "valid today" is `.validAt(Date())`.
    case validAt(Date)
}

/// Which statistic of a workout, as `salus.v1.WorkoutStatistic`.
public enum WorkoutStatistic: Int, CaseIterable, Hashable, Sendable {
    /// The total (cumulative types).
    case sum = 1
    /// The average (discrete types).
    case average = 2
    /// The minimum.
    case minimum = 3
    /// The maximum.
    case maximum = 4
}
