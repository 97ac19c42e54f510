import Foundation
import SalusModel
import SalusProto

/// Samples between the wire (`salus.v1.Sample`) and the model.
///
/// Decoding checks what the wire cannot: UUIDs are 16 bytes, units parse, a value is present,
/// enumerations are known. Errors name the field path under `path` ("samples[3].quantity.unit").
extension Sample {
    /// The model sample for `wire`; `source` replaces whatever source the payload carried
    /// (the daemon assigns it from the caller), and a missing UUID gets a new UUIDv7. A
    /// correlation's members are converted the same way, with the same source and creation date,
    /// their fields named under `correlation.objects[i]`.
    package init(
        wire: Salus_V1_Sample, path: @autoclosure () -> String, source: SourceRevision, creationDate: Date = Date()
    ) throws(ValidationError) {
        var uuid = UUIDv7.make(at: creationDate)
        if !wire.uuid.isEmpty {
            guard let given = WireUUID.uuid(wire.uuid) else {
                throw ValidationError(
                    reason: .invalidValue, field: "\(path()).uuid", value: "\(wire.uuid.count) bytes",
                    expected: "16 bytes, or empty to have one assigned"
                )
            }
            uuid = given
        }
        guard !wire.type.isEmpty else {
            throw ValidationError(reason: .missingValue, field: "\(path()).type", value: "", expected: "a type identifier")
        }
        let value: SampleValue
        // Every kind but quantity, category, workout and correlation (below) converts through its
        // value type (SampleValueConversion.swift).
        if let wireValue = wire.value, let uniform = try Self.uniformValue(wireValue, path: path()) {
            value = uniform
        } else {
            switch wire.value {
            case .quantity(let quantity):
                value = .quantity(try Quantity(wire: quantity, path: "\(path()).quantity"))
            case .category(let category):
                guard let raw = Int(exactly: category.value) else {
                    throw ValidationError(reason: .invalidValue, field: "\(path()).category.value", value: "\(category.value)", expected: "a raw value that fits an Int")
                }
                value = .category(raw)
            case .workout(let workout):
                value = .workout(try Workout(wire: workout, path: "\(path()).workout"))
            case .correlation(let correlation):
                var objects: [Sample] = []
                objects.reserveCapacity(correlation.objects.count)
                for (index, member) in correlation.objects.enumerated() {
                    objects.append(try Sample(
                        wire: member, path: "\(path()).correlation.objects[\(index)]", source: source, creationDate: creationDate
                    ))
                }
                value = .correlation(Correlation(objects: objects))
            default:
                throw ValidationError(
                    reason: .missingValue, field: "\(path()).value", value: "", expected: "one of \(Self.valueFieldNames)")
            }
        }
        self.init(
            uuid: uuid,
            type: TypeIdentifier(rawValue: wire.type),
            startDate: WireDate.date(wire.startDate),
            endDate: WireDate.date(wire.endDate),
            value: value,
            sourceRevision: source,
            device: wire.hasDevice ? Device(wire: wire.device) : nil,
            metadata: try MetadataValue.dictionary(wire: wire.metadata, path: "\(path()).metadata"),
            creationDate: creationDate
        )
    }

    /// The wire form of this sample.
    package var wire: Salus_V1_Sample {
        var wire = Salus_V1_Sample()
        wire.uuid = WireUUID.bytes(uuid)
        wire.type = type.rawValue
        wire.startDate = WireDate.microseconds(startDate)
        wire.endDate = WireDate.microseconds(endDate)
        wire.value = Self.wireValue(value, start: startDate, end: endDate)
        wire.sourceRevision = sourceRevision.wire
        if let device { wire.device = device.wire }
        wire.metadata = metadata.mapValues(\.wire)
        wire.creationDate = WireDate.microseconds(creationDate)
        return wire
    }

    /// The wire form of a sample's value; `start` and `end` are the sample's dates (a workout's
    /// duration is computed from them).
    package static func wireValue(_ value: SampleValue, start: Date, end: Date) -> Salus_V1_Sample.OneOf_Value? {
        // Every kind but quantity, category, workout and correlation (below) converts through its
        // value type (SampleValueConversion.swift); the result is never nil.
        if let uniform = uniformWireValue(value) { return uniform }
        switch value {
        case .quantity(let quantity): return .quantity(quantity.wire)
        case .category(let raw):
            var category = Salus_V1_CategoryValue()
            category.value = Int64(raw)
            return .category(category)
        case .workout(let workout): return .workout(workout.wire(start: start, end: end))
        case .correlation(let correlation):
            var wireCorrelation = Salus_V1_Correlation()
            wireCorrelation.objects = correlation.objects.map(\.wire)
            return .correlation(wireCorrelation)
        default:
            return nil
        }
    }

    /// The serialized value field alone (its tag, length and message), as it appears inside a
    /// serialized `Salus_V1_Sample`: what the store's lean row encoder splices in for kinds whose
    /// values it keeps as payloads (`SampleWireEncoder.ValueEncoder`).
    package static func encodedValue(_ value: SampleValue, startMicroseconds: Int64, endMicroseconds: Int64) throws -> [UInt8] {
        var only = Salus_V1_Sample()
        only.value = wireValue(value, start: WireDate.date(startMicroseconds), end: WireDate.date(endMicroseconds))
        return try only.serializedBytes()
    }
}

