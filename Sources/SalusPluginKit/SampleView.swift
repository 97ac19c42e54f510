import SalusProtoCodec

/// The parts of a `salus.v1.Sample` a validator needs, decoded from the bytes the host passes.
///
/// Dates are microseconds since the Unix epoch, as on the wire.
public struct SampleView: Sendable, Hashable {
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
        var view = SampleView()
        let failure: ProtoDecodingError? = bytes.withUnsafeBytes { raw in
            do throws(ProtoDecodingError) {
                try view.read(ProtoReader(raw))
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw SampleDecodingError(failure.description) }
        self = view
    }

    /// Decodes a protobuf-encoded `salus.v1.Sample` from borrowed C memory.
    public init(decoding pointer: UnsafePointer<UInt8>?, count: Int) throws(SampleDecodingError) {
        self.init()
        guard let pointer, count > 0 else { return }
        do throws(ProtoDecodingError) {
            try read(ProtoReader(UnsafeRawBufferPointer(start: pointer, count: count)))
        } catch {
            throw SampleDecodingError(error.description)
        }
    }

    private mutating func read(_ start: ProtoReader) throws(ProtoDecodingError) {
        var reader = start
        while let (number, wireType) = try reader.tag() {
            switch (number, wireType) {
            case (2, .lengthDelimited): type = try reader.string()
            case (3, .varint): startDate = try reader.int64()
            case (4, .varint): endDate = try reader.int64()
            case (5, .lengthDelimited): value = try Self.quantity(try reader.message())
            case (6, .lengthDelimited):
                var inner = try reader.message()
                var raw: Int64 = 0
                while let (field, wire) = try inner.tag() {
                    if field == 1, wire == .varint { raw = try inner.int64() } else { try inner.skip(wire) }
                }
                value = .category(raw)
            case (7, .lengthDelimited):
                var inner = try reader.message()
                var activity: UInt32 = 0
                while let (field, wire) = try inner.tag() {
                    if field == 1, wire == .varint { activity = UInt32(truncatingIfNeeded: try inner.varint()) } else { try inner.skip(wire) }
                }
                value = .workout(activityType: activity)
            case (14, .lengthDelimited):
                var inner = try reader.message()
                var count = 0
                while let (field, wire) = try inner.tag() {
                    if field == 1, wire == .lengthDelimited { count += 1 }
                    try inner.skip(wire)
                }
                value = .correlation(objectCount: count)
            case (12, .lengthDelimited):
                var entry = try reader.message()
                var key = ""
                var entryValue: MetadataValue?
                while let (field, wire) = try entry.tag() {
                    switch (field, wire) {
                    case (1, .lengthDelimited): key = try entry.string()
                    case (2, .lengthDelimited): entryValue = try Self.metadataValue(try entry.message())
                    default: try entry.skip(wire)
                    }
                }
                if let entryValue { metadata[key] = entryValue }
            default:
                // Every other kind's value: the validator learns which it is, not what it holds.
                if wireType == .lengthDelimited, let opaque = Value.opaque(field: number) {
                    _ = try reader.lengthDelimited()
                    value = opaque
                } else {
                    try reader.skip(wireType)
                }
            }
        }
    }

    private static func quantity(_ start: ProtoReader) throws(ProtoDecodingError) -> Value {
        var reader = start
        var number = 0.0
        var unit = ""
        while let (field, wire) = try reader.tag() {
            switch (field, wire) {
            case (1, .fixed64): number = try reader.double()
            case (2, .lengthDelimited): unit = try reader.string()
            default: try reader.skip(wire)
            }
        }
        return .quantity(number, unit: unit)
    }

    private static func metadataValue(_ start: ProtoReader) throws(ProtoDecodingError) -> MetadataValue? {
        var reader = start
        var result: MetadataValue?
        while let (field, wire) = try reader.tag() {
            switch (field, wire) {
            case (1, .lengthDelimited): result = .string(try reader.string())
            case (2, .fixed64): result = .number(try reader.double())
            case (3, .varint): result = .bool(try reader.bool())
            case (4, .varint): result = .date(try reader.int64())
            case (5, .lengthDelimited):
                if case .quantity(let value, let unit) = try quantity(try reader.message()) {
                    result = .quantity(value, unit: unit)
                }
            default: try reader.skip(wire)
            }
        }
        return result
    }
}

/// A sample a validator could not decode; the message says where (the field and the byte) and
/// what was expected.
public struct SampleDecodingError: Error, CustomStringConvertible, Sendable {
    /// What was wrong with the bytes.
    public let description: String

    init(_ description: String) { self.description = description }
}
