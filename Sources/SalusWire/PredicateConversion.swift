import Foundation
import SalusModel
import SalusProto

/// Predicates and sort descriptors between the wire (`salus.v1.Predicate`,
/// `salus.v1.SortDescriptor`) and the model, both ways: the only place they cross.
///
/// Decoding refuses what the wire allows but means nothing (an empty node, an unknown operator,
/// a UUID that is not 16 bytes) with a `ValidationError` whose field is the node's path
/// (`predicate.and[2].metadata.comparison.operator`). Whether a node suits the queried type is
/// the store's check, when it compiles the predicate.
extension SamplePredicate {
    /// The wire form. Sets are sent sorted, so equal predicates encode to equal bytes.
    package var wire: Salus_V1_Predicate {
        var wire = Salus_V1_Predicate()
        switch self {
        case .and(let predicates):
            wire.and = Salus_V1_PredicateList.with { $0.predicates = predicates.map(\.wire) }
        case .or(let predicates):
            wire.or = Salus_V1_PredicateList.with { $0.predicates = predicates.map(\.wire) }
        case .not(let predicate):
            wire.not = predicate.wire
        case .dateWindow(let window):
            var dates = Salus_V1_DateWindow()
            if let start = window.start { dates.startDate = WireDate.microseconds(start) }
            if let end = window.end { dates.endDate = WireDate.microseconds(end) }
            dates.strictStartDate = window.strictStartDate
            dates.strictEndDate = window.strictEndDate
            wire.dateWindow = dates
        case .sources(let appIDs):
            wire.sources = Salus_V1_SourcesPredicate.with { $0.appIds = appIDs.sorted() }
        case .sourceRevisions(let matches):
            wire.sourceRevisions = Salus_V1_SourceRevisionsPredicate.with {
                $0.revisions = matches.map { match in
                    Salus_V1_SourceRevisionMatch.with {
                        $0.appID = match.appID
                        if let version = match.version { $0.version = version }
                    }
                }
            }
        case .devices(let devices):
            wire.devices = Salus_V1_DevicesPredicate.with { $0.devices = devices.map(\.wire) }
        case .deviceProperty(let property, let allowedValues):
            wire.deviceProperty = Salus_V1_DevicePropertyPredicate.with {
                $0.property = property.wire
                $0.allowedValues = allowedValues.sorted()
            }
        case .uuids(let uuids):
            wire.uuids = Salus_V1_UUIDsPredicate.with {
                $0.uuids = uuids.sorted { $0.uuidString < $1.uuidString }.map(WireUUID.bytes)
            }
        case .metadata(let key, let test):
            var predicate = Salus_V1_MetadataPredicate()
            predicate.key = key
            switch test {
            case .exists: predicate.exists = true
            case .absent: predicate.exists = false
            case .allowedValues(let values):
                predicate.allowedValues = Salus_V1_MetadataValues.with { $0.values = values.map(\.wire) }
            case .comparison(let comparison, let value):
                predicate.comparison = Salus_V1_MetadataComparison.with {
                    $0.operator = comparison.wire
                    $0.value = value.wire
                }
            }
            wire.metadata = predicate
        case .quantity(let comparison, let quantity):
            wire.quantity = Salus_V1_QuantityPredicate.with {
                $0.operator = comparison.wire
                $0.quantity = quantity.wire
            }
        case .categoryValues(let values, let groups):
            wire.categoryValues = Salus_V1_CategoryValuesPredicate.with {
                $0.values = values.sorted().map(Int64.init)
                $0.valueGroups = groups.sorted()
            }
        case .workout(let test):
            var predicate = Salus_V1_WorkoutPredicate()
            switch test {
            case .activityType(let activityType):
                predicate.activityType = UInt32(clamping: activityType)
            case .duration(let comparison, let seconds):
                predicate.duration = Salus_V1_DurationComparison.with {
                    $0.operator = comparison.wire
                    $0.seconds = seconds
                }
            case .statistic(let type, let statistic, let comparison, let quantity):
                predicate.statistic = WorkoutStatisticTest(type, statistic, comparison, quantity).wire
            case .activity(let activity):
                predicate.activity = Salus_V1_WorkoutActivityPredicate.with {
                    if let type = activity.activityType { $0.activityType = UInt32(clamping: type) }
                    if let duration = activity.duration {
                        $0.duration = Salus_V1_DurationComparison.with {
                            $0.operator = duration.comparison.wire
                            $0.seconds = duration.seconds
                        }
                    }
                    if let statistic = activity.statistic { $0.statistic = statistic.wire }
                }
            }
            wire.workout = predicate
        case .prescription(let test):
            wire.prescription = test.wire
        case .medicationConcepts(let identifiers):
            wire.medicationConcepts.identifiers = identifiers.sorted()
        }
        return wire
    }

