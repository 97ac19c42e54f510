import Foundation

/// How many bytes a sample takes in a read answer (`Validation.maximumSampleBytes`).
///
/// Counted from the model, without the wire layer: each field of the sample's `salus.v1.Sample`
/// message as it is read back (docs/protocol.md), at most what Protocol Buffers writes for it.
/// A field with a length (a string, bytes, a message, a map entry) counts its contents and 7
/// bytes (a tag of up to 2 bytes and a length of up to 5), a number 12 (a tag and a varint of
/// up to 10 bytes), a boolean 3. What a read leaves out is not counted: an electrocardiogram's
/// voltages and a route's locations, read with calls of their own.
package enum SampleSize {
    /// A field with a length, holding `bytes`.
    @inline(__always) static func field(_ bytes: Int) -> Int { 7 + bytes }
    /// A field with a length holding `text`'s UTF-8 bytes; nothing when nil.
    @inline(__always) static func text(_ text: String?) -> Int { text.map { field($0.utf8.count) } ?? 0 }
    /// A number (varint, double, date).
    static let number = 12
    /// A boolean.
    static let bool = 3
    /// A UUID field (16 bytes).
    static let uuid = field(16)

    /// A `salus.v1.Quantity` field.
    static func quantity(_ quantity: Quantity?) -> Int {
        guard let quantity else { return 0 }
        return field(number + text(quantity.unit.description))
    }

    /// A `map<string, MetadataValue>` field: each entry its key and value, as
    /// `Validation.bytes(_:_:)` counts them, and what encodes them.
    static func metadata(_ metadata: [String: MetadataValue]) -> Int {
        var total = 0
        for (key, value) in metadata {
            // An entry (tag, length), its key field, its value field (tag, length) and the
            // value's own field (tag, length or number).
            total += Validation.bytes(key, value) + 4 * 7
        }
        return total
    }

    /// The most bytes `metadata` may take (`metadata(_:)`) when it holds at most
    /// `Validation.maximumMetadataBytes` in `count` entries: without reading it.
    static func metadataBound(count: Int) -> Int {
        Validation.maximumMetadataBytes + 4 * 7 * count
    }

    static func source(_ source: SourceRevision) -> Int {
        field(
            text(source.appID) + text(source.name) + text(source.version) + text(source.productType) + text(source.osVersion))
    }

    static func device(_ device: Device?) -> Int {
        guard let device else { return 0 }
        return field(
            text(device.name) + text(device.manufacturer) + text(device.model) + text(device.hardwareVersion)
                + text(device.firmwareVersion) + text(device.softwareVersion) + text(device.localIdentifier)
                + text(device.udiDeviceIdentifier))
    }

    static func configuration(_ configuration: WorkoutConfiguration) -> Int {
        field(2 * number + quantity(configuration.lapLength))
    }

    static func statistics(_ statistics: [TypeIdentifier: Quantity]) -> Int {
        statistics.reduce(0) { $0 + field(text($1.key.rawValue) + quantity($1.value)) }
    }

    static func allStatistics(_ statistics: [TypeIdentifier: WorkoutStatistics]) -> Int {
        statistics.reduce(0) { total, entry in
            let figures = entry.value
            return total
                + field(
                    text(entry.key.rawValue)
                        + field(
                            quantity(figures.sum) + quantity(figures.average) + quantity(figures.minimum)
                                + quantity(figures.maximum) + bool))
        }
    }

    /// The parts of a sample, each named by its field under the sample, with its bytes.
    struct Parts {
        var parts: [(field: String, bytes: Int)] = []
        var total = 0

        mutating func add(_ field: @autoclosure () -> String, _ bytes: Int, naming: Bool) {
            total += bytes
            if naming { parts.append((field(), bytes)) }
        }
    }

    /// The value field of `sample` (the oneof), with its parts when `naming`.
    static func value(_ value: SampleValue, into parts: inout Parts, naming: Bool) {
        switch value {
        case .quantity(let value):
            parts.add("quantity", quantity(value), naming: naming)
        case .category:
            parts.add("category", field(number), naming: naming)
        case .workout(let workout):
            var own = 2 * number + statistics(workout.statistics) + configuration(workout.configuration) + number
                + allStatistics(workout.allStatistics)
            own += workout.recordedDuration == nil ? 0 : number
            parts.add("workout", field(own), naming: naming)
            let events = workout.events.reduce(0) { $0 + field(3 * number + metadata($1.metadata)) }
            parts.add("workout.events", events, naming: naming)
            let activities = workout.activities.reduce(0) { total, activity in
                total
                    + field(
                        uuid + 4 * number + metadata(activity.metadata) + statistics(activity.statistics)
                            + configuration(activity.configuration) + allStatistics(activity.allStatistics))
            }
            parts.add("workout.activities", activities, naming: naming)
        case .visionPrescription(let prescription):
            // Two lenses of ten numbers and a prism of eight.
            let lens = field(10 * number + field(8 * number))
            parts.add("visionPrescription", field(3 * number + 2 * lens + text(prescription.brand)), naming: naming)
        case .document(let document):
            parts.add(
                "document",
                field(
                    text(document.contentType) + text(document.title) + text(document.patientName)
                        + text(document.authorName) + text(document.custodianName) + number) + 7,
                naming: naming)
            parts.add("document.data", document.data.count, naming: naming)
        case .electrocardiogram:
            // Read without its voltages (Store/QueryElectrocardiogramVoltages).
            parts.add("electrocardiogram", field(5 * number), naming: naming)
        case .audiogram(let audiogram):
            let points = audiogram.sensitivityPoints.reduce(0) { total, point in
                total + field(number + point.tests.count * field(4 * number + bool + field(2 * number)))
            }
            parts.add("audiogram.sensitivityPoints", field(points), naming: naming)
        case .heartbeatSeries(let series):
            // A beat exactly: its tag and length (2), a double (9) and a boolean (2). A series
            // is the one value of many small messages: 22 bytes a beat would refuse half of
            // what fits.
            parts.add("heartbeatSeries.beats", field(series.beats.count * 13), naming: naming)
        case .stateOfMind(let state):
            parts.add(
                "stateOfMind", field(3 * number + field(number * state.labels.count) + field(number * state.associations.count)),
                naming: naming)
        case .medicationDoseEvent(let dose):
            parts.add(
                "medicationDoseEvent",
                field(5 * number + text(dose.medicationConceptIdentifier) + text(dose.unit.description)), naming: naming)
        case .scoredAssessment(let assessment):
            parts.add("scoredAssessment", field(3 * number + field(number * assessment.answers.count)), naming: naming)
        case .correlation(let correlation):
            let members = correlation.objects.reduce(0) { $0 + readBytes(of: $1) }
            parts.add("correlation.objects", field(members), naming: naming)
        case .clinicalRecord(let record):
            parts.add(
                "clinicalRecord",
                field(
                    text(record.fhirVersion) + text(record.displayName) + text(record.sourceName) + text(record.sourceURL)
                        + number + text(record.resourceID) + text(record.resourceType)) + 7,
                naming: naming)
            parts.add("clinicalRecord.fhirData", record.fhirData.count, naming: naming)
        case .workoutRoute:
            // Read without its locations (Routes/QueryLocations).
            parts.add("workoutRoute", field(uuid + number), naming: naming)
        case .userAnnotatedMedication(let medication):
            let codings = medication.relatedCodings.reduce(0) { $0 + field(text($1.system) + text($1.version) + text($1.code)) }
            parts.add(
                "userAnnotatedMedication",
                field(
                    text(medication.conceptIdentifier) + text(medication.displayText) + text(medication.generalForm)
                        + codings + text(medication.nickname) + 2 * bool), naming: naming)
        }
    }

    /// Every part of `sample`, with the total.
    static func parts(of sample: Sample, naming: Bool, metadataRead: Bool = true) -> Parts {
        var parts = Parts()
        // Its UUID, type, dates and creation date, and the message's own tag and length.
        parts.add("", uuid + text(sample.type.rawValue) + 3 * number + 7, naming: false)
        value(sample.value, into: &parts, naming: naming)
        parts.add("sourceRevision", source(sample.sourceRevision), naming: naming)
        parts.add("device", device(sample.device), naming: naming)
        parts.add(
            "metadata", metadataRead ? metadata(sample.metadata) : metadataBound(count: sample.metadata.count), naming: naming)
        return parts
    }

    /// The bytes `sample` takes in a read answer: its `salus.v1.Sample` message with the field
    /// tag and length of the list that holds it.
    package static func readBytes(of sample: Sample) -> Int {
        parts(of: sample, naming: false).total
    }

    /// `sample` over `Validation.maximumSampleBytes`: the error naming its largest part under
    /// `path`; nil when it fits. Its metadata is read only when the rest leaves less room than
    /// any metadata within `Validation.maximumMetadataBytes` can take.
    package static func error(of sample: Sample, at path: @autoclosure () -> String) -> ValidationError? {
        let limit = Validation.maximumSampleBytes
        if parts(of: sample, naming: false, metadataRead: false).total <= limit { return nil }
        let parts = parts(of: sample, naming: true)
        guard parts.total > limit else { return nil }
        let largest = parts.parts.max { $0.bytes < $1.bytes }
        let field = largest.map { "\(path()).\($0.field)" } ?? path()
        let share = largest.map { " (\($0.bytes) of them in \($0.field))" } ?? ""
        return ValidationError(
            reason: .valueOutOfRange, field: field, value: "a sample of \(parts.total) bytes",
            expected: "a sample of at most \(limit) bytes as it is read back\(share), so that it can be read in one frame")
    }
}

extension Sample {
    /// The bytes this sample takes in a read answer (`SampleSize`), which
    /// `Validation.maximumSampleBytes` bounds.
    package var readBytes: Int { SampleSize.readBytes(of: self) }
}
