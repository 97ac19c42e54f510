import SalusModel

// The SQL the store compiles the model's predicate and sort values to.

extension DeviceProperty {
    var column: String {
        switch self {
        case .name: "name"
        case .manufacturer: "manufacturer"
        case .model: "model"
        case .hardwareVersion: "hardware_version"
        case .firmwareVersion: "firmware_version"
        case .softwareVersion: "software_version"
        case .localIdentifier: "local_identifier"
        case .udiDeviceIdentifier: "udi_device_identifier"
        }
    }
}

extension ComparisonOperator {
    var sql: String {
        switch self {
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .equal: "="
        case .greaterThanOrEqual: ">="
        case .greaterThan: ">"
        case .notEqual: "<>"
        }
    }

    var isOrdering: Bool { self != .equal && self != .notEqual }
}

extension SampleSortDescriptor {
    var column: String {
        switch key {
        case .startDate: "r.start_us"
        case .endDate: "r.end_us"
        }
    }

    var descending: Bool { !ascending }
}
