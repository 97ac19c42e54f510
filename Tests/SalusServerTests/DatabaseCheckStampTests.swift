import Foundation
import SalusStore
import Testing

@testable import SalusServer

/// The start's damaged-file check and the stamp that spares it a file salusd closed cleanly.
@Suite("The database check at start")
struct DatabaseCheckStampTests {
    /// A data folder with a small database closed cleanly; (folder, path).
    static func folder() throws -> (String, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("check-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/salus.sqlite"
        let database = try Database(path: path)
        try database.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);")
        database.close()
        return (folder, path)
    }

    @Test("a file closed cleanly and unchanged is not checked again; each start uses the stamp up")
    func unchangedIsSkipped() throws {
        let (folder, path) = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        // No stamp: checked.
        #expect(try DamagedDatabaseCheck.run(paths: [path], dataDirectory: folder) == [path])
        #expect(DatabaseCheckStamp.write(dataDirectory: folder, paths: [path, folder + "/absent.sqlite"]) == [path])
        #expect(FileManager.default.fileExists(atPath: folder + "/" + DatabaseCheckStamp.fileName))
        #expect(try DamagedDatabaseCheck.run(paths: [path], dataDirectory: folder) == [])
        // The start removed the stamp (the daemon writes next): the one after checks again.
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + DatabaseCheckStamp.fileName))
        #expect(try DamagedDatabaseCheck.run(paths: [path], dataDirectory: folder) == [path])
    }

    @Test("a file changed after its stamp (time, content, a copy in its place) is checked, and damage found")
    func changedIsChecked() throws {
        let (folder, path) = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        DatabaseCheckStamp.write(dataDirectory: folder, paths: [path])
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: path)
        #expect(try DamagedDatabaseCheck.run(paths: [path], dataDirectory: folder) == [path])

        // Same size, same time, another file: a copy put in its place.
        DatabaseCheckStamp.write(dataDirectory: folder, paths: [path])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        let copy = folder + "/copy.sqlite"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: copy, toPath: path)
        try FileManager.default.setAttributes([.modificationDate: attributes[.modificationDate]!], ofItemAtPath: path)
        #expect(try DamagedDatabaseCheck.run(paths: [path], dataDirectory: folder) == [path])

        // Damaged after its stamp: the check runs and refuses it.
        DatabaseCheckStamp.write(dataDirectory: folder, paths: [path])
        // File times move with the kernel's coarse clock (a few milliseconds): a write in the
        // same tick as the stamp would keep the time it recorded.
        Thread.sleep(forTimeInterval: 0.05)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for offset in 4096..<(4096 + 64) { bytes[offset] = 0xA5 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: DaemonError.self) { try DamagedDatabaseCheck.run(paths: [path], dataDirectory: folder) }
        #expect(error?.description.contains("the database \(path) is damaged") == true, "\(String(describing: error))")
    }

    @Test("a file with a WAL beside it (a crash, or still open) is not stamped, and is checked")
    func walIsChecked() throws {
        let (folder, path) = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        DatabaseCheckStamp.write(dataDirectory: folder, paths: [path])
        let open = try Database(path: path)
        try open.execute("INSERT INTO t VALUES (4)")
        #expect((try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0) > 0)
        #expect(try DamagedDatabaseCheck.run(paths: [path], dataDirectory: folder) == [path])
        #expect(DatabaseCheckStamp.write(dataDirectory: folder, paths: [path]) == [])
        #expect(!FileManager.default.fileExists(atPath: folder + "/" + DatabaseCheckStamp.fileName))
        open.close()
    }
}
