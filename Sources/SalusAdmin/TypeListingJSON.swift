import Foundation
import SalusProto
import SwiftProtobuf

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

    static func name(_ kind: Salus_V1_ObjectKind) -> String { protoName(kind, prefix: "OBJECT_KIND_") }

    static func name(_ style: Salus_V1_AggregationStyle) -> String { protoName(style, prefix: "AGGREGATION_STYLE_") }

    static func name(_ type: Salus_V1_MetadataValueType) -> String { protoName(type, prefix: "METADATA_VALUE_TYPE_") }

    static func name(_ type: Salus_V1_CharacteristicValueType) -> String { protoName(type, prefix: "CHARACTERISTIC_VALUE_TYPE_") }

    /// The proto name of a generated enum's value, as proto3 JSON prints it: the enum's prefix
    /// and the Swift case name in upper snake case (`visionPrescription` is
    /// `OBJECT_KIND_VISION_PRESCRIPTION`), so a value added to the proto needs no line here; a
    /// value this build does not know, its number. The generator makes each Swift case name by
    /// dropping the prefix and joining the lower-cased words, which this undoes.
    static func protoName<Value: SwiftProtobuf.Enum>(_ value: Value, prefix: String) -> String {
        let caseName = String(describing: value)
        guard Value(rawValue: value.rawValue) != nil, !caseName.hasPrefix("UNRECOGNIZED") else { return "\(value.rawValue)" }
        var snake = prefix
        var previous: Character?
        for character in caseName {
            if let previous, character.isUppercase || (character.isNumber && !previous.isNumber) { snake.append("_") }
            snake.append(contentsOf: character.uppercased())
            previous = character
        }
        return snake
    }
}
