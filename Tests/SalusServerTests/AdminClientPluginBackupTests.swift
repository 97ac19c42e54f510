import Foundation
import SalusAdmin
import SalusKit
import SalusProto
import SalusRPC
import SalusStore
import SalusTestSupport
import SwiftProtobuf
import Testing

/// The owner's client (SalusAdmin) for `salusctl plugins` and `salusctl backup`, in process.
@Suite("AdminClient: plugins and backup")
struct AdminClientPluginBackupTests {
    @Test("plugins lists every bundled plugin with its version, ABI and types, and its JSON is the daemon's own response")
    func plugins() async throws {
        let server = try await ServerHarness.start()
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        let listing = try await admin.plugins()
        #expect(Set(listing.loaded.map(\.name)).count == listing.loaded.count)
        #expect(listing.loaded.count == ServerHarness.bundled.count, "\(listing.loaded.map(\.id))")
        #expect(listing.refused.isEmpty)
        let core = try #require(listing.loaded.first { $0.typeIdentifiers.contains(Authz.steps) })
        #expect(!core.version.isEmpty)
        #expect(core.abiMajor >= 1)
        #expect(core.path.hasSuffix(".so"), "\(core.path)")

        var options = JSONEncodingOptions()
        options.alwaysPrintInt64sAsNumbers = true
        let raw: Salus_V1_ListPluginsResponse = try await admin.rpc.unary(SalusMethods.Admin.listPlugins, request: Salus_V1_ListPluginsRequest())
        #expect(try AdminJSON.text(plugins: listing) == (try raw.jsonString(options: options)))
        await admin.close()
    }

    @Test("createBackup streams progress, then the archive's size and bytes adding up to it, then the manifest; the archive verifies with the saved samples")
    func backup() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        let app = try await server.app("org.example.phone")
        _ = try await Authz.save(app, (0..<5).map { Authz.sample(value: Double($0 + 1), start: 1_700_000_000_000_000 + Int64($0) * 60_000_000) })
        let admin = AdminClient(rpc: try await server.owner(clientName: "salusctl"))
        var events: [BackupEvent] = []
        var archive = Data()
        var size: UInt64?
        var manifest: String?
        for try await event in admin.createBackup() {
            events.append(event)
            switch event {
            case .progress: #expect(size == nil, "progress after the archive started")
            case .size(let bytes): size = bytes
            case .data(let data):
                #expect(size != nil, "bytes before the size")
                #expect(manifest == nil)
                archive.append(data)
            case .manifest(let json): manifest = json
            }
        }
        #expect(events.contains { if case .progress = $0 { true } else { false } })
        #expect(UInt64(archive.count) == size)
        let last = try #require(events.last)
        guard case .manifest = last else { Issue.record("the last event is \(last), not the manifest"); return }
        let path = server.directory.appendingPathComponent("backup.zip")
        try archive.write(to: path)
        let verified = try BackupArchive.verify(archivePath: path.path, into: server.directory.appendingPathComponent("check").path)
        #expect(verified.samplesPerType[Authz.steps] == 5, "\(verified.samplesPerType)")
        await app.close()
        await admin.close()
    }
}
