import Foundation
import NIOCore
import SalusProtoCodec
import SalusStore

/// The bytes of a `salus.v1.SaveResponse`, written straight from the store's results: exactly
/// what SwiftProtobuf writes for the message `StoreService.wire(_:)` builds (fields in number
/// order, defaults left out), with no message in between.
///
/// A batch of 10,000 samples built 10,000 `SaveResult` messages, each with its UUID in a `Data`
/// of its own, and encoded them through SwiftProtobuf's visitors: about 6 ms after the commit
/// in which neither the writer nor the client worked, a tenth of the store bench's save.
enum SaveResponseEncoding {
    /// The encoded response.
    static func encoded(_ response: SaveResponse) -> ByteBuffer {
        var out = ProtoBytes(capacity: response.results.count * 22 + 16)
        for result in response.results { write(result, field: 1, into: &out) }
        out.uint64(2, response.anchor.rawValue)
        return out.withBytes { ByteBuffer(bytes: $0) }
    }

    /// `result` as message field `field` of the enclosing message.
    static func write(_ result: SaveResult, field: UInt64, into out: inout ProtoBytes) {
        let start = out.begin(field)
        uuid(1, result.uuid, into: &out)
        switch result.outcome {
        case .saved: out.int64(2, 1)
        case .keptExisting: out.int64(2, 2)
        case .replaced(let old):
            out.int64(2, 3)
            uuid(3, old, into: &out)
        case .present, .deletedHere:
            // Replicas only (ReplicaService); an app's save never keeps a UUID.
            break
        }
        for member in result.objects { write(member, field: 4, into: &out) }
        out.end(start)
    }

    private static func uuid(_ field: UInt64, _ uuid: UUID, into out: inout ProtoBytes) {
        withUnsafeBytes(of: uuid.uuid) { out.bytes(field, $0) }
    }
}