extension Quantity {
    package init(wire: Salus_V1_Quantity, path: @autoclosure () -> String) throws(ValidationError) {
        let unit: SalusUnit
        do {
            unit = try SalusUnit(parsing: wire.unit)
        } catch {
            throw ValidationError(reason: .invalidUnit, field: "\(path()).unit", value: wire.unit, expected: "a unit string (\(error.message))")
        }
        guard wire.value.isFinite else {
            throw ValidationError(reason: .invalidValue, field: "\(path()).value", value: "\(wire.value)", expected: "a finite number")
        }
        self.init(value: wire.value, unit: unit)
    }

    package var wire: Salus_V1_Quantity {
        var wire = Salus_V1_Quantity()
        wire.value = value
        wire.unit = unit.description
        return wire
    }
}

extension MetadataValue {
    package init(wire: Salus_V1_MetadataValue, path: @autoclosure () -> String) throws(ValidationError) {
        switch wire.kind {
        case .stringValue(let value): self = .string(value)
        case .numberValue(let value): self = .number(value)
        case .boolValue(let value): self = .bool(value)
        case .dateValue(let value): self = .date(WireDate.date(value))
        case .quantityValue(let value): self = .quantity(try Quantity(wire: value, path: path()))
        case nil:
            throw ValidationError(reason: .missingValue, field: path(), value: "", expected: "a string, number, bool, date or quantity")
        }
    }

    package var wire: Salus_V1_MetadataValue {
        var wire = Salus_V1_MetadataValue()
        switch self {
        case .string(let value): wire.stringValue = value
        case .number(let value): wire.numberValue = value
        case .bool(let value): wire.boolValue = value
        case .date(let value): wire.dateValue = WireDate.microseconds(value)
        case .quantity(let value): wire.quantityValue = value.wire
        }
        return wire
    }

    /// A metadata dictionary from the wire; keys are named in errors.
    package static func dictionary(
        wire: [String: Salus_V1_MetadataValue], path: @autoclosure () -> String
    ) throws(ValidationError) -> [String: MetadataValue] {
        if wire.isEmpty { return [:] }
        var result: [String: MetadataValue] = [:]
        for (key, value) in wire {
            result[key] = try MetadataValue(wire: value, path: "\(path()).\(key)")
        }
        return result
    }
}

extension Device {
    package init(wire: Salus_V1_Device) {
        self.init(
            name: wire.optionalName != nil ? wire.name : nil,
            manufacturer: wire.optionalManufacturer != nil ? wire.manufacturer : nil,
            model: wire.optionalModel != nil ? wire.model : nil,
            hardwareVersion: wire.optionalHardwareVersion != nil ? wire.hardwareVersion : nil,
            firmwareVersion: wire.optionalFirmwareVersion != nil ? wire.firmwareVersion : nil,
            softwareVersion: wire.optionalSoftwareVersion != nil ? wire.softwareVersion : nil,
            localIdentifier: wire.optionalLocalIdentifier != nil ? wire.localIdentifier : nil,
            udiDeviceIdentifier: wire.optionalUdiDeviceIdentifier != nil ? wire.udiDeviceIdentifier : nil
        )
    }

    package var wire: Salus_V1_Device {
        var wire = Salus_V1_Device()
        if let name { wire.name = name }
        if let manufacturer { wire.manufacturer = manufacturer }
        if let model { wire.model = model }
        if let hardwareVersion { wire.hardwareVersion = hardwareVersion }
        if let firmwareVersion { wire.firmwareVersion = firmwareVersion }
        if let softwareVersion { wire.softwareVersion = softwareVersion }
        if let localIdentifier { wire.localIdentifier = localIdentifier }
        if let udiDeviceIdentifier { wire.udiDeviceIdentifier = udiDeviceIdentifier }
        return wire
    }
}

extension SourceRevision {
    package var wire: Salus_V1_SourceRevision {
        var wire = Salus_V1_SourceRevision()
        wire.appID = appID
        wire.name = name
        wire.version = version ?? ""
        wire.productType = productType ?? ""
        wire.osVersion = osVersion ?? ""
        return wire
    }

    /// The model revision of `wire`; empty strings are nil.
    package init(wire: Salus_V1_SourceRevision) {
        self.init(
            appID: wire.appID,
            name: wire.name,
            version: wire.version.isEmpty ? nil : wire.version,
            productType: wire.productType.isEmpty ? nil : wire.productType,
            osVersion: wire.osVersion.isEmpty ? nil : wire.osVersion
        )
    }
}

extension DeletedObject {
    package var wire: Salus_V1_DeletedObject {
        var wire = Salus_V1_DeletedObject()
        wire.uuid = WireUUID.bytes(uuid)
        wire.type = type.rawValue
        wire.metadata = metadata.mapValues(\.wire)
        return wire
    }
}