    /// The model predicate for `wire`, whose fields are named under `path`.
    package init(wire: Salus_V1_Predicate, path: String = "predicate") throws(ValidationError) {
        switch wire.node {
        case .and(let list):
            self = .and(try list.predicates.enumerated().map { (index, node) throws(ValidationError) in
                try SamplePredicate(wire: node, path: "\(path).and[\(index)]")
            })
        case .or(let list):
            self = .or(try list.predicates.enumerated().map { (index, node) throws(ValidationError) in
                try SamplePredicate(wire: node, path: "\(path).or[\(index)]")
            })
        case .not(let inner):
            self = .not(try SamplePredicate(wire: inner, path: "\(path).not"))
        case .dateWindow(let window):
            self = .dateWindow(DateWindow(
                start: window.optionalStartDate != nil ? WireDate.date(window.startDate) : nil,
                end: window.optionalEndDate != nil ? WireDate.date(window.endDate) : nil,
                strictStartDate: window.strictStartDate,
                strictEndDate: window.strictEndDate))
        case .sources(let sources):
            self = .sources(Set(sources.appIds))
        case .sourceRevisions(let revisions):
            self = .sourceRevisions(revisions.revisions.map {
                SourceRevisionMatch(appID: $0.appID, version: $0.optionalVersion != nil ? $0.version : nil)
            })
        case .devices(let devices):
            self = .devices(devices.devices.map(Device.init(wire:)))
        case .deviceProperty(let property):
            self = .deviceProperty(
                try DeviceProperty(wire: property.property, path: "\(path).deviceProperty.property"),
                allowedValues: Set(property.allowedValues))
        case .uuids(let list):
            var uuids = Set<UUID>()
            for (index, bytes) in list.uuids.enumerated() {
                guard let uuid = WireUUID.uuid(bytes) else {
                    throw ValidationError(
                        reason: .invalidValue, field: "\(path).uuids[\(index)]", value: "\(bytes.count) bytes",
                        expected: "16 bytes")
                }
                uuids.insert(uuid)
            }
            self = .uuids(uuids)
        case .metadata(let metadata):
            let nodePath = "\(path).metadata"
            guard !metadata.key.isEmpty else {
                throw ValidationError(reason: .missingValue, field: "\(nodePath).key", value: "\"\"", expected: "a metadata key")
            }
            switch metadata.test {
            case .exists(let exists):
                self = .metadata(key: metadata.key, test: exists ? .exists : .absent)
            case .allowedValues(let values):
                self = .metadata(key: metadata.key, test: .allowedValues(try values.values.enumerated().map {
                    (index, value) throws(ValidationError) in
                    try MetadataValue(wire: value, path: "\(nodePath).allowedValues.values[\(index)]")
                }))
            case .comparison(let comparison):
                self = .metadata(key: metadata.key, test: .comparison(
                    try ComparisonOperator(wire: comparison.operator, path: "\(nodePath).comparison.operator"),
                    try MetadataValue(wire: comparison.value, path: "\(nodePath).comparison.value")))
            case nil:
                throw ValidationError(
                    reason: .missingValue, field: "\(nodePath).test", value: "none", expected: "exists, allowedValues or comparison")
            }
        case .quantity(let quantity):
            self = .quantity(
                try ComparisonOperator(wire: quantity.operator, path: "\(path).quantity.operator"),
                try Quantity(wire: quantity.quantity, path: "\(path).quantity.quantity"))
        case .categoryValues(let values):
            var raw = Set<Int>()
            for (index, value) in values.values.enumerated() {
                guard let int = Int(exactly: value) else {
                    throw ValidationError(
                        reason: .invalidValue, field: "\(path).categoryValues.values[\(index)]", value: "\(value)",
                        expected: "a raw value that fits an Int")
                }
                raw.insert(int)
            }
            self = .categoryValues(raw, valueGroups: Set(values.valueGroups))
        case .workout(let workout):
            self = .workout(try WorkoutTest(wire: workout, path: "\(path).workout"))
        case .prescription(let prescription):
            self = .prescription(try PrescriptionTest(wire: prescription, path: "\(path).prescription"))
        case .medicationConcepts(let concepts):
            self = .medicationConcepts(Set(concepts.identifiers))
        case nil:
            throw ValidationError(
                reason: .missingValue, field: path, value: "an empty node",
                expected: "one of and, or, not, dateWindow, sources, sourceRevisions, devices, deviceProperty, uuids, metadata, quantity, categoryValues, workout, prescription, medicationConcepts")
        }
    }
}

