import Foundation
import SalusModel
import SalusProto
import SwiftProtobuf

/// Every type, workout activity type and metadata key the loaded plugins declared, frozen after
/// loading. Safe to share between tasks.
public final class TypeRegistry: Sendable {
    /// The plugins that contributed, in load order.
    public let plugins: [LoadedPlugin]
    /// Types and characteristics by identifier.
    public let types: [String: RegisteredType]
    /// Workout activity types by raw value.
    public let workoutActivityTypes: [UInt32: RegisteredWorkoutActivityType]
    /// Metadata keys by raw key string.
    public let metadataKeys: [String: RegisteredMetadataKey]
    private let validators: [String: SampleValidator]

    init(
        plugins: [LoadedPlugin], types: [String: RegisteredType],
        workoutActivityTypes: [UInt32: RegisteredWorkoutActivityType],
        metadataKeys: [String: RegisteredMetadataKey], validators: [String: SampleValidator]
    ) {
        self.plugins = plugins
        self.types = types
        self.workoutActivityTypes = workoutActivityTypes
        self.metadataKeys = metadataKeys
        self.validators = validators
    }

    /// A registry with nothing in it.
    public static let empty = TypeRegistry(plugins: [], types: [:], workoutActivityTypes: [:], metadataKeys: [:], validators: [:])

    /// The type with an identifier.
    public func type(_ identifier: String) -> RegisteredType? { types[identifier] }

    /// All types sorted by identifier.
    public var sortedTypes: [RegisteredType] { types.values.sorted { $0.identifier < $1.identifier } }

    /// The raw values of a type's value group ("allAsleep" of sleep analysis).
    public func valueGroup(_ name: String, of identifier: String) -> [Int64]? {
        types[identifier]?.valueGroup(named: name)
    }

    /// The workout activity type with a name ("running").
    public func workoutActivityType(named name: String) -> RegisteredWorkoutActivityType? {
        workoutActivityTypes.values.first { $0.name == name }
    }

    /// Whether the plugin that owns a type offers a validator.
    public func hasValidator(for identifier: String) -> Bool {
        types[identifier].map { validators[$0.pluginID] != nil } ?? false
    }

    /// Runs the owning plugin's validator on a protobuf-encoded `salus.v1.Sample`, as it is.
    ///
    /// Returns nil when the plugin accepts the sample or has no validator, otherwise the
    /// plugin's message. A sample whose type is unknown or undecodable gets a message too.
    public func validate(encodedSample: [UInt8]) -> String? {
        let sample: Salus_V1_Sample
        do {
            sample = try Salus_V1_Sample(serializedBytes: encodedSample)
        } catch {
            return "sample: not a protobuf-encoded salus.v1.Sample (\(error))"
        }
        guard let type = types[sample.type] else {
            return "type: \"\(sample.type)\" is not a registered type; expected an identifier a loaded plugin declares"
        }
        return validators[type.pluginID]?.validate(encodedSample)
    }

