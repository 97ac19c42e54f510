import SalusModel
import SalusProto

/// How a predicate compares a value with its operand.
public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
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

    /// The wire form.
    public var wire: Salus_V1_ComparisonOperator {
        switch self {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .equal: .equal
        case .greaterThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .greaterThan
        case .notEqual: .notEqual
        }
    }
}

/// Options of a date predicate, as HealthKit's `HKQueryOptions`.
///
/// Without options a sample matches when its period overlaps the window. With
/// ``strictStartDate`` its start must lie in `[start, end)`; with ``strictEndDate`` its end must.
public struct DatePredicateOptions: OptionSet, Hashable, Sendable {
    /// The bits.
    public var rawValue: Int

    /// Options from bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// The sample's start date must lie in the window.
    public static let strictStartDate = DatePredicateOptions(rawValue: 1 << 0)
    /// The sample's end date must lie in the window.
    public static let strictEndDate = DatePredicateOptions(rawValue: 1 << 1)
}

/// What a metadata predicate tests about one key's value.
public enum MetadataTest: Hashable, Sendable {
    /// The key is present.
    case exists
    /// The key is absent.
    case absent
    /// The value is one of these.
    case allowedValues([MetadataValue])
    /// The value compares to this one (numbers, dates, strings, quantities after conversion).
    case comparison(ComparisonOperator, MetadataValue)
}

/// One property of a device, for ``SamplePredicate/deviceProperty(_:allowedValues:)``.
public enum DeviceProperty: String, Hashable, Sendable, CaseIterable {
    /// ``Device/name``.
    case name
    /// ``Device/manufacturer``.
    case manufacturer
    /// ``Device/model``.
    case model
    /// ``Device/hardwareVersion``.
    case hardwareVersion
    /// ``Device/firmwareVersion``.
    case firmwareVersion
    /// ``Device/softwareVersion``.
    case softwareVersion
    /// ``Device/localIdentifier``.
    case localIdentifier
    /// ``Device/udiDeviceIdentifier``.
    case udiDeviceIdentifier

    /// The wire form.
    public var wire: Salus_V1_DeviceProperty {
        switch self {
        case .name: .name
        case .manufacturer: .manufacturer
        case .model: .model
        case .hardwareVersion: .hardwareVersion
        case .firmwareVersion: .firmwareVersion
        case .softwareVersion: .softwareVersion
        case .localIdentifier: .localIdentifier
        case .udiDeviceIdentifier: .udiDeviceIdentifier
        }
    }
}

/// An app, and optionally one of its versions, for ``SamplePredicate/sourceRevisions(_:)``.
public struct SourceRevisionMatch: Hashable, Sendable {
    /// The app id.
    public var appID: String
    /// The version; nil matches any version.
    public var version: String?

    /// Matches samples from `appID`, of `version` when given.
    public init(appID: String, version: String? = nil) {
        self.appID = appID
        self.version = version
    }
}

/// A statistic of a workout, for ``SamplePredicate/workoutStatistic(_:_:_:_:)``.
public enum WorkoutStatistic: String, Hashable, Sendable, CaseIterable {
    /// The sum (cumulative types).
    case sum
    /// The average (discrete types).
    case average
    /// The minimum (discrete types).
    case minimum
    /// The maximum (discrete types).
    case maximum

    /// The wire form.
    public var wire: Salus_V1_WorkoutStatistic {
        switch self {
        case .sum: .sum
        case .average: .average
        case .minimum: .minimum
        case .maximum: .maximum
        }
    }
}
