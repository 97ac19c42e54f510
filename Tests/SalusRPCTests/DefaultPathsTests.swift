import Foundation
import SalusRPC
import Testing

@Suite("Default paths")
struct DefaultPathsTests {
    /// A fresh folder under the temporary folder, removed by the caller.
    private func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("salus-paths-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("an installed salusd finds the plugins in <prefix>/lib/salus/plugins")
    func installedPlugins() throws {
        let prefix = try makeFolder()
        defer { try? FileManager.default.removeItem(at: prefix) }
        let plugins = prefix.appendingPathComponent("lib/salus/plugins", isDirectory: true)
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        let executable = prefix.appendingPathComponent("bin/salusd").path
        #expect(DefaultPaths.installPrefix(executable: executable) == prefix.path)
        #expect(DefaultPaths.pluginDirectories(executable: executable) == [plugins.path])
    }

    @Test("a salusd in a build folder without lib/salus/plugins loads no default folder")
    func buildFolder() throws {
        let root = try makeFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("debug"), withIntermediateDirectories: true)
        #expect(DefaultPaths.pluginDirectories(executable: root.appendingPathComponent("debug/salusd").path).isEmpty)
        #expect(DefaultPaths.pluginDirectories(executable: nil).isEmpty)
    }

    @Test("a file where the plugins folder should be is not taken for it")
    func fileInstead() throws {
        let prefix = try makeFolder()
        defer { try? FileManager.default.removeItem(at: prefix) }
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("lib/salus"), withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: prefix.appendingPathComponent("lib/salus/plugins").path, contents: Data()))
        #expect(DefaultPaths.pluginDirectories(executable: prefix.appendingPathComponent("bin/salusd").path).isEmpty)
    }

    @Test("the running executable is an absolute path that exists")
    func currentExecutable() throws {
        let path = try #require(DefaultPaths.currentExecutable())
        #expect(path.hasPrefix("/"))
        #expect(FileManager.default.isExecutableFile(atPath: path))
    }
}
