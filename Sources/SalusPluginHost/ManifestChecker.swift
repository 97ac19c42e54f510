import SalusModel
import SalusProto

/// Checks one decoded manifest against the rules of the ABI and against what earlier plugins
/// registered, and turns it into registry entries. The first violation refuses the plugin.
struct ManifestChecker {
    /// What the plugins accepted so far own.
    struct Owners {
        var pluginIDs: [String: String] = [:]            // plugin id → path
        var identifiers: [String: String] = [:]          // type identifier → plugin id
        var workoutRawValues: [UInt32: String] = [:]     // raw value → "name (plugin id)"
        var workoutNames: [String: String] = [:]         // name → plugin id
        var metadataKeys: [String: MetadataKeyRules] = [:]
    }

    /// The checked content of one manifest.
    struct Accepted {
        var types: [TypeRules]
        var workoutActivityTypes: [WorkoutActivityTypeRules]
        var metadataKeys: [MetadataKeyRules]
    }

    let manifest: Salus_V1_PluginManifest
    let isBundled: Bool
    let owners: Owners

    typealias Refusal = PluginRefusal

    func check() throws(PluginRefusal) -> Accepted {
        let id = manifest.id
        guard !id.isEmpty else { throw Refusal(.invalidManifest, "id: empty; expected a reverse-DNS plugin id such as \"org.example.migraine\"") }
        guard Naming.isReverseDNS(id) else {
            throw Refusal(.notReverseDNS, "id: \"\(id)\" is not reverse-DNS; expected lowercase top-level domain first, such as \"org.example.migraine\"")
        }
        if let other = owners.pluginIDs[id] {
            throw Refusal(.duplicatePluginID, "id: \"\(id)\" is already loaded from \(other); expected each plugin id once")
        }
        guard !manifest.name.isEmpty else { throw Refusal(.invalidManifest, "name: empty; expected a human-readable plugin name") }
        guard !manifest.version.isEmpty else { throw Refusal(.invalidManifest, "version: empty; expected the plugin's version such as \"1.0.0\"") }

        // Metadata keys first: the types' key uses are checked against them.
        var keys: [MetadataKeyRules] = []
        var keysHere: [String: MetadataKeyRules] = [:]
        for (index, definition) in manifest.metadataKeys.enumerated() {
            let key = try checkMetadataKey(definition, field: "metadata_keys[\(index)]")
            if keysHere[key.key] != nil {
                throw Refusal(.duplicateIdentifier, "metadata_keys[\(index)].key: \"\(key.key)\" is defined twice in this manifest; expected each key once")
            }
            keysHere[key.key] = key
            keys.append(key)
        }

        var types: [TypeRules] = []
        var identifiersHere: Set<String> = []
        for (list, definitions, characteristic) in [
            ("types", manifest.types, false), ("characteristic_types", manifest.characteristicTypes, true),
        ] {
            for (index, definition) in definitions.enumerated() {
                let field = "\(list)[\(index)]"
                let type = try checkType(definition, field: field, characteristic: characteristic, keysHere: keysHere)
                if !identifiersHere.insert(type.identifier).inserted {
                    throw Refusal(.duplicateIdentifier, "\(field).identifier: \"\(type.identifier)\" is declared twice in this manifest; expected each identifier once")
                }
                types.append(type)
            }
        }

        // The validator sees only the types the manifest names, when it names any.
        if !manifest.validatedTypes.isEmpty {
            let sampleTypes = Set(manifest.types.map(\.identifier))
            var validated: Set<String> = []
            for (index, identifier) in manifest.validatedTypes.enumerated() {
                guard sampleTypes.contains(identifier) else {
                    throw Refusal(
                        .invalidManifest,
                        "validated_types[\(index)]: \"\(identifier)\" is not a sample type this manifest declares; expected one of the identifiers in types")
                }
                validated.insert(identifier)
            }
            for index in types.indices { types[index].validated = validated.contains(types[index].identifier) }
        }

        var activities: [WorkoutActivityTypeRules] = []
        var rawValuesHere: [UInt32: String] = [:]
        for (index, activity) in manifest.workoutActivityTypes.enumerated() {
            let field = "workout_activity_types[\(index)]"
            guard !activity.name.isEmpty else { throw Refusal(.invalidManifest, "\(field).name: empty; expected a name such as \"running\"") }
            if !isBundled {
                try checkThirdPartyName(activity.name, field: "\(field).name", what: "workout activity type name")
                guard activity.rawValue >= 10_000 else {
                    throw Refusal(.reservedIdentifier, "\(field).raw_value: \(activity.rawValue) is in HealthKit's range; expected 10000 or more for a third-party workout activity type")
                }
            }
            if let owner = owners.workoutRawValues[activity.rawValue] ?? rawValuesHere[activity.rawValue] {
                throw Refusal(.duplicateIdentifier, "\(field).raw_value: \(activity.rawValue) (\(activity.name)) is already registered as \(owner); expected a raw value no other workout activity type uses")
            }
            if let owner = owners.workoutNames[activity.name] {
                throw Refusal(.duplicateIdentifier, "\(field).name: \"\(activity.name)\" is already registered by \(owner); expected a name no other plugin uses")
            }
            rawValuesHere[activity.rawValue] = "\(activity.name) (\(id))"
            activities.append(WorkoutActivityTypeRules(name: activity.name, rawValue: activity.rawValue, pluginID: id))
        }
        if Set(activities.map(\.name)).count != activities.count {
            throw Refusal(.duplicateIdentifier, "workout_activity_types: a name appears twice; expected each name once")
        }
        return Accepted(types: types, workoutActivityTypes: activities, metadataKeys: keys)
    }

