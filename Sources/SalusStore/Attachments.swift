import Foundation
import SalusModel

#if canImport(Glibc)
import Glibc
#endif

/// An attachment's content being written: a partial file under `attachments/` that no row
/// names yet, so nothing sees it until `SampleStore.commitAttachment` publishes it.
///
/// Used by one task at a time. Memory stays at one chunk whatever the size: every chunk goes
/// to the file as it arrives; only the first `AttachmentContent.sniffLength` bytes are kept, to
/// decide the content type.
package final class AttachmentUpload: @unchecked Sendable {
    /// The UUID the attachment will have.
    package let uuid: UUID
    /// The largest content accepted, in bytes.
    package let maximumSize: Int64
    /// Bytes written so far.
    package private(set) var size: Int64 = 0
    /// The first bytes of the content.
    package private(set) var prefix: [UInt8] = []
    let partialPath: String
    let finalPath: String
    private var descriptor: Int32

    init(folder: String, maximumSize: Int64) throws(StoreError) {
        uuid = UUIDv7.make()
        self.maximumSize = maximumSize
        partialPath = "\(folder)/\(AttachmentFiles.partialPrefix)\(uuid.uuidString)"
        finalPath = "\(folder)/\(uuid.uuidString)"
        descriptor = open(partialPath, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(code: .database, message: "cannot create \(partialPath): \(String(cString: strerror(errno)))")
        }
    }

    deinit { abandon() }

    /// The media type of the content so far, from its first bytes.
    package var mediaType: String? { AttachmentContent.mediaType(ofPrefix: prefix) }

    /// Appends `bytes` to the file; throws `.resourceExhausted` (nothing kept) when the content
    /// would exceed `maximumSize`.
    package func append(_ bytes: some Collection<UInt8>) throws(StoreError) {
        guard descriptor >= 0 else { throw StoreError(code: .closed, message: "the upload was abandoned") }
        guard size + Int64(bytes.count) <= maximumSize else {
            abandon()
            throw StoreError(
                code: .resourceExhausted, field: "content", value: "more than \(maximumSize) bytes",
                expected: "an attachment of at most \(maximumSize) bytes (Limits.max_attachment_size)")
        }
        if prefix.count < AttachmentContent.sniffLength {
            prefix += bytes.prefix(AttachmentContent.sniffLength - prefix.count)
        }
        let array = Array(bytes)
        var written = 0
        while written < array.count {
            let result = array.withUnsafeBytes { raw in
                write(descriptor, raw.baseAddress! + written, raw.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                abandon()
                throw StoreError(code: .database, message: "cannot write \(partialPath): \(reason)")
            }
            written += result
        }
        size += Int64(array.count)
    }

    /// Flushes the content to the disk and closes the file.
    func finish() throws(StoreError) {
        guard descriptor >= 0 else { throw StoreError(code: .closed, message: "the upload was abandoned") }
        let synced = fsync(descriptor) == 0
        let reason = String(cString: strerror(errno))
        close(descriptor)
        descriptor = -1
        guard synced else {
            unlink(partialPath)
            throw StoreError(code: .database, message: "cannot sync \(partialPath): \(reason)")
        }
    }

    /// Drops the partial file; nothing was published. Safe to call more than once.
    package func abandon() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
            unlink(partialPath)
        }
    }
}

/// The attachments' files: the rules that keep a crash from showing a partial attachment.
///
/// 1. Content is written to `attachments/.partial-UUID`, synced, renamed to `attachments/UUID`
///    and the folder synced — all before the row that names it is committed. Why: the row is
///    what makes an attachment visible, so a visible attachment always has its whole content.
///    Break it and a crash can leave a row naming a short or missing file.
/// 2. A file no row names is garbage: left by a crash before the commit, by a removal whose
///    unlink did not happen, or by a sample deleted with its attachments (the rows go with the
///    sample, `ON DELETE CASCADE`). `sweep` removes them — on open (partial files too) and after
///    each removal or deletion (named files only: a partial file may be an upload in progress).
/// 3. Publishing, removing and sweeping run on the writer's queue, one at a time, so a sweep
///    never sees a file renamed whose row is not yet committed.
enum AttachmentFiles {
    static let partialPrefix = ".partial-"

