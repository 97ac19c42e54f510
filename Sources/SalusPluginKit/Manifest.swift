import SalusProtoCodec

/// What a plugin registers: the Swift form of `salus.v1.PluginManifest`.
///
/// Build it from plain values and hand it to ``PluginEntry``; ``encoded()`` produces the bytes
/// the host decodes.
public struct PluginManifest: Sendable, Hashable {
    /// Reverse-DNS plugin id ("org.example.migraine").
    public var id: String
    /// Human-readable name.
    public var name: String
    /// The plugin's own version.
    public var version: String
    /// Sample types.
    public var types: [TypeDefinition]
    /// Workout activity types with their raw values.
    public var workoutActivityTypes: [WorkoutActivityTypeDefinition]
    /// Characteristic types (their kind is ``TypeKind/characteristic``).
    public var characteristicTypes: [TypeDefinition]
    /// Metadata keys the plugin owns.
    public var metadataKeys: [MetadataKeyDefinition]
    /// The sample types whose samples the plugin's validator inspects; empty means every one of
    /// ``types``. The host calls the validator only for these: each call encodes the sample and
    /// crosses the C ABI, which a validator with rules for a few types should spare the others.
    public var validatedTypes: [String]

    /// Creates a manifest.
    public init(
        id: String, name: String, version: String,
        types: [TypeDefinition] = [],
        workoutActivityTypes: [WorkoutActivityTypeDefinition] = [],
        characteristicTypes: [TypeDefinition] = [],
        metadataKeys: [MetadataKeyDefinition] = [],
        validatedTypes: [String] = []
    ) {
        self.id = id
        self.name = name
        self.version = version
        self.types = types
        self.workoutActivityTypes = workoutActivityTypes
        self.characteristicTypes = characteristicTypes
        self.metadataKeys = metadataKeys
        self.validatedTypes = validatedTypes
    }

    /// The protobuf encoding of `salus.v1.PluginManifest`.
    public func encoded() -> [UInt8] {
        var writer = ProtoBytes()
        writer.string(1, id)
        writer.string(2, name)
        writer.string(3, version)
        for type in types { writer.message(4) { type.encode(into: &$0) } }
        for activity in workoutActivityTypes {
            writer.message(5) { inner in
                inner.string(1, activity.name)
                inner.uint64(2, UInt64(activity.rawValue))
            }
        }
        for type in characteristicTypes { writer.message(6) { type.encode(into: &$0) } }
        for key in metadataKeys { writer.message(7) { key.encode(into: &$0) } }
        for identifier in validatedTypes { writer.string(8, identifier) }
        return writer.array
    }
}

/// One case of an enumeration, with its raw value.
public struct EnumerationCase: Sendable, Hashable {
    /// "asleepREM".
    public var name: String
    /// HealthKit's raw value (5).
    public var rawValue: Int64

    /// Creates a case.
    public init(_ name: String, _ rawValue: Int64) {
        self.name = name
        self.rawValue = rawValue
    }

    /// HealthKit's `HKCategoryValue.notApplicable` (0): the one case of a category type whose
    /// samples say only that something happened (a mindful session, a high heart rate event).
    public static let notApplicable = EnumerationCase("notApplicable", 0)

    func encode(into writer: inout ProtoBytes) {
        writer.string(1, name)
        writer.int64(2, rawValue)
    }
}

/// A named set of raw values ("allAsleep" = {1, 3, 4, 5}).
public struct ValueGroup: Sendable, Hashable {
    /// The group's name.
    public var name: String
    /// Its raw values.
    public var rawValues: [Int64]

    /// Creates a group.
    public init(_ name: String, _ rawValues: [Int64]) {
        self.name = name
        self.rawValues = rawValues
    }
}

/// The physically possible range of a quantity type, in its canonical unit.
public struct ValueBounds: Sendable, Hashable {
    /// The lowest value, if any.
    public var min: Double?
    /// Whether ``min`` itself is allowed.
    public var minInclusive: Bool
    /// The highest value, if any.
    public var max: Double?
    /// Whether ``max`` itself is allowed.
    public var maxInclusive: Bool

    /// Creates bounds; both ends inclusive unless said otherwise.
    public init(min: Double? = nil, minInclusive: Bool = true, max: Double? = nil, maxInclusive: Bool = true) {
        self.min = min
        self.minInclusive = minInclusive
        self.max = max
        self.maxInclusive = maxInclusive
    }

    /// Zero or more.
    public static let nonNegative = ValueBounds(min: 0)
    /// More than zero.
    public static let positive = ValueBounds(min: 0, minInclusive: false)
    /// Zero to 10^10 in the canonical unit: a cumulative total (steps, meters, kilocalories, grams,
    /// millilitres) that no sample reaches in one person's lifetime. 10^10 steps is two a second,
    /// day and night, for 150 years; 10^10 m is 2 m/s for as long; 10^10 kcal is 180,000 kcal a
    /// day. Real totals stay orders of magnitude below; 1e300, whose sums are infinite, is refused.
    public static let lifetimeTotal = ValueBounds(min: 0, max: 1e10)
    /// Zero to 10^8 minutes (190 years): a cumulative time (exercise, stand, daylight minutes).
    public static let lifetimeMinutes = ValueBounds(min: 0, max: 1e8)
}

/// A metadata key a type requires or documents, with its value type.
public struct MetadataKeyUse: Sendable, Hashable {
    /// The raw key string.
    public var key: String
    /// The type of its value.
    public var valueType: MetadataValueKind

    /// Creates a key use.
    public init(_ key: String, _ valueType: MetadataValueKind) {
        self.key = key
        self.valueType = valueType
    }

    func encode(into writer: inout ProtoBytes) {
        writer.string(1, key)
        writer.int64(2, valueType.rawValue)
    }
}

/// A workout activity type with its raw value.
public struct WorkoutActivityTypeDefinition: Sendable, Hashable {
    /// "running".
    public var name: String
    /// HealthKit's raw value (37).
    public var rawValue: UInt32

    /// Creates a workout activity type.
    public init(_ name: String, _ rawValue: UInt32) {
        self.name = name
        self.rawValue = rawValue
    }
}

/// A metadata key a plugin owns.
public struct MetadataKeyDefinition: Sendable, Hashable {
    /// The raw key string ("HKTimeZone").
    public var key: String
    /// The type of its value.
    public var valueType: MetadataValueKind
    /// For number keys holding an enumeration's raw value: the allowed values.
    public var allowedValues: [EnumerationCase]
    /// For quantity keys: a unit of the dimension values must have.
    public var unit: String
    /// "Time zone".
    public var displayName: String
    /// Only the system may set it.
    public var readOnlyForApps: Bool

    /// Creates a key definition.
    public init(
        _ key: String, _ valueType: MetadataValueKind, displayName: String,
        unit: String = "", allowedValues: [EnumerationCase] = [], readOnlyForApps: Bool = false
    ) {
        self.key = key
        self.valueType = valueType
        self.allowedValues = allowedValues
        self.unit = unit
        self.displayName = displayName
        self.readOnlyForApps = readOnlyForApps
    }

    func encode(into writer: inout ProtoBytes) {
        writer.string(1, key)
        writer.int64(2, valueType.rawValue)
        for value in allowedValues { writer.message(3) { value.encode(into: &$0) } }
        writer.string(4, unit)
        writer.string(5, displayName)
        writer.bool(6, readOnlyForApps)
    }
}
