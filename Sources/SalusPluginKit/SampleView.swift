/// The parts of a `salus.v1.Sample` a validator needs, decoded from the bytes the host passes.
///
/// Dates are microseconds since the Unix epoch, as on the wire.
public struct SampleView: Sendable, Hashable {
    /// A sample's value.
    public enum Value: Sendable, Hashable {
        /// A quantity with its unit string.
        case quantity(Double, unit: String)
        /// A category raw value.
        case category(Int64)
        /// A workout with its activity type raw value.
        case workout(activityType: UInt32)
        /// A vision prescription.
        case visionPrescription
        /// A document.
        case document
        /// An electrocardiogram.
        case electrocardiogram
        /// An audiogram.
        case audiogram
        /// A heartbeat series.
        case heartbeatSeries
        /// A state of mind.
        case stateOfMind
        /// A medication dose event.
        case medicationDoseEvent
        /// A scored assessment.
        case scoredAssessment
        /// A clinical record (a FHIR resource).
        case clinicalRecord
        /// A workout route (its locations when saving).
        case workoutRoute
        /// A correlation holding this many member samples (the host checks each member with the
        /// validator of the plugin that owns the member's type).
        case correlation(objectCount: Int)
        /// No value set.
        case none
    }

    /// A typed metadata value.
    public enum MetadataValue: Sendable, Hashable {
        case string(String)
        case number(Double)
        case bool(Bool)
        /// Microseconds since the Unix epoch.
        case date(Int64)
        case quantity(Double, unit: String)
    }

    /// The type identifier.
    public var type: String = ""
    /// Start, microseconds since the epoch.
    public var startDate: Int64 = 0
    /// End, microseconds since the epoch.
    public var endDate: Int64 = 0
    /// The value.
    public var value: Value = .none
    /// Metadata by raw key.
    public var metadata: [String: MetadataValue] = [:]

    /// The duration in seconds.
    public var durationSeconds: Double { Double(endDate - startDate) / 1_000_000 }

    /// Creates an empty view (for tests).
    public init() {}

    /// Decodes a protobuf-encoded `salus.v1.Sample`.
    public init(decoding bytes: [UInt8]) throws(SampleDecodingError) {
        var reader = ProtoReader(bytes)
        while let (number, wireType) = try reader.nextField() {
            switch (number, wireType) {
            case (2, 2): type = try reader.string()
            case (3, 0): startDate = Int64(bitPattern: try reader.varint())
            case (4, 0): endDate = Int64(bitPattern: try reader.varint())
            case (5, 2): value = try Self.quantity(try reader.nested())
            case (6, 2):
                var inner = try reader.nested()
                var raw: Int64 = 0
                while let (field, wire) = try inner.nextField() {
                    if field == 1, wire == 0 { raw = Int64(bitPattern: try inner.varint()) } else { try inner.skip(wireType: wire) }
                }
                value = .category(raw)
            case (7, 2):
                var inner = try reader.nested()
                var activity: UInt32 = 0
                while let (field, wire) = try inner.nextField() {
                    if field == 1, wire == 0 { activity = UInt32(truncatingIfNeeded: try inner.varint()) } else { try inner.skip(wireType: wire) }
                }
                value = .workout(activityType: activity)
            case (8, 2):
                _ = try reader.nested()
                value = .visionPrescription
            case (9, 2):
                _ = try reader.nested()
                value = .document
            case (14, 2):
                var inner = try reader.nested()
                var count = 0
                while let (field, wire) = try inner.nextField() {
                    if field == 1, wire == 2 { count += 1 }
                    try inner.skip(wireType: wire)
                }
                value = .correlation(objectCount: count)
            case (15...20, 2):
                _ = try reader.nested()
                value = [.electrocardiogram, .audiogram, .heartbeatSeries, .stateOfMind, .medicationDoseEvent, .scoredAssessment][
                    Int(number) - 15]
            case (21, 2):
                _ = try reader.nested()
                value = .clinicalRecord
            case (22, 2):
                _ = try reader.nested()
                value = .workoutRoute
            case (12, 2):
                var entry = try reader.nested()
                var key = ""
                var entryValue: MetadataValue?
                while let (field, wire) = try entry.nextField() {
                    switch (field, wire) {
                    case (1, 2): key = try entry.string()
                    case (2, 2): entryValue = try Self.metadataValue(try entry.nested())
                    default: try entry.skip(wireType: wire)
                    }
                }
                if let entryValue { metadata[key] = entryValue }
            default:
                try reader.skip(wireType: wireType)
            }
        }
    }

    /// Decodes a protobuf-encoded `salus.v1.Sample` from borrowed C memory.
    public init(decoding pointer: UnsafePointer<UInt8>?, count: Int) throws(SampleDecodingError) {
        guard let pointer, count > 0 else {
            try self.init(decoding: [UInt8]())
            return
        }
        try self.init(decoding: Array(UnsafeBufferPointer(start: pointer, count: count)))
    }

    private static func quantity(_ reader: ProtoReader) throws(SampleDecodingError) -> Value {
        var reader = reader
        var number = 0.0
        var unit = ""
        while let (field, wire) = try reader.nextField() {
            switch (field, wire) {
            case (1, 1): number = try reader.double()
            case (2, 2): unit = try reader.string()
            default: try reader.skip(wireType: wire)
            }
        }
        return .quantity(number, unit: unit)
    }

    private static func metadataValue(_ reader: ProtoReader) throws(SampleDecodingError) -> MetadataValue? {
        var reader = reader
        var result: MetadataValue?
        while let (field, wire) = try reader.nextField() {
            switch (field, wire) {
            case (1, 2): result = .string(try reader.string())
            case (2, 1): result = .number(try reader.double())
            case (3, 0): result = .bool(try reader.varint() != 0)
            case (4, 0): result = .date(Int64(bitPattern: try reader.varint()))
            case (5, 2):
                if case .quantity(let value, let unit) = try quantity(try reader.nested()) {
                    result = .quantity(value, unit: unit)
                }
            default: try reader.skip(wireType: wire)
            }
        }
        return result
    }
}