extension WorkoutTest {
    init(wire: Salus_V1_WorkoutPredicate, path: String) throws(ValidationError) {
        switch wire.test {
        case .activityType(let type):
            self = .activityType(UInt(type))
        case .duration(let duration):
            let (comparison, seconds) = try Self.duration(duration, path: "\(path).duration")
            self = .duration(comparison, seconds: seconds)
        case .statistic(let statistic):
            let test = try WorkoutStatisticTest(wire: statistic, path: "\(path).statistic")
            self = .statistic(quantityType: test.quantityType, test.statistic, test.comparison, test.quantity)
        case .activity(let activity):
            let activityPath = "\(path).activity"
            self = .activity(WorkoutActivityTest(
                activityType: activity.optionalActivityType != nil ? UInt(activity.activityType) : nil,
                duration: activity.hasDuration ? try Self.duration(activity.duration, path: "\(activityPath).duration") : nil,
                statistic: activity.hasStatistic
                    ? try WorkoutStatisticTest(wire: activity.statistic, path: "\(activityPath).statistic") : nil))
        case nil:
            throw ValidationError(
                reason: .missingValue, field: "\(path).test", value: "none",
                expected: "activityType, duration, statistic or activity")
        }
    }

    static func duration(
        _ duration: Salus_V1_DurationComparison, path: String
    ) throws(ValidationError) -> (comparison: ComparisonOperator, seconds: Double) {
        _ = try WorkoutTest.durationMicroseconds(duration.seconds, field: "\(path).seconds")
        return (try ComparisonOperator(wire: duration.operator, path: "\(path).operator"), duration.seconds)
    }
}

extension WorkoutStatisticTest {
    init(wire statistic: Salus_V1_WorkoutStatisticComparison, path: String) throws(ValidationError) {
        guard let kind = WorkoutStatistic(rawValue: statistic.statistic.rawValue) else {
            throw ValidationError(
                reason: .invalidValue, field: "\(path).statistic", value: "\(statistic.statistic.rawValue)",
                expected: "SUM, AVERAGE, MINIMUM or MAXIMUM")
        }
        self.init(
            TypeIdentifier(rawValue: statistic.quantityType), kind,
            try ComparisonOperator(wire: statistic.operator, path: "\(path).operator"),
            try Quantity(wire: statistic.quantity, path: "\(path).quantity"))
    }

    var wire: Salus_V1_WorkoutStatisticComparison {
        Salus_V1_WorkoutStatisticComparison.with {
            $0.quantityType = quantityType.rawValue
            $0.statistic = Salus_V1_WorkoutStatistic(rawValue: statistic.rawValue) ?? .unspecified
            $0.operator = comparison.wire
            $0.quantity = quantity.wire
        }
    }
}

extension PrescriptionTest {
    /// The wire form.
    package var wire: Salus_V1_PrescriptionPredicate {
        func range(_ start: Date?, _ end: Date?) -> Salus_V1_PrescriptionDateRange {
            var range = Salus_V1_PrescriptionDateRange()
            if let start { range.startDate = WireDate.microseconds(start) }
            if let end { range.endDate = WireDate.microseconds(end) }
            return range
        }
        var wire = Salus_V1_PrescriptionPredicate()
        switch self {
        case .prescriptionType(let type): wire.prescriptionType = Int32(type.rawValue)
        case .dateIssued(let start, let end): wire.dateIssued = range(start, end)
        case .expirationDate(let start, let end): wire.expirationDate = range(start, end)
        case .validAt(let date): wire.validAt = WireDate.microseconds(date)
        }
        return wire
    }

