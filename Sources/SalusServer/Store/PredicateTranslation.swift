import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusStore
import SalusWire

/// `salus.v1.Predicate` trees to the store's `SamplePredicate`. A node that cannot mean
/// anything fails with INVALID_ARGUMENT naming its path ("predicate.and[2].metadata").
enum PredicateTranslation {
    static func translate(_ wire: Salus_V1_Predicate, path: String = "predicate") throws(RPCError) -> SamplePredicate {
        switch wire.node {
        case .and(let list):
            return .and(try list.predicates.enumerated().map { (index, node) throws(RPCError) in try translate(node, path: "\(path).and[\(index)]") })
        case .or(let list):
            return .or(try list.predicates.enumerated().map { (index, node) throws(RPCError) in try translate(node, path: "\(path).or[\(index)]") })
        case .not(let inner):
            return .not(try translate(inner, path: "\(path).not"))
        case .dateWindow(let window):
            return .dateWindow(DateWindow(
                start: window.optionalStartDate != nil ? WireDate.date(window.startDate) : nil,
                end: window.optionalEndDate != nil ? WireDate.date(window.endDate) : nil,
                strictStartDate: window.strictStartDate,
                strictEndDate: window.strictEndDate
            ))
        case .sources(let sources):
            return .sources(Set(sources.appIds))
        case .sourceRevisions(let revisions):
            return .sourceRevisions(revisions.revisions.map {
                SourceRevisionMatch(appID: $0.appID, version: $0.optionalVersion != nil ? $0.version : nil)
            })
        case .devices(let devices):
            return .devices(devices.devices.map(Device.init(wire:)))
        case .deviceProperty(let property):
            return .deviceProperty(try deviceProperty(property.property, path: "\(path).deviceProperty.property"), allowedValues: Set(property.allowedValues))
        case .uuids(let list):
            var uuids = Set<UUID>()
            for (index, bytes) in list.uuids.enumerated() {
                guard let uuid = WireUUID.uuid(bytes) else {
                    throw invalid("\(path).uuids.uuids[\(index)]", "\(bytes.count) bytes", "16 bytes")
                }
                uuids.insert(uuid)
            }
            return .uuids(uuids)
        case .metadata(let metadata):
            let nodePath = "\(path).metadata"
            guard !metadata.key.isEmpty else { throw invalid("\(nodePath).key", "", "a metadata key") }
            switch metadata.test {
            case .exists(let exists):
                return exists ? .metadata(key: metadata.key, test: .exists) : .not(.metadata(key: metadata.key, test: .exists))
            case .allowedValues(let values):
                return .metadata(key: metadata.key, test: .allowedValues(try values.values.enumerated().map { (index, value) throws(RPCError) in
                    try metadataValue(value, path: "\(nodePath).allowedValues.values[\(index)]")
                }))
            case .comparison(let comparison):
                return .metadata(key: metadata.key, test: .comparison(
                    try comparisonOperator(comparison.operator, path: "\(nodePath).comparison.operator"),
                    try metadataValue(comparison.value, path: "\(nodePath).comparison.value")
                ))
            case nil:
                throw invalid("\(nodePath).test", "", "exists, allowed_values or comparison")
            }
        case .quantity(let quantity):
            return .quantity(
                try comparisonOperator(quantity.operator, path: "\(path).quantity.operator"),
                try convert { () throws(ValidationError) in try Quantity(wire: quantity.quantity, path: "\(path).quantity.quantity") }
            )
        case .categoryValues(let values):
            var raw = Set<Int>()
            for value in values.values {
                guard let int = Int(exactly: value) else { throw invalid("\(path).category_values.values", "\(value)", "a raw value") }
                raw.insert(int)
            }
            return .categoryValues(raw, valueGroups: Set(values.valueGroups))
        case .workout(let workout):
            let nodePath = "\(path).workout"
            switch workout.test {
            case .activityType(let type):
                return .workout(.activityType(UInt(type)))
            case .duration(let duration):
                guard duration.seconds.isFinite else { throw invalid("\(nodePath).duration.seconds", "\(duration.seconds)", "a finite number") }
                return .workout(.duration(try comparisonOperator(duration.operator, path: "\(nodePath).duration.operator"), seconds: duration.seconds))
            case .statistic(let statistic):
                guard let kind = WorkoutStatistic(rawValue: statistic.statistic.rawValue) else {
                    throw invalid("\(nodePath).statistic.statistic", "\(statistic.statistic.rawValue)", "SUM, AVERAGE, MINIMUM or MAXIMUM")
                }
                return .workout(.statistic(
                    quantityType: TypeIdentifier(rawValue: statistic.quantityType),
                    kind,
                    try comparisonOperator(statistic.operator, path: "\(nodePath).statistic.operator"),
                    try convert { () throws(ValidationError) in try Quantity(wire: statistic.quantity, path: "\(nodePath).statistic.quantity") }
                ))
            case nil:
                throw invalid("\(nodePath).test", "", "activity_type, duration or statistic")
            }
        case nil:
            throw invalid(path, "an empty node", "one of and, or, not, date_window, sources, source_revisions, devices, device_property, uuids, metadata, quantity, category_values, workout")
        }
    }

    static func invalid(_ field: String, _ value: String, _ expected: String) -> RPCError {
        RPCError.invalidArgument(field: field, value: value, expected: expected)
    }

    static func convert<T>(_ body: () throws(ValidationError) -> T) throws(RPCError) -> T {
        do {
            return try body()
        } catch {
            throw RPCError.invalidArgument(field: error.field, value: error.value, expected: error.expected)
        }
    }

    static func metadataValue(_ wire: Salus_V1_MetadataValue, path: String) throws(RPCError) -> MetadataValue {
        try convert { () throws(ValidationError) in try MetadataValue(wire: wire, path: path) }
    }

    static func comparisonOperator(_ wire: Salus_V1_ComparisonOperator, path: String) throws(RPCError) -> ComparisonOperator {
        switch wire {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .equal: .equal
        case .greaterThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .greaterThan
        case .notEqual: .notEqual
        case .unspecified, .UNRECOGNIZED:
            throw invalid(path, "\(wire.rawValue)", "LESS_THAN, LESS_THAN_OR_EQUAL, EQUAL, GREATER_THAN_OR_EQUAL, GREATER_THAN or NOT_EQUAL")
        }
    }

    static func deviceProperty(_ wire: Salus_V1_DeviceProperty, path: String) throws(RPCError) -> DeviceProperty {
        switch wire {
        case .name: .name
        case .manufacturer: .manufacturer
        case .model: .model
        case .hardwareVersion: .hardwareVersion
        case .firmwareVersion: .firmwareVersion
        case .softwareVersion: .softwareVersion
        case .localIdentifier: .localIdentifier
        case .udiDeviceIdentifier: .udiDeviceIdentifier
        case .unspecified, .UNRECOGNIZED:
            throw invalid(path, "\(wire.rawValue)", "a device property (NAME, MANUFACTURER, MODEL, ...)")
        }
    }
}
