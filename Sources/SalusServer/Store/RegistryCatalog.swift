import SalusModel
import SalusPluginHost
import SalusStore

/// The plugins' type registry as the store's catalog of type rules.
struct RegistryCatalog: TypeCatalog {
    private let types: [TypeIdentifier: TypeInfo]

    init(registry: TypeRegistry) {
        var types: [TypeIdentifier: TypeInfo] = [:]
        for type in registry.types.values {
            var range: ClosedRange<Double>?
            if let bounds = type.bounds {
                range = (bounds.min ?? -Double.greatestFiniteMagnitude)...(bounds.max ?? Double.greatestFiniteMagnitude)
            }
            var categoryValues: Set<Int>?
            if type.kind == .category, !type.cases.isEmpty {
                categoryValues = Set((type.cases + type.deprecatedAliases).map { Int($0.rawValue) })
            }
            // Keys the plugins define for every type, then the type's own declarations.
            var metadataTypes = registry.metadataKeys.mapValues(\.valueType)
            for use in type.requiredMetadataKeys + type.optionalMetadataKeys {
                metadataTypes[use.key] = use.valueType
            }
            types[TypeIdentifier(rawValue: type.identifier)] = TypeInfo(
                kind: type.kind,
                canonicalUnit: type.canonicalUnit,
                aggregationStyle: type.aggregationStyle,
                isReadOnly: type.readOnlyForApps,
                categoryValues: categoryValues,
                valueGroups: Dictionary(uniqueKeysWithValues: type.valueGroups.map { ($0.name, Set($0.rawValues.map { Int($0) })) }),
                valueRange: range,
                requiredMetadataKeys: Set(type.requiredMetadataKeys.map(\.key)),
                metadataValueTypes: metadataTypes
            )
        }
        self.types = types
    }

    func typeInfo(for type: TypeIdentifier) -> TypeInfo? {
        types[type]
    }
}