    init(wire: Salus_V1_PrescriptionPredicate, path: String) throws(ValidationError) {
        func bounds(_ range: Salus_V1_PrescriptionDateRange) -> (Date?, Date?) {
            (
                range.optionalStartDate != nil ? WireDate.date(range.startDate) : nil,
                range.optionalEndDate != nil ? WireDate.date(range.endDate) : nil
            )
        }
        switch wire.test {
        case .prescriptionType(let raw):
            guard let type = VisionPrescription.PrescriptionType(rawValue: Int(raw)) else {
                throw ValidationError(
                    reason: .invalidValue, field: "\(path).prescriptionType", value: "\(raw)",
                    expected: "1 (glasses) or 2 (contacts)")
            }
            self = .prescriptionType(type)
        case .dateIssued(let range):
            let (start, end) = bounds(range)
            self = .dateIssued(start: start, end: end)
        case .expirationDate(let range):
            let (start, end) = bounds(range)
            self = .expirationDate(start: start, end: end)
        case .validAt(let microseconds):
            self = .validAt(WireDate.date(microseconds))
        case nil:
            throw ValidationError(
                reason: .missingValue, field: "\(path).test", value: "none",
                expected: "prescriptionType, dateIssued, expirationDate or validAt")
        }
    }
}

extension ComparisonOperator {
    /// The wire form.
    package var wire: Salus_V1_ComparisonOperator {
        switch self {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .equal: .equal
        case .greaterThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .greaterThan
        case .notEqual: .notEqual
        }
    }

    init(wire: Salus_V1_ComparisonOperator, path: String) throws(ValidationError) {
        switch wire {
        case .lessThan: self = .lessThan
        case .lessThanOrEqual: self = .lessThanOrEqual
        case .equal: self = .equal
        case .greaterThanOrEqual: self = .greaterThanOrEqual
        case .greaterThan: self = .greaterThan
        case .notEqual: self = .notEqual
        case .unspecified, .UNRECOGNIZED:
            throw ValidationError(
                reason: .invalidValue, field: path, value: "\(wire.rawValue)",
                expected: "LESS_THAN, LESS_THAN_OR_EQUAL, EQUAL, GREATER_THAN_OR_EQUAL, GREATER_THAN or NOT_EQUAL")
        }
    }
}

extension DeviceProperty {
    /// The wire form.
    package var wire: Salus_V1_DeviceProperty {
        switch self {
        case .name: .name
        case .manufacturer: .manufacturer
        case .model: .model
        case .hardwareVersion: .hardwareVersion
        case .firmwareVersion: .firmwareVersion
        case .softwareVersion: .softwareVersion
        case .localIdentifier: .localIdentifier
        case .udiDeviceIdentifier: .udiDeviceIdentifier
        }
    }

    init(wire: Salus_V1_DeviceProperty, path: String) throws(ValidationError) {
        switch wire {
        case .name: self = .name
        case .manufacturer: self = .manufacturer
        case .model: self = .model
        case .hardwareVersion: self = .hardwareVersion
        case .firmwareVersion: self = .firmwareVersion
        case .softwareVersion: self = .softwareVersion
        case .localIdentifier: self = .localIdentifier
        case .udiDeviceIdentifier: self = .udiDeviceIdentifier
        case .unspecified, .UNRECOGNIZED:
            throw ValidationError(
                reason: .invalidValue, field: path, value: "\(wire.rawValue)",
                expected: "a device property (NAME, MANUFACTURER, MODEL, ...)")
        }
    }
}

extension SampleSortDescriptor {
    /// The wire form.
    package var wire: Salus_V1_SortDescriptor {
        Salus_V1_SortDescriptor.with {
            $0.key = key == .startDate ? .startDate : .endDate
            $0.descending = !ascending
        }
    }

    /// The model form of `wire`, whose fields are named under `path` ("sort[0]").
    package init(wire: Salus_V1_SortDescriptor, path: String) throws(ValidationError) {
        switch wire.key {
        case .startDate: self.init(.startDate, ascending: !wire.descending)
        case .endDate: self.init(.endDate, ascending: !wire.descending)
        case .unspecified, .UNRECOGNIZED:
            throw ValidationError(
                reason: .invalidValue, field: "\(path).key", value: "\(wire.key.rawValue)", expected: "START_DATE or END_DATE")
        }
    }
}
