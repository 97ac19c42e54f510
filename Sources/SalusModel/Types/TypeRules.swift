import Foundation

/// What a data type accepts, as its plugin declared it and the plugin host checked it: kind,
/// canonical unit, aggregation, enumeration, bounds, metadata, read-only and attachment rules.
///
/// Plain values; `TypeCatalog.check` applies them to samples.
package struct TypeRules: Hashable, Sendable {
    /// One case of an enumeration.
    package struct Case: Hashable, Sendable {
        /// "asleepREM".
        package var name: String
        /// HealthKit's raw value.
        package var rawValue: Int64

        /// A case.
        package init(name: String, rawValue: Int64) {
            self.name = name
            self.rawValue = rawValue
        }
    }

    /// A named set of raw values.
    package struct ValueGroup: Hashable, Sendable {
        /// "allAsleep".
        package var name: String
        /// The raw values, in the plugin's order.
        package var rawValues: [Int64]

        /// A group.
        package init(name: String, rawValues: [Int64]) {
            self.name = name
            self.rawValues = rawValues
        }
    }

    /// The physically possible range, in the canonical unit.
    package struct Bounds: Hashable, Sendable {
        /// The lowest value, if any.
        package var min: Double?
        /// Whether `min` itself is allowed.
        package var minInclusive: Bool
        /// The highest value, if any.
        package var max: Double?
        /// Whether `max` itself is allowed.
        package var maxInclusive: Bool

        /// Bounds; nil for an open side.
        package init(min: Double? = nil, minInclusive: Bool = true, max: Double? = nil, maxInclusive: Bool = true) {
            self.min = min
            self.minInclusive = minInclusive
            self.max = max
            self.maxInclusive = maxInclusive
        }

        /// Whether `value` lies inside.
        package func contains(_ value: Double) -> Bool {
            if let min, minInclusive ? value < min : value <= min { return false }
            if let max, maxInclusive ? value > max : value >= max { return false }
            return true
        }

        /// "[0, 600)", "(0, …)".
        package var description: String {
            let lower = min.map { "\(minInclusive ? "[" : "(")\(Self.format($0))" } ?? "(-∞"
            let upper = max.map { "\(Self.format($0))\(maxInclusive ? "]" : ")")" } ?? "∞)"
            return "\(lower), \(upper)"
        }

        static func format(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }

    /// A metadata key the type requires or documents.
    package struct MetadataKeyUse: Hashable, Sendable {
        /// The raw key string.
        package var key: String
        /// The type of its value.
        package var valueType: MetadataValueType

        /// A use of a key.
        package init(key: String, valueType: MetadataValueType) {
            self.key = key
            self.valueType = valueType
        }
    }

    /// The identifier.
    package var identifier: String
    /// The kind of object.
    package var kind: ObjectKind
    /// Quantity types: the unit values are stored in.
    package var canonicalUnit: SalusUnit?
    /// Quantity types: the canonical unit as the plugin spelled it (`ml/(kg*min)`, where
    /// `canonicalUnit` prints `mL/min·kg`), which the type listing shows so that it matches
    /// HealthKit's own spelling; empty for other kinds.
    package var canonicalUnitText: String
    /// Quantity types: how values combine.
    package var aggregationStyle: AggregationStyle?
    /// Category and enumerated characteristic types: the cases, in the plugin's order.
    package var cases: [Case]
    /// Old names of existing raw values.
    package var deprecatedAliases: [Case]
    /// Named sets of raw values.
    package var valueGroups: [ValueGroup]
    /// Quantity types: the physically possible range.
    package var bounds: Bounds?
    /// Keys every sample must carry.
    package var requiredMetadataKeys: [MetadataKeyUse]
    /// Keys the type documents as meaningful.
    package var optionalMetadataKeys: [MetadataKeyUse]
    /// Apps may read but not write it.
    package var readOnlyForApps: Bool
    /// Reads are authorized object by object.
    package var perObjectReadAuthorization: Bool
    /// Media types of attachments its samples accept.
    package var allowedAttachmentContentTypes: [String]
    /// "Step count".
    package var displayName: String
    /// Characteristic types: whether the value is a date (date of birth) rather than a case.
    package var isDateCharacteristic: Bool
    /// The area it belongs to ("vitals", "nutrition"); empty: none.
    package var area: String
    /// The plugin that registered it.
    package var pluginID: String
    /// Whether the owning plugin's validator inspects samples of this type: true unless its
    /// manifest lists `validated_types` without this one. The host calls no validator otherwise.
    package var validated = true

    /// Rules for a type; everything but the identifier and kind is optional. Without
    /// `canonicalUnitText` the unit's canonical description stands for its spelling.
    package init(
        identifier: String, kind: ObjectKind, canonicalUnit: SalusUnit? = nil, canonicalUnitText: String? = nil,
        aggregationStyle: AggregationStyle? = nil,
        cases: [Case] = [], deprecatedAliases: [Case] = [], valueGroups: [ValueGroup] = [], bounds: Bounds? = nil,
        requiredMetadataKeys: [MetadataKeyUse] = [], optionalMetadataKeys: [MetadataKeyUse] = [],
        readOnlyForApps: Bool = false, perObjectReadAuthorization: Bool = false,
        allowedAttachmentContentTypes: [String] = [], displayName: String = "", isDateCharacteristic: Bool = false,
        area: String = "", pluginID: String = ""
    ) {
        self.identifier = identifier
        self.kind = kind
        self.canonicalUnit = canonicalUnit
        self.canonicalUnitText = canonicalUnitText ?? canonicalUnit?.description ?? ""
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
        self.area = area
        self.pluginID = pluginID
    }

    /// The case with a raw value (aliases are not cases).
    package func `case`(rawValue: Int64) -> Case? {
        cases.first { $0.rawValue == rawValue }
    }

    /// The raw value of a case or deprecated alias name.
    package func rawValue(named name: String) -> Int64? {
        (cases.first { $0.name == name } ?? deprecatedAliases.first { $0.name == name })?.rawValue
    }

    /// The raw values of a value group ("allAsleep").
    package func valueGroup(named name: String) -> [Int64]? {
        valueGroups.first { $0.name == name }?.rawValues
    }
}

/// A workout activity type a plugin registered.
package struct WorkoutActivityTypeRules: Hashable, Sendable {
    /// "running".
    package var name: String
    /// HealthKit's raw value (37).
    package var rawValue: UInt32
    /// The plugin that registered it.
    package var pluginID: String

    /// An activity type.
    package init(name: String, rawValue: UInt32, pluginID: String = "") {
        self.name = name
        self.rawValue = rawValue
        self.pluginID = pluginID
    }
}

/// A metadata key a plugin registered, with the rules for its values.
package struct MetadataKeyRules: Hashable, Sendable {
    /// The raw key string ("HKTimeZone").
    package var key: String
    /// The type of its value.
    package var valueType: MetadataValueType
    /// Number keys holding an enumeration's raw value: the allowed values.
    package var allowedValues: [TypeRules.Case]
    /// Quantity keys: a unit of the dimension values must have.
    package var unit: SalusUnit?
    /// "Time zone".
    package var displayName: String
    /// Only the system may set it.
    package var readOnlyForApps: Bool
    /// The plugin that registered it.
    package var pluginID: String

    /// A key's rules.
    package init(
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
