import Foundation
import SalusStore
import Testing

/// Folders and files for health data are private from their first instant, whatever the umask,
/// and never reuse what someone else put at the name.
@Suite("Private folders and files")
struct PrivateFilesTests {
    static func mode(_ path: String) -> Int {
        var status = stat()
        guard lstat(path, &status) == 0 else { return -1 }
        return Int(status.st_mode & 0o7777)
    }

    /// A fresh folder for one test, removed by the caller.
    static func scratch() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("private-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("under umask 022 (and 0), a folder is made 0700 and a file 0600 by the call that creates them", arguments: [0o022, 0o000, 0o277])
    func modesFromCreation(mask: Int) throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let previous = umask(mode_t(mask))
        defer { umask(previous) }
        try PrivateFiles.makeFolder(folder + "/made")
        #expect(Self.mode(folder + "/made") == 0o700)
        let temporary = try PrivateFiles.makeTemporaryFolder(prefix: "salus-verify-", in: folder)
        #expect(Self.mode(temporary) == 0o700)
        #expect((temporary as NSString).lastPathComponent.hasPrefix("salus-verify-"))
        let descriptor = try PrivateFiles.createFile(folder + "/made/file")
        #expect(Self.mode(folder + "/made/file") == 0o600)
        close(descriptor)
        try PrivateFiles.write(Data("heart rate".utf8), to: folder + "/written")
        #expect(Self.mode(folder + "/written") == 0o600)
        try PrivateFiles.write(Data("replaced".utf8), to: folder + "/written", replacing: true)
        #expect(Self.mode(folder + "/written") == 0o600)
        #expect(FileManager.default.contents(atPath: folder + "/written") == Data("replaced".utf8))
    }

    @Test("a file, a folder or a link already at the name is refused naming it, and nothing is written through a link")
    func existingNamesRefused() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data("theirs".utf8).write(to: URL(fileURLWithPath: folder + "/target"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: folder + "/target")
        #expect {
            _ = try PrivateFiles.createFile(folder + "/link")
        } throws: { error in
            "\(error)".contains(folder + "/link") && "\(error)".contains("already exists")
        }
        #expect(throws: PrivateFileError.self) { try PrivateFiles.write(Data("mine".utf8), to: folder + "/target") }
        #expect(throws: PrivateFileError.self) { try PrivateFiles.makeFolder(folder + "/link") }
        #expect(throws: PrivateFileError.self) { try PrivateFiles.makeFolder(folder + "/target") }
        #expect(FileManager.default.contents(atPath: folder + "/target") == Data("theirs".utf8))
    }
}