    /// Checks a sample against everything its type declares — kind, unit dimension, bounds,
    /// enumeration values, dates, required and typed metadata — and then the plugin's validator,
    /// which receives the sample with its quantity in the canonical unit. Returns nil when the
    /// sample is acceptable, otherwise a message naming the field, the value and what was
    /// expected.
    public func check(_ sample: Salus_V1_Sample) -> String? {
        guard let type = types[sample.type] else {
            return "type: \"\(sample.type)\" is not a registered type; expected an identifier a loaded plugin declares"
        }
        if type.kind == .characteristic {
            return "type: \(sample.type) is a characteristic; expected a sample type (characteristics are set, not saved as samples)"
        }
        if sample.endDate < sample.startDate {
            return "endDate: \(sample.endDate) is before startDate \(sample.startDate); expected endDate ≥ startDate"
        }
        var canonical = sample
        switch (type.kind, sample.value) {
        case (.quantity, .quantity(let quantity)?):
            guard quantity.value.isFinite else {
                return "quantity.value: \(quantity.value); expected a finite number"
            }
            guard let canonicalUnit = type.canonicalUnit else { return nil }
            let unit: SalusUnit
            do {
                unit = try SalusUnit(parsing: quantity.unit)
            } catch {
                return "quantity.unit: \"\(quantity.unit)\" is not a unit: \(error.message)"
            }
            guard unit.isCompatible(with: canonicalUnit) else {
                return "quantity.unit: \"\(quantity.unit)\" (\(unit.dimension)) cannot measure \(type.identifier); expected a unit of the same dimension as \(canonicalUnit) (\(canonicalUnit.dimension))"
            }
            let value: Double
            do {
                value = try unit.convert(quantity.value, to: canonicalUnit)
            } catch {
                return "quantity: \(quantity.value) \(quantity.unit) cannot be converted to \(canonicalUnit): \(error.message)"
            }
            if let bounds = type.bounds, !bounds.contains(value) {
                return "quantity: \(quantity.value) \(quantity.unit) (\(value) \(canonicalUnit)) is outside the possible range \(bounds.description) \(canonicalUnit) of \(type.identifier)"
            }
            canonical.quantity = Salus_V1_Quantity.with {
                $0.value = value
                $0.unit = canonicalUnit.description
            }
        case (.category, .category(let category)?):
            guard type.case(rawValue: category.value) != nil else {
                let allowed = type.cases.map { "\($0.name) \($0.rawValue)" }.joined(separator: ", ")
                return "category.value: \(category.value) is not a value of \(type.identifier); expected one of \(allowed)"
            }
        case (.workout, .workout(let workout)?):
            guard workoutActivityTypes[workout.activityType] != nil else {
                return "workout.activity_type: \(workout.activityType) is not a registered workout activity type; expected a raw value such as 37 (running)"
            }
        case (.visionPrescription, .visionPrescription?), (.document, .document?):
            break
        default:
            return "value: \(Self.valueName(sample.value)) for \(type.identifier); expected a \(type.kind) value"
        }
        for required in type.requiredMetadataKeys where sample.metadata[required.key] == nil {
            return "metadata \(required.key): missing; \(type.identifier) requires it (\(required.valueType))"
        }
        for (key, value) in sample.metadata.sorted(by: { $0.key < $1.key }) {
            let expected = metadataKeys[key]?.valueType
                ?? (type.requiredMetadataKeys + type.optionalMetadataKeys).first { $0.key == key }?.valueType
            if let problem = Self.checkMetadata(key: key, value: value, expected: expected, definition: metadataKeys[key]) {
                return problem
            }
        }
        guard let validator = validators[type.pluginID] else { return nil }
        guard let bytes: [UInt8] = try? canonical.serializedBytes() else {
            return "sample: could not be encoded for the \(type.pluginID) validator"
        }
        return validator.validate(bytes)
    }

    private static func valueName(_ value: Salus_V1_Sample.OneOf_Value?) -> String {
        switch value {
        case .quantity?: "a quantity"
        case .category?: "a category value"
        case .workout?: "a workout"
        case .visionPrescription?: "a vision prescription"
        case .document?: "a document"
        case nil: "none"
        }
    }

    private static func checkMetadata(
        key: String, value: Salus_V1_MetadataValue, expected: MetadataValueType?, definition: RegisteredMetadataKey?
    ) -> String? {
        let actual: MetadataValueType?
        switch value.kind {
        case .stringValue?: actual = .string
        case .numberValue(let number)?:
            guard number.isFinite else { return "metadata \(key): \(number); expected a finite number" }
            actual = .number
        case .boolValue?: actual = .bool
        case .dateValue?: actual = .date
        case .quantityValue?: actual = .quantity
        case nil: actual = nil
        }
        guard let actual else { return "metadata \(key): no value; expected a \(expected?.rawValue ?? "string, number, bool, date or quantity") value" }
        if let expected, expected != actual {
            // HealthKit stores booleans as numbers 0/1; accept those for bool keys.
            if expected == .bool, case .numberValue(let number)? = value.kind, number == 0 || number == 1 { return nil }
            return "metadata \(key): a \(actual) value; expected \(expected)"
        }
        if let definition, case .numberValue(let number)? = value.kind, !definition.allowedValues.isEmpty,
            !definition.allowedValues.contains(where: { Double($0.rawValue) == number })
        {
            let allowed = definition.allowedValues.map { "\($0.name) \($0.rawValue)" }.joined(separator: ", ")
            return "metadata \(key): \(number) is not an allowed value; expected one of \(allowed)"
        }
        if let unit = definition?.unit, case .quantityValue(let quantity)? = value.kind {
            guard let parsed = try? SalusUnit(parsing: quantity.unit), parsed.isCompatible(with: unit) else {
                return "metadata \(key): unit \"\(quantity.unit)\" does not measure \(unit.dimension); expected a unit like \(unit)"
            }
        }
        return nil
    }
}
