import Foundation
import SalusModel
import SalusProto
import SalusWire
import SwiftProtobuf

/// One sample as a row of `salus.samples`, encoded to JSON so that a whole batch travels as one
/// parameter and the server spreads it with `jsonb_to_recordset` (see ``SyncSchema``).
///
/// Columns spell out what a care team queries (type, dates, quantity or category value, source,
/// device, metadata as JSONB, sync identifier and version); `payload` keeps the whole sample as
/// `salus.v1.Sample` protobuf, so kinds the columns do not spell out (workouts, documents, ...)
/// lose nothing.
struct SampleRow: Encodable {
    var uuid: UUID
    var type: String
    var kind: String
    var start_us: Int64
    var end_us: Int64
    var quantity_value: Double?
    var quantity_unit: String?
    var category_value: Int?
    var source_app_id: String
    var source_name: String
    var source_version: String?
    var source_product_type: String?
    var source_os_version: String?
    var device_name: String?
    var device_manufacturer: String?
    var device_model: String?
    var device_hardware_version: String?
    var device_firmware_version: String?
    var device_software_version: String?
    var device_local_identifier: String?
    var device_udi: String?
    var metadata: [String: MetadataJSON]
    var sync_identifier: String?
    var sync_version: Double?
    var creation_us: Int64
    var payload: String
    /// The person's change sequence on the server, set when the batch is committed.
    var seq: Int64 = 0

    init(_ sample: Sample) throws {
        uuid = sample.uuid
        type = sample.type.rawValue
        kind = sample.kind.rawValue
        start_us = WireDate.microseconds(sample.startDate)
        end_us = WireDate.microseconds(sample.endDate)
        switch sample.value {
        case .quantity(let quantity):
            quantity_value = quantity.value
            quantity_unit = quantity.unit.description
        case .category(let value):
            category_value = value
        default:
            break
        }
        source_app_id = sample.sourceRevision.appID
        source_name = sample.sourceRevision.name
        source_version = sample.sourceRevision.version
        source_product_type = sample.sourceRevision.productType
        source_os_version = sample.sourceRevision.osVersion
        if let device = sample.device {
            device_name = device.name
            device_manufacturer = device.manufacturer
            device_model = device.model
            device_hardware_version = device.hardwareVersion
            device_firmware_version = device.firmwareVersion
            device_software_version = device.softwareVersion
            device_local_identifier = device.localIdentifier
            device_udi = device.udiDeviceIdentifier
        }
        metadata = sample.metadata.mapValues(MetadataJSON.init)
        sync_identifier = sample.syncIdentifier
        sync_version = sample.syncVersion
        creation_us = WireDate.microseconds(sample.creationDate)
        payload = try sample.wire.serializedData().base64EncodedString()
    }
}

extension SampleRow {
    /// The sample a row's `payload` holds, with the UUID, source revision and creation date it
    /// has in the store that sent it.
    /// A payload that would take more than `DecodingBudget.defaultLimit` of memory once decoded
    /// (a row written by something other than a store: two bytes make an empty nested message)
    /// is refused before it is decoded, naming the list.
    static func sample(payload: [UInt8]) throws -> Sample {
        let estimate = payload.withUnsafeBytes { DecodingBudget.estimate(Salus_V1_Sample.self, $0) }
        if case .over(let bytes, let field) = estimate {
            throw SyncError(
                .server, "a payload of \(payload.count) bytes would take more than \(DecodingBudget.defaultLimit >> 20) MiB once decoded",
                field: "payload.\(field)", value: "an estimated \(bytes) bytes",
                expected: "at most \(DecodingBudget.defaultLimit >> 20) MiB decoded")
        }
        let wire = try Salus_V1_Sample(serializedBytes: payload)
        return try Sample(
            wire: wire, path: "payload", source: SourceRevision(wire: wire.sourceRevision),
            creationDate: WireDate.date(wire.creationDate))
    }
}

/// A deleted object as a row of `salus.tombstones`: only the sync identifier and version survive
/// a deletion, in the store as here.
struct TombstoneRow: Encodable {
    var uuid: UUID
    var type: String
    var metadata: [String: MetadataJSON]
    /// `deleted`, or `superseded`: a sample that lost to another of the same sync identifier.
    var reason: String
    /// The person's change sequence on the server, set when the batch is committed.
    var seq: Int64 = 0

    init(_ deleted: DeletedObject) {
        uuid = deleted.uuid
        type = deleted.type.rawValue
        metadata = deleted.metadata.filter { MetadataKey.keptOnDeletion.contains($0.key) }.mapValues(MetadataJSON.init)
        reason = "deleted"
    }

    /// The tombstone of a sample the server refused because another sample of the same app,
    /// type and sync identifier has a higher version, or an equal one that came first.
    init(superseded sample: Sample) {
        uuid = sample.uuid
        type = sample.type.rawValue
        metadata = sample.metadata.filter { MetadataKey.keptOnDeletion.contains($0.key) }.mapValues(MetadataJSON.init)
        reason = "superseded"
    }
}

/// A metadata value in JSONB: strings, numbers and booleans as themselves; a date as
/// `{"date": "<ISO 8601>"}`; a quantity as `{"value": 70.5, "unit": "kg"}`.
enum MetadataJSON: Encodable, Hashable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case date(Date)
    case quantity(Double, String)

    init(_ value: MetadataValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .number(let number): self = .number(number)
        case .bool(let flag): self = .bool(flag)
        case .date(let date): self = .date(date)
        case .quantity(let quantity): self = .quantity(quantity.value, quantity.unit.description)
        }
    }

    private enum Keys: String, CodingKey { case date, value, unit }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .number(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .date(let date):
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)), forKey: .date)
        case .quantity(let value, let unit):
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(value, forKey: .value)
            try container.encode(unit, forKey: .unit)
        }
    }
}

extension Array where Element: Encodable {
    /// The elements as one JSON array, the parameter of a `jsonb_to_recordset` statement.
    func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .throw
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
