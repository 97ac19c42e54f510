import Foundation
import SalusKit
import SalusModel
import SalusProto
import SalusRPC
import SalusWire
import Testing

/// Attachments against a real `salusd`: a 50 MB PDF streamed both ways within a stated bound on
/// the daemon's memory, and a daemon killed in the middle of an upload.
@Suite("Attachments in the daemon", .serialized)
struct AttachmentDaemonTests {
    static let megabyte = 1024 * 1024

    /// The daemon's peak resident memory so far (`VmHWM`), in bytes.
    static func peakMemory(_ daemon: DaemonHarness) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(daemon.process.processIdentifier)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes * 1024
    }

    static func prescription() -> Sample {
        let issued = Date(timeIntervalSince1970: 1_763_000_000)
        return Sample(
            type: "HKVisionPrescriptionTypeIdentifier", startDate: issued, endDate: issued,
            value: .visionPrescription(
                VisionPrescription(
                    prescriptionType: .glasses, dateIssued: issued, expirationDate: issued.addingTimeInterval(365 * 86_400),
                    rightEye: LensSpecification(sphere: -1.25, cylinder: -0.5, axis: 90),
                    leftEye: LensSpecification(sphere: -1))),
            sourceRevision: SourceRevision(appID: "org.example.optician", name: "Optician"))
    }

    /// A PDF of `size` bytes: the header, then a byte pattern that is not all zeros.
    static func pdf(size: Int) -> Data {
        var data = Data("%PDF-1.7\n".utf8)
        data.reserveCapacity(size)
        var block = Data(count: 65_536)
        block.withUnsafeMutableBytes { raw in
            for index in 0..<raw.count { raw[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        }
        while data.count < size { data.append(block.prefix(size - data.count)) }
        return data
    }

    @Test("A 50 MB PDF goes up and comes back in chunks while the daemon's peak memory grows by less than 24 MiB")
    func largeAttachmentStreams() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let store = try await HealthStore.connect(socketPath: daemon.socketPath, appID: "org.example.optician")
        let object = try await store.save(Self.prescription()).uuid
        let attachments = AttachmentStore(healthStore: store)
        #expect(attachments.maximumAttachmentSize == 100 * Int64(Self.megabyte))

        // Warm up every path once with a small file, then take the baseline.
        let small = daemon.directory.appendingPathComponent("small.pdf")
        try Self.pdf(size: 100_000).write(to: small)
        let warmUp = try await attachments.addAttachment(to: object, url: small)
        #expect(try await attachments.dataReader(for: warmUp).collect().count == 100_000)
        let baseline = try Self.peakMemory(daemon)

        let content = Self.pdf(size: 50 * Self.megabyte)
        let file = daemon.directory.appendingPathComponent("prescription-scan.pdf")
        try content.write(to: file)
        let attachment = try await attachments.addAttachment(to: object, name: "scan.pdf", url: file)
        #expect(attachment.contentType == "application/pdf")
        #expect(attachment.size == Int64(content.count))

        var received = 0
        var matches = true
        for try await chunk in attachments.dataReader(for: attachment) {
            #expect(chunk.count <= AttachmentStore.chunkSize)
            if chunk != content[received..<received + chunk.count] { matches = false }
            received += chunk.count
        }
        #expect(received == content.count)
        #expect(matches)
        let growth = try Self.peakMemory(daemon) - baseline
        #expect(growth < 24 * Self.megabyte, "the daemon's peak memory grew by \(growth / 1024) KiB")
        #expect(try await attachments.attachments(for: object).map(\.uuid) == [warmUp.uuid, attachment.uuid])
        await store.close()
        #expect(try await daemon.stop() == 0)
    }

    @Test("48 MiB uploaded in 1 MiB chunks (a client's own chunk size): the daemon's peak memory grows by less than 24 MiB")
    func largeChunksStayBounded() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let store = try await HealthStore.connect(socketPath: daemon.socketPath, appID: "org.example.optician")
        let object = try await store.save(Self.prescription()).uuid
        let attachments = AttachmentStore(healthStore: store)
        func upload(_ content: Data, chunk: Int) async throws -> Salus_V1_Attachment {
            try await store.client.clientStreaming(SalusMethods.Attachments.add) { writer in
                var header = Salus_V1_AddAttachmentMessage()
                header.header.objectUuid = WireUUID.bytes(object)
                header.header.name = "scan.pdf"
                try await writer.write(header)
                var offset = 0
                while offset < content.count {
                    var message = Salus_V1_AddAttachmentMessage()
                    message.chunk = content.subdata(in: offset..<min(content.count, offset + chunk))
                    try await writer.write(message)
                    offset += chunk
                }
            }
        }
        // Every path once with a small file, then the baseline.
        _ = try await upload(Self.pdf(size: 3 * Self.megabyte), chunk: Self.megabyte)
        let baseline = try Self.peakMemory(daemon)

        let content = Self.pdf(size: 48 * Self.megabyte)
        let attachment = try await upload(content, chunk: Self.megabyte)
        #expect(attachment.size == UInt64(content.count))
        let growth = try Self.peakMemory(daemon) - baseline
        #expect(growth < 24 * Self.megabyte, "the daemon's peak memory grew by \(growth / 1024) KiB")
        #expect(try await attachments.attachments(for: object).count == 2)
        await store.close()
        #expect(try await daemon.stop() == 0)
    }

    @Test("kill -9 in the middle of an upload: after a restart no partial attachment is seen and the object is unchanged")
    func killDuringUpload() async throws {
        let daemon = try await DaemonHarness.start(arguments: ["--dev", "--authorization", "open"], bundledPlugins: true)
        let store = try await HealthStore.connect(socketPath: daemon.socketPath, appID: "org.example.optician")
        let saved = Self.prescription()
        let object = try await store.save(saved).uuid
        let folder = daemon.dataDirectory.appendingPathComponent("attachments").path
        func partialSize() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return names.filter { $0.hasPrefix(".partial-") }.reduce(0) { total, name in
                let attributes = try? FileManager.default.attributesOfItem(atPath: "\(folder)/\(name)")
                return total + ((attributes?[.size] as? Int) ?? 0)
            }
        }

        let chunk = Self.pdf(size: 64 * 1024)
        let upload = try? await store.client.clientStreaming(SalusMethods.Attachments.add) {
            (writer: RPCClientWriter<Salus_V1_AddAttachmentMessage>) in
            var header = Salus_V1_AddAttachmentMessage()
            header.header.objectUuid = WireUUID.bytes(object)
            header.header.name = "scan.pdf"
            try await writer.write(header)
            for _ in 0..<80 {
                var message = Salus_V1_AddAttachmentMessage()
                message.chunk = chunk
                try await writer.write(message)
            }
            // Wait (at most 10 s) until part of the upload is on disk.
            for _ in 0..<1000 where partialSize() == 0 { try await Task.sleep(for: .milliseconds(10)) }
            kill(daemon.process.processIdentifier, SIGKILL)
            daemon.process.waitUntilExit()
        } as Salus_V1_Attachment
        #expect(upload == nil, "the upload must not complete")
        #expect(partialSize() > 0, "the daemon died with a partial file")
        await store.close()

        let restarted = try await DaemonHarness.start(
            arguments: ["--dev", "--authorization", "open", "--data-dir", daemon.dataDirectory.path], bundledPlugins: true)
        let owner = try await RPCClient.connect(unixSocketPath: restarted.adminSocketPath)
        var list = Salus_V1_ListAttachmentsRequest()
        list.objectUuid = WireUUID.bytes(object)
        let listed: Salus_V1_ListAttachmentsResponse = try await owner.unary(SalusMethods.Attachments.list, request: list)
        #expect(listed.attachments.isEmpty)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).isEmpty)
        let reader = HealthStore(client: owner)
        var found: [Sample] = []
        for try await sample in SampleQueryDescriptor(
            type: .visionPrescription, predicate: .uuids([object]), sortDescriptors: [], limit: nil
        ).samples(for: reader) {
            found.append(sample)
        }
        #expect(found.map(\.value) == [saved.value])
        #expect(found.map(\.startDate) == [saved.startDate])
        await owner.close()
        #expect(try await restarted.stop() == 0)
    }
}
