import Foundation

/// What a data type accepts, as its plugin declared it and the plugin host checked it: kind,
/// canonical unit, aggregation, enumeration, bounds, metadata, read-only and attachment rules.
///
/// Plain values; `TypeCatalog.check` applies them to samples.
public struct TypeRules: Hashable, Sendable {
    /// One case of an enumeration.
    public struct Case: Hashable, Sendable {
        /// "asleepREM".
        public var name: String
        /// HealthKit's raw value.
        public var rawValue: Int64

        /// A case.
        public init(name: String, rawValue: Int64) {
            self.name = name
            self.rawValue = rawValue
        }
    }

    /// A named set of raw values.
    public struct ValueGroup: Hashable, Sendable {
        /// "allAsleep".
        public var name: String
        /// The raw values, in the plugin's order.
        public var rawValues: [Int64]

        /// A group.
        public init(name: String, rawValues: [Int64]) {
            self.name = name
            self.rawValues = rawValues
        }
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

        /// Bounds; nil for an open side.
        public init(min: Double? = nil, minInclusive: Bool = true, max: Double? = nil, maxInclusive: Bool = true) {
            self.min = min
            self.minInclusive = minInclusive
            self.max = max
            self.maxInclusive = maxInclusive
        }

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

        /// A use of a key.
        public init(key: String, valueType: MetadataValueType) {
            self.key = key
            self.valueType = valueType
        }
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

    /// Rules for a type; everything but the identifier and kind is optional.
    public init(
        identifier: String, kind: ObjectKind, canonicalUnit: SalusUnit? = nil, aggregationStyle: AggregationStyle? = nil,
        cases: [Case] = [], deprecatedAliases: [Case] = [], valueGroups: [ValueGroup] = [], bounds: Bounds? = nil,
        requiredMetadataKeys: [MetadataKeyUse] = [], optionalMetadataKeys: [MetadataKeyUse] = [],
        readOnlyForApps: Bool = false, perObjectReadAuthorization: Bool = false,
        allowedAttachmentContentTypes: [String] = [], displayName: String = "", isDateCharacteristic: Bool = false,
        pluginID: String = ""
    ) {
        self.identifier = identifier
        self.kind = kind
        self.canonicalUnit = canonicalUnit
        self.aggregationStyle = aggregationStyle
        self.cases = cases
        self.deprecatedAliases = deprecatedAliases
        self.valueGroups = valueGroups
        self.bounds = bounds
        self.requiredMetadataKeys = requiredMetadataKeys
        self.optionalMetadataKeys = optionalMetadataKeys
        self.readOnlyForApps = readOnlyForApps
        self.perObjectReadAuthorization = perObjectReadAuthorization
        self.allowedAttachmentContentTypes = allowedAttachmentContentTypes
        self.displayName = displayName
        self.isDateCharacteristic = isDateCharacteristic
        self.pluginID = pluginID
    }

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

/// A workout activity type a plugin registered.
public struct WorkoutActivityTypeRules: Hashable, Sendable {
    /// "running".
    public var name: String
    /// HealthKit's raw value (37).
    public var rawValue: UInt32
    /// The plugin that registered it.
    public var pluginID: String

    /// An activity type.
    public init(name: String, rawValue: UInt32, pluginID: String = "") {
        self.name = name
        self.rawValue = rawValue
        self.pluginID = pluginID
    }
}

/// A metadata key a plugin registered, with the rules for its values.
public struct MetadataKeyRules: Hashable, Sendable {
    /// The raw key string ("HKTimeZone").
    public var key: String
    /// The type of its value.
    public var valueType: MetadataValueType
    /// Number keys holding an enumeration's raw value: the allowed values.
    public var allowedValues: [TypeRules.Case]
    /// Quantity keys: a unit of the dimension values must have.
    public var unit: SalusUnit?
    /// "Time zone".
    public var displayName: String
    /// Only the system may set it.
    public var readOnlyForApps: Bool
    /// The plugin that registered it.
    public var pluginID: String

    /// A key's rules.
    public init(
        key: String, valueType: MetadataValueType, allowedValues: [TypeRules.Case] = [], unit: SalusUnit? = nil,
        displayName: String = "", readOnlyForApps: Bool = false, pluginID: String = ""
    ) {
        self.key = key
        self.valueType = valueType
        self.allowedValues = allowedValues
        self.unit = unit
        self.displayName = displayName
        self.readOnlyForApps = readOnlyForApps
        self.pluginID = pluginID
    }
}
