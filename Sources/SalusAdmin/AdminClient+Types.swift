import SalusKit
import SalusModel
import SalusProto
import SalusRPC

/// Everything the daemon has registered (salus.v1.Admin/ListTypes): the types with the plugin
/// that registered each, the workout activity types and the metadata keys, in the daemon's order.
public struct TypeListing: Sendable, Hashable {
    /// Every registered type, characteristics included.
    public var types: [RegisteredType]
    /// Every workout activity type (`running 37`).
    public var workoutActivityTypes: [RegisteredWorkoutActivityType]
    /// Every registered metadata key.
    public var metadataKeys: [RegisteredMetadataKey]
}

/// One registered type: what its samples carry and what apps may do with it.
public struct RegisteredType: Sendable, Hashable {
    /// The plugin that registered it (`org.salus.healthkit` for the built-in catalogue).
    public var pluginID: String
    /// `HKQuantityTypeIdentifierStepCount`.
    public var identifier: String
    /// What its samples carry; nil when the daemon sends a kind this client does not know.
    public var kind: ObjectKind?
    /// The unit its values are stored in (quantity types), else empty.
    public var canonicalUnit: String
    /// How its values aggregate (quantity types), else nil.
    public var aggregation: TypeAggregation?
    /// The enumeration of a category or characteristic type (`inBed 0`, `asleepCore 3`).
    public var cases: [TypeValueCase]
    /// Old names still accepted for some of `cases`' raw values.
    public var deprecatedAliases: [TypeValueCase]
    /// Named groups of raw values (`asleep {1,3,4,5}`).
    public var valueGroups: [TypeValueGroup]
    /// The range a value must lie in, if any.
    public var bounds: TypeValueBounds?
    /// Metadata keys every sample must carry.
    public var requiredMetadataKeys: [TypeMetadataKeyUse]
    /// Metadata keys a sample may carry.
    public var optionalMetadataKeys: [TypeMetadataKeyUse]
    /// Apps may read but never write it.
    public var readOnlyForApps: Bool
    /// Read access is granted per object (vision prescriptions, documents).
    public var perObjectReadAuthorization: Bool
    /// The content types its attachments may have.
    public var allowedAttachmentContentTypes: [String]
    /// The name shown to the owner.
    public var displayName: String
    /// The value of a characteristic type (an enumeration or a date); nil for other kinds.
    public var characteristicValue: CharacteristicValueKind?
    /// The area its plugin declares (activity, body, vitals, ...), or empty.
    public var area: String
    /// The daemon's entry, for the JSON.
    let proto: Salus_V1_RegisteredTypeInfo
}

/// How a quantity type's values aggregate (HKQuantityAggregationStyle).
public enum TypeAggregation: String, Sendable, Hashable, CaseIterable {
    case cumulative, discreteArithmetic, discreteTemporallyWeighted, discreteEquivalentContinuousLevel
}

/// What a characteristic type's value is.
public enum CharacteristicValueKind: String, Sendable, Hashable, CaseIterable {
    case enumeration, date
}

/// The value type of a metadata key.
public enum MetadataKeyValueType: String, Sendable, Hashable, CaseIterable {
    case string, number, bool, date, quantity
}

/// One case of a type's enumeration: its name and raw value.
public struct TypeValueCase: Sendable, Hashable {
    public var name: String
    public var rawValue: Int64

    public init(name: String, rawValue: Int64) {
        self.name = name
        self.rawValue = rawValue
    }
}

/// A named group of a type's raw values.
public struct TypeValueGroup: Sendable, Hashable {
    public var name: String
    public var rawValues: [Int64]
}

/// The range of a type's values; a nil end is open.
public struct TypeValueBounds: Sendable, Hashable {
    public var min: Double?
    public var minInclusive: Bool
    public var max: Double?
    public var maxInclusive: Bool
}

/// A metadata key a type uses, with its value type (nil: one this client does not know).
public struct TypeMetadataKeyUse: Sendable, Hashable {
    public var key: String
    public var valueType: MetadataKeyValueType?
}

/// A registered workout activity type (`running 37`).
public struct RegisteredWorkoutActivityType: Sendable, Hashable {
    public var pluginID: String
    public var name: String
    public var rawValue: UInt32
}