    // MARK: Names

    /// Third-party names live inside the plugin's id and never in HealthKit's namespace.
    private func checkThirdPartyName(_ name: String, field: String, what: String) throws(PluginRefusal) {
        if Naming.isHealthKitName(name) {
            throw Refusal(.reservedIdentifier, "\(field): \"\(name)\" is in HealthKit's HK namespace, which only the bundled plugins may use; expected a reverse-DNS \(what) starting with \"\(manifest.id).\"")
        }
        guard Naming.isReverseDNS(name) else {
            throw Refusal(.notReverseDNS, "\(field): \"\(name)\" is not a reverse-DNS \(what); expected a name such as \"\(manifest.id).example\"")
        }
        guard name.hasPrefix(manifest.id + ".") else {
            throw Refusal(.reservedIdentifier, "\(field): \"\(name)\" is outside the plugin's namespace; expected a \(what) starting with \"\(manifest.id).\"")
        }
    }

    private func checkIdentifier(_ identifier: String, field: String, what: String) throws(PluginRefusal) {
        guard !identifier.isEmpty else { throw Refusal(.invalidManifest, "\(field): empty; expected a \(what)") }
        if isBundled {
            guard Naming.isHealthKitName(identifier) || identifier.hasPrefix(manifest.id + ".") else {
                throw Refusal(.reservedIdentifier, "\(field): \"\(identifier)\" is neither a HealthKit name nor inside \"\(manifest.id).\"; expected one of the two")
            }
        } else {
            try checkThirdPartyName(identifier, field: field, what: what)
        }
    }

    // MARK: Metadata keys

