import Foundation
import SalusModel
import SalusProto

extension Attachment {
    /// The wire form; the adding app is not part of it.
    package var wire: Salus_V1_Attachment {
        var wire = Salus_V1_Attachment()
        wire.uuid = WireUUID.bytes(uuid)
        wire.objectUuid = WireUUID.bytes(objectUUID)
        wire.name = name
        wire.contentType = contentType
        wire.size = UInt64(max(0, size))
        wire.creationDate = WireDate.microseconds(creationDate)
        wire.metadata = metadata
        return wire
    }

    /// The model attachment for `wire`, whose fields are named under `path`.
    package init(wire: Salus_V1_Attachment, path: String = "attachment") throws(ValidationError) {
        guard let uuid = WireUUID.uuid(wire.uuid) else {
            throw ValidationError(
                reason: .invalidValue, field: "\(path).uuid", value: "\(wire.uuid.count) bytes", expected: "16 bytes")
        }
        guard let objectUUID = WireUUID.uuid(wire.objectUuid) else {
            throw ValidationError(
                reason: .invalidValue, field: "\(path).objectUuid", value: "\(wire.objectUuid.count) bytes",
                expected: "16 bytes")
        }
        self.init(
            uuid: uuid, objectUUID: objectUUID, name: wire.name, contentType: wire.contentType,
            size: Int64(clamping: wire.size), creationDate: WireDate.date(wire.creationDate), metadata: wire.metadata)
    }
}
