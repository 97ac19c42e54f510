import Foundation
import SalusModel
import SalusProto
import SalusRPC
import SalusTestSupport
import Testing

/// What the store accepts it can give back: a sample's metadata and its sync identifier are
/// bounded at the save and the import, so that no accepted sample is larger than a page's frame
/// can carry (docs/protocol.md section 12).
@Suite("salus.v1.Store: metadata and sync identifier sizes")
struct MetadataLimitTests {
    static let steps = StoreServiceTests.steps
    static let syncIdentifier = MetadataKey.syncIdentifier
    static let syncVersion = MetadataKey.syncVersion
    static let metadataLimit = 256 << 10
    static let identifierLimit = 1_024


    @Test("a sync identifier or metadata over its limit is refused naming the field, its size and the limit; nothing is saved")
    func refused() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        defer { Task { await server.stop() } }
        let client = try await StoreServiceTests.app(server, "org.example.large")
        let start: Int64 = 1_700_000_000_000_000
        let longIdentifier = StoreServiceTests.stepSample(
            1, start: start,
            metadata: [
                Self.syncIdentifier: StoreServiceTests.string(String(repeating: "i", count: Self.identifierLimit + 1)),
                Self.syncVersion: StoreServiceTests.number(1),
            ])
        let identifierError = try #require(
            await Authz.error {
                let _: Salus_V1_SaveResponse = try await client.unary(
                    StoreServiceTests.save, request: StoreServiceTests.saveRequest([longIdentifier]))
            })
        #expect(identifierError.code == .invalidArgument, "\(identifierError)")
        #expect(identifierError.detail?.field == "samples[0].metadata.\(Self.syncIdentifier)", "\(identifierError)")
        #expect(identifierError.detail?.value == "\(Self.identifierLimit + 1) bytes", "\(identifierError)")
        #expect(identifierError.detail?.expected.contains("at most \(Self.identifierLimit) bytes") == true, "\(identifierError)")

        // One note alone past the limit is named; many notes together name the metadata.
        let key = "org.example.note"
        let oneNote = StoreServiceTests.stepSample(
            2, start: start, metadata: [key: StoreServiceTests.string(String(repeating: "n", count: Self.metadataLimit))])
        let noteError = try #require(
            await Authz.error {
                let _: Salus_V1_SaveResponse = try await client.unary(
                    StoreServiceTests.save, request: StoreServiceTests.saveRequest([oneNote]))
            })
        #expect(noteError.code == .invalidArgument && noteError.detail?.field == "samples[0].metadata.\(key)", "\(noteError)")
        #expect(noteError.detail?.value == "\(Self.metadataLimit + key.utf8.count) bytes", "\(noteError)")
        #expect(noteError.detail?.expected.contains("at most \(Self.metadataLimit) bytes") == true, "\(noteError)")
        var notes: [String: Salus_V1_MetadataValue] = [:]
        for index in 0..<4 { notes["org.example.note\(index)"] = StoreServiceTests.string(String(repeating: "n", count: 70_000)) }
        let manyNotes = StoreServiceTests.stepSample(3, start: start, metadata: notes)
        let notesError = try #require(
            await Authz.error {
                let _: Salus_V1_SaveResponse = try await client.unary(
                    StoreServiceTests.save, request: StoreServiceTests.saveRequest([manyNotes]))
            })
        #expect(notesError.detail?.field == "samples[0].metadata" && notesError.detail?.value == "\(4 * (70_000 + 17)) bytes in 4 entries", "\(notesError)")
        #expect(try await StoreServiceTests.all(client).isEmpty)
    }

    @Test("a sync identifier and metadata exactly at their limits come back whole from a sample query, an anchored query and its deletion")
    func atTheLimits() async throws {
        let server = try await ServerHarness.start(openAuthorization: true)
        defer { Task { await server.stop() } }
        let client = try await StoreServiceTests.app(server, "org.example.large")
        let identifier = String(repeating: "i", count: Self.identifierLimit)
        let key = "org.example.note"
        // Keys and values together: the two sync keys (the version a number, 8 bytes) and the note.
        let used = Self.syncIdentifier.utf8.count + identifier.utf8.count + Self.syncVersion.utf8.count + 8 + key.utf8.count
        let note = String(repeating: "n", count: Self.metadataLimit - used)
        let sample = StoreServiceTests.stepSample(
            7, start: 1_700_000_000_000_000,
            metadata: [
                Self.syncIdentifier: StoreServiceTests.string(identifier), Self.syncVersion: StoreServiceTests.number(1),
                key: StoreServiceTests.string(note),
            ])
        let saved: Salus_V1_SaveResponse = try await client.unary(
            StoreServiceTests.save, request: StoreServiceTests.saveRequest([sample]))
        #expect(saved.results.map(\.outcome) == [.saved])
        let samples = try await StoreServiceTests.all(client)
        #expect(samples.count == 1)
        #expect(samples.first?.metadata[key]?.stringValue == note)
        #expect(samples.first?.metadata[Self.syncIdentifier]?.stringValue == identifier)
        let added = try await Authz.anchored(client).flatMap(\.added)
        #expect(added.map(\.uuid) == saved.results.map(\.uuid))
        #expect(added.first?.metadata[key]?.stringValue == note)

        _ = try await Authz.delete(client, saved.results[0].uuid)
        let deleted = try await Authz.anchored(client).flatMap(\.deleted)
        #expect(deleted.map(\.uuid) == saved.results.map(\.uuid))
        #expect(deleted.first?.metadata[Self.syncIdentifier]?.stringValue == identifier)
    }

    @Test("an imported record whose metadata passes the limit is a problem naming the field and the limit, and is not saved; the export's other records are")
    func importRefused() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let owner = try await server.owner()
        // Five entries of 900 KB: each attribute is under the reader's 1 MiB, the record 4.5 MB,
        // more than one frame could carry back.
        let entries = (0..<5).map { "<MetadataEntry key=\"org.example.note\($0)\" value=\"\(String(repeating: "n", count: 900_000))\"/>" }
        let export = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2026-03-01 10:00:00 -0500"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="10" startDate="2026-02-01 10:00:00 -0500" endDate="2026-02-01 10:01:00 -0500">
              \(entries.joined(separator: "\n  "))
             </Record>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="20" startDate="2026-02-01 10:01:00 -0500" endDate="2026-02-01 10:02:00 -0500"/>
            </HealthData>
            """.utf8)
        let report = try await ImportServiceTests.importExport(owner, export, chunk: 1 << 20)
        #expect(report.saved == 1 && report.skipped == 1, "\(report.saved) saved, \(report.skipped) skipped")
        let problem = report.problems.first
        #expect(problem?.field.contains("metadata") == true, "\(problem as Any)")
        #expect(problem?.expected.contains("at most \(Self.metadataLimit) bytes") == true, "\(problem as Any)")
        // The metadata's size is the only refusal: the identity that repeats it is named by its
        // digest, within the sync identifier's limit (longIdentityNamedByDigest).
        #expect(report.problems.count == 1 && problem?.field.contains(Self.syncIdentifier) == false, "\(report.problems)")
        // Everything the import saved reads back.
        let samples = try await ImportServiceTests.samples(owner, Self.steps)
        #expect(samples.map(\.quantity.value) == [20])
    }

    @Test("an imported record without a sync identifier of its own whose identity would pass 1,024 bytes is named by a digest of it: saved once, however often imported; a shorter identity keeps its readable form")
    func longIdentityNamedByDigest() async throws {
        let server = try await ServerHarness.start()
        defer { Task { await server.stop() } }
        let owner = try await server.owner()
        // About 2,000 bytes of metadata, far under the metadata limit: the identity repeats it.
        let note = String(repeating: "n", count: 2_000)
        let export = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <HealthData locale="en_US">
             <ExportDate value="2026-03-01 10:00:00 -0500"/>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="10" startDate="2026-02-01 10:00:00 -0500" endDate="2026-02-01 10:01:00 -0500">
              <MetadataEntry key="org.example.note" value="\(note)"/>
             </Record>
             <Record type="HKQuantityTypeIdentifierStepCount" sourceName="Phone" unit="count" value="20" startDate="2026-02-01 10:01:00 -0500" endDate="2026-02-01 10:02:00 -0500">
              <MetadataEntry key="org.example.note" value="short"/>
             </Record>
            </HealthData>
            """.utf8)
        let report = try await ImportServiceTests.importExport(owner, export)
        #expect(report.saved == 2 && report.skipped == 0 && report.keptExisting == 0, "\(report)")
        let samples = try await ImportServiceTests.samples(owner, Self.steps).sorted { $0.quantity.value < $1.quantity.value }
        #expect(samples.map(\.quantity.value) == [10, 20])
        let long = samples.first?.metadata[Self.syncIdentifier]?.stringValue ?? ""
        #expect(long.hasPrefix("applehealth:v2|sha256:"), "\(long.prefix(80))")
        #expect(long.utf8.count <= Self.identifierLimit && long.utf8.count == "applehealth:v2|sha256:".utf8.count + 64, "\(long.utf8.count) bytes")
        #expect(long.dropFirst("applehealth:v2|sha256:".count).allSatisfy { "0123456789abcdef".contains($0) })
        #expect(samples.first?.metadata["org.example.note"]?.stringValue == note)
        // 2026-02-01 15:00Z to 15:01Z and 15:01Z to 15:02Z, in microseconds.
        let short = samples.last?.metadata[Self.syncIdentifier]?.stringValue ?? ""
        #expect(short == "applehealth:v2|1769958060000000|1769958120000000|20 count|org.example.note=short", "\(short)")

        let again = try await ImportServiceTests.importExport(owner, export)
        #expect(again.saved == 0 && again.keptExisting == 2 && again.skipped == 0, "\(again)")
        #expect(try await ImportServiceTests.samples(owner, Self.steps).count == 2)
    }
}
