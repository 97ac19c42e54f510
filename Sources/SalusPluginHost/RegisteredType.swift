import SalusModel

/// One registered data type, as its plugin declared it and the host checked it.
public struct RegisteredType: Hashable, Sendable {
    /// One case of an enumeration.
    public struct Case: Hashable, Sendable {
        /// "asleepREM".
        public var name: String
        /// HealthKit's raw value.
        public var rawValue: Int64
    }

    /// A named set of raw values.
    public struct ValueGroup: Hashable, Sendable {
        /// "allAsleep".
        public var name: String
        /// The raw values, in the plugin's order.
        public var rawValues: [Int64]
    }

    /// The physically possible range, in the canonical unit.
    public struct Bounds: Hashable, Sendable {
        /// The lowest value, if any.
        public var min: Double?
        /// Whether `min` itself is allowed.
        public var minInclusive: Bool
        /// The highest value, if any.
        public var max: Double?
        /// Whether `max` itself is allowed.
        public var maxInclusive: Bool

        /// Whether `value` lies inside.
        public func contains(_ value: Double) -> Bool {
            if let min, minInclusive ? value < min : value <= min { return false }
            if let max, maxInclusive ? value > max : value >= max { return false }
            return true
        }

        /// "[0, 600)", "(0, …)".
        public var description: String {
            let lower = min.map { "\(minInclusive ? "[" : "(")\(Self.format($0))" } ?? "(-∞"
            let upper = max.map { "\(Self.format($0))\(maxInclusive ? "]" : ")")" } ?? "∞)"
            return "\(lower), \(upper)"
        }

        static func format(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }

    /// A metadata key the type requires or documents.
    public struct MetadataKeyUse: Hashable, Sendable {
        /// The raw key string.
        public var key: String
        /// The type of its value.
        public var valueType: MetadataValueType
    }

    /// The identifier.
    public var identifier: String
    /// The kind of object.
    public var kind: ObjectKind
    /// Quantity types: the unit values are stored in.
    public var canonicalUnit: SalusUnit?
    /// Quantity types: how values combine.
    public var aggregationStyle: AggregationStyle?
    /// Category and enumerated characteristic types: the cases, in the plugin's order.
    public var cases: [Case]
    /// Old names of existing raw values.
    public var deprecatedAliases: [Case]
    /// Named sets of raw values.
    public var valueGroups: [ValueGroup]
    /// Quantity types: the physically possible range.
    public var bounds: Bounds?
    /// Keys every sample must carry.
    public var requiredMetadataKeys: [MetadataKeyUse]
    /// Keys the type documents as meaningful.
    public var optionalMetadataKeys: [MetadataKeyUse]
    /// Apps may read but not write it.
    public var readOnlyForApps: Bool
    /// Reads are authorized object by object.
    public var perObjectReadAuthorization: Bool
    /// Media types of attachments its samples accept.
    public var allowedAttachmentContentTypes: [String]
    /// "Step count".
    public var displayName: String
    /// Characteristic types: whether the value is a date (date of birth) rather than a case.
    public var isDateCharacteristic: Bool
    /// The plugin that registered it.
    public var pluginID: String

    /// The case with a raw value (aliases are not cases).
    public func `case`(rawValue: Int64) -> Case? {
        cases.first { $0.rawValue == rawValue }
    }

    /// The raw value of a case or deprecated alias name.
    public func rawValue(named name: String) -> Int64? {
        (cases.first { $0.name == name } ?? deprecatedAliases.first { $0.name == name })?.rawValue
    }

    /// The raw values of a value group ("allAsleep").
    public func valueGroup(named name: String) -> [Int64]? {
        valueGroups.first { $0.name == name }?.rawValues
    }
}

/// A registered workout activity type.
public struct RegisteredWorkoutActivityType: Hashable, Sendable {
    /// "running".
    public var name: String
    /// HealthKit's raw value (37).
    public var rawValue: UInt32
    /// The plugin that registered it.
    public var pluginID: String
}

/// A registered metadata key.
public struct RegisteredMetadataKey: Hashable, Sendable {
    /// The raw key string ("HKTimeZone").
    public var key: String
    /// The type of its value.
    public var valueType: MetadataValueType
    /// Number keys holding an enumeration's raw value: the allowed values.
    public var allowedValues: [RegisteredType.Case]
    /// Quantity keys: a unit of the dimension values must have.
    public var unit: SalusUnit?
    /// "Time zone".
    public var displayName: String
    /// Only the system may set it.
    public var readOnlyForApps: Bool
    /// The plugin that registered it.
    public var pluginID: String
}