    /// The folder next to the database file.
    static func folder(storePath: String) -> String {
        URL(fileURLWithPath: storePath).deletingLastPathComponent().appendingPathComponent("attachments").path
    }

    static func syncFolder(_ folder: String) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    /// Removes the files in `folder` that no row names; partial files too when `includingPartial`.
    static func sweep(_ database: Database, folder: String, includingPartial: Bool) throws -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        let exists = try database.prepare("SELECT 1 FROM attachments WHERE uuid = ?")
        for name in names {
            if name.hasPrefix(partialPrefix) {
                if includingPartial, unlink("\(folder)/\(name)") == 0 { removed += 1 }
                continue
            }
            guard let uuid = UUID(uuidString: name) else { continue }
            exists.reset()
            try exists.bind([.uuid(uuid)])
            if try !exists.step(), unlink("\(folder)/\(name)") == 0 { removed += 1 }
        }
        exists.reset()
        return removed
    }
}

/// An attachment's content in chunks, read from its file a chunk at a time.
///
/// The file is opened when the sequence is made, so a removal during the read does not cut it
/// short (the open file stays readable until closed).
package struct AttachmentChunks: AsyncSequence, Sendable {
    /// A chunk and the position of its first byte.
    package typealias Element = (offset: Int64, bytes: [UInt8])

    let handle: FileHandle
    let chunkSize: Int

    /// Iterates the chunks.
    package struct AsyncIterator: AsyncIteratorProtocol {
        let handle: FileHandle
        let chunkSize: Int
        var offset: Int64 = 0
        var done = false

        /// The next chunk, or nil at the end (the file is then closed).
        package mutating func next() async throws -> Element? {
            guard !done else { return nil }
            let data = try handle.read(upToCount: chunkSize) ?? Data()
            if data.isEmpty {
                done = true
                try? handle.close()
                return nil
            }
            defer { offset += Int64(data.count) }
            return (offset, Array(data))
        }
    }

    /// An iterator over the chunks.
    package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(handle: handle, chunkSize: chunkSize) }
}

extension SampleStore {
    /// The folder attachment files live in: `attachments/` next to the database.
    package var attachmentFolder: String { AttachmentFiles.folder(storePath: path) }

    /// Starts an attachment upload (a partial file nothing sees until committed).
    package func beginAttachment(maximumSize: Int64) throws -> AttachmentUpload {
        try checkOpen()
        try FileManager.default.createDirectory(atPath: attachmentFolder, withIntermediateDirectories: true)
        return try AttachmentUpload(folder: attachmentFolder, maximumSize: maximumSize)
    }

