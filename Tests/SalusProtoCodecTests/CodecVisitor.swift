import Foundation
import SalusProtoCodec
import SwiftProtobuf

/// Writes any generated message with the codec's ``ProtoBytes``, field by field as
/// SwiftProtobuf's traversal presents them: what the codec writes must be SwiftProtobuf's bytes.
///
/// The generated traversal leaves out proto3 defaults and presents oneof members and map entries
/// always, so every field here is written with `always: true`; map entries go in key order, as
/// SwiftProtobuf's deterministic ordering writes them.
struct CodecVisitor: Visitor {
    /// Holds the buffer, which is not copyable, for the visitor, which must be.
    final class Sink {
        var bytes = ProtoBytes(capacity: 16)
    }

    let sink = Sink()

    /// `message` written by the codec.
    static func encode(_ message: some Message) throws -> [UInt8] {
        var visitor = CodecVisitor()
        try message.traverse(visitor: &visitor)
        return visitor.sink.bytes.array
    }

    mutating func visitSingularDoubleField(value: Double, fieldNumber: Int) throws {
        sink.bytes.double(UInt64(fieldNumber), value, always: true)
    }

    mutating func visitSingularInt64Field(value: Int64, fieldNumber: Int) throws {
        sink.bytes.int64(UInt64(fieldNumber), value, always: true)
    }

    mutating func visitSingularUInt64Field(value: UInt64, fieldNumber: Int) throws {
        sink.bytes.uint64(UInt64(fieldNumber), value, always: true)
    }

    mutating func visitSingularBoolField(value: Bool, fieldNumber: Int) throws {
        sink.bytes.bool(UInt64(fieldNumber), value, always: true)
    }

    mutating func visitSingularStringField(value: String, fieldNumber: Int) throws {
        sink.bytes.string(UInt64(fieldNumber), value, always: true)
    }

    mutating func visitSingularBytesField(value: Data, fieldNumber: Int) throws {
        let sink = self.sink
        value.withUnsafeBytes { sink.bytes.bytes(UInt64(fieldNumber), $0, always: true) }
    }

    mutating func visitSingularEnumField<E: SwiftProtobuf.Enum>(value: E, fieldNumber: Int) throws {
        sink.bytes.int64(UInt64(fieldNumber), Int64(value.rawValue), always: true)
    }

    mutating func visitSingularMessageField<M: Message>(value: M, fieldNumber: Int) throws {
        let start = sink.bytes.begin(UInt64(fieldNumber))
        try value.traverse(visitor: &self)
        sink.bytes.end(start)
    }

    mutating func visitPackedInt64Field(value: [Int64], fieldNumber: Int) throws {
        sink.bytes.packedInt64(UInt64(fieldNumber), value)
    }

    mutating func visitPackedInt32Field(value: [Int32], fieldNumber: Int) throws {
        sink.bytes.packedInt64(UInt64(fieldNumber), value.map(Int64.init))
    }

    mutating func visitPackedEnumField<E: SwiftProtobuf.Enum>(value: [E], fieldNumber: Int) throws {
        sink.bytes.packedInt64(UInt64(fieldNumber), value.map { Int64($0.rawValue) })
    }

    mutating func visitPackedUInt32Field(value: [UInt32], fieldNumber: Int) throws {
        packed(fieldNumber, value.map(UInt64.init))
    }

    mutating func visitPackedUInt64Field(value: [UInt64], fieldNumber: Int) throws {
        packed(fieldNumber, value)
    }

    mutating func visitPackedBoolField(value: [Bool], fieldNumber: Int) throws {
        packed(fieldNumber, value.map { $0 ? 1 : 0 })
    }

    mutating func visitPackedDoubleField(value: [Double], fieldNumber: Int) throws {
        guard !value.isEmpty else { return }
        let start = sink.bytes.begin(UInt64(fieldNumber))
        let sink = self.sink
        for number in value {
            sink.bytes.write(8) { writer in
                UnsafeMutableRawPointer(writer.cursor).storeBytes(of: number.bitPattern.littleEndian, as: UInt64.self)
                writer.cursor += 8
            }
        }
        sink.bytes.end(start)
    }

    private mutating func packed(_ fieldNumber: Int, _ values: [UInt64]) {
        guard !values.isEmpty else { return }
        let start = sink.bytes.begin(UInt64(fieldNumber))
        for value in values { sink.bytes.varint(value) }
        sink.bytes.end(start)
    }

    mutating func visitMapField<KeyType, ValueType: MapValueType>(
        fieldType: _ProtobufMap<KeyType, ValueType>.Type, value: _ProtobufMap<KeyType, ValueType>.BaseType, fieldNumber: Int
    ) throws {
        for (key, entry) in value.sorted(by: { KeyType._lessThan(lhs: $0.key, rhs: $1.key) }) {
            let start = sink.bytes.begin(UInt64(fieldNumber))
            try KeyType.visitSingular(value: key, fieldNumber: 1, with: &self)
            try ValueType.visitSingular(value: entry, fieldNumber: 2, with: &self)
            sink.bytes.end(start)
        }
    }

    mutating func visitMapField<KeyType, ValueType>(
        fieldType: _ProtobufEnumMap<KeyType, ValueType>.Type, value: _ProtobufEnumMap<KeyType, ValueType>.BaseType,
        fieldNumber: Int
    ) throws where ValueType.RawValue == Int {
        for (key, entry) in value.sorted(by: { KeyType._lessThan(lhs: $0.key, rhs: $1.key) }) {
            let start = sink.bytes.begin(UInt64(fieldNumber))
            try KeyType.visitSingular(value: key, fieldNumber: 1, with: &self)
            try visitSingularEnumField(value: entry, fieldNumber: 2)
            sink.bytes.end(start)
        }
    }

    mutating func visitMapField<KeyType, ValueType>(
        fieldType: _ProtobufMessageMap<KeyType, ValueType>.Type, value: _ProtobufMessageMap<KeyType, ValueType>.BaseType,
        fieldNumber: Int
    ) throws {
        for (key, entry) in value.sorted(by: { KeyType._lessThan(lhs: $0.key, rhs: $1.key) }) {
            let start = sink.bytes.begin(UInt64(fieldNumber))
            try KeyType.visitSingular(value: key, fieldNumber: 1, with: &self)
            try visitSingularMessageField(value: entry, fieldNumber: 2)
            sink.bytes.end(start)
        }
    }

    mutating func visitUnknown(bytes: Data) throws {
        sink.bytes.append(contentsOf: Array(bytes))
    }
}
