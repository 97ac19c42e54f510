import Foundation
import Testing

@Suite("salusd with plugins, as the owner sees it")
struct PluginDaemonTests {
    /// A folder with the twelve bundled plugins, and `extra` files copied in beside them.
    static func pluginFolder(extra: [URL] = []) throws -> URL {
        let folder = try DaemonHarness.makeTemporaryDirectory(prefix: "salus-plugins")
        for name in DaemonHarness.bundled {
            let library = DaemonHarness.binDirectory.appendingPathComponent("lib\(name).so")
            try FileManager.default.copyItem(at: library, to: folder.appendingPathComponent(library.lastPathComponent))
        }
        for file in extra {
            try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent(file.lastPathComponent))
        }
        return folder
    }

    static let notALibrary = DaemonHarness.packageRoot.appendingPathComponent("Tests/Fixtures/plugins/refused-not-a-library.so")

    @Test("salusctl plugins and types list all twelve bundled plugins with HealthKit raw values; a bad file is refused by name")
    func listing() async throws {
        let folder = try Self.pluginFolder(extra: [Self.notALibrary])
        defer { try? FileManager.default.removeItem(at: folder) }
        let daemon = try await DaemonHarness.start(arguments: ["--plugins-dir", folder.path])
        let salusctl = DaemonHarness.binary("salusctl")

        let plugins = try await DaemonHarness.run(salusctl, ["plugins", "--admin-socket", daemon.adminSocketPath])
        #expect(plugins.status == 0, "\(plugins.output)")
        for id in ["org.salus.core", "org.salus.sleep", "org.salus.reproductive", "org.salus.mobility", "org.salus.vision", "org.salus.wheelchair"] {
            #expect(plugins.output.contains(id), "\(id) missing from:\n\(plugins.output)")
        }
        #expect(plugins.output.contains("refused-not-a-library.so"))

        let types = try await DaemonHarness.run(salusctl, ["types", "--json", "--admin-socket", daemon.adminSocketPath])
        #expect(types.status == 0, "\(types.output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(types.output.utf8)) as? [String: Any])
        let entries = try #require(json["types"] as? [[String: Any]])
        let definitions = entries.compactMap { $0["definition"] as? [String: Any] }
        func type(_ identifier: String) -> [String: Any]? {
            definitions.first { $0["identifier"] as? String == identifier }
        }
        let sleep = try #require(type("HKCategoryTypeIdentifierSleepAnalysis"))
        let cases = (sleep["cases"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0["rawValue"] as? Int ?? 0) }
        #expect(cases.contains { $0 == ("inBed", 0) })
        #expect(cases.contains { $0 == ("asleepREM", 5) })
        #expect(cases.contains { $0 == ("asleepDeep", 4) })
        #expect(type("HKQuantityTypeIdentifierStepCount") != nil)
        #expect(type("HKQuantityTypeIdentifierDistanceWheelchair") != nil)
        #expect(type("HKQuantityTypeIdentifierSixMinuteWalkTestDistance") != nil)
        #expect(type("HKCategoryTypeIdentifierMenstrualFlow") != nil)

        let table = try await DaemonHarness.run(salusctl, ["types", "--admin-socket", daemon.adminSocketPath])
        #expect(table.output.contains("asleepREM 5"))
        #expect(try await daemon.stop() == 0)
        #expect(daemon.output.contains("refused-not-a-library.so"))
    }

    @Test("salusd --check-plugins: exit 0 for the bundled plugins, non-zero naming a refused file")
    func checkPlugins() async throws {
        let clean = try Self.pluginFolder()
        let dirty = try Self.pluginFolder(extra: [Self.notALibrary])
        defer {
            try? FileManager.default.removeItem(at: clean)
            try? FileManager.default.removeItem(at: dirty)
        }
        let salusd = DaemonHarness.binary("salusd")
        let good = try await DaemonHarness.run(salusd, ["--check-plugins", clean.path])
        #expect(good.status == 0, "\(good.output)")
        let bad = try await DaemonHarness.run(salusd, ["--check-plugins", dirty.path])
        #expect(bad.status != 0)
        #expect(bad.output.contains("refused-not-a-library.so"))
    }
}
