import SalusModel
import SalusProto
import SwiftProtobuf

/// The plugins that loaded and the catalog of every type, workout activity type and metadata
/// key they declared, frozen after loading. Safe to share between tasks.
package final class TypeRegistry: Sendable {
    /// The plugins that contributed, in load order.
    package let plugins: [LoadedPlugin]
    /// Their types' rules and validators: what `TypeCatalog.check` checks samples against.
    package let catalog: TypeCatalog

    init(plugins: [LoadedPlugin], catalog: TypeCatalog) {
        self.plugins = plugins
        self.catalog = catalog
    }

    /// A registry with nothing in it.
    package static let empty = TypeRegistry(plugins: [], catalog: .empty)

    /// This registry with `types` registered too, as if a plugin declared them (no plugin is
    /// listed for them); an identifier already registered keeps its plugin's rules. The result is
    /// a new frozen registry: for assembling a daemon with types no loaded plugin declares (tests
    /// of kinds the bundled plugins do not register yet).
    package func adding(_ types: [TypeRules]) -> TypeRegistry {
        let added = types.filter { catalog.types[$0.identifier] == nil }
        guard !added.isEmpty else { return self }
        return TypeRegistry(
            plugins: plugins,
            catalog: TypeCatalog(
                types: Array(catalog.types.values) + added, workoutActivityTypes: catalog.workoutActivityTypes.values,
                metadataKeys: catalog.metadataKeys.values, validators: catalog.validators))
    }

    /// Types and characteristics by identifier.
    package var types: [String: TypeRules] { catalog.types }
    /// Workout activity types by raw value.
    package var workoutActivityTypes: [UInt32: WorkoutActivityTypeRules] { catalog.workoutActivityTypes }
    /// Metadata keys by raw key string.
    package var metadataKeys: [String: MetadataKeyRules] { catalog.metadataKeys }

    /// The type with an identifier.
    package func type(_ identifier: String) -> TypeRules? { catalog.rules(for: identifier) }

    /// All types sorted by identifier.
    package var sortedTypes: [TypeRules] { catalog.sortedTypes }

    /// The raw values of a type's value group ("allAsleep" of sleep analysis).
    package func valueGroup(_ name: String, of identifier: String) -> [Int64]? {
        catalog.rules(for: identifier)?.valueGroup(named: name)
    }

    /// The workout activity type with a name ("running").
    package func workoutActivityType(named name: String) -> WorkoutActivityTypeRules? {
        catalog.workoutActivityType(named: name)
    }

    /// Runs only the owning plugin's validator on a protobuf-encoded `salus.v1.Sample`, as it
    /// is (no declared rule first): for checking a plugin. Nil when the plugin accepts it or has
    /// no validator; an undecodable sample or unknown type is refused.
    package func pluginRefusal(encodedSample: [UInt8]) -> PluginSampleRefusal? {
        guard let sample = try? Salus_V1_Sample(serializedBytes: encodedSample) else {
            return PluginSampleRefusal(field: "", value: "\(encodedSample.count) bytes", expected: "a protobuf-encoded salus.v1.Sample", message: nil)
        }
        guard let rules = catalog.rules(for: sample.type) else {
            return PluginSampleRefusal(field: "type", value: sample.type, expected: "a type a loaded plugin declares", message: nil)
        }
        return (catalog.validators[rules.pluginID] as? SampleValidator)?.validate(encodedSample: encodedSample)
    }
}