    private func checkMetadataKey(_ definition: Salus_V1_MetadataKeyDefinition, field: String) throws(PluginRefusal) -> MetadataKeyRules {
        try checkIdentifier(definition.key, field: "\(field).key", what: "metadata key")
        if let owner = owners.metadataKeys[definition.key] {
            throw Refusal(.duplicateIdentifier, "\(field).key: \"\(definition.key)\" is already defined by \(owner.pluginID); expected a key no other plugin defines")
        }
        let valueType = try metadataValueType(definition.valueType, field: "\(field).value_type")
        var unit: SalusUnit?
        if valueType == .quantity {
            guard !definition.unit.isEmpty else {
                throw Refusal(.invalidManifest, "\(field).unit: empty for quantity key \"\(definition.key)\"; expected a unit of the values' dimension such as \"s\"")
            }
            unit = try parseUnit(definition.unit, field: "\(field).unit")
        } else if !definition.unit.isEmpty {
            throw Refusal(.invalidManifest, "\(field).unit: \"\(definition.unit)\" on a \(valueType) key; expected no unit unless the value type is quantity")
        }
        if !definition.allowedValues.isEmpty && valueType != .number {
            throw Refusal(.invalidManifest, "\(field).allowed_values: given for a \(valueType) key; expected allowed values only on number keys")
        }
        let allowed = try checkCases(definition.allowedValues, field: "\(field).allowed_values")
        guard !definition.displayName.isEmpty else {
            throw Refusal(.invalidManifest, "\(field).display_name: empty for \"\(definition.key)\"; expected a human-readable name")
        }
        return MetadataKeyRules(
            key: definition.key, valueType: valueType, allowedValues: allowed, unit: unit,
            displayName: definition.displayName, readOnlyForApps: definition.readOnlyForApps, pluginID: manifest.id)
    }

    private func metadataValueType(_ type: Salus_V1_MetadataValueType, field: String) throws(PluginRefusal) -> MetadataValueType {
        switch type {
        case .string: return .string
        case .number: return .number
        case .bool: return .bool
        case .date: return .date
        case .quantity: return .quantity
        case .unspecified, .UNRECOGNIZED:
            throw Refusal(.invalidManifest, "\(field): \(type.rawValue) is not a metadata value type; expected STRING, NUMBER, BOOL, DATE or QUANTITY")
        }
    }

    private func parseUnit(_ text: String, field: String) throws(PluginRefusal) -> SalusUnit {
        do {
            return try SalusUnit(parsing: text)
        } catch {
            throw Refusal(.unparseableUnit, "\(field): \"\(text)\" is not a unit: \(error.message)")
        }
    }

    // MARK: Enumerations

    private func checkCases(_ cases: [Salus_V1_EnumerationCase], field: String) throws(PluginRefusal) -> [TypeRules.Case] {
        var names: Set<String> = []
        var rawValues: [Int64: String] = [:]
        var result: [TypeRules.Case] = []
        for (index, item) in cases.enumerated() {
            guard !item.name.isEmpty else { throw Refusal(.invalidManifest, "\(field)[\(index)].name: empty; expected the case's name") }
            guard names.insert(item.name).inserted else {
                throw Refusal(.invalidManifest, "\(field)[\(index)].name: \"\(item.name)\" appears twice; expected unique case names")
            }
            if let other = rawValues[item.rawValue] {
                throw Refusal(.duplicateRawValue, "\(field)[\(index)].raw_value: \(item.rawValue) (\(item.name)) is already the raw value of \(other); expected unique raw values (declare old names as deprecated_aliases)")
            }
            rawValues[item.rawValue] = item.name
            result.append(TypeRules.Case(name: item.name, rawValue: item.rawValue))
        }
        return result
    }

    // MARK: Types

