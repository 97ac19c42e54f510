/// Every type, workout activity type and metadata key the loaded plugins declared, with the
/// plugins' own sample validators: the one place a sample's rules are looked up.
///
/// **Rule: a catalog never changes once built.** The plugin host builds it after loading and the
/// daemon shares it between the store, the services and the statistics engine; each reads it on
/// its own threads without locks. A catalog that changed while the store was open would let one
/// batch be checked against two rule sets.
package struct TypeCatalog: Sendable {
    /// Types and characteristics by identifier.
    package let types: [String: TypeRules]
    /// Workout activity types by raw value.
    package let workoutActivityTypes: [UInt32: WorkoutActivityTypeRules]
    /// Metadata keys by raw key string.
    package let metadataKeys: [String: MetadataKeyRules]
    /// Sample validators by plugin id.
    package let validators: [String: any SampleValidating]

    /// A catalog of `types`, `workoutActivityTypes` and `metadataKeys`; `validators` are keyed
    /// by the plugin id that `TypeRules.pluginID` names.
    package init(
        types: some Sequence<TypeRules>, workoutActivityTypes: some Sequence<WorkoutActivityTypeRules> = [],
        metadataKeys: some Sequence<MetadataKeyRules> = [], validators: [String: any SampleValidating] = [:]
    ) {
        self.types = Dictionary(types.map { ($0.identifier, $0) }) { _, last in last }
        self.workoutActivityTypes = Dictionary(workoutActivityTypes.map { ($0.rawValue, $0) }) { _, last in last }
        self.metadataKeys = Dictionary(metadataKeys.map { ($0.key, $0) }) { _, last in last }
        self.validators = validators
    }

    /// A catalog with nothing in it.
    package static let empty = TypeCatalog(types: [])

    /// The rules of a type, or nil when no plugin declares it.
    package func rules(for type: TypeIdentifier) -> TypeRules? { types[type.rawValue] }

    /// The rules of a type, or nil when no plugin declares it.
    package func rules(for identifier: String) -> TypeRules? { types[identifier] }

    /// All types sorted by identifier.
    package var sortedTypes: [TypeRules] { types.values.sorted { $0.identifier < $1.identifier } }

    /// The workout activity type with a name ("running").
    package func workoutActivityType(named name: String) -> WorkoutActivityTypeRules? {
        workoutActivityTypes.values.first { $0.name == name }
    }

    /// Whether the plugin that owns a type offers a validator that inspects its samples.
    package func hasValidator(for identifier: String) -> Bool {
        types[identifier].map { $0.validated && validators[$0.pluginID] != nil } ?? false
    }

    /// The value type a metadata key must have on samples of `type`: the type's own declaration
    /// first, then the key's registration; nil when neither says.
    package func metadataValueType(_ key: String, on type: TypeRules) -> MetadataValueType? {
        // Searched in place: joining the two lists made an array per key of every sample checked.
        (type.requiredMetadataKeys.first { $0.key == key } ?? type.optionalMetadataKeys.first { $0.key == key })?.valueType
            ?? metadataKeys[key]?.valueType
    }
}

/// A plugin's own check of samples of its types, run after every declared rule has passed.
///
/// The sample it gets has its quantity in the type's canonical unit. Called from several
/// threads at once.
package protocol SampleValidating: Sendable {
    /// The errors of `sample`, whose fields are written under `path` ("samples[3]"); empty
    /// when acceptable.
    func validationErrors(of sample: Sample, at path: String) -> [ValidationError]
}
