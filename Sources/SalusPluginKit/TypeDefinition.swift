import SalusProtoCodec

/// One data type: the Swift form of `salus.v1.TypeDefinition`.
///
/// Use the factory functions (``quantity(_:displayName:unit:aggregation:bounds:area:)``,
/// ``category(_:displayName:cases:area:)``, ...) and the modifiers that return a changed copy
/// (``readOnly()``, ``requiring(_:)``, ``documenting(_:)``, ...), so that a plugin's types read as
/// one table with one row per type:
///
/// ```swift
/// static let types: [TypeDefinition] = [
///     .quantity("org.example.hydration.electrolytes", displayName: "Electrolytes", unit: "mg",
///               aggregation: .cumulative, bounds: .nonNegative, area: "nutrition"),
///     .category("org.example.hydration.thirst", displayName: "Thirst", cases: [.notApplicable])
///         .documenting(MetadataKeyUse("org.example.hydration.drink", .string)),
/// ]
/// ```
public struct TypeDefinition: Sendable, Hashable {
    /// HealthKit's identifier (bundled plugins) or a reverse-DNS one inside the plugin's id.
    public var identifier: String
    /// The kind of object.
    public var kind: TypeKind
    /// Quantity types: the canonical unit string.
    public var canonicalUnit: String = ""
    /// Quantity types: how values combine.
    public var aggregation: QuantityAggregation?
    /// Category and enumerated characteristic types: the cases.
    public var cases: [EnumerationCase] = []
    /// Old names of existing raw values.
    public var deprecatedAliases: [EnumerationCase] = []
    /// Named sets of raw values.
    public var valueGroups: [ValueGroup] = []
    /// Quantity types: the physically possible range in the canonical unit.
    public var bounds: ValueBounds?
    /// Keys every sample must carry.
    public var requiredMetadataKeys: [MetadataKeyUse] = []
    /// Keys the type documents as meaningful.
    public var optionalMetadataKeys: [MetadataKeyUse] = []
    /// Apps may read but not write it.
    public var readOnlyForApps = false
    /// Reads are authorized object by object.
    public var perObjectReadAuthorization = false
    /// Media types of attachments its samples accept.
    public var allowedAttachmentContentTypes: [String] = []
    /// "Step count".
    public var displayName: String
    /// Characteristic types: how the value is expressed.
    public var characteristicValueType: CharacteristicValueKind?
    /// The area the type belongs to, a short lowercase word ("vitals", "nutrition") that
    /// `salusctl types --area` filters on; empty: none.
    public var area: String = ""

    /// Creates a type of any kind; prefer the factory functions.
    public init(identifier: String, kind: TypeKind, displayName: String) {
        self.identifier = identifier
        self.kind = kind
        self.displayName = displayName
    }

    /// A quantity type.
    public static func quantity(
        _ identifier: String, displayName: String, unit: String, aggregation: QuantityAggregation,
        bounds: ValueBounds? = nil, area: String = ""
    ) -> TypeDefinition {
        var type = TypeDefinition(identifier: identifier, kind: .quantity, displayName: displayName)
        type.canonicalUnit = unit
        type.aggregation = aggregation
        type.bounds = bounds
        type.area = area
        return type
    }

    /// A category type with its enumeration.
    public static func category(
        _ identifier: String, displayName: String, cases: [EnumerationCase], area: String = ""
    ) -> TypeDefinition {
        var type = TypeDefinition(identifier: identifier, kind: .category, displayName: displayName)
        type.cases = cases
        type.area = area
        return type
    }

    /// A characteristic with an enumeration (read-only for apps, as HealthKit's).
    public static func characteristic(
        _ identifier: String, displayName: String, cases: [EnumerationCase], area: String = ""
    ) -> TypeDefinition {
        var type = TypeDefinition(identifier: identifier, kind: .characteristic, displayName: displayName)
        type.cases = cases
        type.characteristicValueType = .enumeration
        type.readOnlyForApps = true
        type.area = area
        return type
    }

