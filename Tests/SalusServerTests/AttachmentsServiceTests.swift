import Foundation
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// salus.v1.Attachments in process: content decided by its bytes, the size limit, per-object
/// read access, the types that accept attachments, removal with the object.
@Suite("Attachments service")
struct AttachmentsServiceTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 1, count: 5000)
    static let gif: [UInt8] = Array("GIF89a".utf8) + Array(repeating: 2, count: 5000)
    static let pdf: [UInt8] = Array("%PDF-1.7\n".utf8) + Array(repeating: 3, count: 5000)

    /// Uploads `content` in chunks of `chunkSize` as `name`, attached to `object`.
    static func add(
        _ client: RPCClient, to object: Data, name: String, content: [UInt8], chunkSize: Int = 1024
    ) async throws -> Salus_V1_Attachment {
        try await client.clientStreaming(SalusMethods.Attachments.add) {
            (writer: RPCClientWriter<Salus_V1_AddAttachmentMessage>) in
            var header = Salus_V1_AddAttachmentMessage()
            header.header.objectUuid = object
            header.header.name = name
            try await writer.write(header)
            var offset = 0
            while offset < content.count {
                var chunk = Salus_V1_AddAttachmentMessage()
                chunk.chunk = Data(content[offset..<min(offset + chunkSize, content.count)])
                try await writer.write(chunk)
                offset += chunkSize
            }
        }
    }

    static func list(_ client: RPCClient, _ object: Data) async throws -> [Salus_V1_Attachment] {
        var request = Salus_V1_ListAttachmentsRequest()
        request.objectUuid = object
        let response: Salus_V1_ListAttachmentsResponse = try await client.unary(SalusMethods.Attachments.list, request: request)
        return response.attachments
    }

    static func read(_ client: RPCClient, _ uuid: Data) async throws -> [UInt8] {
        var request = Salus_V1_ReadAttachmentRequest()
        request.uuid = uuid
        var content: [UInt8] = []
        for try await chunk in try client.serverStreaming(
            SalusMethods.Attachments.read, request: request)
        {
            #expect(chunk.offset == UInt64(content.count))
            content += chunk.data
        }
        return content
    }

    /// A server, its owner, and an optician app allowed to write prescriptions and steps, with
    /// one prescription saved.
    static func optician(maxAttachmentSize: Int64? = nil) async throws
        -> (ServerHarness, RPCClient, RPCClient, Data)
    {
        let server = try await ServerHarness.start(maxAttachmentSize: maxAttachmentSize)
        let owner = try await Authz.owner(server)
        try await Authz.register(owner, "org.example.optician")
        try await Authz.grant(owner, "org.example.optician", Authz.vision, read: nil, share: .granted)
        try await Authz.grant(owner, "org.example.optician", Authz.steps, read: nil, share: .granted)
        let optician = try await Authz.app(server, "org.example.optician")
        let saved = try await Authz.save(
            optician, [AuthorizationRequestTests.prescription(start: 1_700_000_000_000_000)])
        return (server, owner, optician, saved.results[0].uuid)
    }

    @Test("The content type comes from the bytes: a PNG named .pdf is an image, a GIF named .png is refused")
    func contentSniffing() async throws {
        let (server, owner, optician, object) = try await Self.optician()
        let png = try await Self.add(optician, to: object, name: "scan.pdf", content: Self.png)
        #expect(png.contentType == "image/png")
        #expect(png.name == "scan.pdf")
        #expect(png.size == UInt64(Self.png.count))
        let pdf = try await Self.add(optician, to: object, name: "prescription", content: Self.pdf, chunkSize: 3)
        #expect(pdf.contentType == "application/pdf")

        let gif = await Authz.error { _ = try await Self.add(optician, to: object, name: "scan.png", content: Self.gif) }
        #expect(gif?.code == .invalidArgument)
        #expect(gif?.detail?.field == "content")
        #expect(gif?.detail?.value == "a GIF")
        let video: [UInt8] = [0, 0, 0, 0x18] + Array("ftypmp42".utf8) + Array(repeating: 0, count: 100)
        let mp4 = await Authz.error { _ = try await Self.add(optician, to: object, name: "scan.jpg", content: video) }
        #expect(mp4?.detail?.value == "a video")
        let text = await Authz.error { _ = try await Self.add(optician, to: object, name: "a.png", content: Array("hi".utf8)) }
        #expect(text?.code == .invalidArgument)

        #expect(try await Self.list(optician, object).map(\.uuid) == [png.uuid, pdf.uuid])
        #expect(try await Self.list(owner, object).map(\.uuid) == [png.uuid, pdf.uuid])
        #expect(try await Self.read(optician, png.uuid) == Self.png)
        #expect(try await Self.read(owner, pdf.uuid) == Self.pdf)
        for client in [optician, owner] { await client.close() }
        await server.stop()
    }

    @Test("Above the limit Hello reports, an upload fails with RESOURCE_EXHAUSTED naming the limit and leaves nothing")
    func sizeLimit() async throws {
        let (server, owner, optician, object) = try await Self.optician(maxAttachmentSize: 4096)
        #expect(optician.serverHello?.limits.maxAttachmentSize == 4096)
        let error = await Authz.error { _ = try await Self.add(optician, to: object, name: "big.png", content: Self.png) }
        #expect(error?.code == .resourceExhausted)
        #expect(error?.message.contains("4096 bytes") == true)
        #expect(try await Self.list(optician, object).isEmpty)
        let files = try FileManager.default.contentsOfDirectory(
            atPath: server.services.configuration.dataDirectory + "/attachments")
        #expect(files.isEmpty)
        for client in [optician, owner] { await client.close() }
        await server.stop()
    }

    @Test("Only types whose plugin allows attachments accept them; the header must name an object")
    func attachableTypes() async throws {
        let (server, owner, optician, _) = try await Self.optician()
        let steps = try await Authz.save(optician, [Authz.sample(value: 10, start: 1_700_000_000_000_000)]).results[0].uuid
        let refused = await Authz.error { _ = try await Self.add(optician, to: steps, name: "a.png", content: Self.png) }
        #expect(refused?.code == .invalidArgument)
        #expect(refused?.detail?.field == "header.objectUuid")
        let short = await Authz.error { _ = try await Self.add(optician, to: Data([1, 2]), name: "a.png", content: Self.png) }
        #expect(short?.detail?.field == "header.objectUuid")
        let missing = await Authz.error {
            _ = try await Self.add(optician, to: Data(repeating: 7, count: 16), name: "a.png", content: Self.png)
        }
        #expect(missing?.code == .notFound)
        for client in [optician, owner] { await client.close() }
        await server.stop()
    }

    @Test("An app granted one of two prescriptions sees exactly that one, and its attachments only")
    func perObjectAccess() async throws {
        let (server, owner, optician, first) = try await Self.optician()
        let second = try await Authz.save(
            optician, [AuthorizationRequestTests.prescription(start: 1_710_000_000_000_000)]).results[0].uuid
        let firstScan = try await Self.add(optician, to: first, name: "first.png", content: Self.png)
        let secondScan = try await Self.add(optician, to: second, name: "second.pdf", content: Self.pdf)

        try await Authz.register(owner, "org.example.glasses")
        let glasses = try await Authz.app(server, "org.example.glasses")
        let request = Task {
            var perObject = Salus_V1_PerObjectReadRequest()
            perObject.type = Authz.vision
            let _: Salus_V1_AuthorizationResponse = try await glasses.unary(
                SalusMethods.Authorization.requestPerObjectReadAuthorization, request: perObject)
        }
        let pending = try await Authz.pendingRequests(owner)
        var answer = Salus_V1_AnswerRequestRequest()
        answer.requestID = pending[0].id
        answer.objects = [second]
        let _: Salus_V1_ConsentRequest = try await owner.unary(SalusMethods.Consent.answerRequest, request: answer)
        try await request.value

        #expect(try await Authz.batches(glasses, type: Authz.vision).flatMap(\.samples).map(\.uuid) == [second])
        #expect(try await Self.list(glasses, second).map(\.uuid) == [secondScan.uuid])
        #expect(try await Self.read(glasses, secondScan.uuid) == Self.pdf)
        let hiddenList = await Authz.error { _ = try await Self.list(glasses, first) }
        #expect(hiddenList?.code == .notFound)
        let hiddenRead = await Authz.error { _ = try await Self.read(glasses, firstScan.uuid) }
        #expect(hiddenRead?.code == .notFound)
        // Reading is not writing: the app may not attach to or remove from the granted object.
        let attach = await Authz.error { _ = try await Self.add(glasses, to: second, name: "x.png", content: Self.png) }
        #expect(attach != nil)
        var remove = Salus_V1_RemoveAttachmentRequest()
        remove.uuid = secondScan.uuid
        let removal = await Authz.error {
            let _: Salus_V1_RemoveAttachmentResponse = try await glasses.unary(SalusMethods.Attachments.remove, request: remove)
        }
        #expect(removal?.code == .notFound)
        #expect(try await Self.list(owner, second).count == 1)
        for client in [optician, glasses, owner] { await client.close() }
        await server.stop()
    }

    @Test("Attachments are removed by the app that added them, and with their object")
    func removal() async throws {
        let (server, owner, optician, object) = try await Self.optician()
        let scan = try await Self.add(optician, to: object, name: "scan.png", content: Self.png)
        let second = try await Self.add(optician, to: object, name: "scan2.png", content: Self.png)
        var remove = Salus_V1_RemoveAttachmentRequest()
        remove.uuid = scan.uuid
        let _: Salus_V1_RemoveAttachmentResponse = try await optician.unary(SalusMethods.Attachments.remove, request: remove)
        #expect(try await Self.list(optician, object).map(\.uuid) == [second.uuid])

        _ = try await Authz.delete(optician, object)
        let gone = await Authz.error { _ = try await Self.read(owner, second.uuid) }
        #expect(gone?.code == .notFound)
        let files = try FileManager.default.contentsOfDirectory(
            atPath: server.services.configuration.dataDirectory + "/attachments")
        #expect(files.isEmpty)
        for client in [optician, owner] { await client.close() }
        await server.stop()
    }
}
