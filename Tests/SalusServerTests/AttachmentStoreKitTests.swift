import Foundation
import SalusKit
import SalusModel
import SalusTestSupport
import Testing

/// SalusKit's `AttachmentStore` against the services in process: add from a file URL, list,
/// read as a chunked sequence, remove, and the errors an app sees.
@Suite("SalusKit AttachmentStore")
struct AttachmentStoreKitTests {
    @Test("An app attaches a file, lists and reads it in chunks, and removes it; refusals are SalusErrors")
    func roundTrip() async throws {
        let server = try await ServerHarness.start(maxAttachmentSize: 200_000)
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.card")
        try await Authz.grant(owner, "org.example.card", Authz.vision, read: nil, share: .granted)
        let store = try await server.healthStore("org.example.card")
        let issued = Date(timeIntervalSince1970: 1_763_000_000)
        let object = try await store.save(
            Sample(
                type: "HKVisionPrescriptionTypeIdentifier", startDate: issued, endDate: issued,
                value: .visionPrescription(
                    VisionPrescription(prescriptionType: .glasses, dateIssued: issued, rightEye: LensSpecification(sphere: -1))),
                sourceRevision: SourceRevision(appID: "org.example.card", name: "Card"))
        ).uuid
        let attachments = AttachmentStore(healthStore: store)
        #expect(attachments.maximumAttachmentSize == 200_000)

        let content = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("salus-kit-\(UUID().uuidString).jpg")
        try content.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let attachment = try await attachments.addAttachment(to: object, url: file, metadata: ["page": "1"])
        #expect(attachment.contentType == "image/jpeg")
        #expect(attachment.name == file.lastPathComponent)
        #expect(attachment.metadata == ["page": "1"])
        #expect(try await attachments.attachments(for: object) == [attachment])

        var chunks = 0
        var read = Data()
        for try await chunk in attachments.dataReader(for: attachment) {
            chunks += 1
            read.append(chunk)
        }
        #expect(read == content)
        #expect(chunks == (content.count + AttachmentStore.chunkSize - 1) / AttachmentStore.chunkSize)

        let big = file.deletingLastPathComponent().appendingPathComponent("salus-kit-\(UUID().uuidString).jpg")
        try (content + content).write(to: big)
        defer { try? FileManager.default.removeItem(at: big) }
        do {
            try await attachments.addAttachment(to: object, url: big)
            Issue.record("an attachment above the limit was accepted")
        } catch {
            #expect(error.code == .resourceExhausted)
            #expect(error.message.contains("200000 bytes"))
        }

        try await attachments.removeAttachment(attachment)
        #expect(try await attachments.attachments(for: object).isEmpty)
        do {
            _ = try await attachments.dataReader(for: attachment).collect()
            Issue.record("a removed attachment was read")
        } catch {
            #expect(error.code == .notFound)
        }
        await store.close()
        await owner.close()
        await server.stop()
    }
}
