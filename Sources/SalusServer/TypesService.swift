import SalusModel
import SalusPluginHost
import SalusProto
import SalusRPC

/// salus.v1.Admin/ListPlugins and /ListTypes: what the daemon loaded, for `salusctl plugins` and
/// `salusctl types`. Registered on the admin socket only.
package enum TypesService {
    /// Adds the methods to `router`, answering from a load report (frozen after start).
    package static func register(into router: inout RPCRouter, plugins: PluginLoadReport, directories: [String]) {
        let pluginsResponse = Self.pluginsResponse(plugins, directories: directories)
        let typesResponse = Self.typesResponse(plugins.registry)
        router.registerUnary(SalusMethods.Admin.listPlugins) { (_: Salus_V1_ListPluginsRequest, _) -> Salus_V1_ListPluginsResponse in
            pluginsResponse
        }
        router.registerUnary(SalusMethods.Admin.listTypes) { (_: Salus_V1_ListTypesRequest, _) -> Salus_V1_ListTypesResponse in
            typesResponse
        }
    }

    static func pluginsResponse(_ report: PluginLoadReport, directories: [String]) -> Salus_V1_ListPluginsResponse {
        var response = Salus_V1_ListPluginsResponse()
        response.directories = directories
        response.loaded = report.loaded.map { plugin in
            Salus_V1_LoadedPluginInfo.with {
                $0.path = plugin.path
                $0.id = plugin.id
                $0.name = plugin.name
                $0.version = plugin.version
                $0.abiMajor = UInt32(plugin.abiMajor)
                $0.abiMinor = UInt32(plugin.abiMinor)
                $0.bundled = plugin.isBundled
                $0.hasValidator_p = plugin.hasValidator
                $0.typeIdentifiers = plugin.typeIdentifiers
                $0.workoutActivityTypeCount = UInt32(plugin.workoutActivityTypeCount)
                $0.metadataKeyCount = UInt32(plugin.metadataKeyCount)
            }
        }
        response.refused = report.refused.map { plugin in
            Salus_V1_RefusedPluginInfo.with {
                $0.path = plugin.path
                $0.id = plugin.id ?? ""
                $0.code = plugin.reason.code.rawValue
                $0.reason = plugin.reason.message
            }
        }
        return response
    }

    static func typesResponse(_ registry: TypeRegistry) -> Salus_V1_ListTypesResponse {
        var response = Salus_V1_ListTypesResponse()
        response.types = registry.sortedTypes.map { type in
            Salus_V1_RegisteredTypeInfo.with {
                $0.pluginID = type.pluginID
                $0.definition = definition(type)
            }
        }
        response.workoutActivityTypes = registry.workoutActivityTypes.values.sorted { $0.rawValue < $1.rawValue }.map { activity in
            Salus_V1_RegisteredWorkoutActivityTypeInfo.with {
                $0.pluginID = activity.pluginID
                $0.definition = Salus_V1_WorkoutActivityType.with {
                    $0.name = activity.name
                    $0.rawValue = activity.rawValue
                }
            }
        }
        response.metadataKeys = registry.metadataKeys.values.sorted { $0.key < $1.key }.map { key in
            Salus_V1_RegisteredMetadataKeyInfo.with {
                $0.pluginID = key.pluginID
                $0.definition = Salus_V1_MetadataKeyDefinition.with {
                    $0.key = key.key
                    $0.valueType = valueType(key.valueType)
                    $0.allowedValues = key.allowedValues.map(enumerationCase)
                    $0.unit = key.unit?.description ?? ""
                    $0.displayName = key.displayName
                    $0.readOnlyForApps = key.readOnlyForApps
                }
            }
        }
        return response
    }

    static func definition(_ type: TypeRules) -> Salus_V1_TypeDefinition {
        Salus_V1_TypeDefinition.with {
            $0.identifier = type.identifier
            $0.kind = Salus_V1_ObjectKind(rawValue: type.kind.wireNumber) ?? .unspecified
            $0.canonicalUnit = type.canonicalUnitText
            $0.aggregationStyle = switch type.aggregationStyle {
            case .cumulative?: .cumulative
            case .discreteArithmetic?: .discreteArithmetic
            case .discreteTemporallyWeighted?: .discreteTemporallyWeighted
            case .discreteEquivalentContinuousLevel?: .discreteEquivalentContinuousLevel
            case nil: .unspecified
            }
            $0.cases = type.cases.map(enumerationCase)
            $0.deprecatedAliases = type.deprecatedAliases.map(enumerationCase)
            $0.valueGroups = type.valueGroups.map { group in
                Salus_V1_ValueGroup.with {
                    $0.name = group.name
                    $0.rawValues = group.rawValues
                }
            }
            if let bounds = type.bounds {
                $0.bounds = Salus_V1_ValueBounds.with {
                    if let min = bounds.min { $0.min = min }
                    $0.minInclusive = bounds.minInclusive
                    if let max = bounds.max { $0.max = max }
                    $0.maxInclusive = bounds.maxInclusive
                }
            }
            $0.requiredMetadataKeys = type.requiredMetadataKeys.map(keyUse)
            $0.optionalMetadataKeys = type.optionalMetadataKeys.map(keyUse)
            $0.readOnlyForApps = type.readOnlyForApps
            $0.perObjectReadAuthorization = type.perObjectReadAuthorization
            $0.allowedAttachmentContentTypes = type.allowedAttachmentContentTypes
            $0.displayName = type.displayName
            $0.area = type.area
            if type.kind == .characteristic {
                $0.characteristicValueType = type.isDateCharacteristic ? .date : .enumeration
            }
        }
    }

    static func enumerationCase(_ item: TypeRules.Case) -> Salus_V1_EnumerationCase {
        Salus_V1_EnumerationCase.with {
            $0.name = item.name
            $0.rawValue = item.rawValue
        }
    }

    static func keyUse(_ use: TypeRules.MetadataKeyUse) -> Salus_V1_TypeMetadataKey {
        Salus_V1_TypeMetadataKey.with {
            $0.key = use.key
            $0.valueType = valueType(use.valueType)
        }
    }

    static func valueType(_ type: MetadataValueType) -> Salus_V1_MetadataValueType {
        switch type {
        case .string: .string
        case .number: .number
        case .bool: .bool
        case .date: .date
        case .quantity: .quantity
        }
    }
}
