/// A minimal protobuf encoder for the manifest messages.
///
/// SalusPluginKit is compiled into every Swift plugin, so it depends on nothing Swift but the
/// standard library: linking SwiftProtobuf into each plugin as well as into the daemon would put
/// several copies of one Swift module in one process. Manifests are small and their schema is
/// fixed by `Protos/salus/v1/plugin.proto`, so a writer of the five wire forms suffices.
struct ProtoWriter {
    private(set) var bytes: [UInt8] = []

    private mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private mutating func tag(_ field: Int, _ wireType: UInt64) {
        varint(UInt64(field) << 3 | wireType)
    }

    /// A string field; proto3 omits the empty string.
    mutating func string(_ field: Int, _ value: String) {
        guard !value.isEmpty else { return }
        let utf8 = Array(value.utf8)
        tag(field, 2)
        varint(UInt64(utf8.count))
        bytes.append(contentsOf: utf8)
    }

    /// A signed 64-bit varint field (int64, int32, enum); proto3 omits zero.
    mutating func int64(_ field: Int, _ value: Int64) {
        guard value != 0 else { return }
        tag(field, 0)
        varint(UInt64(bitPattern: value))
    }

    /// An unsigned varint field (uint32); proto3 omits zero.
    mutating func uint64(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, 0)
        varint(value)
    }

    /// A bool field; proto3 omits false.
    mutating func bool(_ field: Int, _ value: Bool) {
        guard value else { return }
        tag(field, 0)
        varint(1)
    }

    /// A double field inside a one-field oneof: always written, so presence survives.
    mutating func presentDouble(_ field: Int, _ value: Double) {
        tag(field, 1)
        var bits = value.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    /// A packed repeated int64 field; nothing when empty.
    mutating func packedInt64(_ field: Int, _ values: [Int64]) {
        guard !values.isEmpty else { return }
        var inner = ProtoWriter()
        for value in values { inner.varint(UInt64(bitPattern: value)) }
        tag(field, 2)
        varint(UInt64(inner.bytes.count))
        bytes.append(contentsOf: inner.bytes)
    }

    /// An embedded message field, always written (an empty message still marks presence).
    mutating func message(_ field: Int, _ build: (inout ProtoWriter) -> Void) {
        var inner = ProtoWriter()
        build(&inner)
        tag(field, 2)
        varint(UInt64(inner.bytes.count))
        bytes.append(contentsOf: inner.bytes)
    }
}
