import Foundation
import SalusModel
import SalusPluginHost
import SalusProto
import SalusRPC
import SalusStore
import SalusWire

/// salus.v1.Attachments: add, list, read and remove the files attached to an object
/// (HealthKit's `HKAttachmentStore`).
///
/// Rules, each with its reason:
/// 1. **Attachments follow their object's read access.** An app lists, reads or attaches to an
///    object only if it may read that object (per object for vision prescriptions); an object it
///    may not read and one that does not exist give the same NOT_FOUND, so an app learns nothing
///    about objects it cannot see.
/// 2. **Adding needs share permission for the object's type,** as saving does; removing is for
///    the app that added the attachment (the owner removes any), as deleting samples is.
/// 3. **Only types whose plugin manifest lists attachment content types accept attachments,**
///    and only those types: the content type is found from the content's first bytes
///    (`AttachmentContent`), never from the name or a declared type, so a GIF named `.png` is
///    refused and a PNG named `.pdf` is stored as a PNG.
/// 4. **Content is streamed, never held.** Uploads go to a file chunk by chunk, under the
///    client's stream credits: the server grants 4 chunks at a time as this handler reads them
///    (`RPCServer.Configuration.receiveWindow`), so while it checks the object or waits on the
///    disk at most 4 chunks wait, whatever their size. Downloads read a chunk from the file only
///    when the client has credit. Memory per call is a few chunks whatever the size.
/// 5. **Above `maximumSize` an upload fails with RESOURCE_EXHAUSTED naming the limit,** which
///    Hello reports (`Limits.max_attachment_size`); nothing of it remains.
package struct AttachmentsService: Sendable {
    /// Bytes per Data frame of a download: 64 KiB, so a full window of credits (64 frames) is
    /// 4 MiB, not the 64 MiB that 1 MiB chunks would allow in flight.
    package static let chunkSize = 64 * 1024

    let store: SampleStore
    let registry: TypeRegistry
    let authorization: AuthorizationEngine
    /// The largest attachment accepted, in bytes.
    let maximumSize: Int64

    /// A service over `store`, checked by `authorization`, refusing attachments above `maximumSize` bytes.
    package init(store: SampleStore, registry: TypeRegistry, authorization: AuthorizationEngine, maximumSize: Int64) {
        self.store = store
        self.registry = registry
        self.authorization = authorization
        self.maximumSize = maximumSize
    }

    /// Adds the service's methods to `router` (the same on the app and the admin socket).
    package func register(into router: inout RPCRouter) {
        router.registerClientStreaming(SalusMethods.Attachments.add, onEventLoop: false) {
            (messages: RPCRequestStream<Salus_V1_AddAttachmentMessage>, context) -> Salus_V1_Attachment in
            try await self.add(messages, caller: try Caller.resolve(context))
        }
        router.registerUnary(SalusMethods.Attachments.list, onEventLoop: false) {
            (request: Salus_V1_ListAttachmentsRequest, context) -> Salus_V1_ListAttachmentsResponse in
            try await self.list(request, caller: try Caller.resolve(context))
        }
        router.registerServerStreaming(SalusMethods.Attachments.read, onEventLoop: false) {
            (request: Salus_V1_ReadAttachmentRequest, writer: RPCWriter<Salus_V1_AttachmentChunk>, context) in
            try await self.read(request, writer: writer, caller: try Caller.resolve(context))
        }
        router.registerUnary(SalusMethods.Attachments.remove, onEventLoop: false) {
            (request: Salus_V1_RemoveAttachmentRequest, context) -> Salus_V1_RemoveAttachmentResponse in
            try await self.remove(request, caller: try Caller.resolve(context))
        }
    }

    // MARK: Checks

    /// The UUID in `bytes`, or INVALID_ARGUMENT naming `field`.
    static func uuid(_ bytes: Data, field: String, of what: String) throws(RPCError) -> UUID {
        guard let uuid = WireUUID.uuid(bytes) else {
            throw RPCError.invalidArgument(field: field, value: "\(bytes.count) bytes", expected: "16 bytes: \(what)")
        }
        return uuid
    }

    /// The object `uuid` if the caller may read it (rule 1), else NOT_FOUND naming `field`.
    func readableObject(_ uuid: UUID, field: String, caller: Caller) async throws -> Sample {
        guard let sample = try await authorization.readable(uuid, in: store, caller: caller) else {
            throw RPCError(
                code: .notFound, message: "\(field): \(uuid.uuidString) is not an object this app may read",
                reason: .notFound, field: field, value: uuid.uuidString, expected: "the UUID of an object this app may read")
        }
        return sample
    }

    /// The attachment `uuid` if the caller may read its object, else NOT_FOUND.
    func readableAttachment(_ bytes: Data, caller: Caller) async throws -> Attachment {
        let uuid = try Self.uuid(bytes, field: "uuid", of: "an attachment's UUID")
        let notFound = RPCError(
            code: .notFound, message: "uuid: \(uuid.uuidString) is not an attachment this app may read",
            reason: .notFound, field: "uuid", value: uuid.uuidString, expected: "the UUID of an attachment this app may read")
        guard let attachment = try await storeCall({ try await store.attachment(uuid: uuid) }) else { throw notFound }
        do {
            _ = try await readableObject(attachment.objectUUID, field: "uuid", caller: caller)
        } catch is RPCError {
            throw notFound
        }
        return attachment
    }

    /// A file name: 1 to 255 bytes, no "/" and no control character.
    static func checkName(_ name: String) throws(RPCError) {
        let valid = !name.isEmpty && name.utf8.count <= 255 && !name.contains("/")
            && !name.unicodeScalars.contains { $0.properties.generalCategory == .control }
        guard valid else {
            throw RPCError.invalidArgument(
                field: "header.name", value: "\"\(name)\"",
                expected: "a file name of 1 to 255 bytes without \"/\" or control characters")
        }
    }

    /// INVALID_ARGUMENT unless `mediaType` is one the object's type allows (rule 3).
    static func checkContent(_ mediaType: String?, allowed: [String], type: TypeIdentifier) throws(RPCError) {
        guard let mediaType, allowed.contains(mediaType) else {
            throw RPCError.invalidArgument(
                field: "content", value: AttachmentContent.describe(mediaType),
                expected: "content of a type \(type) accepts: \(allowed.joined(separator: ", ")) (found from the bytes, not the name)")
        }
    }

    /// Appends `chunk`; the wire error when that fails (RESOURCE_EXHAUSTED naming the limit above
    /// it, rule 5), nil when it worked.
    static func append(_ chunk: Data, to upload: AttachmentUpload, limit: Int64) -> RPCError? {
        do {
            try upload.append(chunk)
            return nil
        } catch {
            guard error.code == .resourceExhausted else { return RPCError.from(error) }
            return RPCError(
                code: .resourceExhausted,
                message: "content: larger than the attachment size limit of \(limit) bytes (Limits.max_attachment_size)",
                reason: .resourceExhausted, field: "content", value: "more than \(limit) bytes",
                expected: "at most \(limit) bytes (Limits.max_attachment_size)")
        }
    }

    // MARK: Methods

    func add(_ messages: RPCRequestStream<Salus_V1_AddAttachmentMessage>, caller: Caller) async throws
        -> Salus_V1_Attachment
    {
        var iterator = messages.makeAsyncIterator()
        guard let first = try await iterator.next(), case .header(let header) = first.part else {
            throw RPCError.invalidArgument(
                field: "header", value: "none", expected: "a first message carrying the header (object UUID and name)")
        }
        let objectUUID = try Self.uuid(header.objectUuid, field: "header.objectUuid", of: "the UUID of the object to attach to")
        try Self.checkName(header.name)
        let object = try await readableObject(objectUUID, field: "header.objectUuid", caller: caller)
        let allowed = registry.catalog.rules(for: object.type)?.allowedAttachmentContentTypes ?? []
        guard !allowed.isEmpty else {
            throw RPCError.invalidArgument(
                field: "header.objectUuid", value: "\(objectUUID.uuidString) (\(object.type))",
                expected: "an object of a type whose plugin allows attachments, such as a vision prescription")
        }
        if caller.appIDSource != .owner {
            try await authorizationCall { try authorization.checkShare(caller, types: [object.type.rawValue]) }
        }
        let upload = try await storeCall { try store.beginAttachment(maximumSize: maximumSize) }
        defer { upload.abandon() }
        var checked = false
        var index = 1
        while let message = try await iterator.next() {
            guard case .chunk(let chunk) = message.part else {
                throw RPCError.invalidArgument(
                    field: "messages[\(index)]", value: "a header", expected: "a chunk: only the first message is a header")
            }
            if let error = Self.append(chunk, to: upload, limit: maximumSize) { throw error }
            if !checked && upload.size >= Int64(AttachmentContent.sniffLength) {
                try Self.checkContent(upload.mediaType, allowed: allowed, type: object.type)
                checked = true
            }
            index += 1
        }
        if !checked { try Self.checkContent(upload.mediaType, allowed: allowed, type: object.type) }
        let attachment = try await storeCall {
            try await store.commitAttachment(
                upload, objectUUID: objectUUID, name: header.name, contentType: upload.mediaType ?? "",
                appID: caller.appIDSource == .owner ? nil : caller.appID, metadata: header.metadata)
        }
        return attachment.wire
    }

    func list(_ request: Salus_V1_ListAttachmentsRequest, caller: Caller) async throws -> Salus_V1_ListAttachmentsResponse {
        let objectUUID = try Self.uuid(request.objectUuid, field: "objectUuid", of: "an object's UUID")
        _ = try await readableObject(objectUUID, field: "objectUuid", caller: caller)
        var response = Salus_V1_ListAttachmentsResponse()
        response.attachments = try await storeCall { try await store.attachments(of: objectUUID) }.map(\.wire)
        return response
    }

    func read(_ request: Salus_V1_ReadAttachmentRequest, writer: RPCWriter<Salus_V1_AttachmentChunk>, caller: Caller)
        async throws
    {
        let attachment = try await readableAttachment(request.uuid, caller: caller)
        try await storeCall {
            for try await chunk in try store.attachmentContent(attachment, chunkSize: Self.chunkSize) {
                var message = Salus_V1_AttachmentChunk()
                message.offset = UInt64(chunk.offset)
                message.data = Data(chunk.bytes)
                try await writer.write(message)
            }
        }
    }

    func remove(_ request: Salus_V1_RemoveAttachmentRequest, caller: Caller) async throws -> Salus_V1_RemoveAttachmentResponse {
        let attachment = try await readableAttachment(request.uuid, caller: caller)
        if caller.appIDSource != .owner && attachment.appID != caller.appID {
            throw RPCError(
                code: .notFound, message: "uuid: \(attachment.uuid.uuidString) is not an attachment this app added",
                reason: .notFound, field: "uuid", value: attachment.uuid.uuidString,
                expected: "the UUID of an attachment this app added")
        }
        _ = try await storeCall { try await store.removeAttachment(uuid: attachment.uuid) }
        return Salus_V1_RemoveAttachmentResponse()
    }
}