/// A registered metadata key.
public struct RegisteredMetadataKey: Sendable, Hashable {
    public var pluginID: String
    public var key: String
    /// Its value type; nil when the daemon sends one this client does not know.
    public var valueType: MetadataKeyValueType?
    /// The values it may take, if it is an enumeration.
    public var allowedValues: [TypeValueCase]
    /// The unit of a quantity value, or empty.
    public var unit: String
    public var displayName: String
    /// Apps may not set it.
    public var readOnlyForApps: Bool
    /// The daemon's definition, for the JSON.
    let proto: Salus_V1_MetadataKeyDefinition
}

extension AdminClient {
    /// Every registered type, workout activity type and metadata key
    /// (salus.v1.Admin/ListTypes), what `salusctl types` lists.
    public func types() async throws -> TypeListing {
        TypeListing(try await call(SalusMethods.Admin.listTypes, Salus_V1_ListTypesRequest()))
    }
}

extension TypeListing {
    init(_ response: Salus_V1_ListTypesResponse) {
        types = response.types.map(RegisteredType.init)
        workoutActivityTypes = response.workoutActivityTypes.map {
            RegisteredWorkoutActivityType(pluginID: $0.pluginID, name: $0.definition.name, rawValue: $0.definition.rawValue)
        }
        metadataKeys = response.metadataKeys.map {
            RegisteredMetadataKey(
                pluginID: $0.pluginID, key: $0.definition.key, valueType: MetadataKeyValueType($0.definition.valueType),
                allowedValues: $0.definition.allowedValues.map(TypeValueCase.init), unit: $0.definition.unit,
                displayName: $0.definition.displayName, readOnlyForApps: $0.definition.readOnlyForApps,
                proto: $0.definition)
        }
    }
}

extension RegisteredType {
    init(_ info: Salus_V1_RegisteredTypeInfo) {
        let type = info.definition
        pluginID = info.pluginID
        identifier = type.identifier
        kind = ObjectKind(rawValue: TypeListingJSON.lowerCamel(TypeListingJSON.name(type.kind), dropping: "OBJECT_KIND_"))
        canonicalUnit = type.canonicalUnit
        aggregation = TypeAggregation(rawValue: TypeListingJSON.lowerCamel(TypeListingJSON.name(type.aggregationStyle), dropping: "AGGREGATION_STYLE_"))
        cases = type.cases.map(TypeValueCase.init)
        deprecatedAliases = type.deprecatedAliases.map(TypeValueCase.init)
        valueGroups = type.valueGroups.map { TypeValueGroup(name: $0.name, rawValues: $0.rawValues) }
        bounds = type.hasBounds
            ? TypeValueBounds(
                min: type.bounds.optionalMin == nil ? nil : type.bounds.min, minInclusive: type.bounds.minInclusive,
                max: type.bounds.optionalMax == nil ? nil : type.bounds.max, maxInclusive: type.bounds.maxInclusive)
            : nil
        requiredMetadataKeys = type.requiredMetadataKeys.map { TypeMetadataKeyUse(key: $0.key, valueType: MetadataKeyValueType($0.valueType)) }
        optionalMetadataKeys = type.optionalMetadataKeys.map { TypeMetadataKeyUse(key: $0.key, valueType: MetadataKeyValueType($0.valueType)) }
        readOnlyForApps = type.readOnlyForApps
        perObjectReadAuthorization = type.perObjectReadAuthorization
        allowedAttachmentContentTypes = type.allowedAttachmentContentTypes
        displayName = type.displayName
        characteristicValue = CharacteristicValueKind(
            rawValue: TypeListingJSON.lowerCamel(TypeListingJSON.name(type.characteristicValueType), dropping: "CHARACTERISTIC_VALUE_TYPE_"))
        area = type.area
        proto = info
    }
}

extension TypeValueCase {
    init(_ item: Salus_V1_EnumerationCase) {
        self.init(name: item.name, rawValue: item.rawValue)
    }
}

extension MetadataKeyValueType {
    init?(_ type: Salus_V1_MetadataValueType) {
        self.init(rawValue: TypeListingJSON.lowerCamel(TypeListingJSON.name(type), dropping: "METADATA_VALUE_TYPE_"))
    }
}
