import SalusModel

/// What the store needs to know about a data type: its kind, canonical unit and the rules a
/// sample of it must follow.
///
/// The service layer builds these from the frozen type registry (plugins' manifests); tests
/// build them by hand. Everything but `kind` is optional: a rule that is absent is not checked.
public struct TypeInfo: Hashable, Sendable {
    /// The kind of object the type's samples carry.
    public var kind: ObjectKind
    /// Quantity types: the unit values are stored in (`count/min` for heart rate). Required for
    /// quantity types.
    public var canonicalUnit: SalusUnit?
    /// Quantity types: how values combine; decides whether a workout statistic of this type is
    /// stored as a sum (cumulative) or an average (discrete).
    public var aggregationStyle: AggregationStyle?
    /// Whether apps may not write the type (walking steadiness, cycle deviations).
    public var isReadOnly: Bool
    /// Category types: the raw values of the type's enumeration; nil accepts any integer.
    public var categoryValues: Set<Int>?
    /// Category types: named groups of raw values (`"allAsleep"`: 1, 3, 4, 5) that predicates
    /// may name.
    public var valueGroups: [String: Set<Int>]
    /// Quantity types: the allowed range in the canonical unit; nil allows any finite value.
    public var valueRange: ClosedRange<Double>?
    /// Metadata keys every sample of the type must carry (`HKMenstrualCycleStart`).
    public var requiredMetadataKeys: Set<String>
    /// The value type of metadata keys the type declares; other keys take any type.
    public var metadataValueTypes: [String: MetadataValueType]

    /// Creates a type description.
    public init(
        kind: ObjectKind,
        canonicalUnit: SalusUnit? = nil,
        aggregationStyle: AggregationStyle? = nil,
        isReadOnly: Bool = false,
        categoryValues: Set<Int>? = nil,
        valueGroups: [String: Set<Int>] = [:],
        valueRange: ClosedRange<Double>? = nil,
        requiredMetadataKeys: Set<String> = [],
        metadataValueTypes: [String: MetadataValueType] = [:]
    ) {
        self.kind = kind
        self.canonicalUnit = canonicalUnit
        self.aggregationStyle = aggregationStyle
        self.isReadOnly = isReadOnly
        self.categoryValues = categoryValues
        self.valueGroups = valueGroups
        self.valueRange = valueRange
        self.requiredMetadataKeys = requiredMetadataKeys
        self.metadataValueTypes = metadataValueTypes
    }
}

/// Where the store looks up types: kind, canonical unit, read-only flag, value groups, required
/// metadata.
///
/// **Rule: answers must not change while the store is open**, and `typeInfo(for:)` must be
/// cheap and must not block: the store calls it on its SQLite threads for every sample saved and
/// every predicate compiled. The daemon's registry is frozen once plugins are loaded, which is
/// what this rule asks for. A changing catalog would let one batch be checked against two
/// different rule sets.
public protocol TypeCatalog: Sendable {
    /// The type's description, or nil when the type is unknown (saving it is an error; querying
    /// it is allowed, so data of a removed plugin stays readable).
    func typeInfo(for type: TypeIdentifier) -> TypeInfo?
}

/// A fixed dictionary of types, for tests and for callers that build the table up front.
public struct StaticTypeCatalog: TypeCatalog {
    /// The types by identifier.
    public var types: [TypeIdentifier: TypeInfo]

    /// Creates a catalog from a dictionary.
    public init(_ types: [TypeIdentifier: TypeInfo]) {
        self.types = types
    }

    /// The type's description, or nil.
    public func typeInfo(for type: TypeIdentifier) -> TypeInfo? {
        types[type]
    }
}