    /// Publishes `upload` as an attachment of the sample `objectUUID`: syncs and renames the
    /// file, then commits its row (`AttachmentFiles` rule 1). Throws `.notFound` when there is
    /// no such sample (the file is removed).
    package func commitAttachment(
        _ upload: AttachmentUpload, objectUUID: UUID, name: String, contentType: String, appID: String?,
        metadata: [String: String], now: Date = Date()
    ) async throws -> Attachment {
        try checkOpen()
        try upload.finish()
        let folder = attachmentFolder
        let record = Attachment(
            uuid: upload.uuid, objectUUID: objectUUID, name: name, contentType: contentType, size: upload.size,
            creationDate: StoredTime.date(StoredTime.microseconds(now)), appID: appID, metadata: metadata)
        let metadataJSON = String(decoding: try JSONEncoder().encode(metadata), as: UTF8.self)
        return try await writer.connection.run { database in
            guard rename(upload.partialPath, upload.finalPath) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(upload.partialPath)
                throw StoreError(code: .database, message: "cannot publish \(upload.finalPath): \(reason)")
            }
            AttachmentFiles.syncFolder(folder)
            do {
                try database.transaction(immediate: true) {
                    guard
                        let sampleID = try database.scalarInt(
                            "SELECT id FROM samples s WHERE \(SampleUUIDs.match("s", "?1"))", [.uuid(objectUUID)])
                    else {
                        throw StoreError(
                            code: .notFound, field: "objectUUID", value: objectUUID.uuidString,
                            expected: "the UUID of a sample in the store")
                    }
                    try database.run(
                        "INSERT INTO attachments (uuid, sample_id, name, content_type, size, created_us, app_id, metadata) "
                            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        [
                            .uuid(record.uuid), .integer(sampleID), .text(name), .text(contentType),
                            .integer(record.size), .integer(StoredTime.microseconds(now)), .optional(appID),
                            .text(metadataJSON),
                        ])
                }
            } catch {
                unlink(upload.finalPath)
                throw error
            }
            return record
        }
    }

    private static let attachmentColumns =
        "a.uuid, s.uuid, a.name, a.content_type, a.size, a.created_us, a.app_id, a.metadata"

    private static func attachment(_ statement: Statement) -> Attachment {
        let metadata = statement.text(7).flatMap {
            try? JSONDecoder().decode([String: String].self, from: Data($0.utf8))
        }
        return Attachment(
            uuid: statement.uuid(0) ?? UUID(), objectUUID: statement.uuid(1) ?? UUID(), name: statement.text(2) ?? "",
            contentType: statement.text(3) ?? "", size: statement.int64(4),
            creationDate: StoredTime.date(statement.int64(5)), appID: statement.text(6), metadata: metadata ?? [:])
    }

    /// The attachments of the sample `objectUUID`, oldest first (none when there is no such
    /// sample). The store does not know who asks: check first that the caller may read it.
    package func attachments(of objectUUID: UUID) async throws -> [Attachment] {
        try checkOpen()
        return try await readers.run { database in
            let statement = try database.prepare(
                "SELECT \(Self.attachmentColumns) FROM samples s CROSS JOIN attachments a ON a.sample_id = s.id "
                    + "WHERE \(SampleUUIDs.match("s", "?1")) ORDER BY a.id", cached: false)
            try statement.bind([.uuid(objectUUID)])
            var records: [Attachment] = []
            while try statement.step() { records.append(Self.attachment(statement)) }
            return records
        }
    }

    /// The attachment with this UUID, or nil.
    package func attachment(uuid: UUID) async throws -> Attachment? {
        try checkOpen()
        return try await readers.run { database in
            let statement = try database.prepare(
                "SELECT \(Self.attachmentColumns) FROM attachments a JOIN samples s ON s.id = a.sample_id "
                    + "WHERE a.uuid = ?", cached: false)
            try statement.bind([.uuid(uuid)])
            return try statement.step() ? Self.attachment(statement) : nil
        }
    }

    /// The content of the attachment `record`, in chunks of at most `chunkSize` bytes.
    package func attachmentContent(_ record: Attachment, chunkSize: Int = 1 << 20) throws -> AttachmentChunks {
        try checkOpen()
        let path = "\(attachmentFolder)/\(record.uuid.uuidString)"
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StoreError(code: .notFound, message: "the content of attachment \(record.uuid.uuidString) is missing")
        }
        return AttachmentChunks(handle: handle, chunkSize: chunkSize)
    }

    /// Removes the attachment with this UUID: its row, then its file. False when there was none.
    package func removeAttachment(uuid: UUID) async throws -> Bool {
        try checkOpen()
        let folder = attachmentFolder
        return try await writer.connection.run { database in
            let removed = try database.run("DELETE FROM attachments WHERE uuid = ?", [.uuid(uuid)]) > 0
            if removed { unlink("\(folder)/\(uuid.uuidString)") }
            return removed
        }
    }

    /// Removes attachment files no row names (`AttachmentFiles` rule 2); partial files too when
    /// `includingPartial` (only when no upload can be in progress, as on open). Returns how many.
    @discardableResult
    package func sweepAttachmentFiles(includingPartial: Bool = false) async throws -> Int {
        try checkOpen()
        let folder = attachmentFolder
        return try await writer.connection.run { database in
            try AttachmentFiles.sweep(database, folder: folder, includingPartial: includingPartial)
        }
    }
}