    private func checkType(
        _ definition: Salus_V1_TypeDefinition, field: String, characteristic: Bool,
        keysHere: [String: MetadataKeyRules]
    ) throws(PluginRefusal) -> TypeRules {
        let identifier = definition.identifier
        try checkIdentifier(identifier, field: "\(field).identifier", what: "type identifier")
        let name = "\(field) (\(identifier))"
        if let owner = owners.identifiers[identifier] {
            throw Refusal(.duplicateIdentifier, "\(name).identifier: \"\(identifier)\" is already registered by \(owner); expected an identifier no other plugin registers")
        }
        guard let kind = ObjectKind(wireNumber: definition.kind.rawValue) else {
            let names = ObjectKind.allCases.map { String($0.wireName.dropFirst("OBJECT_KIND_".count)) }
            throw Refusal(.invalidManifest, "\(name).kind: \(definition.kind.rawValue) is not an object kind; expected \(names.dropLast().joined(separator: ", ")) or \(names.last ?? "")")
        }
        if characteristic != (kind == .characteristic) {
            throw Refusal(.invalidManifest, characteristic
                ? "\(name).kind: \(kind) in characteristic_types; expected CHARACTERISTIC"
                : "\(name).kind: characteristic in types; expected characteristics in characteristic_types")
        }
        guard !definition.displayName.isEmpty else {
            throw Refusal(.invalidManifest, "\(name).display_name: empty; expected a human-readable name")
        }

        var unit: SalusUnit?
        var style: AggregationStyle?
        var bounds: TypeRules.Bounds?
        if kind == .quantity {
            guard !definition.canonicalUnit.isEmpty else {
                throw Refusal(.invalidManifest, "\(name).canonical_unit: empty; expected the unit values are stored in, such as \"count/min\"")
            }
            let parsed = try parseUnit(definition.canonicalUnit, field: "\(name).canonical_unit")
            switch definition.aggregationStyle {
            case .cumulative: style = .cumulative
            case .discreteArithmetic: style = .discreteArithmetic
            case .discreteTemporallyWeighted: style = .discreteTemporallyWeighted
            case .discreteEquivalentContinuousLevel: style = .discreteEquivalentContinuousLevel
            case .unspecified, .UNRECOGNIZED:
                throw Refusal(.invalidManifest, "\(name).aggregation_style: \(definition.aggregationStyle.rawValue) is not an aggregation style; expected CUMULATIVE, DISCRETE_ARITHMETIC, DISCRETE_TEMPORALLY_WEIGHTED or DISCRETE_EQUIVALENT_CONTINUOUS_LEVEL")
            }
            try checkDimension(parsed, text: definition.canonicalUnit, style: style!, name: name)
            unit = parsed
            if definition.hasBounds {
                let proto = definition.bounds
                let min: Double? = proto.optionalMin == nil ? nil : proto.min
                let max: Double? = proto.optionalMax == nil ? nil : proto.max
                if let min, !min.isFinite { throw Refusal(.invalidManifest, "\(name).bounds.min: \(min); expected a finite number") }
                if let max, !max.isFinite { throw Refusal(.invalidManifest, "\(name).bounds.max: \(max); expected a finite number") }
                if let min, let max, min > max {
                    throw Refusal(.invalidManifest, "\(name).bounds: min \(min) is greater than max \(max); expected min ≤ max")
                }
                bounds = TypeRules.Bounds(min: min, minInclusive: proto.minInclusive, max: max, maxInclusive: proto.maxInclusive)
            }
        } else {
            if !definition.canonicalUnit.isEmpty {
                throw Refusal(.invalidManifest, "\(name).canonical_unit: \"\(definition.canonicalUnit)\" on a \(kind) type; expected a unit only on quantity types")
            }
            if definition.aggregationStyle != .unspecified {
                throw Refusal(.invalidManifest, "\(name).aggregation_style: set on a \(kind) type; expected an aggregation style only on quantity types")
            }
            if definition.hasBounds {
                throw Refusal(.invalidManifest, "\(name).bounds: set on a \(kind) type; expected bounds only on quantity types")
            }
        }

        var isDate = false
        if kind == .characteristic {
            switch definition.characteristicValueType {
            case .enumeration: isDate = false
            case .date: isDate = true
            case .unspecified, .UNRECOGNIZED:
                throw Refusal(.invalidManifest, "\(name).characteristic_value_type: \(definition.characteristicValueType.rawValue); expected ENUMERATION or DATE")
            }
        } else if definition.characteristicValueType != .unspecified {
            throw Refusal(.invalidManifest, "\(name).characteristic_value_type: set on a \(kind) type; expected it only on characteristics")
        }

        let enumerated = kind == .category || (kind == .characteristic && !isDate)
        let cases = try checkCases(definition.cases, field: "\(name).cases")
        if enumerated && cases.isEmpty {
            throw Refusal(.invalidManifest, "\(name).cases: empty; expected at least one case for a \(kind) type (HKCategoryValue types declare notApplicable = 0)")
        }
        if !enumerated && (!cases.isEmpty || !definition.deprecatedAliases.isEmpty || !definition.valueGroups.isEmpty) {
            throw Refusal(.invalidManifest, "\(name).cases: given for a \(isDate ? "date characteristic" : "\(kind)") type; expected cases, aliases and value groups only on category and enumerated characteristic types")
        }
        var aliases: [TypeRules.Case] = []
        for (index, alias) in definition.deprecatedAliases.enumerated() {
            let aliasField = "\(name).deprecated_aliases[\(index)]"
            guard cases.contains(where: { $0.rawValue == alias.rawValue }) else {
                throw Refusal(.invalidManifest, "\(aliasField).raw_value: \(alias.rawValue) (\(alias.name)) is not the raw value of any case; expected an alias of an existing case")
            }
            guard !alias.name.isEmpty, !cases.contains(where: { $0.name == alias.name }),
                !aliases.contains(where: { $0.name == alias.name })
            else {
                throw Refusal(.invalidManifest, "\(aliasField).name: \"\(alias.name)\" is empty or already a case or alias name; expected a distinct old name")
            }
            aliases.append(TypeRules.Case(name: alias.name, rawValue: alias.rawValue))
        }
        var groups: [TypeRules.ValueGroup] = []
        for (index, group) in definition.valueGroups.enumerated() {
            let groupField = "\(name).value_groups[\(index)]"
            guard !group.name.isEmpty, !groups.contains(where: { $0.name == group.name }) else {
                throw Refusal(.invalidManifest, "\(groupField).name: \"\(group.name)\" is empty or repeated; expected a distinct group name")
            }
            guard !group.rawValues.isEmpty else {
                throw Refusal(.invalidManifest, "\(groupField).raw_values: empty; expected at least one raw value")
            }
            for value in group.rawValues where !cases.contains(where: { $0.rawValue == value }) {
                throw Refusal(.invalidManifest, "\(groupField).raw_values: \(value) is not the raw value of any case; expected a subset of the cases")
            }
            groups.append(TypeRules.ValueGroup(name: group.name, rawValues: group.rawValues))
        }

        let required = try checkKeyUses(definition.requiredMetadataKeys, field: "\(name).required_metadata_keys", keysHere: keysHere)
        let optional = try checkKeyUses(definition.optionalMetadataKeys, field: "\(name).optional_metadata_keys", keysHere: keysHere)
        for use in optional where required.contains(where: { $0.key == use.key }) {
            throw Refusal(.invalidManifest, "\(name).optional_metadata_keys: \"\(use.key)\" is also required; expected each key in one list")
        }
        if (kind == .characteristic) && (!required.isEmpty || !optional.isEmpty) {
            throw Refusal(.invalidManifest, "\(name): metadata keys on a characteristic; expected metadata only on sample types")
        }
        if definition.perObjectReadAuthorization && kind == .characteristic {
            throw Refusal(.invalidManifest, "\(name).per_object_read_authorization: set on a characteristic; expected it only on sample types")
        }
        for (index, contentType) in definition.allowedAttachmentContentTypes.enumerated() {
            guard Naming.isMediaType(contentType) else {
                throw Refusal(.invalidManifest, "\(name).allowed_attachment_content_types[\(index)]: \"\(contentType)\" is not a media type; expected \"type/subtype\" such as \"image/jpeg\"")
            }
        }
        if kind == .characteristic && !definition.allowedAttachmentContentTypes.isEmpty {
            throw Refusal(.invalidManifest, "\(name).allowed_attachment_content_types: set on a characteristic; expected attachments only on sample types")
        }

        let area = definition.area
        guard area.isEmpty || Naming.isArea(area) else {
            throw Refusal(.invalidManifest, "\(name).area: \"\(area)\" is not an area name; expected a short lowercase word such as \"vitals\" (letters, digits and '-', starting with a letter), or nothing")
        }

        return TypeRules(
            identifier: identifier, kind: kind, canonicalUnit: unit,
            canonicalUnitText: unit == nil ? nil : definition.canonicalUnit, aggregationStyle: style, cases: cases,
            deprecatedAliases: aliases, valueGroups: groups, bounds: bounds, requiredMetadataKeys: required,
            optionalMetadataKeys: optional, readOnlyForApps: definition.readOnlyForApps || kind == .characteristic || kind == .activitySummary,
            perObjectReadAuthorization: definition.perObjectReadAuthorization,
            allowedAttachmentContentTypes: definition.allowedAttachmentContentTypes,
            displayName: definition.displayName, isDateCharacteristic: isDate, area: area, pluginID: manifest.id)
    }

