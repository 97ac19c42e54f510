import Foundation
import SalusProto

/// ``AdminJSON/text(types:of:)``, what `salusctl types --json` prints: the `salus.v1.ListTypesResponse` in the proto3 JSON field and enum
/// names, but with **every field present**.
///
/// Proto3 JSON printing drops fields at their default value, so a case with raw value 0 (`inBed`,
/// `notSet`) would print without `rawValue` and a program could not tell it from a case that has
/// none; a false flag would be missing too. Here each field is printed: numbers and flags with
/// their value, zero and false included, strings possibly empty, lists possibly empty, and an
/// absent message or optional number (`bounds`, `bounds.max`) as `null`. Keys are sorted.
enum TypeListingJSON {
    /// The listing of `types` (a selection of `listing.types`) and of all of the listing's
    /// workout activity types and metadata keys.
    static func text(of listing: TypeListing, types: [RegisteredType]) throws -> String {
        let document: [String: Any] = [
            "types": types.map { ["pluginId": $0.proto.pluginID, "definition": definition($0.proto.definition)] },
            "workoutActivityTypes": listing.workoutActivityTypes.map {
                ["pluginId": $0.pluginID, "definition": ["name": $0.name, "rawValue": $0.rawValue]]
            },
            "metadataKeys": listing.metadataKeys.map { ["pluginId": $0.pluginID, "definition": metadataKey($0.proto)] },
        ]
        let data = try JSONSerialization.data(
            withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    static func definition(_ type: Salus_V1_TypeDefinition) -> [String: Any] {
        [
            "identifier": type.identifier,
            "kind": name(type.kind),
            "canonicalUnit": type.canonicalUnit,
            "aggregationStyle": name(type.aggregationStyle),
            "cases": type.cases.map(enumerationCase),
            "deprecatedAliases": type.deprecatedAliases.map(enumerationCase),
            "valueGroups": type.valueGroups.map { ["name": $0.name, "rawValues": $0.rawValues] },
            "bounds": type.hasBounds ? bounds(type.bounds) : NSNull(),
            "requiredMetadataKeys": type.requiredMetadataKeys.map(keyUse),
            "optionalMetadataKeys": type.optionalMetadataKeys.map(keyUse),
            "readOnlyForApps": type.readOnlyForApps,
            "perObjectReadAuthorization": type.perObjectReadAuthorization,
            "allowedAttachmentContentTypes": type.allowedAttachmentContentTypes,
            "displayName": type.displayName,
            "characteristicValueType": name(type.characteristicValueType),
            "area": type.area,
        ]
    }

    static func metadataKey(_ key: Salus_V1_MetadataKeyDefinition) -> [String: Any] {
        [
            "key": key.key,
            "valueType": name(key.valueType),
            "allowedValues": key.allowedValues.map(enumerationCase),
            "unit": key.unit,
            "displayName": key.displayName,
            "readOnlyForApps": key.readOnlyForApps,
        ]
    }

    static func enumerationCase(_ item: Salus_V1_EnumerationCase) -> [String: Any] {
        ["name": item.name, "rawValue": item.rawValue]
    }

    static func keyUse(_ use: Salus_V1_TypeMetadataKey) -> [String: Any] {
        ["key": use.key, "valueType": name(use.valueType)]
    }

    static func bounds(_ bounds: Salus_V1_ValueBounds) -> [String: Any] {
        [
            "min": bounds.optionalMin == nil ? NSNull() : bounds.min as Any,
            "minInclusive": bounds.minInclusive,
            "max": bounds.optionalMax == nil ? NSNull() : bounds.max as Any,
            "maxInclusive": bounds.maxInclusive,
        ]
    }

    /// `VISION_PRESCRIPTION` → `visionPrescription`, after dropping `prefix`.
    static func lowerCamel(_ protoName: String, dropping prefix: String) -> String {
        let words = protoName.dropFirst(protoName.hasPrefix(prefix) ? prefix.count : 0)
            .split(separator: "_").map { $0.lowercased() }
        guard let first = words.first else { return protoName }
        return first + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    // MARK: Enum values by their proto names, as proto3 JSON prints them

    static func name(_ kind: Salus_V1_ObjectKind) -> String {
        switch kind {
        case .unspecified: "OBJECT_KIND_UNSPECIFIED"
        case .quantity: "OBJECT_KIND_QUANTITY"
        case .category: "OBJECT_KIND_CATEGORY"
        case .characteristic: "OBJECT_KIND_CHARACTERISTIC"
        case .workout: "OBJECT_KIND_WORKOUT"
        case .visionPrescription: "OBJECT_KIND_VISION_PRESCRIPTION"
        case .document: "OBJECT_KIND_DOCUMENT"
        case .correlation: "OBJECT_KIND_CORRELATION"
        case .electrocardiogram: "OBJECT_KIND_ELECTROCARDIOGRAM"
        case .audiogram: "OBJECT_KIND_AUDIOGRAM"
        case .heartbeatSeries: "OBJECT_KIND_HEARTBEAT_SERIES"
        case .stateOfMind: "OBJECT_KIND_STATE_OF_MIND"
        case .medicationDoseEvent: "OBJECT_KIND_MEDICATION_DOSE_EVENT"
        case .scoredAssessment: "OBJECT_KIND_SCORED_ASSESSMENT"
        case .activitySummary: "OBJECT_KIND_ACTIVITY_SUMMARY"
        case .clinicalRecord: "OBJECT_KIND_CLINICAL_RECORD"
        case .workoutRoute: "OBJECT_KIND_WORKOUT_ROUTE"
        case .userAnnotatedMedication: "OBJECT_KIND_USER_ANNOTATED_MEDICATION"
        case .UNRECOGNIZED(let value): "\(value)"
        }
    }

    static func name(_ style: Salus_V1_AggregationStyle) -> String {
        switch style {
        case .unspecified: "AGGREGATION_STYLE_UNSPECIFIED"
        case .cumulative: "AGGREGATION_STYLE_CUMULATIVE"
        case .discreteArithmetic: "AGGREGATION_STYLE_DISCRETE_ARITHMETIC"
        case .discreteTemporallyWeighted: "AGGREGATION_STYLE_DISCRETE_TEMPORALLY_WEIGHTED"
        case .discreteEquivalentContinuousLevel: "AGGREGATION_STYLE_DISCRETE_EQUIVALENT_CONTINUOUS_LEVEL"
        case .UNRECOGNIZED(let value): "\(value)"
        }
    }

    static func name(_ type: Salus_V1_MetadataValueType) -> String {
        switch type {
        case .unspecified: "METADATA_VALUE_TYPE_UNSPECIFIED"
        case .string: "METADATA_VALUE_TYPE_STRING"
        case .number: "METADATA_VALUE_TYPE_NUMBER"
        case .bool: "METADATA_VALUE_TYPE_BOOL"
        case .date: "METADATA_VALUE_TYPE_DATE"
        case .quantity: "METADATA_VALUE_TYPE_QUANTITY"
        case .UNRECOGNIZED(let value): "\(value)"
        }
    }

    static func name(_ type: Salus_V1_CharacteristicValueType) -> String {
        switch type {
        case .unspecified: "CHARACTERISTIC_VALUE_TYPE_UNSPECIFIED"
        case .enumeration: "CHARACTERISTIC_VALUE_TYPE_ENUMERATION"
        case .date: "CHARACTERISTIC_VALUE_TYPE_DATE"
        case .UNRECOGNIZED(let value): "\(value)"
        }
    }
}
