import Foundation
import SalusModel
import SalusProto
import SalusWire

extension Sample {
    /// The source revision of a sample not saved yet: the daemon assigns the real one from the
    /// calling app when it saves.
    public static let unsavedSource = SourceRevision(appID: "", name: "")

    /// A sample of any kind to save: `value` as a sample of `type` from `start` to `end` (`end`
    /// defaults to `start`, an instantaneous sample). The constructors of each kind below
    /// (``quantity(_:_:start:end:device:metadata:)``, ``audiogram(_:start:end:type:device:metadata:)``...)
    /// are this with the kind's usual type and dates; a value is read back from a query result
    /// with `sample.value` (`if case .audiogram(let audiogram) = sample.value`).
    public init(
        type: SampleType,
        value: SampleValue,
        start: Date,
        end: Date? = nil,
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:]
    ) {
        self.init(
            type: type.identifier, startDate: start, endDate: end ?? start, value: value, sourceRevision: Self.unsavedSource,
            device: device, metadata: metadata)
    }

    /// A quantity sample to save, as HealthKit's `HKQuantitySample(type:quantity:start:end:)`.
    /// `end` defaults to `start` (an instantaneous sample).
    public static func quantity(
        _ type: QuantityTypeIdentifier,
        _ quantity: Quantity,
        start: Date,
        end: Date? = nil,
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        Sample(
            type: TypeIdentifier(rawValue: type.rawValue), startDate: start, endDate: end ?? start,
            value: .quantity(quantity), sourceRevision: unsavedSource, device: device, metadata: metadata
        )
    }

    /// A category sample to save, as HealthKit's `HKCategorySample(type:value:start:end:)`;
    /// `value` is a raw value of the type's enumeration.
    public static func category(
        _ type: CategoryTypeIdentifier,
        value: Int,
        start: Date,
        end: Date,
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        Sample(
            type: TypeIdentifier(rawValue: type.rawValue), startDate: start, endDate: end,
            value: .category(value), sourceRevision: unsavedSource, device: device, metadata: metadata
        )
    }

    /// A sleep analysis sample to save.
    public static func sleepAnalysis(
        _ value: CategoryValueSleepAnalysis,
        start: Date,
        end: Date,
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        category(.sleepAnalysis, value: value.rawValue, start: start, end: end, device: device, metadata: metadata)
    }

    /// The sample's sleep analysis value, when it is a sleep analysis sample with a known value.
    public var sleepAnalysisValue: CategoryValueSleepAnalysis? {
        guard type.rawValue == CategoryTypeIdentifier.sleepAnalysis.rawValue, case .category(let raw) = value else { return nil }
        return CategoryValueSleepAnalysis(rawValue: raw)
    }

    /// The wire form sent by ``HealthStore/save(_:)-(Sample)``: without the UUID, source revision and
    /// creation date, which the daemon assigns (a correlation's members without theirs either).
    var wireForSaving: Salus_V1_Sample {
        var wire = self.wire
        wire.uuid = Data()
        wire.clearSourceRevision()
        wire.creationDate = 0
        if case .correlation(let correlation) = value {
            wire.correlation.objects = correlation.objects.map(\.wireForSaving)
        }
        return wire
    }

    /// The sample the daemon sent, with the source revision and creation date it carries (a
    /// correlation's members with their own).
    init(received wire: Salus_V1_Sample, path: String) throws(SalusError) {
        guard WireUUID.uuid(wire.uuid) != nil else {
            throw SalusError.malformed(field: "\(path).uuid", value: "\(wire.uuid.count) bytes", expected: "16 bytes")
        }
        do {
            try self.init(
                wire: wire, path: path, source: SourceRevision(wire: wire.sourceRevision),
                creationDate: WireDate.date(wire.creationDate)
            )
        } catch {
            throw SalusError.malformed(field: error.field, value: error.value, expected: error.expected)
        }
        if case .correlation(let correlation) = wire.value {
            var objects: [Sample] = []
            for (index, member) in correlation.objects.enumerated() {
                objects.append(try Sample(received: member, path: "\(path).correlation.objects[\(index)]"))
            }
            value = .correlation(Correlation(objects: objects))
        }
    }
}

extension DeletedObject {
    /// The deleted object the daemon sent.
    init(received wire: Salus_V1_DeletedObject, path: String) throws(SalusError) {
        guard let uuid = WireUUID.uuid(wire.uuid) else {
            throw SalusError.malformed(field: "\(path).uuid", value: "\(wire.uuid.count) bytes", expected: "16 bytes")
        }
        let metadata: [String: MetadataValue]
        do {
            metadata = try MetadataValue.dictionary(wire: wire.metadata, path: "\(path).metadata")
        } catch {
            throw SalusError.malformed(field: error.field, value: error.value, expected: error.expected)
        }
        self.init(uuid: uuid, type: TypeIdentifier(rawValue: wire.type), metadata: metadata)
    }
}

extension SalusError {
    /// A response SalusKit cannot read, naming the field.
    static func malformed(field: String, value: String, expected: String) -> SalusError {
        SalusError(
            code: .malformedMessage,
            message: "the daemon's answer has \(field) = \(value.isEmpty ? "(empty)" : value); expected \(expected)",
            field: field, value: value, expected: expected
        )
    }
}
