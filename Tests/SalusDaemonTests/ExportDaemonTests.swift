import Foundation
import SalusProto
import SalusRPC
import Testing

/// `salusctl export` in the formats other tools read, against running daemons: what the zip holds
/// and its way back in go through the command line and the files, as a person would use them.
@Suite("salusctl export on a running daemon")
struct ExportDaemonTests {
    @Test("--format apple-health writes apple_health_export/export.xml in a zip that salusctl import reads back, once")
    func appleHealthZip() async throws {
        let source = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let fixture = ImportDaemonTests.fixtures.appendingPathComponent("alxdrcirilo-apple-health-parser/export.zip")
        let imported = try await StatisticsDaemonTests.salusctl(source, ["import", fixture.path])
        try #require(imported.status == 0, "\(imported.output)")
        let types = Array(try ImportDaemonTests.recordCounts(
            ImportDaemonTests.fixtures.appendingPathComponent("alxdrcirilo-apple-health-parser/export.xml")).keys)
        let expected = try await ImportResumeTests.counts(source, types: types)

        let directory = try DaemonHarness.makeTemporaryDirectory(prefix: "export")
        let zip = directory.appendingPathComponent("export.zip")
        let exported = try await StatisticsDaemonTests.salusctl(source, ["export", "--format", "apple-health", "--output", zip.path])
        #expect(exported.status == 0 && exported.output.contains("exported \(expected.values.reduce(0, +)) samples"), "\(exported.output)")
        let listing = try String(contentsOf: zip, encoding: .isoLatin1)
        #expect(listing.contains("apple_health_export/export.xml"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["export.zip"], "the staged export.xml is removed")

        let target = try await DaemonHarness.start(arguments: ["--dev"], bundledPlugins: true)
        let first = try await StatisticsDaemonTests.salusctl(target, ["import", zip.path])
        #expect(first.status == 0 && first.output.contains("\(expected.values.reduce(0, +)) samples saved"), "\(first.output)")
        #expect(try await ImportResumeTests.counts(target, types: types) == expected)
        let again = try await StatisticsDaemonTests.salusctl(target, ["import", zip.path])
        #expect(again.status == 0 && again.output.contains("0 samples saved"), "\(again.output)")
        _ = try await target.stop()
        _ = try await source.stop()
    }
}
