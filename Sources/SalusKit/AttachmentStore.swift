import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusWire

/// Files attached to objects, as HealthKit's `HKAttachmentStore`: add a scan to a vision
/// prescription, list an object's attachments, read one back as a stream of chunks, remove one.
///
/// ```swift
/// let attachments = AttachmentStore(healthStore: store)
/// let scan = try await attachments.addAttachment(to: prescriptionUUID, name: "scan.jpg", url: fileURL)
/// for try await chunk in attachments.dataReader(for: scan) { output.write(chunk) }
/// ```
///
/// Content is streamed in chunks both ways, so neither side holds a large file whole. The
/// daemon decides the content type from the bytes (still images and PDF; never GIF or video)
/// and refuses files above the size Hello reports (``maximumAttachmentSize``).
public struct AttachmentStore: Sendable {
    /// Bytes per uploaded chunk (64 KiB; the daemon grants an upload 4 chunks at a time, so it
    /// holds at most 256 KiB of it unread).
    public static let chunkSize = 64 * 1024

    let client: RPCClient

    /// Attachments over the connection of `healthStore`.
    public init(healthStore: HealthStore) {
        client = healthStore.client
    }

    /// The largest attachment the daemon accepts, in bytes, as its Hello said (nil: not stated).
    public var maximumAttachmentSize: Int64? {
        guard let size = client.serverHello?.limits.maxAttachmentSize, size > 0 else { return nil }
        return Int64(clamping: size)
    }

    /// Attaches the file at `url` to the object `objectUUID`, read and sent a chunk at a time.
    ///
    /// - Parameters:
    ///   - name: the name to show; defaults to the file's name.
    ///   - metadata: free-form strings kept with the attachment.
    /// - Throws: ``SalusError`` — `invalidArgument` for content the object's type does not accept
    ///   (field `content`) or a type without attachments, `resourceExhausted` above the size
    ///   limit, `notFound` for an object this app may not read.
    @discardableResult
    public func addAttachment(
        to objectUUID: UUID, name: String? = nil, url: URL, metadata: [String: String] = [:]
    ) async throws(SalusError) -> Attachment {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw SalusError(code: .invalidArgument, message: "url: cannot open \(url.path): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        let wire: Salus_V1_Attachment = try await mappingErrors {
            try await client.clientStreaming(SalusMethods.Attachments.add) {
                (writer: RPCClientWriter<Salus_V1_AddAttachmentMessage>) in
                var header = Salus_V1_AddAttachmentMessage()
                header.header.objectUuid = WireUUID.bytes(objectUUID)
                header.header.name = name ?? url.lastPathComponent
                header.header.metadata = metadata
                try await writer.write(header)
                while let data = try handle.read(upToCount: Self.chunkSize), !data.isEmpty {
                    var chunk = Salus_V1_AddAttachmentMessage()
                    chunk.chunk = data
                    try await writer.write(chunk)
                }
            }
        }
        return try Self.model(wire)
    }

    /// The attachments of the object `objectUUID`, oldest first.
    public func attachments(for objectUUID: UUID) async throws(SalusError) -> [Attachment] {
        var request = Salus_V1_ListAttachmentsRequest()
        request.objectUuid = WireUUID.bytes(objectUUID)
        let response: Salus_V1_ListAttachmentsResponse = try await mappingErrors {
            try await client.unary(SalusMethods.Attachments.list, request: request)
        }
        var attachments: [Attachment] = []
        for wire in response.attachments { attachments.append(try Self.model(wire)) }
        return attachments
    }

    /// The content of `attachment`, as chunks of bytes in order; the daemon reads the next
    /// chunk only as this sequence is iterated. Errors are ``SalusError``s.
    public func dataReader(for attachment: Attachment) -> AttachmentDataReader {
        AttachmentDataReader(client: client, uuid: attachment.uuid)
    }

    /// Removes `attachment` (one this app added).
    public func removeAttachment(_ attachment: Attachment) async throws(SalusError) {
        var request = Salus_V1_RemoveAttachmentRequest()
        request.uuid = WireUUID.bytes(attachment.uuid)
        let _: Salus_V1_RemoveAttachmentResponse = try await mappingErrors {
            try await client.unary(SalusMethods.Attachments.remove, request: request)
        }
    }

    static func model(_ wire: Salus_V1_Attachment) throws(SalusError) -> Attachment {
        do {
            return try Attachment(wire: wire)
        } catch {
            throw SalusError(code: .malformedMessage, message: "the daemon sent an attachment that does not decode: \(error)")
        }
    }
}

/// An attachment's content as an `AsyncSequence` of chunks (`Data`), streamed from the daemon
/// under flow control.
public struct AttachmentDataReader: AsyncSequence, Sendable {
    /// A chunk of the content.
    public typealias Element = Data

    let client: RPCClient
    let uuid: UUID

    /// Iterates the chunks; the call starts with the first `next()`.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let client: RPCClient
        let uuid: UUID
        var stream: RPCResponseStream<Salus_V1_AttachmentChunk>.AsyncIterator?

        /// The next chunk, or nil at the end; throws ``SalusError``.
        public mutating func next() async throws -> Data? {
            if stream == nil {
                var request = Salus_V1_ReadAttachmentRequest()
                request.uuid = WireUUID.bytes(uuid)
                let responses = try await mappingErrors {
                    try client.serverStreaming(
                        SalusMethods.Attachments.read, request: request)
                }
                stream = responses.makeAsyncIterator()
            }
            return try await mappingErrors { try await stream?.next() }?.data
        }
    }

    /// An iterator over the chunks.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(client: client, uuid: uuid) }

    /// The whole content; for small attachments (prefer iterating for large ones).
    public func collect() async throws(SalusError) -> Data {
        var data = Data()
        do {
            for try await chunk in self { data.append(chunk) }
        } catch let error as SalusError {
            throw error
        } catch {
            throw SalusError(code: .unknown, message: String(describing: error))
        }
        return data
    }
}