    /// A correlation type: samples that group quantity and category samples (HealthKit's blood
    /// pressure and food). Which member types each holds is the model's rule
    /// (`Correlation.composition(of:)` in SalusModel): HealthKit's two have fixed rules, any other
    /// holds quantity and category samples.
    public static func correlation(_ identifier: String, displayName: String) -> TypeDefinition {
        TypeDefinition(identifier: identifier, kind: .correlation, displayName: displayName)
    }

    /// A date-valued characteristic (read-only for apps).
    public static func dateCharacteristic(
        _ identifier: String, displayName: String, area: String = ""
    ) -> TypeDefinition {
        var type = TypeDefinition(identifier: identifier, kind: .characteristic, displayName: displayName)
        type.characteristicValueType = .date
        type.readOnlyForApps = true
        type.area = area
        return type
    }

    // MARK: Modifiers: each returns a changed copy, so a table row stays one expression.

    /// This type, read-only for apps (HealthKit's walking steadiness, cycle deviations).
    public func readOnly() -> TypeDefinition {
        var type = self
        type.readOnlyForApps = true
        return type
    }

    /// This type, with `keys` added to the keys every sample must carry.
    public func requiring(_ keys: MetadataKeyUse...) -> TypeDefinition {
        var type = self
        type.requiredMetadataKeys += keys
        return type
    }

    /// This type, with `keys` added to the keys it documents as meaningful.
    public func documenting(_ keys: MetadataKeyUse...) -> TypeDefinition {
        var type = self
        type.optionalMetadataKeys += keys
        return type
    }

    /// This type, with old names of existing raw values (`asleep` = 1).
    public func withDeprecatedAliases(_ aliases: EnumerationCase...) -> TypeDefinition {
        var type = self
        type.deprecatedAliases += aliases
        return type
    }

    /// This type, with reads authorized object by object (vision prescriptions).
    public func readPerObject() -> TypeDefinition {
        var type = self
        type.perObjectReadAuthorization = true
        return type
    }

    /// This type, with its samples accepting attachments of `contentTypes` ("image/jpeg").
    public func acceptingAttachments(_ contentTypes: String...) -> TypeDefinition {
        var type = self
        type.allowedAttachmentContentTypes += contentTypes
        return type
    }

    /// This type, with named sets of raw values (`allAsleep` = {1, 3, 4, 5}).
    public func withValueGroups(_ groups: ValueGroup...) -> TypeDefinition {
        var type = self
        type.valueGroups += groups
        return type
    }

    /// This type, in `area` ("vitals").
    public func inArea(_ area: String) -> TypeDefinition {
        var type = self
        type.area = area
        return type
    }

    func encode(into writer: inout ProtoBytes) {
        writer.string(1, identifier)
        writer.int64(2, kind.rawValue)
        writer.string(3, canonicalUnit)
        writer.int64(4, aggregation?.rawValue ?? 0)
        for item in cases { writer.message(5) { item.encode(into: &$0) } }
        for alias in deprecatedAliases { writer.message(6) { alias.encode(into: &$0) } }
        for group in valueGroups {
            writer.message(7) { inner in
                inner.string(1, group.name)
                inner.packedInt64(2, group.rawValues)
            }
        }
        if let bounds {
            writer.message(8) { inner in
                if let min = bounds.min { inner.double(1, min, always: true) }
                inner.bool(2, bounds.minInclusive)
                if let max = bounds.max { inner.double(3, max, always: true) }
                inner.bool(4, bounds.maxInclusive)
            }
        }
        for key in requiredMetadataKeys { writer.message(9) { key.encode(into: &$0) } }
        for key in optionalMetadataKeys { writer.message(10) { key.encode(into: &$0) } }
        writer.bool(11, readOnlyForApps)
        writer.bool(12, perObjectReadAuthorization)
        for contentType in allowedAttachmentContentTypes { writer.string(13, contentType) }
        writer.string(14, displayName)
        writer.int64(15, characteristicValueType?.rawValue ?? 0)
        writer.string(16, area)
    }
}