    /// The dimension an aggregation style needs: sums of temperatures or sound levels mean
    /// nothing, and an equivalent continuous level is a sound pressure level (dBASPL).
    private func checkDimension(_ unit: SalusUnit, text: String, style: AggregationStyle, name: String) throws(PluginRefusal) {
        let level = try! SalusUnit(parsing: "dBASPL")
        switch style {
        case .cumulative:
            if unit.dimension == .temperature {
                throw Refusal(.unitWrongDimension, "\(name).canonical_unit: \"\(text)\" is a temperature, which cannot be summed; expected a unit of an additive dimension (count, length, energy, time, volume, ...) for a CUMULATIVE type, or a DISCRETE aggregation style")
            }
            if unit.isCompatible(with: level) {
                throw Refusal(.unitWrongDimension, "\(name).canonical_unit: \"\(text)\" is a sound level (\(unit.dimension)), which cannot be summed; expected DISCRETE_EQUIVALENT_CONTINUOUS_LEVEL for levels, or an additive unit for a CUMULATIVE type")
            }
        case .discreteEquivalentContinuousLevel:
            if !unit.isCompatible(with: level) {
                throw Refusal(.unitWrongDimension, "\(name).canonical_unit: \"\(text)\" has dimension \(unit.dimension); expected a sound pressure level unit such as \"dBASPL\" for DISCRETE_EQUIVALENT_CONTINUOUS_LEVEL")
            }
        case .discreteArithmetic, .discreteTemporallyWeighted:
            break
        }
    }

    private func checkKeyUses(
        _ uses: [Salus_V1_TypeMetadataKey], field: String, keysHere: [String: MetadataKeyRules]
    ) throws(PluginRefusal) -> [TypeRules.MetadataKeyUse] {
        var result: [TypeRules.MetadataKeyUse] = []
        for (index, use) in uses.enumerated() {
            let useField = "\(field)[\(index)]"
            guard !use.key.isEmpty else { throw Refusal(.invalidManifest, "\(useField).key: empty; expected a metadata key") }
            let valueType = try metadataValueType(use.valueType, field: "\(useField).value_type")
            if let defined = keysHere[use.key] ?? owners.metadataKeys[use.key], defined.valueType != valueType {
                throw Refusal(.invalidManifest, "\(useField).value_type: \(valueType) for \"\(use.key)\", which \(defined.pluginID) defines as \(defined.valueType); expected \(defined.valueType)")
            }
            guard !result.contains(where: { $0.key == use.key }) else {
                throw Refusal(.invalidManifest, "\(useField).key: \"\(use.key)\" appears twice; expected each key once")
            }
            result.append(TypeRules.MetadataKeyUse(key: use.key, valueType: valueType))
        }
        return result
    }
}
